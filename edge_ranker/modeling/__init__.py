"""The torch student and the PCA map onto its targets: what ``distill`` trains, ``export`` writes to ONNX and
``evaluate`` scores, so none of the three imports another for it."""

POOLINGS = ("mean", "weighted")
POOLING_INITS = ("zero", "sif")  # where the weighted pooling's piece logits start
