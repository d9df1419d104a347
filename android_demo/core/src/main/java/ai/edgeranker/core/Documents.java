package ai.edgeranker.core;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The checks of what Ranker.rank and the command line take as a document (edge_ranker/runtime/documents.py): a
 * non-blank id that UTF-8 can write, a publication time in unix seconds up to the year 9999, each id once in a list;
 * and a feed line's id as JSON gives it (Main reads its ISO-8601 time: java.time is not on every Android version the
 * app supports).
 */
final class Documents {
    private Documents() {
    }

    /** A blank id, or one with a lone surrogate, is refused: an id is an identity, never altered. */
    static void checkId(String id) {
        if (id == null || strip(id).isEmpty()) {
            throw new IllegalArgumentException("a document id must be a non-blank string, got " + id);
        }
        if (!StandardCharsets.UTF_8.newEncoder().canEncode(id)) {
            throw new IllegalArgumentException("document id " + Json.write(id) + " is not valid Unicode (a lone "
                    + "surrogate)");
        }
    }

    /**
     * A publication time not finite, or after Constants.LAST_SECOND (a unit mistake: milliseconds), is refused in
     * the words of spec/cases/checks.
     */
    static void checkPublished(String id, Double published) {
        if (published != null && !Double.isFinite(published)) {
            throw new IllegalArgumentException("document " + id + ": 'published' must be unix seconds, ISO-8601 or a "
                    + "datetime");
        }
        if (published != null && published > Constants.LAST_SECOND) {  // would sort first in every cold start
            throw new IllegalArgumentException("document " + id + ": 'published' " + number(published) + " lies after "
                    + "the year 9999: unix seconds, not milliseconds?");
        }
    }

    /**
     * A number as a refusal shows it: a whole one without a fraction (10000000000000, as Python writes the integer
     * it was given and web/ any number), others as Python's repr (-0.5, nan, inf).
     */
    static String number(double x) {
        if (Double.isNaN(x)) {
            return "nan";
        }
        if (Double.isInfinite(x)) {
            return x > 0 ? "inf" : "-inf";
        }
        if (x == Math.rint(x) && Math.abs(x) < 1e21) {
            return new java.math.BigDecimal(x).toPlainString();
        }
        return Double.toString(x);
    }

    /** A list to rank: not null, no null in it, and no id twice (two documents of one id could not be told apart). */
    static void checkList(List<Ranker.Document> docs) {
        if (docs == null) {
            throw new IllegalArgumentException("docs must be a list of Document, got null");
        }
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < docs.size(); i++) {
            Ranker.Document d = docs.get(i);
            if (d == null) {
                throw new IllegalArgumentException("docs[" + i + "] is null, not a Document");
            }
            Integer first = seen.putIfAbsent(d.id, i);
            if (first != null) {
                throw new IllegalArgumentException("document id " + Json.write(d.id) + " appears twice (positions "
                        + (first + 1) + " and " + (i + 1) + ")");
            }
        }
    }

    /** A document id of a feed line: a non-empty string, or an integer (1, not 1.0) as its decimal text. */
    static String docId(Object id) {
        if ((id instanceof String t && !t.isEmpty()) || id instanceof Long || id instanceof BigInteger) {
            return id.toString();
        }
        throw new IllegalArgumentException("'id' must be a non-blank string or an integer, got " + Json.write(id));
    }

    /**
     * Without leading and trailing Unicode white space, as Python's str.strip() (String.strip is not on every Android
     * version the app supports).
     */
    static String strip(String s) {
        int[] cps = s.codePoints().toArray();
        int a = 0;
        int b = cps.length;
        while (a < b && isSpace(cps[a])) {
            a++;
        }
        while (b > a && isSpace(cps[b - 1])) {
            b--;
        }
        return new String(cps, a, b - a);
    }

    /** Python's str.isspace: Unicode White_Space and the four ASCII separators 0x1C-0x1F. */
    static boolean isSpace(int c) {
        return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F) || c == 0x85 || c == 0xA0
                || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F
                || c == 0x205F || c == 0x3000;
    }
}
