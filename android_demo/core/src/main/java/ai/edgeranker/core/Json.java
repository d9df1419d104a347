package ai.edgeranker.core;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The little JSON the core reads (model manifests, feed lines, a history file) and writes (ranked lines):
 * objects become LinkedHashMap, arrays ArrayList, numbers Long (or BigInteger past a long) when written without a
 * fraction or exponent and Double otherwise (NaN and Infinity included), as Python's json tells int from float,
 * plus String, Boolean and null.
 */
public final class Json {
    // JSON's number grammar: no leading zeros, '+', bare '.' or dangling exponent, which Python's json refuses too
    private static final Pattern NUMBER = Pattern.compile("-?(?:0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");
    // Python refuses to read an integer of more digits (sys.int_info.default_max_str_digits)
    private static final int MAX_DIGITS = 4300;
    // Nesting past this is refused in words: the parser recurses, and a StackOverflowError is no Exception an app
    // catches (a model manifest nests 3 deep, a feed line 2)
    static final int MAX_DEPTH = 256;
    private final String s;
    private int i;
    private int depth;

    private Json(String s) {
        this.s = s;
    }

    public static Object parse(String text) {
        Json p = new Json(text);
        p.space();
        Object v = p.value();
        p.space();
        if (p.i != p.s.length()) {
            throw p.error("trailing characters");
        }
        return v;
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(String text) {
        Object v = parse(text);
        if (!(v instanceof Map)) {
            throw new IllegalArgumentException("expected a JSON object");
        }
        return (Map<String, Object>) v;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("JSON: " + what + " at character " + i);
    }

    private void space() {
        while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
    }

    private Object value() {
        if (i >= s.length()) {
            throw error("unexpected end");
        }
        char c = s.charAt(i);
        switch (c) {
            case '{':
            case '[':
                if (++depth > MAX_DEPTH) {
                    throw error("nesting deeper than " + MAX_DEPTH);
                }
                Object nested = c == '{' ? object() : array();
                depth--;
                return nested;
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            case 'N':  // NaN and Infinity, which Python's json reads and writes
                return literal("NaN", Double.NaN);
            case 'I':
                return literal("Infinity", Double.POSITIVE_INFINITY);
            default:
                return number();
        }
    }

    private Object literal(String word, Object v) {
        if (!s.startsWith(word, i)) {
            throw error("unexpected character");
        }
        i += word.length();
        return v;
    }

    private Map<String, Object> object() {
        Map<String, Object> out = new LinkedHashMap<>();
        i++;
        space();
        if (i < s.length() && s.charAt(i) == '}') {
            i++;
            return out;
        }
        while (true) {
            space();
            if (i >= s.length() || s.charAt(i) != '"') {
                throw error("expected a key");
            }
            String key = string();
            space();
            expect(':');
            space();
            out.put(key, value());
            space();
            if (i < s.length() && s.charAt(i) == ',') {
                i++;
                continue;
            }
            expect('}');
            return out;
        }
    }

    private List<Object> array() {
        List<Object> out = new ArrayList<>();
        i++;
        space();
        if (i < s.length() && s.charAt(i) == ']') {
            i++;
            return out;
        }
        while (true) {
            space();
            out.add(value());
            space();
            if (i < s.length() && s.charAt(i) == ',') {
                i++;
                continue;
            }
            expect(']');
            return out;
        }
    }

    private void expect(char c) {
        if (i >= s.length() || s.charAt(i) != c) {
            throw error("expected '" + c + "'");
        }
        i++;
    }

    private String string() {
        StringBuilder b = new StringBuilder();
        i++;
        while (true) {
            if (i >= s.length()) {
                throw error("unterminated string");
            }
            char c = s.charAt(i++);
            if (c == '"') {
                return b.toString();
            }
            b.append(c == '\\' ? escaped() : c);
        }
    }

    /** The character of the escape after a backslash (a surrogate pair comes as two escapes). */
    private char escaped() {
        if (i >= s.length()) {
            throw error("unterminated escape");
        }
        char e = s.charAt(i++);
        switch (e) {
            case 'b':
                return '\b';
            case 'f':
                return '\f';
            case 'n':
                return '\n';
            case 'r':
                return '\r';
            case 't':
                return '\t';
            case 'u':
                if (i + 4 > s.length()) {
                    throw error("short \\u escape");
                }
                char u = (char) Integer.parseInt(s.substring(i, i + 4), 16);
                i += 4;
                return u;
            default:
                return e;  // \" \\ \/
        }
    }

    private Object number() {
        if (s.startsWith("-Infinity", i)) {
            return literal("-Infinity", Double.NEGATIVE_INFINITY);
        }
        Matcher m = NUMBER.matcher(s).region(i, s.length());
        if (!m.lookingAt()) {
            throw error("unexpected character");
        }
        String t = m.group();
        if (m.group(1) != null || m.group(2) != null) {
            i = m.end();
            return Double.valueOf(t);
        }
        if (t.length() - (t.charAt(0) == '-' ? 1 : 0) > MAX_DIGITS) {
            throw error("an integer of more than " + MAX_DIGITS + " digits");
        }
        i = m.end();
        try {
            return Long.parseLong(t);
        } catch (NumberFormatException e) {  // past a long
            return new BigInteger(t);
        }
    }

    /** Compact JSON of maps, lists, strings, numbers, booleans and null; non-ASCII text kept as is. */
    public static String write(Object v) {
        StringBuilder b = new StringBuilder();
        write(v, b);
        return b.toString();
    }

    private static void write(Object v, StringBuilder b) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof String) {
            quote((String) v, b);
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            b.append(Double.isFinite(d) ? Double.toString(d) : d > 0 ? "Infinity" : d < 0 ? "-Infinity" : "NaN");
        } else if (v instanceof Number || v instanceof Boolean) {
            b.append(v);
        } else if (v instanceof Map) {
            b.append('{');
            String sep = "";
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                b.append(sep);
                quote(String.valueOf(e.getKey()), b);
                b.append(": ");
                write(e.getValue(), b);
                sep = ", ";
            }
            b.append('}');
        } else if (v instanceof List) {
            b.append('[');
            String sep = "";
            for (Object o : (List<?>) v) {
                b.append(sep);
                write(o, b);
                sep = ", ";
            }
            b.append(']');
        } else {
            throw new IllegalArgumentException("cannot write " + v.getClass());
        }
    }

    private static void quote(String s, StringBuilder b) {
        b.append('"');
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c == '\n') {
                b.append("\\n");
            } else if (c == '\r') {
                b.append("\\r");
            } else if (c == '\t') {
                b.append("\\t");
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
    }
}
