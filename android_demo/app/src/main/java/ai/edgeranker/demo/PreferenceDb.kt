package ai.edgeranker.demo

import ai.edgeranker.core.Interests
import android.content.ContentValues
import android.content.Context
import android.database.sqlite.SQLiteDatabase
import android.database.sqlite.SQLiteOpenHelper
import java.nio.ByteBuffer
import java.nio.ByteOrder

/**
 * Likes and dislikes in the app's private SQLite database (WAL); interests are rebuilt from them on start. Deleted
 * rows are overwritten (secure_delete), as the Python store does, whatever the platform's SQLite defaults to.
 */
class PreferenceDb(context: Context) : SQLiteOpenHelper(context, "preferences.sqlite", null, 3) {
    override fun onConfigure(db: SQLiteDatabase) {
        db.enableWriteAheadLogging()
        pragma(db, "secure_delete=ON")
    }

    /** A PRAGMA that answers with a row: Android's execSQL refuses statements that return data. */
    private fun pragma(db: SQLiteDatabase, sql: String): Int =
        db.rawQuery("PRAGMA $sql", null).use { if (it.moveToFirst()) it.getInt(0) else 0 }

    override fun onCreate(db: SQLiteDatabase) {
        db.execSQL(
            "CREATE TABLE feedback (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, " +
                "embedding BLOB NOT NULL, reaction TEXT NOT NULL, ts REAL NOT NULL, text TEXT, model TEXT)"
        )
    }

    /**
     * Version 2 keeps each reaction's text, version 3 the key of the models that embedded it (Ranker.modelKey), so an
     * app update whose models or interest weights embed otherwise re-embeds it.
     */
    override fun onUpgrade(db: SQLiteDatabase, oldVersion: Int, newVersion: Int) {
        if (oldVersion < 2) db.execSQL("ALTER TABLE feedback ADD COLUMN text TEXT")
        if (oldVersion < 3) db.execSQL("ALTER TABLE feedback ADD COLUMN model TEXT")
    }

    fun add(docId: String, text: String, embedding: FloatArray, like: Boolean, ts: Double, model: String) {
        writableDatabase.insert("feedback", null, ContentValues().apply {
            put("doc_id", docId); put("text", text); put("embedding", bytes(embedding)); put("model", model)
            put("reaction", if (like) "like" else "dislike"); put("ts", ts)
        })
    }

    private fun bytes(v: FloatArray): ByteArray {
        val buf = ByteBuffer.allocate(v.size * 4).order(ByteOrder.LITTLE_ENDIAN)
        v.forEach { buf.putFloat(it) }
        return buf.array()
    }

    /**
     * Rebuilds the interests. A vector stored under another model key than [model] (an earlier release, other
     * models or other interest weights) is made again by [embed] from the reaction's text, or the document's, and
     * stored under [model]; a reaction with neither, or one [embed] declines (a text the models cannot learn from),
     * is left out and kept as it is.
     */
    fun replay(into: Interests, model: String, embed: (docId: String, text: String?) -> FloatArray?) {
        val db = writableDatabase
        val sql = "SELECT embedding, reaction, ts, doc_id, text, model, id FROM feedback ORDER BY id"
        db.beginTransaction()  // one commit for every re-embedded row, not one each
        try {
            db.rawQuery(sql, null).use { c ->
                while (c.moveToNext()) {
                    val text = if (c.isNull(4)) null else c.getString(4)
                    val v = if (!c.isNull(5) && c.getString(5) == model) {
                        val b = ByteBuffer.wrap(c.getBlob(0)).order(ByteOrder.LITTLE_ENDIAN)
                        FloatArray(b.remaining() / 4) { b.getFloat() }
                    } else {
                        embed(c.getString(3), text)?.also { fresh ->
                            db.update("feedback", ContentValues().apply {
                                put("embedding", bytes(fresh)); put("model", model)
                            }, "id = ?", arrayOf(c.getLong(6).toString()))
                        }
                    }
                    if (v != null) into.feedback(text ?: c.getString(3), v, c.getString(1) == "like", c.getDouble(2))
                }
            }
            db.setTransactionSuccessful()
        } finally {
            db.endTransaction()
        }
    }

    /**
     * "Forget me": deletes every reaction, rebuilds the file without their pages (VACUUM) and empties the WAL, as the
     * Python store's forget does, so no liked text stays in free pages or old WAL frames. Returns false when another
     * connection still reads the database and old copies remain in its files; calling it again finishes the job.
     */
    fun forget(): Boolean {
        val db = writableDatabase
        db.delete("feedback", null, null)
        db.execSQL("VACUUM")
        return pragma(db, "wal_checkpoint(TRUNCATE)") == 0
    }
}
