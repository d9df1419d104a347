"""The on-device runtime: numpy, onnxruntime and tokenizers only (never torch, transformers, scikit-learn)."""
