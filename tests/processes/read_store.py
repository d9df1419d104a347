"""Holds a read transaction open on the store DATABASE until a line comes on standard input, having printed "reading":
another process's erase must wait for it (tests/test_store_export.py, bench/scripts/probes/probe_runtime.py).
Usage: python read_store.py DATABASE"""

import sqlite3
import sys

con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN")
con.execute("SELECT COUNT(*) FROM feedback").fetchone()
print("reading", flush=True)
sys.stdin.readline()
