package ai.edgeranker.demo

import ai.edgeranker.core.Fusion
import ai.edgeranker.core.Interests
import ai.edgeranker.core.Lexical
import android.app.Activity
import android.os.Bundle
import android.view.inputmethod.EditorInfo
import android.widget.Button
import android.widget.EditText
import android.widget.LinearLayout
import android.widget.ScrollView
import android.widget.TextView
import org.json.JSONObject

/** A small feed ranked on the phone by the same models and algorithm as the Python runtime. */
class MainActivity : Activity() {
    private data class Doc(
        val id: String, val text: String, val sem: FloatArray, val rel: FloatArray,
        val terms: Map<String, Int> = Lexical.counts(Lexical.terms(text)),
    )

    private lateinit var semantic: OnnxEncoder
    private lateinit var relevance: OnnxEncoder
    private lateinit var db: PreferenceDb
    private lateinit var docs: List<Doc>
    private lateinit var list: LinearLayout
    private lateinit var query: EditText
    private val interests = Interests(Interests.Config())

    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        semantic = OnnxEncoder(this, "semantic")
        relevance = OnnxEncoder(this, "relevance")
        db = PreferenceDb(this).also { it.replay(interests) }
        docs = assets.open("feed.jsonl").bufferedReader().readLines().filter { it.isNotBlank() }.map {
            val o = JSONObject(it)
            val text = o.getString("text")
            Doc(o.getString("id"), text, semantic.encode(text), relevance.encode(text, "passage"))
        }
        query = EditText(this).apply {
            hint = "search (optional)"
            imeOptions = EditorInfo.IME_ACTION_SEARCH
            setOnEditorActionListener { _, _, _ -> render(); true }
        }
        list = LinearLayout(this).apply { orientation = LinearLayout.VERTICAL }
        val root = LinearLayout(this).apply {
            orientation = LinearLayout.VERTICAL
            addView(query)
            addView(Button(context).apply { text = "forget me"; setOnClickListener { db.forget(); recreate() } })
            addView(ScrollView(context).apply { addView(list) })
        }
        setContentView(root)
        render()
    }

    private fun render() {
        val now = System.currentTimeMillis() / 1000.0
        val total = DoubleArray(docs.size)
        if (interests.active()) {
            val scores = interests.score(docs.map { it.sem }.toTypedArray(), now).map { it.score }
            Fusion.addContribution(total, scores.toDoubleArray(), 0.5, 60)
        }
        val q = query.text.toString().trim()
        if (q.isNotEmpty()) {
            val qv = relevance.encode(q, "query")
            val rel = docs.map { d -> d.rel.indices.sumOf { (d.rel[it] * qv[it]).toDouble() } }.toDoubleArray()
            val words = Lexical.bm25(Lexical.terms(q), docs.map { it.terms })
            Fusion.addContribution(total, Lexical.queryScores(rel, words, 1.0), 1.0, 60)
        }
        list.removeAllViews()
        for (i in Fusion.order(total)) {
            val d = docs[i]
            list.addView(LinearLayout(this).apply {
                orientation = LinearLayout.HORIZONTAL
                addView(Button(context).apply { text = "👍"; setOnClickListener { react(d, true) } })
                addView(Button(context).apply { text = "👎"; setOnClickListener { react(d, false) } })
                addView(TextView(context).apply { text = d.text; setPadding(16, 8, 16, 8) })
            })
        }
    }

    private fun react(d: Doc, like: Boolean) {
        val now = System.currentTimeMillis() / 1000.0
        db.add(d.id, d.sem, like, now)
        interests.feedback(d.sem, like, now)
        render()
    }

    override fun onDestroy() {
        semantic.close(); relevance.close(); db.close()
        super.onDestroy()
    }
}
