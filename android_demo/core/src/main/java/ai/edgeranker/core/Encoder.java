package ai.edgeranker.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A shipped model folder (manifest.json, model.onnx, vocab.txt) on the JVM: edge_ranker/runtime/encoder.py. The same
 * tokens as the Python runtime (WordPieceTokenizer) and the forward pass of its int8-weight BERT graph in plain Java
 * (ForwardPass, its weights found in model.onnx by EncoderGraph after Manifest checks the files' sizes and sha256),
 * unit vectors out. One text at a time (no padding); an instance is safe to share between threads. A text longer than
 * maxLength is read in up to the manifest's windows, their vectors averaged.
 */
public final class Encoder {
    /** Reads a file of the model folder by name: a directory, Android assets, a jar. */
    public interface ModelFiles {
        byte[] read(String name) throws IOException;
    }

    public final String name;
    /**
     * The model's identity in stored data (encoder.py's model_key): its name, the start of a hash of what makes a
     * text's vector (Manifest.madeBy) and, when it reads long texts in windows, how many.
     */
    public final String key;
    public final int dim;
    public final int maxLength;
    /** Windows of at most maxLength tokens read of a long text (the manifest's "windows", 1 when absent). */
    public final int windows;
    public final Map<String, String> prefixes;
    private final Map<String, Integer> prefixTokens = new LinkedHashMap<>();
    private final WordPieceTokenizer tokenizer;
    private final ForwardPass pass;

    /** A model folder on disk, e.g. edge_ranker/models/semantic. */
    public static Encoder load(Path folder) throws IOException {
        return read(name -> Files.readAllBytes(folder.resolve(name)));
    }

    public static Encoder read(ModelFiles files) throws IOException {
        Manifest manifest = Manifest.read(files);
        WordPieceTokenizer tokenizer = new WordPieceTokenizer(manifest.vocabulary,
                manifest.maxLength * manifest.windows);
        return new Encoder(manifest, tokenizer, OnnxWeights.read(manifest.onnx));
    }

    private Encoder(Manifest manifest, WordPieceTokenizer tokenizer, OnnxWeights graph) {
        this.name = manifest.name;
        this.key = manifest.key;
        this.dim = manifest.dim;
        this.maxLength = manifest.maxLength;
        this.windows = manifest.windows;
        this.prefixes = manifest.prefixes;
        this.tokenizer = tokenizer;
        prefixTokens.put(null, 0);
        for (Map.Entry<String, String> p : prefixes.entrySet()) {
            prefixTokens.put(p.getKey(), tokenizer.encode("", p.getValue()).length - 2);
        }
        for (Map.Entry<String, Integer> p : prefixTokens.entrySet()) {
            if (p.getValue() + 2 >= maxLength) {
                throw new IllegalArgumentException(name + ": max_length " + maxLength + " leaves no room for text"
                        + " beside [CLS], [SEP] and a " + p.getValue() + "-token role prefix");
            }
        }
        this.pass = EncoderGraph.match(graph, name, dim, maxLength, tokenizer.size());
    }

    /** The part of a text this model reads (WordPieceTokenizer.cut); BM25 reads the same part. */
    public String cut(String text) {
        return tokenizer.cut(text);
    }

    /**
     * The share of the words this model reads of a text (up to windows x (maxLength - 2) pieces) that its vocabulary
     * can only give as [UNK] (Readable.unknownShare). Past Constants.UNKNOWN_LIMIT the text's vector says nothing of
     * what it says (a script the vocabulary lacks), and the Ranker ranks it by its words alone.
     */
    public double unknownShare(String text) {
        return Readable.unknownShare(tokenizer, text, (maxLength - 2) * windows);
    }

    /** Token ids of text with the role's prefix (null: none), [CLS] ... [SEP], as far as the model reads. */
    public int[] tokenize(String text, String role) {
        return tokenizer.encode(text, prefix(role));
    }

    private String prefix(String role) {
        String prefix = role == null ? "" : prefixes.get(role);
        if (prefix == null) {
            throw new IllegalArgumentException(name + " has no role " + role + " (roles: " + prefixes.keySet() + ")");
        }
        return prefix;
    }

    /** tokenize's ids as the graph reads them: split() by the manifest's windows and the role's prefix. */
    public List<int[]> windowsOf(int[] ids, String role) {
        Integer head = prefixTokens.get(role);
        if (head == null) {
            prefix(role);  // throws: no such role
        }
        return split(ids, maxLength, windows, head);
    }

    /**
     * Ids [CLS] prefix text [SEP] (head: the prefix's tokens) as the graph reads them: themselves when they fit
     * maxLength, else at most `windows` windows of equal share of the text, each [CLS] prefix ... [SEP] and at most
     * maxLength long (split_windows; the golden windows.tsv checks them).
     */
    public static List<int[]> split(int[] ids, int maxLength, int windows, int head) {
        if (ids.length <= maxLength) {
            return List.of(ids);
        }
        int step = maxLength - 2 - head;
        int rest = Math.min(ids.length - 2 - head, step * windows);
        int n = (rest + step - 1) / step;
        List<int[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int a = (int) ((long) rest * i / n);
            int b = (int) ((long) rest * (i + 1) / n);
            int[] w = new int[b - a + 2 + head];
            System.arraycopy(ids, 0, w, 0, 1 + head);
            System.arraycopy(ids, 1 + head + a, w, 1 + head, b - a);
            w[w.length - 1] = ids[ids.length - 1];
            out.add(w);
        }
        return out;
    }

    /**
     * The unit vector of text: its windows' vectors weighted by their lengths and renormalised (one: as is). Without a
     * role a model with roles embeds a document ("passage").
     */
    public float[] encode(String text, String role) {
        String as = role == null && !prefixes.isEmpty() ? "passage" : role;
        List<int[]> parts = windowsOf(tokenize(text, as), as);
        if (parts.size() == 1) {
            return forward(parts.get(0));
        }
        return pooled(parts);
    }

    /** The windows' vectors weighted by their lengths, renormalised. */
    private float[] pooled(List<int[]> parts) {
        double[] mean = new double[dim];
        for (int[] w : parts) {
            float[] v = forward(w);
            for (int c = 0; c < dim; c++) {
                mean[c] += (double) w.length * v[c];
            }
        }
        double norm = 0;
        for (double m : mean) {
            norm += m * m;
        }
        norm = Math.max(Math.sqrt(norm), 1e-12);
        float[] out = new float[dim];
        for (int c = 0; c < dim; c++) {
            out[c] = (float) (mean[c] / norm);
        }
        return out;
    }

    /** The unit embedding of one token sequence (all tokens attended, as a batch of one). */
    public float[] forward(int[] ids) {
        return pass.forward(ids);
    }
}
