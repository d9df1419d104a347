package ai.edgeranker.demo

import ai.edgeranker.core.Interests
import android.content.ContentValues
import android.content.Context
import android.database.sqlite.SQLiteDatabase
import android.database.sqlite.SQLiteOpenHelper
import java.nio.ByteBuffer
import java.nio.ByteOrder

/** Likes and dislikes in the app's private SQLite database (WAL); interests are rebuilt from them on start. */
class PreferenceDb(context: Context) : SQLiteOpenHelper(context, "preferences.sqlite", null, 2) {
    override fun onConfigure(db: SQLiteDatabase) = db.enableWriteAheadLogging().let { }

    override fun onCreate(db: SQLiteDatabase) {
        db.execSQL(
            "CREATE TABLE feedback (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, " +
                "embedding BLOB NOT NULL, reaction TEXT NOT NULL, ts REAL NOT NULL, text TEXT)"
        )
    }

    /** Version 2 keeps each reaction's text, so an app update whose models embed otherwise re-embeds it. */
    override fun onUpgrade(db: SQLiteDatabase, oldVersion: Int, newVersion: Int) {
        if (oldVersion < 2) db.execSQL("ALTER TABLE feedback ADD COLUMN text TEXT")
    }

    fun add(docId: String, text: String, embedding: FloatArray, like: Boolean, ts: Double) {
        val buf = ByteBuffer.allocate(embedding.size * 4).order(ByteOrder.LITTLE_ENDIAN)
        embedding.forEach { buf.putFloat(it) }
        writableDatabase.insert("feedback", null, ContentValues().apply {
            put("doc_id", docId); put("text", text); put("embedding", buf.array())
            put("reaction", if (like) "like" else "dislike"); put("ts", ts)
        })
    }

    /**
     * Rebuilds the interests. A stored vector of another size than the models' now (an earlier release) is made
     * again by [embed] from the reaction's text, or the document's; a reaction with neither is left out.
     */
    fun replay(into: Interests, size: Int, embed: (docId: String, text: String?) -> FloatArray?) {
        val sql = "SELECT embedding, reaction, ts, doc_id, text FROM feedback ORDER BY id"
        readableDatabase.rawQuery(sql, null).use { c ->
            while (c.moveToNext()) {
                val b = ByteBuffer.wrap(c.getBlob(0)).order(ByteOrder.LITTLE_ENDIAN)
                val stored = FloatArray(b.remaining() / 4) { b.getFloat() }
                val text = if (c.isNull(4)) null else c.getString(4)
                val v = if (stored.size == size) stored else embed(c.getString(3), text)
                if (v != null) into.feedback(v, c.getString(1) == "like", c.getDouble(2))
            }
        }
    }

    fun forget() = writableDatabase.execSQL("DELETE FROM feedback")
}
