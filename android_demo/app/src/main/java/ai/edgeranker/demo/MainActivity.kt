package ai.edgeranker.demo

import ai.edgeranker.core.Encoder
import ai.edgeranker.core.Interests
import ai.edgeranker.core.Ranker
import android.app.Activity
import android.os.Bundle
import android.view.inputmethod.EditorInfo
import android.widget.Button
import android.widget.EditText
import android.widget.LinearLayout
import android.widget.ScrollView
import android.widget.TextView
import android.widget.Toast
import org.json.JSONObject
import java.util.concurrent.Executors

/**
 * A small feed ranked on the phone by the same models and algorithm as the Python runtime: the core's
 * Encoder runs the shipped model.onnx itself (plain Java, no ONNX Runtime) and its Ranker orders the feed.
 */
class MainActivity : Activity() {
    companion object {
        /**
         * Reading the models and re-embedding a stored history take seconds: never on the main thread. One worker
         * for the process, so a load started by a recreated activity (rotation, relaunch) waits for the one before
         * it instead of contending for the database's write lock.
         */
        private val worker = Executors.newSingleThreadExecutor()
    }

    private lateinit var ranker: Ranker
    private lateinit var db: PreferenceDb
    private lateinit var docs: List<Ranker.Document>
    private lateinit var list: LinearLayout
    private lateinit var query: EditText

    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        setContentView(TextView(this).apply { text = "Loading the models…"; setPadding(16, 16, 16, 16) })
        worker.execute {
            val interests = Interests(Interests.Config())
            val loaded = Ranker(encoder("semantic"), encoder("relevance"), interests)
            // no publication dates: a cold start shows the feed in file order
            val feed = assets.open("feed.jsonl").bufferedReader().readLines().filter { it.isNotBlank() }.map {
                val o = JSONObject(it)
                Ranker.Document(o.getString("id"), o.getString("text"), null)
            }
            val texts = feed.associate { it.id to it.text }
            val store = PreferenceDb(this)
            store.replay(interests, loaded.modelKey()) { id, text ->
                (text ?: texts[id])?.takeIf { loaded.learnable(it) }?.let { loaded.interestVector(it) }
            }
            runOnUiThread {
                if (isDestroyed) {
                    store.close()
                } else {
                    ranker = loaded
                    docs = feed
                    db = store
                    show()
                }
            }
        }
    }

    private fun show() {
        query = EditText(this).apply {
            hint = "search (optional)"
            imeOptions = EditorInfo.IME_ACTION_SEARCH
            setOnEditorActionListener { _, _, _ -> render(); true }
        }
        list = LinearLayout(this).apply { orientation = LinearLayout.VERTICAL }
        val root = LinearLayout(this).apply {
            orientation = LinearLayout.VERTICAL
            addView(query)
            addView(Button(context).apply { text = "forget me"; setOnClickListener { forget() } })
            addView(ScrollView(context).apply { addView(list) })
        }
        setContentView(root)
        render()
    }

    /** A model folder bundled as assets; Encoder checks each file against the manifest's sha256. */
    private fun encoder(folder: String): Encoder =
        Encoder.read { name -> assets.open("$folder/$name").use { it.readBytes() } }

    private fun render() {
        val now = System.currentTimeMillis() / 1000.0
        val byId = docs.associateBy { it.id }
        list.removeAllViews()
        for (r in ranker.rank(docs, query.text.toString(), now)) {
            val d = byId.getValue(r.id)
            list.addView(LinearLayout(this).apply {
                orientation = LinearLayout.HORIZONTAL
                addView(Button(context).apply { text = "👍"; setOnClickListener { react(d, true) } })
                addView(Button(context).apply { text = "👎"; setOnClickListener { react(d, false) } })
                addView(TextView(context).apply { text = d.text; setPadding(16, 8, 16, 8) })
            })
        }
    }

    private fun react(d: Ranker.Document, like: Boolean) {
        val now = System.currentTimeMillis() / 1000.0
        val vector = try {
            ranker.feedback(d.text, like, now)
        } catch (e: IllegalArgumentException) {  // a text without a word: nothing to learn an interest from
            Toast.makeText(this, e.message, Toast.LENGTH_SHORT).show()
            return
        }
        db.add(d.id, d.text, vector, like, now, ranker.modelKey())
        render()
    }

    private fun forget() {
        if (!db.forget()) Toast.makeText(applicationContext, R.string.forget_incomplete, Toast.LENGTH_LONG).show()
        recreate()
    }

    override fun onDestroy() {
        if (::db.isInitialized) db.close()  // a load still running closes its own when it finds the activity gone
        super.onDestroy()
    }
}
