package ai.edgeranker.core;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Each language's function words (spec/rules/stopwords.md; edge_ranker/runtime/stopwords.py): the words every text
 * of a language holds, which a query shares with a document without either being about anything. Lexical.Bag finds
 * a text's language by them, and a query word it holds counts only where it is not one of that language's function
 * words. Read from stopwords.tsv on the class path (spec/stopwords/stopwords.tsv, copied there by run_tests.sh and the
 * Gradle build), so the JVM reads the list Python and web/ read.
 */
final class Stopwords {
    /** The languages of the list, in the order a tie between them is decided in. */
    static final List<String> LANGUAGES = List.of("en", "de", "fr", "it", "es", "pl", "pt", "nl", "ru", "tr");
    /**
     * Each function word's languages, one bit each in LANGUAGES order ("in": English, German, Italian, Portuguese,
     * Dutch).
     */
    private static final Map<String, Integer> BITS = new HashMap<>();

    static {
        try (InputStream in = Stopwords.class.getResourceAsStream("/stopwords.tsv")) {
            if (in == null) {
                throw new IllegalStateException("stopwords.tsv is missing from the edge-ranker core's resources");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            int n = 0;
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                n++;
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t", -1);
                int lang = f.length == 2 ? LANGUAGES.indexOf(f[0]) : -1;
                if (lang < 0) {  // a shifted column would make every word a content word, silently
                    throw new IllegalStateException("stopwords.tsv line " + n + ": expected a language of "
                            + LANGUAGES + ", a tab and a word, got '" + line + "'");
                }
                BITS.merge(f[1], 1 << lang, (a, b) -> a | b);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Stopwords() {
    }

    /** The languages a term is a function word of, one bit each in LANGUAGES order; 0 for a content word. */
    static int bits(String term) {
        return BITS.getOrDefault(term, 0);
    }
}
