package ai.edgeranker.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Objects;
import java.util.function.Function;

/**
 * What was computed for a text (a vector, its terms, a flag), least recently used first out once the entries'
 * estimated bytes pass the budget: edge_ranker/runtime/cache.py, bounded by a phone's heap rather than a count.
 * Not thread-safe (an access-order map changes on every read): only the Ranker's synchronized methods touch it.
 */
final class Cache {
    /** A value with the bytes it was counted at (a class, not a record: older Android versions lack records). */
    private static final class Entry {
        final Object value;
        final long bytes;

        Entry(Object value, long bytes) {
            this.value = value;
            this.bytes = bytes;
        }
    }

    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
    private final long budget;
    private long bytes;

    Cache(long budget) {
        this.budget = budget;
    }

    /**
     * A cache key: what is cached and the text's SHA-256, not the text, so that a cached 5 MB document holds 45
     * bytes of key, not 10 MB (texts with the same lone surrogates replaced read alike, so may share one).
     */
    static String key(char kind, String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return kind + Base64.getEncoder().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    Object get(String key, Function<String, Object> compute) {
        Entry e = entries.get(key);
        if (e == null) {
            Object v = Objects.requireNonNull(compute.apply(key), key);
            e = new Entry(v, 64L + 2L * key.length() + bytesOf(v));
            entries.put(key, e);
            bytes += e.bytes;
            Iterator<Entry> eldest = entries.values().iterator();
            while (bytes > budget && entries.size() > 1) {
                bytes -= eldest.next().bytes;
                eldest.remove();
            }
        }
        return e.value;
    }

    /** A float[] vector, a text's terms (Lexical.Bag) or a flag, as the JVM lays them out (estimated, 64-bit). */
    private static long bytesOf(Object v) {
        if (v instanceof float[] f) {
            return 16L + 4L * f.length;
        }
        if (v instanceof Lexical.Bag b) {
            long total = 16L + 64L;  // the bag, its map
            for (String term : b.counts.keySet()) {  // node, boxed count, String and its array
                total += 32L + 16L + 40L + 2L * term.length();
            }
            return total;
        }
        return 0L;
    }
}
