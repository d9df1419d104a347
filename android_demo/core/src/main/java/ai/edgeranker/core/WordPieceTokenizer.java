package ai.edgeranker.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * WordPiece tokenization identical to the Python runtime's tokenizer.json: BERT normaliser (clean text,
 * CJK spacing, lowercase, accents kept), BERT pre-tokenizer (whitespace and punctuation), greedy
 * longest-match WordPiece with "##" continuations, [CLS] ... [SEP], truncation to maxLength (the tokens the
 * model reads of a text, all its windows).
 * Works on Unicode code points, as the Rust tokenizers library does.
 */
public final class WordPieceTokenizer {
    private static final int MAX_CHARS_PER_WORD = 100;
    private static final int CHARS_PER_TOKEN_CAP = 64;

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

    /** Token ids for text with an optional role prefix ("query: "), exactly as the Python Encoder.tokenize. */
    public int[] encode(String text, String prefix) {
        String clean = cut(text);
        List<Integer> ids = new ArrayList<>();
        for (String word : preTokenize(normalize(prefix + clean))) {
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
     * The part of a text the tokens come from (its first maxLength x 64 code points, lone surrogates replaced): the
     * Python Encoder.cut, which BM25 reads too, so a huge document costs no more than a long one.
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

    static boolean isWhitespace(int c) {  // Unicode White_Space, as Rust's char::is_whitespace
        return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680
                || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F
                || c == 0x3000;
    }

    static boolean isControl(int c) {
        if (c == '\t' || c == '\n' || c == '\r') {
            return false;
        }
        int t = Character.getType(c);
        return t == Character.CONTROL || t == Character.FORMAT || t == Character.UNASSIGNED
                || t == Character.PRIVATE_USE || t == Character.SURROGATE;
    }

    static boolean isChinese(int c) {
        return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF)
                || (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF)
                || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
    }

    static boolean isPunctuation(int c) {
        if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) {
            return true;
        }
        int t = Character.getType(c);
        return t == Character.CONNECTOR_PUNCTUATION || t == Character.DASH_PUNCTUATION
                || t == Character.START_PUNCTUATION || t == Character.END_PUNCTUATION
                || t == Character.INITIAL_QUOTE_PUNCTUATION || t == Character.FINAL_QUOTE_PUNCTUATION
                || t == Character.OTHER_PUNCTUATION;
    }

    /** BertNormalizer(clean_text, handle_chinese_chars, strip_accents=false, lowercase=true). */
    static String normalize(String s) {
        StringBuilder b = new StringBuilder(s.length() + 8);
        s.codePoints().forEach(c -> {
            if (c == 0 || c == 0xFFFD || isControl(c)) {
                return;
            }
            if (isWhitespace(c)) {
                c = ' ';
            }
            if (isChinese(c)) {
                b.append(' ').appendCodePoint(c).append(' ');
                return;
            }
            if (c == 0x130) {  // the one unconditional multi-character lowercase mapping
                b.append("i\u0307");
            } else {
                b.appendCodePoint(Character.toLowerCase(c));
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

    private void wordPiece(String word, List<Integer> out) {
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
