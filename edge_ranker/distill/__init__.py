"""Distillation: teacher targets, PCA, the 1-layer student, losses and the Accelerate training loop."""
