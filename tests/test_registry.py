"""The data registry: what a data folder holds of it, and a fetch from a mirror on 127.0.0.1 that keeps only files
whose sha256 matches."""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import subprocess
import sys
import threading

import pytest

from edge_ranker.datasets.registry import chosen, fetch, load_registry, status
from edge_ranker.errors import EdgeRankerError

FILES = {"sts/tiny/a.csv": b"one\ttwo\n", "parallel/tiny/b.eng": b"hello\n"}


@pytest.fixture
def registry(tmp_path):
    def entry(folder, names):
        files = [
            {"path": p, "url": None, "sha256": hashlib.sha256(FILES[p]).hexdigest(), "bytes": len(FILES[p])}
            for p in names
        ]
        return {"folder": folder, "what": "tiny", "licence": "CC0", "source": "example/repo@0", "files": files}

    path = tmp_path / "registry.json"
    path.write_text(
        json.dumps(
            {"datasets": [entry("sts/tiny", ["sts/tiny/a.csv"]), entry("parallel/tiny", ["parallel/tiny/b.eng"])]}
        )
    )
    return load_registry(path)


@pytest.fixture
def mirror(tmp_path):
    """A mirror laid out as the data folder, served on 127.0.0.1 for the test's length."""
    root = tmp_path / "mirror"
    for rel, data in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_fetch_from_a_mirror_writes_each_file_once_its_sha256_matches(registry, mirror, tmp_path):
    root = tmp_path / "data"
    assert [r["present"] for r in status(root, registry)] == [0, 0]
    written = fetch(root, registry, mirror[1], progress=False)
    assert sorted(p.relative_to(root).as_posix() for p in written) == sorted(FILES)
    assert all((root / rel).read_bytes() == data for rel, data in FILES.items())
    assert [r["present"] for r in status(root, registry, verify=True)] == [1, 1]
    assert fetch(root, registry, mirror[1], progress=False) == []  # nothing missing, nothing fetched


def test_a_file_that_is_not_the_registrys_is_refused_and_not_kept(registry, mirror, tmp_path):
    (mirror[0] / "sts/tiny/a.csv").write_bytes(b"something else\n")
    root = tmp_path / "data"
    with pytest.raises(EdgeRankerError, match="is not the file the registry names"):
        fetch(root, chosen(registry, ["sts/tiny"]), mirror[1], progress=False)
    assert not (root / "sts/tiny/a.csv").exists()


def test_without_a_public_home_or_a_mirror_nothing_is_fetched_and_an_unknown_name_is_refused(registry, tmp_path):
    with pytest.raises(EdgeRankerError, match="fetched 0 file.*2 have no known public home .* --mirror URL"):
        fetch(tmp_path, registry, None, progress=False)
    with pytest.raises(EdgeRankerError, match="no data set sts/nope: choose from sts/tiny, parallel/tiny"):
        chosen(registry, ["sts/nope"])


def test_the_command_lists_every_data_set_with_its_source_licence_and_size(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "edge_ranker.cli", "data", "--data", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["datasets"]
    assert {"parallel/tatoeba_v2021", "sts/stsb-multi-mt", "topics/sib200"} <= {x["folder"] for x in rows}
    assert all(x["present"] == 0 and x["bytes"] > 0 and x["licence"] and x["source"] for x in rows)
    shipped = load_registry()
    assert all(f.url is None or f.url.startswith("https://") for d in shipped for f in d.files)
