package ai.edgeranker.demo

import ai.edgeranker.core.Interests
import android.content.ContentValues
import android.content.Context
import android.database.sqlite.SQLiteDatabase
import android.database.sqlite.SQLiteOpenHelper
import java.nio.ByteBuffer
import java.nio.ByteOrder

/** Likes and dislikes in the app's private SQLite database (WAL); interests are rebuilt from them on start. */
class PreferenceDb(context: Context) : SQLiteOpenHelper(context, "preferences.sqlite", null, 1) {
    override fun onConfigure(db: SQLiteDatabase) = db.enableWriteAheadLogging().let { }

    override fun onCreate(db: SQLiteDatabase) {
        db.execSQL(
            "CREATE TABLE feedback (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, " +
                "embedding BLOB NOT NULL, reaction TEXT NOT NULL, ts REAL NOT NULL)"
        )
    }

    override fun onUpgrade(db: SQLiteDatabase, oldVersion: Int, newVersion: Int) = Unit

    fun add(docId: String, embedding: FloatArray, like: Boolean, ts: Double) {
        val buf = ByteBuffer.allocate(embedding.size * 4).order(ByteOrder.LITTLE_ENDIAN)
        embedding.forEach { buf.putFloat(it) }
        writableDatabase.insert("feedback", null, ContentValues().apply {
            put("doc_id", docId); put("embedding", buf.array())
            put("reaction", if (like) "like" else "dislike"); put("ts", ts)
        })
    }

    fun replay(into: Interests) {
        readableDatabase.rawQuery("SELECT embedding, reaction, ts FROM feedback ORDER BY id", null).use { c ->
            while (c.moveToNext()) {
                val b = ByteBuffer.wrap(c.getBlob(0)).order(ByteOrder.LITTLE_ENDIAN)
                val v = FloatArray(b.remaining() / 4) { b.getFloat() }
                into.feedback(v, c.getString(1) == "like", c.getDouble(2))
            }
        }
    }

    fun forget() = writableDatabase.execSQL("DELETE FROM feedback")
}
