package ai.edgeranker.core;

import java.util.Arrays;
import java.util.List;

/**
 * The forward pass of a model's int8-weight BERT graph in plain Java, one token sequence in, its unit vector out:
 * what onnxruntime computes for edge_ranker/runtime/encoder.py. The word rows (mapped up where the layer is wider than
 * the vectors) plus position and token type, LayerNorm; per layer self-attention (no padding: one text at a time),
 * residual and LayerNorm, GELU with erf, residual and LayerNorm; mean pooling, the map down where there is one, L2
 * normalisation. Weights are dequantized as the graph does, in fp32: int8 * fp32 scale, and a word table stored in
 * 4-bit blocks as (code - 8) * its block's fp16 scale. Activations are fp32 and every sum is accumulated in double,
 * so the vectors agree with onnxruntime's to about 1e-7. EncoderGraph finds the weights; an instance only reads
 * them, so it is safe to share between threads.
 */
final class ForwardPass {
    /**
     * y = x W + b with W kept in double as rows [in][out]: each step adds x[i] times a row to the sums, a loop
     * over one index of two arrays, which the JIT vectorises (an offset into one flat array it does not).
     */
    static final class Dense {
        static final int TILE = 8;

        final int out;
        final double[][] w;
        final float[] bias;

        /** bias null: none (the maps of a layer wider than the vectors have none). */
        Dense(double[][] w, float[] bias) {
            this.out = w[0].length;
            this.w = w;
            this.bias = bias == null ? new float[out] : bias;
        }

        /** Tokens go TILE at a time, so each weight row is read from memory once per tile, not per token. */
        float[][] apply(float[][] x) {
            float[][] y = new float[x.length][out];
            double[][] acc = new double[TILE][out];
            for (int t0 = 0; t0 < x.length; t0 += TILE) {
                int tiles = Math.min(TILE, x.length - t0);
                for (int tt = 0; tt < tiles; tt++) {
                    Arrays.fill(acc[tt], 0.0);
                }
                for (int i = 0; i < w.length; i++) {
                    double[] row = w[i];
                    for (int tt = 0; tt < tiles; tt++) {
                        double xi = x[t0 + tt][i];
                        double[] a = acc[tt];
                        for (int j = 0; j < out; j++) {
                            a[j] += xi * row[j];
                        }
                    }
                }
                for (int tt = 0; tt < tiles; tt++) {
                    for (int j = 0; j < out; j++) {
                        y[t0 + tt][j] = (float) acc[tt][j] + bias[j];
                    }
                }
            }
            return y;
        }
    }

    static final class Norm {
        final float[] gamma;
        final float[] beta;
        final double epsilon;

        Norm(float[] gamma, float[] beta, double epsilon) {
            this.gamma = gamma;
            this.beta = beta;
            this.epsilon = epsilon;
        }

        void apply(float[][] x) {
            for (float[] row : x) {
                double mean = 0;
                for (float v : row) {
                    mean += v;
                }
                mean /= row.length;
                double var = 0;
                for (float v : row) {
                    var += (v - mean) * (v - mean);
                }
                double inv = 1.0 / Math.sqrt(var / row.length + epsilon);
                for (int i = 0; i < row.length; i++) {
                    row[i] = (float) ((row[i] - mean) * inv * gamma[i] + beta[i]);
                }
            }
        }
    }

    static final class Layer {
        Dense query;
        Dense key;
        Dense value;
        Dense attentionOut;
        Norm attentionNorm;
        Dense intermediate;
        Dense output;
        Norm outputNorm;
        int headDim;
        double scale;
    }

    /** The word table as stored: int8 rows, or 4-bit codes packed two to a byte. */
    static final class Words {
        final int dim;
        final byte[] codes;
        /** One scale per block values of a row: per row for int8, per block of 32 or 64 for 4-bit codes. */
        final float[] scales;
        final int block;
        final boolean packed;

        Words(int dim, byte[] codes, float[] scales, int block, boolean packed) {
            this.dim = dim;
            this.codes = codes;
            this.scales = scales;
            this.block = block;
            this.packed = packed;
        }

        /**
         * Column c of word id's row, as the graph dequantizes it: an int8 code times the row's scale, or a 4-bit code
         * (byte j of a row holds column j in its low nibble and column j + dim/2 in its high one, each offset by 8)
         * times its block's scale. One fp32 product, as the graph's Mul.
         */
        float value(int id, int c) {
            float scale = scales[id * (dim / block) + c / block];
            if (!packed) {
                return codes[id * dim + c] * scale;
            }
            int half = dim / 2;
            int b = codes[id * half + c % half] & 0xff;
            int code = c < half ? b & 0x0f : b >>> 4;
            return (code - 8) * scale;
        }
    }

    final int dim;
    /** The layer's width: dim, or wider with the table read through `up` and the pooled vector mapped `down`. */
    final int hidden;
    private final Words words;
    private final Dense up;
    private final Dense down;
    private final float[] position;
    private final float[] tokenType;
    private final Norm embeddingNorm;
    private final List<Layer> layers;

