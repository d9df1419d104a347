package ai.edgeranker.core;

import java.util.ArrayList;
import java.util.List;

/**
 * The weights of a ForwardPass, found by following model.onnx's graph (OnnxWeights' nodes) from the ops the
 * exported graph of edge_ranker/runtime/encoder.py runs: the word table (int8 with per-row scales, or 4-bit codes two
 * to a byte with an fp16 scale per block), position and token-type tables, each layer's six MatMuls' int8 weights with
 * their scalar scales, biases, LayerNorms, the head size (the Reshape constant) and the attention scale, and for a
 * layer wider than the vectors the maps up from the table and back down after pooling. A graph that is not of this
 * shape, or whose sizes disagree with the manifest's, is refused in words that name the model.
 */
final class EncoderGraph {
    private final OnnxWeights g;
    private final String name;

    private EncoderGraph(OnnxWeights g, String name) {
        this.g = g;
        this.name = name;
    }

    /** The forward pass of model `name` (dim, maxLength: its manifest's; vocabSize: vocab.txt's tokens). */
    static ForwardPass match(OnnxWeights g, String name, int dim, int maxLength, int vocabSize) {
        return new EncoderGraph(g, name).forwardPass(dim, maxLength, vocabSize);
    }

    private ForwardPass forwardPass(int dim, int maxLength, int vocabSize) {
        ForwardPass.Words words = words(dim, vocabSize);
        ForwardPass.Dense up = map("/up/");
        ForwardPass.Dense down = map("/down/");
        int hidden = up == null ? dim : up.out;
        boolean mapped = up == null ? down == null
                : down != null && up.w.length == dim && down.w.length == hidden && down.out == dim;
        if (!mapped) {
            throw new IllegalArgumentException(name + ": a layer wider than the " + dim + "-d vectors needs a map up"
                    + " from the table and one back down, found up " + shape(up) + ", down " + shape(down));
        }
        OnnxWeights.Tensor positions = g.tensor(gatheredBy("/position_embeddings/"));
        OnnxWeights.Tensor types = g.tensor(gatheredBy("/token_type_embeddings/"));
        ForwardPass.Norm embeddingNorm = norm("/embeddings/LayerNorm/");
        if (positions.dims.length != 2 || positions.dims[1] != hidden || types.dims.length != 2
                || types.dims[1] != hidden || embeddingNorm.gamma.length != hidden) {
            throw new IllegalArgumentException(name + ": the position and token-type tables and the embeddings'"
                    + " LayerNorm must be " + hidden + " wide, as the layer is");
        }
        float[] position = positions.floats();
        if (position.length < (long) maxLength * hidden) {  // each window reads positions 0 to maxLength - 1
            throw new IllegalArgumentException(name + ": max_length " + maxLength + " is past the model's "
                    + position.length / hidden + " positions");
        }
        float[] tokenType = types.floats();
        return new ForwardPass(words, up, down, position, tokenType, embeddingNorm, layers(hidden));
    }

    /** The word table: its codes and their scales, both gathered by id, with a row for every vocabulary token. */
    private ForwardPass.Words words(int dim, int vocabSize) {
        OnnxWeights.Tensor q = null;
        OnnxWeights.Tensor s = null;
        for (OnnxWeights.Node n : g.nodes) {
            if (n.opType.equals("Gather") && n.inputs.get(1).equals("input_ids")) {
                OnnxWeights.Tensor t = g.tensor(n.inputs.get(0));
                if (t.dataType == OnnxWeights.INT8 || t.dataType == OnnxWeights.UINT8) {
                    q = t;
                } else {
                    s = t;
                }
            }
        }
        boolean packed = q != null && q.dataType == OnnxWeights.UINT8;
        boolean shaped = q != null && s != null && q.dims.length == 2 && s.dims.length == 2 && q.dims[0] == s.dims[0];
        if (shaped && q.dims[0] != vocabSize) {  // vocab.txt and the table disagree: ids would miss their rows
            throw new IllegalArgumentException(name + ": the word table has " + q.dims[0] + " rows but vocab.txt "
                    + vocabSize + " tokens: the files come from different models");
        }
        long width = shaped ? q.dims[1] * (packed ? 2L : 1L) : 0;  // two 4-bit codes a byte
        if (shaped && width != dim) {
            throw new IllegalArgumentException(name + ": the word table gives vectors of " + width
                    + " values, the manifest says dim=" + dim);
        }
        long blocks = shaped ? s.dims[1] : 0;
        boolean rows = shaped && !packed && blocks == 1 && s.dataType == OnnxWeights.FLOAT;
        boolean fp16Blocks = shaped && packed && blocks > 0 && dim % blocks == 0 && s.dataType == OnnxWeights.FLOAT16;
        if (!rows && !fp16Blocks) {
            throw new IllegalArgumentException(name + ": expected a word table with a row per vocabulary token, int8"
                    + " with per-row scales or 4-bit with fp16 block scales");
        }
        byte[] codes = q.bytes();
        return new ForwardPass.Words(dim, codes, s.floats(), (int) (dim / blocks), packed);
    }

    private List<ForwardPass.Layer> layers(int hidden) {
        List<ForwardPass.Layer> layers = new ArrayList<>();
        for (int l = 0; has("/layer." + l + "/"); l++) {
            layers.add(layer(l, hidden));
        }
        if (layers.isEmpty()) {
            throw new IllegalArgumentException(name + ": no encoder layers found in the graph");
        }
        return layers;
    }

