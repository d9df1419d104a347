package ai.edgeranker.core;

import java.util.ArrayList;
import java.util.List;

/**
 * Whether a model can read a text: the share of the words it reads that its vocabulary can only give as [UNK]
 * (edge_ranker/runtime/readable.py). A text in a script the vocabulary lacks comes out as a few [UNK] pieces and gets
 * nearly one vector whatever it says, so past Constants.UNKNOWN_LIMIT the Ranker learns no interest from it and ranks
 * it by its words alone.
 */
public final class Readable {
    private Readable() {
    }

    /**
     * The share of the words of a text, as far as a model reading at most `pieces` of its pieces reads them, that
     * WordPiece can only give as [UNK]; words without a letter or number count neither way (VocabularyCoverage's
     * unknown_share).
     */
    static double unknownShare(WordPieceTokenizer tokenizer, String text, int pieces) {
        int read = 0;
        int counted = 0;
        int missed = 0;
        List<Integer> out = new ArrayList<>();
        for (String word : WordPieceTokenizer.preTokenize(WordPieceTokenizer.normalize(tokenizer.cut(text)))) {
            if (read >= pieces) {
                break;
            }
            out.clear();
            tokenizer.wordPiece(word, out);
            read += out.size();
            if (word.codePoints().anyMatch(WordPieceTokenizer::isLetterOrNumber)) {
                counted++;
                if (out.size() == 1 && out.get(0) == tokenizer.unknownId()) {
                    missed++;
                }
            }
        }
        return counted == 0 ? 0.0 : (double) missed / counted;
    }

    /** Whether a text of this unknown share is one the models can read. */
    static boolean readable(double unknownShare) {
        return unknownShare <= Constants.UNKNOWN_LIMIT;
    }

    /** The share in whole percent, rounded up as the refusal of a like says it: 0.55 reads 55%. */
    static long percent(double unknownShare) {
        return (long) Math.ceil(100 * unknownShare - 1e-9);
    }
}
