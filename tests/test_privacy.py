"""Privacy at the process level: a process that ranks for 20 s with the shipped models, seen by strace (which sees
native code too, onnxruntime's included), connects to nothing but Unix sockets and writes no file outside the
preference store's folder, in a fresh HOME."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

LOOP = """
import sys, time
from edge_ranker import Encoder, PreferenceStore, Ranker
ranker = Ranker(Encoder.load("semantic"), Encoder.load("relevance"), PreferenceStore(sys.argv[1]))
docs = [{"id": str(i), "text": f"document {i} about rivers, mountains and trains"} for i in range(50)]
ranker.feedback(docs[0], "like")
ranker.feedback(docs[1], "dislike")
end = time.time() + float(sys.argv[2])
while time.time() < end:
    ranker.rank(docs, query="mountain train")
print("ranked")
"""
CALLS = (
    "connect,sendto,sendmsg,open,openat,openat2,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat,symlink,"
    "unlink,unlinkat,truncate"
)
WRITES = re.compile(r"O_WRONLY|O_RDWR|O_CREAT")
PATH = re.compile(r'"([^"]*)"')


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace (make test installs it as root)")
def test_twenty_seconds_of_ranking_touch_no_network_and_no_file_outside_the_store(tmp_path):
    home, store = tmp_path / "home", tmp_path / "store"
    home.mkdir()
    log = tmp_path / "strace.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORT_", "XDG_"))}
    env.update(HOME=str(home), PYTHONDONTWRITEBYTECODE="1")
    cmd = ["strace", "-f", "-qq", "-e", f"trace={CALLS}", "-o", str(log), sys.executable, "-c", LOOP]
    out = subprocess.run([*cmd, str(store / "p.db"), "20"], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "ranked" in out.stdout, out.stderr[-2000:]
    lines = log.read_text().splitlines()
    network = [x for x in lines if re.search(r"\b(connect|sendto|sendmsg)\(", x) and "AF_UNIX" not in x]
    assert not network, network[:5]
    written = []
    changing = re.compile(r"\b(mkdir|mkdirat|rename|renameat2?|link|linkat|symlink|unlink|unlinkat|truncate|creat)\(")
    for x in lines:
        if (re.search(r"\b(open|openat2?)\(", x) and WRITES.search(x)) or changing.search(x):
            # a relative path counts too: it lands in the working folder
            written += [p for p in PATH.findall(x) if not p.startswith(("/dev/", str(store)))]
    assert not written, written[:5]
    assert not any(home.rglob("*")), sorted(map(str, home.rglob("*")))[:5]


def test_with_onnxruntime_loaded_first_and_its_telemetry_on_no_model_runs(tmp_path):
    """onnxruntime writes its telemetry files as it loads; an app that loaded it first has them already, and the
    Encoder refuses to add sessions and events to them. Loaded after edge_ranker, it writes nothing."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORT_", "XDG_"))}
    late, early = tmp_path / "late", tmp_path / "early"
    late.mkdir()
    early.mkdir()
    first = "import onnxruntime, edge_ranker\nfrom edge_ranker import Encoder, EdgeRankerError\n"
    run = (
        "try:\n    Encoder.load('relevance').encode(['x'])\n    print('ran')\n"
        "except EdgeRankerError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", first + run], env={**env, "HOME": str(late)}, capture_output=True)
    said = out.stdout.decode()
    assert out.returncode == 0 and "imported before edge_ranker" in said and "ORT_DISABLE_TELEMETRY=1" in said, said
    then = "import edge_ranker, onnxruntime\nfrom edge_ranker import Encoder, EdgeRankerError\n"
    out = subprocess.run([sys.executable, "-c", then + run], env={**env, "HOME": str(early)}, capture_output=True)
    assert out.stdout.decode().strip() == "ran" and not any(early.rglob("*")), out.stderr[-500:]
    agreed = {**env, "HOME": str(early), "ORT_DISABLE_TELEMETRY": "1"}
    out = subprocess.run([sys.executable, "-c", first + run], env=agreed, capture_output=True)
    assert out.stdout.decode().strip() == "ran" and not any(early.rglob("*"))
