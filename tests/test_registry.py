"""The data registry: what a data folder holds of it, and a fetch from a mirror on 127.0.0.1 that keeps only files
whose sha256 matches, never writes more than a file's registered size, and names a bad URL, a missing file, an
unreachable or a silent server as such."""

from __future__ import annotations

import functools
import gzip
import hashlib
import http.server
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator

import pytest

from edge_ranker.datasets import registry as registry_module
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
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


Respond = Callable[[http.server.BaseHTTPRequestHandler], None]


@pytest.fixture
def serve() -> Iterator[Callable[[Respond], str]]:
    """A server on 127.0.0.1 whose every GET is answered by the given function; its URL. The requests' headers are
    kept in ``serve.headers`` so a test can see what the fetch asked for."""
    servers = []

    def start(respond: Respond) -> str:
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                start.headers.append(dict(self.headers))
                try:
                    respond(self)
                except (BrokenPipeError, ConnectionResetError):  # the fetch hung up: what a refusal does
                    pass

            def log_message(self, *args: object) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    start.headers = []
    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def files_under(root) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) if root.exists() else []


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "no-content-length"])
def test_a_mirror_that_sends_more_than_the_registrys_size_is_cut_off_and_nothing_is_kept(
    registry, serve, tmp_path, declared
):
    def endless(h: http.server.BaseHTTPRequestHandler) -> None:
        # 32 MB (a real one would not stop) after the registry's 8 bytes: a fetch without a bound reads it all
        h.send_response(200)
        if declared:
            h.send_header("Content-Length", str(32 << 20))
        h.end_headers()
        for _ in range(512):
            h.wfile.write(b"x" * (64 << 10))

    root = tmp_path / "data"
    with pytest.raises(EdgeRankerError, match=r"sends more than the registry's 8 bytes .*nothing was kept"):
        fetch(root, chosen(registry, ["sts/tiny"]), serve(endless), progress=False)
    assert files_under(root) == []


def test_a_gzip_bomb_is_refused_unexpanded_and_identity_is_asked_for(registry, serve, tmp_path):
    bomb = gzip.compress(b"\0" * (8 << 20))  # 8 KB that a decoding client expands to 8 MB

    def compressed(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Encoding", "gzip")
        h.send_header("Content-Length", str(len(bomb)))
        h.end_headers()
        h.wfile.write(bomb)

    root = tmp_path / "data"
    with pytest.raises(EdgeRankerError, match=r"Content-Encoding gzip.*only identity.*nothing was kept"):
        fetch(root, chosen(registry, ["sts/tiny"]), serve(compressed), progress=False)
    assert serve.headers and all(h.get("Accept-Encoding") == "identity" for h in serve.headers)
    assert files_under(root) == []


@pytest.mark.parametrize("url", ["file:///etc", "notaurl", "", "http://", "ftp://example.org/data", "https:///data"])
def test_a_mirror_that_is_not_an_http_url_with_a_host_is_refused_as_a_bad_url(registry, tmp_path, url):
    root = tmp_path / "data"
    with pytest.raises(EdgeRankerError, match=r"bad mirror URL .*only http:// and https:// URLs with a host"):
        fetch(root, registry, url, progress=False)
    assert files_under(root) == []


@pytest.mark.parametrize("case", ["bad-url", "404"])
def test_the_command_says_a_refusal_in_one_line(serve, tmp_path, case):
    url, said = ("file:///etc", "bad mirror URL 'file:///etc'") if case == "bad-url" else (None, "answered 404")
    url = url or serve(lambda h: h.send_error(404))
    r = subprocess.run(
        [sys.executable, "-m", "edge_ranker.cli", "data", "fetch", "topics/sib200", "--data", str(tmp_path)]
        + ["--mirror", url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and said in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_missing_file_and_an_unreachable_mirror_are_named_as_such(registry, mirror, tmp_path):
    (mirror[0] / "sts/tiny/a.csv").unlink()
    root = tmp_path / "data"
    with pytest.raises(EdgeRankerError, match=r"/sts/tiny/a.csv: the server answered 404 "):
        fetch(root, chosen(registry, ["sts/tiny"]), mirror[1], progress=False)
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(EdgeRankerError, match=rf"cannot reach http://127.0.0.1:{port}/sts/tiny/a.csv: "):
        fetch(root, chosen(registry, ["sts/tiny"]), f"http://127.0.0.1:{port}", progress=False)
    assert files_under(root) == []


def test_a_server_that_never_answers_is_given_up_on_after_the_timeout(registry, tmp_path, monkeypatch):
    monkeypatch.setattr(registry_module, "TIMEOUT", 0.3)
    with socket.create_server(("127.0.0.1", 0)) as silent:  # takes the connection (its backlog), never answers
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        with pytest.raises(EdgeRankerError, match=r"sent nothing for 0.3 s"):
            fetch(tmp_path / "data", chosen(registry, ["sts/tiny"]), url, progress=False)


def test_fetch_from_a_mirror_writes_each_file_once_its_sha256_matches(registry, mirror, tmp_path, capsys):
    root = tmp_path / "data"
    assert [r["present"] for r in status(root, registry)] == [0, 0]
    written = fetch(root, registry, mirror[1], progress=True)
    assert "sts/tiny/a.csv: 0.0 of 0.0 MB\n" in capsys.readouterr().err
    assert sorted(p.relative_to(root).as_posix() for p in written) == sorted(FILES)
    assert all((root / rel).read_bytes() == data for rel, data in FILES.items())
    assert [r["present"] for r in status(root, registry, verify=True)] == [1, 1]
    assert fetch(root, registry, mirror[1], progress=False) == []  # nothing missing, nothing fetched


def test_a_file_that_is_not_the_registrys_is_refused_and_not_kept(registry, mirror, tmp_path):
    (mirror[0] / "sts/tiny/a.csv").write_bytes(b"ONE\tTWO\n")  # the registry's size, not its bytes
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
