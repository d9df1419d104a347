package ai.edgeranker.demo

import ai.edgeranker.core.WordPieceTokenizer
import ai.onnxruntime.OnnxTensor
import ai.onnxruntime.OrtEnvironment
import ai.onnxruntime.OrtSession
import android.content.Context
import org.json.JSONObject
import java.nio.LongBuffer

/** The Android twin of edge_ranker.runtime.Encoder: same tokenizer, same ONNX graph, unit vectors out. */
class OnnxEncoder(context: Context, folder: String) : AutoCloseable {
    private val env = OrtEnvironment.getEnvironment()
    private val manifest = JSONObject(context.assets.open("$folder/manifest.json").bufferedReader().readText())
    private val maxLength = manifest.getInt("max_length")
    private val prefixes = manifest.optJSONObject("prefixes") ?: JSONObject()
    private val tokenizer: WordPieceTokenizer
    private val session: OrtSession

    init {
        val vocab = context.assets.open("$folder/vocab.txt").bufferedReader().readLines()
        tokenizer = WordPieceTokenizer(vocab, maxLength)
        val model = context.assets.open("$folder/${manifest.getString("onnx")}").readBytes()
        session = env.createSession(model, OrtSession.SessionOptions().apply { setIntraOpNumThreads(1) })
    }

    fun encode(text: String, role: String? = null): FloatArray {
        val prefix = if (role != null) prefixes.optString(role, "") else ""
        val ids = tokenizer.encode(text, prefix).map { it.toLong() }.toLongArray()
        val shape = longArrayOf(1, ids.size.toLong())
        OnnxTensor.createTensor(env, LongBuffer.wrap(ids), shape).use { input ->
            OnnxTensor.createTensor(env, LongBuffer.wrap(LongArray(ids.size) { 1L }), shape).use { mask ->
                session.run(mapOf("input_ids" to input, "attention_mask" to mask)).use { out ->
                    @Suppress("UNCHECKED_CAST")
                    return (out[0].value as Array<FloatArray>)[0]
                }
            }
        }
    }

    override fun close() = session.close()
}
