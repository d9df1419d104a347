"""Opens COUNT new stores in FOLDER, one every EVERY seconds (default 0.2) from START (unix seconds), and prints how
many failed: several of these at once open each new file together (tests/test_store_concurrency.py,
bench/scripts/probes/probe_runtime.py).
Usage: python open_stores.py FOLDER START COUNT [EVERY]"""

import sys
import time

from edge_ranker.runtime.store import PreferenceStore

start, errors = float(sys.argv[2]), 0
every = float(sys.argv[4]) if len(sys.argv) > 4 else 0.2
for i in range(int(sys.argv[3])):
    while time.time() < start + i * every:
        time.sleep(0.001)
    try:
        PreferenceStore(f"{sys.argv[1]}/db{i}.sqlite").close()
    except Exception as exc:
        errors += 1
        print(exc, file=sys.stderr)
print(errors)
