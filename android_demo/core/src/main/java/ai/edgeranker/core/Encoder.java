package ai.edgeranker.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A shipped model folder (manifest.json, model.onnx, vocab.txt) on the JVM: the same tokens as the Python
 * runtime and the forward pass of its int8-weight BERT graph in plain Java, unit vectors out. Weights are read
 * from model.onnx itself (OnnxWeights) after its size and sha256 are checked against the manifest.
 * A layer wider than the vectors (Python's Student width) reads the table through a map up to its width and maps the
 * pooled vector back down.
 * Weights are dequantized as the graph does, in fp32: int8 * fp32 scale, and a word table stored in 4-bit blocks
 * (int4-weights-block*) as (code - 8) * its block's fp16 scale. Activations are kept in fp32 and every sum is
 * accumulated in double, so the vectors agree with onnxruntime's to about 1e-7.
 * One text at a time (no padding); an instance is safe to share between threads. A text longer than maxLength
 * is read in up to the manifest's windows, as the Python runtime reads it (edge_ranker.runtime.encoder).
 */
public final class Encoder {
    /** Reads a file of the model folder by name: a directory, Android assets, a jar. */
    public interface ModelFiles {
        byte[] read(String name) throws IOException;
    }

    /**
     * y = x W + b with W kept in double as rows [in][out]: each step adds x[i] times a row to the sums, a loop
     * over one index of two arrays, which the JIT vectorises (an offset into one flat array it does not).
     */
    private static final class Dense {
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

    private static final class Norm {
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

    private static final class Layer {
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

    /** The roles a manifest may give a prefix, as Python's manifest allows them. */
    static final Set<String> ROLES = Set.of("query", "passage");

    public final String name;
    /**
     * The model's identity in stored data, as Python's model_key: its name, the start of a hash of what makes a text's
     * vector (madeBy) and, when it reads long texts in windows, how many.
     */
    public final String key;
    public final int dim;
    public final int maxLength;
    /** Windows of at most maxLength tokens read of a long text (the manifest's "windows", 1 when absent). */
    public final int windows;
    public final Map<String, String> prefixes;
    private final Map<String, Integer> prefixTokens = new LinkedHashMap<>();
    private final WordPieceTokenizer tokenizer;
    /** The word table as stored: int8 rows, or 4-bit codes packed two to a byte (see wordValue). */
    private final byte[] wordQ;
    /** One scale per wordBlock values of a row: per row for int8, per block of 32 or 64 for 4-bit codes. */
    private final float[] wordScale;
    private final int wordBlock;
    private final boolean wordPacked;
    /** The layer's width: dim, or wider with the table read through `up` and the pooled vector mapped `down`. */
    private final int hidden;
    private final Dense up;
    private final Dense down;
    private final float[] position;
    private final float[] tokenType;
    private final Norm embeddingNorm;
    private final List<Layer> layers = new ArrayList<>();

    static final int SCHEMA_VERSION = 1;  // the manifest schema this core reads: edge_ranker/runtime/manifest.py's
    static final int MAX_LENGTH_MIN = 2;  // [CLS] and [SEP]; with MAX_LENGTH_MAX, Python's MAX_LENGTH_RANGE
    static final int MAX_LENGTH_MAX = 8192;
    static final int MAX_WINDOWS = 64;  // Python's manifest.MAX_WINDOWS

    /** A model folder on disk, e.g. edge_ranker/models/semantic. */
    public static Encoder load(Path folder) throws IOException {
        return read(name -> Files.readAllBytes(folder.resolve(name)));
    }

    /** The manifest's object; what is wrong with its JSON is said with the file's name, as Python says it. */
    static Map<String, Object> manifest(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (text.startsWith("\uFEFF")) {
            throw new IllegalArgumentException(
                    "manifest.json starts with a byte-order mark: save it as UTF-8 without one");
        }
        try {
            return Json.object(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("manifest.json is not a JSON object: " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    public static Encoder read(ModelFiles files) throws IOException {
        Map<String, Object> manifest = manifest(files.read("manifest.json"));
        int schema = whole(manifest, "schema_version", 0, Integer.MAX_VALUE);
        if (schema > SCHEMA_VERSION) {
            throw new IllegalArgumentException("manifest.json uses schema " + schema + ", newer than this core reads ("
                    + SCHEMA_VERSION + "); update the app's edge-ranker core");
        }
        if (!(manifest.get("files") instanceof Map)) {
            throw new IllegalArgumentException("manifest.json: files must be an object of file names");
        }
        Map<String, Object> listed = (Map<String, Object>) manifest.get("files");
        String onnx = fileName(manifest, "onnx");
        String vocab = fileName(manifest, "vocab");
        byte[] model = verified(files, onnx, listed);
        String[] tokens = new String(verified(files, vocab, listed), StandardCharsets.UTF_8).split("\n", -1);
        int lines = tokens.length > 0 && tokens[tokens.length - 1].isEmpty() ? tokens.length - 1 : tokens.length;
        List<String> vocabulary = new ArrayList<>();
        for (int i = 0; i < lines; i++) {  // id = line number: an empty or repeated line would shift every id after it
            String t = tokens[i].endsWith("\r") ? tokens[i].substring(0, tokens[i].length() - 1) : tokens[i];
            if (t.isEmpty()) {
                throw new IllegalArgumentException(vocab + " line " + (i + 1) + " is empty: a token per line");
            }
            vocabulary.add(t);
        }
        if (new HashSet<>(vocabulary).size() != vocabulary.size()) {
            throw new IllegalArgumentException(vocab + " holds a token twice: ids would not match the model's rows");
        }
        Map<String, String> prefixes = new LinkedHashMap<>();
        Object p = manifest.getOrDefault("prefixes", Map.of());
        if (!(p instanceof Map)) {
            throw new IllegalArgumentException("manifest.json: prefixes must map each role (query, passage) to a text "
                    + "prefix, got " + p);
        }
        for (Map.Entry<String, Object> e : ((Map<String, Object>) p).entrySet()) {
            // as Python's manifest: the two roles, each a text UTF-8 can write (JSON can spell a lone surrogate)
            if (!ROLES.contains(e.getKey()) || !(e.getValue() instanceof String v)
                    || !StandardCharsets.UTF_8.newEncoder().canEncode(v)) {
                String shown = String.valueOf(e.getValue());
                throw new IllegalArgumentException("manifest.json: prefixes map 'query'/'passage' to text, got '"
                        + e.getKey() + "': " + shown.substring(0, Math.min(60, shown.length())));
            }
        }
        ((Map<String, Object>) p).forEach((role, prefix) -> prefixes.put(role, (String) prefix));
        int maxLength = whole(manifest, "max_length", MAX_LENGTH_MIN, MAX_LENGTH_MAX);
        int windows = manifest.containsKey("windows") ? whole(manifest, "windows", 1, MAX_WINDOWS) : 1;
        if (!(manifest.get("name") instanceof String)) {
            throw new IllegalArgumentException("manifest.json: name must be a string");
        }
        String name = (String) manifest.get("name");
        // only its hash is read here, so any name Python takes will do; Python's Manifest names tokenizer.json when
        // the field is absent
        Object tokenizerField = manifest.getOrDefault("tokenizer", "tokenizer.json");
        if (!(tokenizerField instanceof String tokenizerFile)) {
            throw new IllegalArgumentException("manifest.json: tokenizer must be a file name");
        }
        String key = name + ":" + madeBy(listed, onnx, tokenizerFile, vocab, maxLength, prefixes)
                + (windows == 1 ? "" : ":" + windows + "w");
        return new Encoder(name, key, whole(manifest, "dim", 1, 1 << 16), maxLength, windows, prefixes,
                new WordPieceTokenizer(vocabulary, maxLength * windows), OnnxWeights.read(model));
    }

    /**
     * The start of a hash of what the manifest says makes a text's vector: the graph, the tokenizer and vocabulary
     * files, maxLength and each role's prefix (as its own hash, roles in order), as Python's model_key hashes them, so
     * that a folder whose tokenizer or max_length changed under the same graph gets a new key and its stored history
     * is embedded again.
     */
    @SuppressWarnings("unchecked")
    static String madeBy(Map<String, Object> listed, String onnx, String tokenizer, String vocab, int maxLength,
            Map<String, String> prefixes) {
        StringBuilder made = new StringBuilder();
        for (String file : new String[] {onnx, tokenizer, vocab}) {
            Object meta = listed.get(file);
            Object sha = meta instanceof Map ? ((Map<String, Object>) meta).getOrDefault("sha256", "") : "";
            made.append(sha).append('\n');
        }
        made.append(maxLength);
        new TreeMap<>(prefixes).forEach((role, prefix) ->
                made.append('\n').append(role).append('\t').append(sha256(prefix.getBytes(StandardCharsets.UTF_8))));
        return sha256(made.toString().getBytes(StandardCharsets.UTF_8)).substring(0, 16);
    }

    /** A whole number of the manifest from min to max, or an error that names it (as Python's read_manifest). */
    static int whole(Map<String, Object> manifest, String key, int min, int max) {
        Object v = manifest.get(key);
        if (!(v instanceof Long n && n >= min && n <= max)) {  // an integer, as Python's json reads 64 and not 64.0
            throw new IllegalArgumentException("manifest.json: " + key + " must be a whole number from " + min + " to "
                    + max + ", got " + (v == null ? "nothing" : Json.write(v)));
        }
        return (int) (long) n;
    }

    /** A file the manifest names, which must lie in the model folder itself, as Python's runtime requires. */
    static String fileName(Map<String, Object> manifest, String key) {
        Object v = manifest.get(key);
        if (!(v instanceof String f) || f.isEmpty() || f.equals(".") || f.equals("..") || f.contains("/")
                || f.contains("\\")) {
            throw new IllegalArgumentException("manifest.json: " + key + " " + (v == null ? "is missing" : Json.write(v)
                    + " is not a file inside the model folder"));
        }
        return f;
    }

    /** A file's bytes after checking its size and sha256 against the manifest, as the Python runtime does. */
    @SuppressWarnings("unchecked")
    static byte[] verified(ModelFiles files, String name, Map<String, Object> listed) throws IOException {
        Object meta = listed == null ? null : listed.get(name);
        if (!(meta instanceof Map)) {
            throw new IOException("manifest.json lists no sha256 for " + name);
        }
        byte[] data = files.read(name);
        Map<String, Object> m = (Map<String, Object>) meta;
        if (!(m.get("bytes") instanceof Long bytes) || !(m.get("sha256") instanceof String)) {
            throw new IllegalArgumentException("manifest.json: files." + name + " needs its bytes and sha256");
        }
        String sha = sha256(data);
        if (data.length != bytes || !sha.equals(m.get("sha256"))) {
            throw new IOException(name + " does not match manifest.json (" + data.length + " bytes, sha256 " + sha
                    + "): the model folder is corrupt or incomplete; reinstall it");
        }
        return data;
    }

    static String sha256(byte[] data) {
        try {
            StringBuilder s = new StringBuilder();
            for (byte b : MessageDigest.getInstance("SHA-256").digest(data)) {
                s.append(String.format("%02x", b));
            }
            return s.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private Encoder(String name, String key, int dim, int maxLength, int windows, Map<String, String> prefixes,
            WordPieceTokenizer tokenizer, OnnxWeights g) {
        this.name = name;
        this.key = key;
        this.dim = dim;
        this.maxLength = maxLength;
        this.windows = windows;
        this.prefixes = prefixes;
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
        OnnxWeights.Tensor q = null;
        OnnxWeights.Tensor s = null;
        for (OnnxWeights.Node n : g.nodes) {  // the word table: its codes and their scales, both gathered by id
            if (n.opType.equals("Gather") && n.inputs.get(1).equals("input_ids")) {
                OnnxWeights.Tensor t = g.tensor(n.inputs.get(0));
                if (t.dataType == OnnxWeights.INT8 || t.dataType == OnnxWeights.UINT8) {
                    q = t;
                } else {
                    s = t;
                }
            }
        }
        wordPacked = q != null && q.dataType == OnnxWeights.UINT8;
        // both tables 2-D, with a row for every token of the vocabulary
        boolean shaped = q != null && s != null && q.dims.length == 2 && s.dims.length == 2 && q.dims[0] == s.dims[0];
        if (shaped && q.dims[0] != tokenizer.size()) {  // vocab.txt and the table disagree: ids would miss their rows
            throw new IllegalArgumentException(name + ": the word table has " + q.dims[0] + " rows but vocab.txt "
                    + tokenizer.size() + " tokens: the files come from different models");
        }
        long width = shaped ? q.dims[1] * (wordPacked ? 2L : 1L) : 0;  // two 4-bit codes a byte
        if (shaped && width != dim) {
            throw new IllegalArgumentException(name + ": the word table gives vectors of " + width
                    + " values, the manifest says dim=" + dim);
        }
        long blocks = shaped ? s.dims[1] : 0;
        boolean rows = shaped && !wordPacked && blocks == 1 && s.dataType == OnnxWeights.FLOAT;
        boolean packed = shaped && wordPacked && blocks > 0 && dim % blocks == 0 && s.dataType == OnnxWeights.FLOAT16;
        if (!rows && !packed) {
            throw new IllegalArgumentException(name + ": expected a word table with a row per vocabulary token, int8"
                    + " with per-row scales or 4-bit with fp16 block scales");
        }
        wordQ = q.bytes();
        wordScale = s.floats();
        wordBlock = (int) (dim / blocks);
        up = map(g, "/up/");
        down = map(g, "/down/");
        hidden = up == null ? dim : up.out;
        boolean mapped = up == null ? down == null
                : down != null && up.w.length == dim && down.w.length == hidden && down.out == dim;
        if (!mapped) {
            throw new IllegalArgumentException(name + ": a layer wider than the " + dim + "-d vectors needs a map up"
                    + " from the table and one back down, found up " + shape(up) + ", down " + shape(down));
        }
        OnnxWeights.Tensor positions = g.tensor(gatheredBy(g, "/position_embeddings/"));
        OnnxWeights.Tensor types = g.tensor(gatheredBy(g, "/token_type_embeddings/"));
        embeddingNorm = norm(g, "/embeddings/LayerNorm/");
        if (positions.dims.length != 2 || positions.dims[1] != hidden || types.dims.length != 2
                || types.dims[1] != hidden || embeddingNorm.gamma.length != hidden) {
            throw new IllegalArgumentException(name + ": the position and token-type tables and the embeddings'"
                    + " LayerNorm must be " + hidden + " wide, as the layer is");
        }
        position = positions.floats();
        if (position.length < (long) maxLength * hidden) {  // each window reads positions 0 to maxLength - 1
            throw new IllegalArgumentException(name + ": max_length " + maxLength + " is past the model's "
                    + position.length / hidden + " positions");
        }
        tokenType = types.floats();
        for (int l = 0; has(g, "/layer." + l + "/"); l++) {
            String at = "/layer." + l + "/";
            Layer layer = new Layer();
            layer.query = dense(g, at + "attention/self/query/", true);
            layer.key = dense(g, at + "attention/self/key/", true);
            layer.value = dense(g, at + "attention/self/value/", true);
            layer.attentionOut = dense(g, at + "attention/output/dense/", true);
            layer.attentionNorm = norm(g, at + "attention/output/LayerNorm/");
            layer.intermediate = dense(g, at + "intermediate/dense/", true);
            layer.output = dense(g, at + "output/dense/", true);
            layer.outputNorm = norm(g, at + "output/LayerNorm/");
            layer.headDim = headDim(g, at);
            layer.scale = attentionScale(g, at);
            if (!has(g, at + "intermediate/intermediate_act_fn/Erf")) {
                throw new IllegalArgumentException(name + ": expected the exact (erf) GELU");
            }
            if (layer.query.w.length != hidden || layer.attentionOut.out != hidden || layer.output.out != hidden
                    || layer.attentionNorm.gamma.length != hidden || layer.outputNorm.gamma.length != hidden) {
                throw new IllegalArgumentException(name + ": layer " + l + " is not " + hidden + " wide, as its"
                        + " embeddings are");
            }
            layers.add(layer);
        }
        if (layers.isEmpty()) {
            throw new IllegalArgumentException(name + ": no encoder layers found in the graph");
        }
    }

    /**
     * The bias-free map of the graph's top-level module `module` (Python's Student.up or .down: outputs named
     * /up/MatMul..., not a nested module of the same name), or null when the graph has none.
     */
    private static Dense map(OnnxWeights g, String module) {
        for (OnnxWeights.Node n : g.nodes) {
            if (n.opType.equals("MatMul") && n.outputs.get(0).startsWith(module)) {
                return dense(g, n, module, false);
            }
        }
        return null;
    }

    private static String shape(Dense d) {
        return d == null ? "none" : d.w.length + "x" + d.out;
    }

    private static boolean has(OnnxWeights g, String outputPart) {
        for (OnnxWeights.Node n : g.nodes) {
            for (String o : n.outputs) {
                if (o.contains(outputPart)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static OnnxWeights.Node node(OnnxWeights g, String op, String outputPart) {
        for (OnnxWeights.Node n : g.nodes) {
            if (n.opType.equals(op) && n.outputs.get(0).contains(outputPart)) {
                return n;
            }
        }
        throw new IllegalArgumentException("graph has no " + op + " node for " + outputPart);
    }

    private static String gatheredBy(OnnxWeights g, String outputPart) {
        return node(g, "Gather", outputPart).inputs.get(0);
    }

    private static Norm norm(OnnxWeights g, String outputPart) {
        OnnxWeights.Node n = node(g, "LayerNormalization", outputPart);
        Double eps = n.attributes.get("epsilon");
        return new Norm(g.tensor(n.inputs.get(1)).floats(), g.tensor(n.inputs.get(2)).floats(),
                eps == null ? 1e-5 : eps);  // 1e-5: the ONNX default
    }

    /** MatMul(x, Cast(q) * scale), + bias where biased: the weight traced back to its int8 tensor and scale. */
    private static Dense dense(OnnxWeights g, String outputPart, boolean biased) {
        return dense(g, node(g, "MatMul", outputPart), outputPart, biased);
    }

    private static Dense dense(OnnxWeights g, OnnxWeights.Node matmul, String outputPart, boolean biased) {
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
            return new Dense(w, null);
        }
        OnnxWeights.Node add = g.consumers(matmul.outputs.get(0), "Add").get(0);
        String bias = add.inputs.get(0).equals(matmul.outputs.get(0)) ? add.inputs.get(1) : add.inputs.get(0);
        return new Dense(w, g.tensor(bias).floats());
    }

    /** The last dimension of the Reshape that splits the query into heads. */
    private static int headDim(OnnxWeights g, String at) {
        OnnxWeights.Node add = g.consumers(node(g, "MatMul", at + "attention/self/query/").outputs.get(0), "Add")
                .get(0);
        OnnxWeights.Node reshape = g.consumers(add.outputs.get(0), "Reshape").get(0);
        OnnxWeights.Node concat = g.producer(reshape.inputs.get(1));
        long[] last = g.tensor(concat.inputs.get(concat.inputs.size() - 1)).longs();
        return (int) last[0];
    }

    /** The constant the query-key products are multiplied by (1/sqrt(head_dim)). */
    private static double attentionScale(OnnxWeights g, String at) {
        OnnxWeights.Node scores = node(g, "MatMul", at + "attention/self/MatMul_output");
        OnnxWeights.Node mul = g.consumers(scores.outputs.get(0), "Mul").get(0);
        String c = mul.inputs.get(0).equals(scores.outputs.get(0)) ? mul.inputs.get(1) : mul.inputs.get(0);
        return g.tensor(c).scalar();
    }

    /** The part of a text this model reads (WordPieceTokenizer.cut); BM25 reads the same part. */
    public String cut(String text) {
        return tokenizer.cut(text);
    }

    /**
     * The share of the words this model reads of a text (up to windows x (maxLength - 2) pieces) that its vocabulary
     * can only give as [UNK] (WordPieceTokenizer.unknownShare): Python's VocabularyCoverage.unknown_share. Past
     * Ranker.UNKNOWN_LIMIT the text's vector says nothing of what it says (a script the vocabulary lacks), and the
     * Ranker ranks it by its words alone.
     */
    public double unknownShare(String text) {
        return tokenizer.unknownShare(text, (maxLength - 2) * windows);
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
     * maxLength long (split_windows in Python, checked against it by the golden windows.tsv).
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
     * role a model with roles embeds a document ("passage"), as Python's Encoder.encode does.
     */
    public float[] encode(String text, String role) {
        String as = role == null && !prefixes.isEmpty() ? "passage" : role;
        List<int[]> parts = windowsOf(tokenize(text, as), as);
        if (parts.size() == 1) {
            return forward(parts.get(0));
        }
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

    /**
     * Column c of word id's row, as the graph dequantizes it: an int8 code times the row's scale, or a 4-bit code
     * (byte j of a row holds column j in its low nibble and column j + dim/2 in its high one, each offset by 8)
     * times its block's scale. One fp32 product, as the graph's Mul.
     */
    private float wordValue(int id, int c) {
        float scale = wordScale[id * (dim / wordBlock) + c / wordBlock];
        if (!wordPacked) {
            return wordQ[id * dim + c] * scale;
        }
        int half = dim / 2;
        int b = wordQ[id * half + c % half] & 0xff;
        int code = c < half ? b & 0x0f : b >>> 4;
        return (code - 8) * scale;
    }

    /** The unit embedding of one token sequence (all tokens attended, as a batch of one). */
    public float[] forward(int[] ids) {
        int n = ids.length;
        float[][] x = new float[n][dim];
        for (int t = 0; t < n; t++) {
            for (int c = 0; c < dim; c++) {
                x[t][c] = wordValue(ids[t], c);
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
        for (Layer layer : layers) {
            x = layer(layer, x);
        }
        float[] pooled = new float[hidden];  // fp32, as the graph's mean
        for (int c = 0; c < hidden; c++) {
            double sum = 0;
            for (float[] row : x) {
                sum += row[c];
            }
            pooled[c] = (float) (sum / n);
        }
        float[] v = down == null ? pooled : down.apply(new float[][] {pooled})[0];
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
        int n = x.length;
        float[][] q = l.query.apply(x);
        float[][] k = l.key.apply(x);
        float[][] v = l.value.apply(x);
        int hidden = q[0].length;
        float[][] context = new float[n][hidden];
        int hd = l.headDim;
        double[][] keyT = new double[hd][n];  // one head's keys by dimension, values by token, in double:
        double[][] val = new double[n][hd];   // the loops below then run element-wise over j and d
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
                Arrays.fill(p, 0.0);
                for (int d = 0; d < hd; d++) {
                    double qd = q[i][off + d];
                    double[] kd = keyT[d];
                    for (int j = 0; j < n; j++) {
                        p[j] += qd * kd[j];
                    }
                }
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j < n; j++) {
                    p[j] *= l.scale;
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
                    for (int d = 0; d < hd; d++) {
                        acc[d] += wj * vj[d];
                    }
                }
                for (int d = 0; d < hd; d++) {
                    context[i][off + d] = (float) acc[d];
                }
            }
        }
        float[][] a = l.attentionOut.apply(context);
        for (int t = 0; t < n; t++) {
            for (int c = 0; c < hidden; c++) {
                a[t][c] += x[t][c];
            }
        }
        l.attentionNorm.apply(a);
        float[][] mid = l.intermediate.apply(a);
        for (float[] row : mid) {
            for (int c = 0; c < row.length; c++) {
                double u = row[c];
                row[c] = (float) (0.5 * u * (1.0 + Erf.erf(u / Math.sqrt(2.0))));
            }
        }
        float[][] o = l.output.apply(mid);
        for (int t = 0; t < n; t++) {
            for (int c = 0; c < hidden; c++) {
                o[t][c] += a[t][c];
            }
        }
        l.outputNorm.apply(o);
        return o;
    }
}