    private ForwardPass.Layer layer(int l, int hidden) {
        String at = "/layer." + l + "/";
        ForwardPass.Layer layer = new ForwardPass.Layer();
        layer.query = dense(at + "attention/self/query/", true);
        layer.key = dense(at + "attention/self/key/", true);
        layer.value = dense(at + "attention/self/value/", true);
        layer.attentionOut = dense(at + "attention/output/dense/", true);
        layer.attentionNorm = norm(at + "attention/output/LayerNorm/");
        layer.intermediate = dense(at + "intermediate/dense/", true);
        layer.output = dense(at + "output/dense/", true);
        layer.outputNorm = norm(at + "output/LayerNorm/");
        layer.headDim = headDim(at);
        layer.scale = attentionScale(at);
        if (!has(at + "intermediate/intermediate_act_fn/Erf")) {
            throw new IllegalArgumentException(name + ": expected the exact (erf) GELU");
        }
        if (layer.query.w.length != hidden || layer.attentionOut.out != hidden || layer.output.out != hidden
                || layer.attentionNorm.gamma.length != hidden || layer.outputNorm.gamma.length != hidden) {
            throw new IllegalArgumentException(name + ": layer " + l + " is not " + hidden + " wide, as its"
                    + " embeddings are");
        }
        return layer;
    }

    /**
     * The bias-free map of the graph's top-level module `module` (the Student's up or down: outputs named
     * /up/MatMul..., not a nested module of the same name), or null when the graph has none.
     */
    private ForwardPass.Dense map(String module) {
        for (OnnxWeights.Node n : g.nodes) {
            if (n.opType.equals("MatMul") && n.outputs.get(0).startsWith(module)) {
                return dense(n, module, false);
            }
        }
        return null;
    }

    private static String shape(ForwardPass.Dense d) {
        return d == null ? "none" : d.w.length + "x" + d.out;
    }

    private boolean has(String outputPart) {
        for (OnnxWeights.Node n : g.nodes) {
            for (String o : n.outputs) {
                if (o.contains(outputPart)) {
                    return true;
                }
            }
        }
        return false;
    }

    private OnnxWeights.Node node(String op, String outputPart) {
        for (OnnxWeights.Node n : g.nodes) {
            if (n.opType.equals(op) && n.outputs.get(0).contains(outputPart)) {
                return n;
            }
        }
        throw new IllegalArgumentException("graph has no " + op + " node for " + outputPart);
    }

    private String gatheredBy(String outputPart) {
        return node("Gather", outputPart).inputs.get(0);
    }

    private ForwardPass.Norm norm(String outputPart) {
        OnnxWeights.Node n = node("LayerNormalization", outputPart);
        Double eps = n.attributes.get("epsilon");
        return new ForwardPass.Norm(g.tensor(n.inputs.get(1)).floats(), g.tensor(n.inputs.get(2)).floats(),
                eps == null ? 1e-5 : eps);  // 1e-5: the ONNX default
    }

    /** MatMul(x, Cast(q) * scale), + bias where biased: the weight traced back to its int8 tensor and scale. */
    private ForwardPass.Dense dense(String outputPart, boolean biased) {
        return dense(node("MatMul", outputPart), outputPart, biased);
    }

    private ForwardPass.Dense dense(OnnxWeights.Node matmul, String outputPart, boolean biased) {
        OnnxWeights.Node mul = g.producer(matmul.inputs.get(1));
        OnnxWeights.Node cast = mul == null ? null : g.producer(mul.inputs.get(0));
        if (mul == null || !mul.opType.equals("Mul") || cast == null || !cast.opType.equals("Cast")) {
            throw new IllegalArgumentException(outputPart + ": expected an int8 weight dequantized as Cast * scale");
        }
        OnnxWeights.Tensor q = g.tensor(cast.inputs.get(0));
        float scale = g.tensor(mul.inputs.get(1)).scalar();
        float[] v = q.floats();
        int in = (int) q.dims[0];
        int out = (int) q.dims[1];
        double[][] w = new double[in][out];
        for (int i = 0; i < in; i++) {
            for (int j = 0; j < out; j++) {
                w[i][j] = v[i * out + j] * scale;  // fp32 product, as the graph's Mul
            }
        }
        if (!biased) {
            return new ForwardPass.Dense(w, null);
        }
        OnnxWeights.Node add = g.consumers(matmul.outputs.get(0), "Add").get(0);
        String bias = add.inputs.get(0).equals(matmul.outputs.get(0)) ? add.inputs.get(1) : add.inputs.get(0);
        return new ForwardPass.Dense(w, g.tensor(bias).floats());
    }

    /** The last dimension of the Reshape that splits the query into heads. */
    private int headDim(String at) {
        OnnxWeights.Node add = g.consumers(node("MatMul", at + "attention/self/query/").outputs.get(0), "Add").get(0);
        OnnxWeights.Node reshape = g.consumers(add.outputs.get(0), "Reshape").get(0);
        OnnxWeights.Node concat = g.producer(reshape.inputs.get(1));
        long[] last = g.tensor(concat.inputs.get(concat.inputs.size() - 1)).longs();
        return (int) last[0];
    }

    /** The constant the query-key products are multiplied by (1/sqrt(head_dim)). */
    private double attentionScale(String at) {
        OnnxWeights.Node scores = node("MatMul", at + "attention/self/MatMul_output");
        OnnxWeights.Node mul = g.consumers(scores.outputs.get(0), "Mul").get(0);
        String c = mul.inputs.get(0).equals(scores.outputs.get(0)) ? mul.inputs.get(1) : mul.inputs.get(0);
        return g.tensor(c).scalar();
    }
}
