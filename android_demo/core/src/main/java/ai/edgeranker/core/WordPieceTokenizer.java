package ai.edgeranker.core;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * WordPiece tokenization identical to the Python runtime's tokenizer.json: BERT normaliser (clean text,
 * CJK spacing, lowercase, accents kept), BERT pre-tokenizer (whitespace and punctuation), greedy
 * longest-match WordPiece with "##" continuations, [CLS] ... [SEP], truncation to maxLength (the tokens the
 * model reads of a text, all its windows).
 * Works on Unicode code points, as the Rust tokenizers library does. Which characters are dropped, spaced,
 * split off as punctuation or lowercased comes from unicode.tsv (spec/tools/unicode_table.py), written from the
 * tokenizers library itself, not from the JDK's Character tables: Java 17 knows Unicode 13 and would drop the
 * emoji added since (🥹, 🫠), which the tokenizers library keeps as [UNK]. The same table gives the letters and
 * numbers (Unicode L* and N*) by Python's unicodedata, which Lexical counts words by.
 * Special tokens written in a text ("[SEP]") are read as those tokens, as the tokenizers library reads them.
 */
public final class WordPieceTokenizer {
    private static final int MAX_CHARS_PER_WORD = 100;
    private static final int CHARS_PER_TOKEN_CAP = 64;
    private static final Pattern SPECIAL = Pattern.compile("\\[(?:PAD|UNK|CLS|SEP|MASK)\\]");
    private static final int[] FIRST;
    private static final int[] LAST;
    private static final int[] ALNUM_FIRST;
    private static final int[] ALNUM_LAST;
    private static final char[] KIND;
    private static final Map<Integer, String> LOWER = new HashMap<>();

