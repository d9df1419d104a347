"""The ``edge-ranker`` command line. This module imports nothing but the package: a Ctrl-C at any moment of a start
ends the command quietly, since the commands load inside ``main``'s guard (``app`` runs them, one module per group)."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    """The console script: the exit status of the command line ``argv`` (default: the process's)."""
    try:
        from edge_ranker.cli.app import run
    except KeyboardInterrupt:
        return 130
    return run(argv)
