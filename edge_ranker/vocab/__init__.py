"""Vocabulary tooling: smoothed multilingual sampling and WordPiece training (paper Sec. 5.1)."""

from edge_ranker.vocab.builder import VocabReport, build_vocab
from edge_ranker.vocab.sampling import smoothed_weights

__all__ = ["VocabReport", "build_vocab", "smoothed_weights"]