    static {
        List<int[]> ranges = new ArrayList<>();
        List<int[]> alnum = new ArrayList<>();
        List<Character> kinds = new ArrayList<>();
        try (InputStream in = WordPieceTokenizer.class.getResourceAsStream("/unicode.tsv")) {
            if (in == null) {
                throw new IllegalStateException("unicode.tsv is missing from the edge-ranker core's resources");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                String[] f = line.split(" ");
                if (f[0].equals("R")) {
                    ranges.add(new int[] {Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16)});
                    kinds.add(f[3].charAt(0));
                } else if (f[0].equals("A")) {
                    alnum.add(new int[] {Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16)});
                } else if (f[0].equals("L")) {
                    StringBuilder lower = new StringBuilder();
                    for (int i = 2; i < f.length; i++) {
                        lower.appendCodePoint(Integer.parseInt(f[i], 16));
                    }
                    LOWER.put(Integer.parseInt(f[1], 16), lower.toString());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ALNUM_FIRST = alnum.stream().mapToInt(r -> r[0]).toArray();
        ALNUM_LAST = alnum.stream().mapToInt(r -> r[1]).toArray();
        FIRST = new int[ranges.size()];
        LAST = new int[ranges.size()];
        KIND = new char[ranges.size()];
        for (int i = 0; i < FIRST.length; i++) {
            FIRST[i] = ranges.get(i)[0];
            LAST[i] = ranges.get(i)[1];
            KIND[i] = kinds.get(i);
        }
    }

    private final Map<String, Integer> vocab;
    private final int maxLength;
    private final int unk;
    private final int cls;
    private final int sep;

    public WordPieceTokenizer(List<String> tokens, int maxLength) {
        this.vocab = new HashMap<>();
        for (int i = 0; i < tokens.size(); i++) {
            vocab.put(tokens.get(i), i);
        }
        this.maxLength = maxLength;
        this.unk = id("[UNK]");
        this.cls = id("[CLS]");
        this.sep = id("[SEP]");
    }

    /** How many tokens the vocabulary holds: ids run from 0 to size() - 1. */
    public int size() {
        return vocab.size();
    }

    /** Loads vocab.txt from a model folder (one token per line, id = line number). */
    public static WordPieceTokenizer load(Path vocabTxt, int maxLength) throws IOException {
        String text = Files.readString(vocabTxt, StandardCharsets.UTF_8);
        List<String> tokens = new ArrayList<>(List.of(text.split("\n", -1)));
        if (!tokens.isEmpty() && tokens.get(tokens.size() - 1).isEmpty()) {
            tokens.remove(tokens.size() - 1);
        }
        return new WordPieceTokenizer(tokens, maxLength);
    }

    private int id(String token) {
        Integer i = vocab.get(token);
        if (i == null) {
            throw new IllegalArgumentException("vocabulary lacks " + token);
        }
        return i;
    }

    /** Token ids for text with an optional role prefix ("query: "), [CLS] ... [SEP]. */
    public int[] encode(String text, String prefix) {
        String rest = prefix + cut(text);
        List<Integer> ids = new ArrayList<>();
        int from = 0;  // the text between special tokens is normalised and split; each of those is one id
        for (Matcher m = SPECIAL.matcher(rest); m.find(); ) {
            Integer special = vocab.get(m.group());
            if (special != null) {
                for (String word : preTokenize(normalize(rest.substring(from, m.start())))) {
                    wordPiece(word, ids);
                }
                ids.add(special);
                from = m.end();
            }
        }
        for (String word : preTokenize(normalize(rest.substring(from)))) {
            wordPiece(word, ids);
        }
        int keep = Math.min(ids.size(), maxLength - 2);
        int[] out = new int[keep + 2];
        out[0] = cls;
        for (int i = 0; i < keep; i++) {
            out[i + 1] = ids.get(i);
        }
        out[keep + 1] = sep;
        return out;
    }

    /**
     * The part of a text the tokens come from (its first maxLength x 64 code points, lone surrogates replaced), which
     * BM25 reads too, so a huge document costs no more than a long one.
     */
    public String cut(String text) {
        String clean = cleanInput(text == null ? "" : text);
        int cap = maxLength * CHARS_PER_TOKEN_CAP;
        return clean.codePointCount(0, clean.length()) > cap ? clean.substring(0, clean.offsetByCodePoints(0, cap))
                : clean;
    }

    /** Lone surrogates become '?', as Python's encode("utf-8", "replace") does. */
    static String cleanInput(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(c).append(s.charAt(i + 1));
                i++;
            } else if (Character.isSurrogate(c)) {
                b.append('?');
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** The table's class of a non-ASCII code point: D, S, C, P, or 0 for a character kept as it is. */
    static char kind(int c) {
        int i = range(c, FIRST, LAST);
        return i < 0 ? 0 : KIND[i];
    }

    /**
     * Unicode category L* or N* as the table has it from Python's unicodedata, whatever Unicode version the JDK
     * knows: what Lexical's terms and hasWord count words by.
     */
    static boolean isLetterOrNumber(int c) {
        if (c < 0x80) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        }
        return range(c, ALNUM_FIRST, ALNUM_LAST) >= 0;
    }

    /** The index of the sorted, disjoint range [first[i], last[i]] holding c, or -1. */
    private static int range(int c, int[] first, int[] last) {
        int lo = 0;
        int hi = first.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (c < first[mid]) {
                hi = mid - 1;
            } else if (c > last[mid]) {
                lo = mid + 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    static boolean isWhitespace(int c) {
        return c < 0x80 ? c == ' ' || (c >= 0x09 && c <= 0x0D) : kind(c) == 'S';
    }

    static boolean isControl(int c) {  // ASCII: Cc but tab, line feed and carriage return; the rest from the table
        return c < 0x80 ? (c < 0x20 || c == 0x7F) && c != '\t' && c != '\n' && c != '\r' : kind(c) == 'D';
    }

    static boolean isChinese(int c) {
        return c >= 0x80 && kind(c) == 'C';
    }

    static boolean isPunctuation(int c) {
        if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) {
            return true;
        }
        return c >= 0x80 && kind(c) == 'P';
    }

    /** BertNormalizer(clean_text, handle_chinese_chars, strip_accents=false, lowercase=true). */
    static String normalize(String s) {
        StringBuilder b = new StringBuilder(s.length() + 8);
        s.codePoints().forEach(c -> {
            if (c == 0 || isControl(c)) {  // U+FFFD too: the table drops it
                return;
            }
            if (isWhitespace(c)) {
                c = ' ';
            }
            if (isChinese(c)) {
                b.append(' ').appendCodePoint(c).append(' ');
                return;
            }
            if (c < 0x80) {
                b.appendCodePoint(c >= 'A' && c <= 'Z' ? c + 32 : c);
            } else {
                String lower = LOWER.get(c);
                if (lower == null) {
                    b.appendCodePoint(c);
                } else {
                    b.append(lower);
                }
            }
        });
        return b.toString();
    }

    /** BertPreTokenizer: split on whitespace (dropped) and isolate each punctuation character. */
    static List<String> preTokenize(String s) {
        List<String> words = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        s.codePoints().forEach(c -> {
            if (isWhitespace(c)) {
                flush(cur, words);
            } else if (isPunctuation(c)) {
                flush(cur, words);
                words.add(new String(Character.toChars(c)));
            } else {
                cur.appendCodePoint(c);
            }
        });
        flush(cur, words);
        return words;
    }

    private static void flush(StringBuilder cur, List<String> words) {
        if (cur.length() > 0) {
            words.add(cur.toString());
            cur.setLength(0);
        }
    }

    /** The id of [UNK], the piece of a word the vocabulary cannot spell. */
    int unknownId() {
        return unk;
    }

    /** The WordPiece ids of one pre-tokenized word, added to out: [UNK] alone for a word it cannot spell. */
    void wordPiece(String word, List<Integer> out) {
        int[] cps = word.codePoints().toArray();
        if (cps.length > MAX_CHARS_PER_WORD) {
            out.add(unk);
            return;
        }
        List<Integer> pieces = new ArrayList<>();
        int start = 0;
        while (start < cps.length) {
            int end = cps.length;
            Integer found = null;
            while (start < end) {
                String sub = new String(cps, start, end - start);
                if (start > 0) {
                    sub = "##" + sub;
                }
                found = vocab.get(sub);
                if (found != null) {
                    break;
                }
                end--;
            }
            if (found == null) {
                out.add(unk);
                return;
            }
            pieces.add(found);
            start = end;
        }
        out.addAll(pieces);
    }
}
