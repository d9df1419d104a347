package ai.edgeranker.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A model folder's manifest.json, read and checked, with the two files the JVM loads (model.onnx and vocab.txt)
 * read once and checked against its sizes and sha256: edge_ranker/runtime/manifest.py. Each fault is refused in
 * words that name the field or file. Its bounds (schema, max_length, windows) are the spec's (Constants).
 */
final class Manifest {
    /** A bound that keeps a damaged number from sizing arrays. */
    static final int MAX_DIM = 1 << 16;
    /** The roles a manifest may give a prefix. */
    static final Set<String> ROLES = Set.of("query", "passage");

    final String name;
    final int dim;
    final int maxLength;
    /** Windows of at most maxLength tokens read of a long text ("windows", 1 when absent). */
    final int windows;
    final Map<String, String> prefixes;
    /** The model's identity in stored data (see key()). */
    final String key;
    /**
     * model.onnx's bytes as checked: the graph is read from them, not from the file again, so a file swapped after
     * the check cannot be loaded unverified.
     */
    final byte[] onnx;
    /** vocab.txt's tokens, id = line number. */
    final List<String> vocabulary;

    private Manifest(Map<String, Object> fields, Encoder.ModelFiles files) throws IOException {
        int schema = whole(fields, "schema_version", 0, Integer.MAX_VALUE);
        if (schema > Constants.MANIFEST_SCHEMA_VERSION) {
            throw new IllegalArgumentException("manifest.json uses schema " + schema + ", newer than this core reads ("
                    + Constants.MANIFEST_SCHEMA_VERSION + "); update the app's edge-ranker core");
        }
        Map<String, Object> listed = listed(fields);
        String onnxFile = fileName(fields, "onnx");
        String vocabFile = fileName(fields, "vocab");
        onnx = verified(files, onnxFile, listed);
        vocabulary = vocabulary(vocabFile, verified(files, vocabFile, listed));
        prefixes = prefixes(fields);
        maxLength = whole(fields, "max_length", Constants.MAX_LENGTH_MIN, Constants.MAX_LENGTH_MAX);
        windows = fields.containsKey("windows") ? whole(fields, "windows", 1, Constants.MAX_WINDOWS) : 1;
        if (!(fields.get("name") instanceof String)) {
            throw new IllegalArgumentException("manifest.json: name must be a string");
        }
        name = (String) fields.get("name");
        // only its hash is read here, so any name Python takes will do; absent, it is tokenizer.json
        Object tokenizerField = fields.getOrDefault("tokenizer", "tokenizer.json");
        if (!(tokenizerField instanceof String tokenizerFile)) {
            throw new IllegalArgumentException("manifest.json: tokenizer must be a file name");
        }
        key = name + ":" + madeBy(listed, onnxFile, tokenizerFile, vocabFile, maxLength, prefixes)
                + (windows == 1 ? "" : ":" + windows + "w");
        dim = whole(fields, "dim", 1, MAX_DIM);
    }

    /** The folder's manifest.json and the files it lists for the JVM, each checked before the next is read. */
    static Manifest read(Encoder.ModelFiles files) throws IOException {
        return new Manifest(parse(files.read("manifest.json")), files);
    }

    /** The manifest's object; what is wrong with its JSON is said with the file's name. */
    static Map<String, Object> parse(byte[] bytes) {
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
    private static Map<String, Object> listed(Map<String, Object> fields) {
        if (!(fields.get("files") instanceof Map)) {
            throw new IllegalArgumentException("manifest.json: files must be an object of file names");
        }
        return (Map<String, Object>) fields.get("files");
    }

    /** vocab.txt's lines: id = line number, so an empty or repeated line would shift or merge the ids after it. */
    private static List<String> vocabulary(String vocab, byte[] bytes) {
        String[] tokens = new String(bytes, StandardCharsets.UTF_8).split("\n", -1);
        int lines = tokens.length > 0 && tokens[tokens.length - 1].isEmpty() ? tokens.length - 1 : tokens.length;
        List<String> vocabulary = new ArrayList<>();
        for (int i = 0; i < lines; i++) {
            String t = tokens[i].endsWith("\r") ? tokens[i].substring(0, tokens[i].length() - 1) : tokens[i];
            if (t.isEmpty()) {
                throw new IllegalArgumentException(vocab + " line " + (i + 1) + " is empty: a token per line");
            }
            vocabulary.add(t);
        }
        if (new HashSet<>(vocabulary).size() != vocabulary.size()) {
            throw new IllegalArgumentException(vocab + " holds a token twice: ids would not match the model's rows");
        }
        return vocabulary;
    }

    /** Each role's prefix: the two roles only, each a text UTF-8 can write (JSON can spell a lone surrogate). */
    @SuppressWarnings("unchecked")
    private static Map<String, String> prefixes(Map<String, Object> fields) {
        Map<String, String> prefixes = new LinkedHashMap<>();
        Object p = fields.getOrDefault("prefixes", Map.of());
        if (!(p instanceof Map)) {
            throw new IllegalArgumentException("manifest.json: prefixes must map each role (query, passage) to a text "
                    + "prefix, got " + p);
        }
        for (Map.Entry<String, Object> e : ((Map<String, Object>) p).entrySet()) {
            if (!ROLES.contains(e.getKey()) || !(e.getValue() instanceof String v)
                    || !StandardCharsets.UTF_8.newEncoder().canEncode(v)) {
                String shown = String.valueOf(e.getValue());
                throw new IllegalArgumentException("manifest.json: prefixes map 'query'/'passage' to text, got '"
                        + e.getKey() + "': " + shown.substring(0, Math.min(60, shown.length())));
            }
        }
        ((Map<String, Object>) p).forEach((role, prefix) -> prefixes.put(role, (String) prefix));
        return prefixes;
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

    /** A whole number of the manifest from min to max, or an error that names it. */
    static int whole(Map<String, Object> fields, String key, int min, int max) {
        Object v = fields.get(key);
        if (!(v instanceof Long n && n >= min && n <= max)) {  // an integer: 64, not 64.0
            throw new IllegalArgumentException("manifest.json: " + key + " must be a whole number from " + min + " to "
                    + max + ", got " + (v == null ? "nothing" : Json.write(v)));
        }
        return (int) (long) n;
    }

    /** A file the manifest names, which must lie in the model folder itself. */
    static String fileName(Map<String, Object> fields, String key) {
        Object v = fields.get(key);
        if (!(v instanceof String f) || f.isEmpty() || f.equals(".") || f.equals("..") || f.contains("/")
                || f.contains("\\")) {
            throw new IllegalArgumentException("manifest.json: " + key + " " + (v == null ? "is missing" : Json.write(v)
                    + " is not a file inside the model folder"));
        }
        return f;
    }

    /** A file's bytes after checking its size and sha256 against the manifest. */
    @SuppressWarnings("unchecked")
    static byte[] verified(Encoder.ModelFiles files, String name, Map<String, Object> listed) throws IOException {
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
}
