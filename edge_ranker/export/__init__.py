"""Export a trained student to a verified model folder: one ONNX graph from token ids to the unit vector."""
