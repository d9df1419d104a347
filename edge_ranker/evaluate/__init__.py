"""Evaluation: any object with ``encode(texts, role)`` in (teacher, torch student, exported model), figures out."""
