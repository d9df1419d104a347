"""One exception type for input the user can fix, so the CLI prints a message instead of a traceback."""

from __future__ import annotations


class EdgeRankerError(Exception):
    """Bad input or state that the user can act on; the message says what and how."""