    ForwardPass(Words words, Dense up, Dense down, float[] position, float[] tokenType, Norm embeddingNorm,
            List<Layer> layers) {
        this.dim = words.dim;
        this.hidden = up == null ? dim : up.out;
        this.words = words;
        this.up = up;
        this.down = down;
        this.position = position;
        this.tokenType = tokenType;
        this.embeddingNorm = embeddingNorm;
        this.layers = layers;
    }

    /** The unit embedding of one token sequence (all tokens attended, as a batch of one). */
    float[] forward(int[] ids) {
        float[][] x = embeddings(ids);
        for (Layer layer : layers) {
            x = layer(layer, x);
        }
        float[] pooled = mean(x);
        return unit(down == null ? pooled : down.apply(new float[][] {pooled})[0]);
    }

    /** Each token's word row (mapped up where there is a map) plus its position and token type, normalised. */
    private float[][] embeddings(int[] ids) {
        int n = ids.length;
        float[][] x = new float[n][dim];
        for (int t = 0; t < n; t++) {
            for (int c = 0; c < dim; c++) {
                x[t][c] = words.value(ids[t], c);
            }
        }
        if (up != null) {
            x = up.apply(x);
        }
        for (int t = 0; t < n; t++) {
            for (int c = 0; c < hidden; c++) {
                x[t][c] = x[t][c] + tokenType[c] + position[t * hidden + c];
            }
        }
        embeddingNorm.apply(x);
        return x;
    }

    /** The tokens' mean, in fp32 as the graph's mean. */
    private float[] mean(float[][] x) {
        float[] pooled = new float[hidden];
        for (int c = 0; c < hidden; c++) {
            double sum = 0;
            for (float[] row : x) {
                sum += row[c];
            }
            pooled[c] = (float) (sum / x.length);
        }
        return pooled;
    }

    private float[] unit(float[] v) {
        double norm = 0;
        for (float c : v) {
            norm += (double) c * c;
        }
        norm = Math.max(Math.sqrt(norm), 1e-12);
        float[] out = new float[dim];
        for (int c = 0; c < dim; c++) {
            out[c] = (float) (v[c] / norm);
        }
        return out;
    }

    private static float[][] layer(Layer l, float[][] x) {
        float[][] context = selfAttention(l, x);
        float[][] a = l.attentionOut.apply(context);
        addTo(a, x, context[0].length);
        l.attentionNorm.apply(a);
        float[][] mid = l.intermediate.apply(a);
        gelu(mid);
        float[][] o = l.output.apply(mid);
        addTo(o, a, context[0].length);
        l.outputNorm.apply(o);
        return o;
    }

    /** Each token's mix of the values, head by head. */
    private static float[][] selfAttention(Layer l, float[][] x) {
        int n = x.length;
        float[][] q = l.query.apply(x);
        float[][] k = l.key.apply(x);
        float[][] v = l.value.apply(x);
        int hidden = q[0].length;
        float[][] context = new float[n][hidden];
        int hd = l.headDim;
        double[][] keyT = new double[hd][n];  // one head's keys by dimension, values by token, in double:
        double[][] val = new double[n][hd];   // the loops of attend then run element-wise over j and d
        double[] p = new double[n];
        double[] acc = new double[hd];
        for (int off = 0; off < hidden; off += hd) {
            for (int j = 0; j < n; j++) {
                for (int d = 0; d < hd; d++) {
                    keyT[d][j] = k[j][off + d];
                    val[j][d] = v[j][off + d];
                }
            }
            for (int i = 0; i < n; i++) {
                attend(q[i], off, keyT, val, l.scale, p, acc);
                for (int d = 0; d < hd; d++) {
                    context[i][off + d] = (float) acc[d];
                }
            }
        }
        return context;
    }

    /**
     * One token's attention in the head at off: p, the softmax of its scaled products with the keys; acc, the values
     * mixed by p.
     */
    private static void attend(float[] query, int off, double[][] keyT, double[][] val, double scale, double[] p,
            double[] acc) {
        int n = p.length;
        Arrays.fill(p, 0.0);
        for (int d = 0; d < acc.length; d++) {
            double qd = query[off + d];
            double[] kd = keyT[d];
            for (int j = 0; j < n; j++) {
                p[j] += qd * kd[j];
            }
        }
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j < n; j++) {
            p[j] *= scale;
            max = Math.max(max, p[j]);
        }
        double sum = 0;
        for (int j = 0; j < n; j++) {
            p[j] = Math.exp(p[j] - max);
            sum += p[j];
        }
        Arrays.fill(acc, 0.0);
        for (int j = 0; j < n; j++) {
            double wj = p[j] / sum;
            double[] vj = val[j];
            for (int d = 0; d < acc.length; d++) {
                acc[d] += wj * vj[d];
            }
        }
    }

    /** The residual: x added to y, width columns of each token. */
    private static void addTo(float[][] y, float[][] x, int width) {
        for (int t = 0; t < y.length; t++) {
            for (int c = 0; c < width; c++) {
                y[t][c] += x[t][c];
            }
        }
    }

    /** The exact GELU, 0.5 u (1 + erf(u / sqrt 2)), in place. */
    private static void gelu(float[][] x) {
        for (float[] row : x) {
            for (int c = 0; c < row.length; c++) {
                double u = row[c];
                row[c] = (float) (0.5 * u * (1.0 + Erf.erf(u / Math.sqrt(2.0))));
            }
        }
    }
}
