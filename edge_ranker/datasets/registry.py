"""The data sets the shipped recipes and the evaluations read, where each comes from, and how to get it.

``registry.json`` lists every file of the data folder with its public home (a raw file of the repository and commit
it was copied from), its sha256 and its size. ``status`` says what a data folder holds of it; ``fetch`` downloads
what is missing through pooch, which checks each file against its sha256 and keeps a file only once it matches, so a
broken download leaves nothing behind. ``base_url`` fetches from a mirror with the data folder's own layout instead.

The bytes themselves come through ``_download``, not pooch's own downloader: a server is not trusted to stop, so no
file is read past its registered size, compressed bytes (a gzip bomb expands without bound) are refused, and a
server that goes silent is given up on after ``TIMEOUT``.
"""

from __future__ import annotations

import functools
import http.client
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.manifest import sha256_file

REGISTRY = Path(__file__).with_name("registry.json")

TIMEOUT = 30.0  # seconds a connection may wait on the server for its next bytes

CHUNK = 1 << 20


@dataclass(frozen=True)
class DataFile:
    path: str  # relative to the data folder
    url: str | None  # its public home; None where none is known (then only a mirror has it)
    sha256: str
    bytes: int


@dataclass(frozen=True)
class DataSet:
    folder: str
    what: str
    licence: str
    source: str  # repository and commit
    files: tuple[DataFile, ...]

    @property
    def bytes(self) -> int:
        return sum(f.bytes for f in self.files)


def load_registry(path: Path = REGISTRY) -> list[DataSet]:
    """The registry's data sets, in its order."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [
        DataSet(d["folder"], d["what"], d["licence"], d["source"], tuple(DataFile(**f) for f in d["files"]))
        for d in raw["datasets"]
    ]


def chosen(datasets: list[DataSet], names: list[str]) -> list[DataSet]:
    """The data sets ``names`` give by folder (all when none is given); an unknown name is refused with the list."""
    if not names:
        return datasets
    by_folder = {d.folder: d for d in datasets}
    unknown = [n for n in names if n.rstrip("/") not in by_folder]
    if unknown:
        raise EdgeRankerError(f"no data set {', '.join(unknown)}: choose from {', '.join(by_folder)}")
    return [by_folder[n.rstrip("/")] for n in names]


def present(root: Path, f: DataFile, verify: bool = False) -> bool:
    """Whether the data folder holds ``f``: by its size, and by its sha256 when ``verify``."""
    p = root / f.path
    if not p.is_file() or p.stat().st_size != f.bytes:
        return False
    return not verify or sha256_file(p) == f.sha256


def status(root: Path, datasets: list[DataSet], verify: bool = False) -> list[dict]:
    """One row per data set: where it comes from, its licence and size, and how many of its files ``root`` holds."""
    return [
        {
            "folder": d.folder,
            "what": d.what,
            "source": d.source,
            "licence": d.licence,
            "bytes": d.bytes,
            "files": len(d.files),
            "present": sum(present(root, f, verify) for f in d.files),
        }
        for d in datasets
    ]


def mirror_url(base_url: str) -> str:
    """``base_url`` without its trailing slash once it is an http(s) URL with a host: checked before any fetch, so a
    typo or a ``file://`` path is named a bad URL instead of surfacing as a hash mismatch."""
    parts = urllib.parse.urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EdgeRankerError(
            f"bad mirror URL {base_url!r}: only http:// and https:// URLs with a host are accepted, "
            "e.g. https://example.org/data"
        )
    return base_url.rstrip("/")


def _download(url: str, output_file: str, _pooch: object, size: int, name: str, progress: bool) -> None:
    """pooch's downloader: ``url``'s bytes into ``output_file``, asked for and accepted only uncompressed, and never
    more than ``size`` of them, so a mirror that sends more, or a gzip bomb, cannot fill the disk (pooch removes
    ``output_file`` when this raises)."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": "identity", "User-Agent": "edge-ranker"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response, open(output_file, "wb") as out:
            encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
            if encoding not in ("", "identity"):
                raise EdgeRankerError(
                    f"{url} came with Content-Encoding {encoding}, and only identity (uncompressed) bytes are "
                    "accepted; nothing was kept of it"
                )
            too_big = EdgeRankerError(
                f"{url} sends more than the registry's {size} bytes for {name}; nothing was kept of it"
            )
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > size:  # said up front: refused unread
                raise too_big
            got, progress = 0, progress and sys.stderr is not None  # no stderr (pythonw, 2>&-): print goes to stdout
            while chunk := response.read(min(CHUNK, size + 1 - got)):  # one byte past the size is enough to refuse
                got += len(chunk)
                if got > size:
                    raise too_big
                out.write(chunk)
                if progress:
                    print(f"\r{name}: {got / 1e6:.1f} of {size / 1e6:.1f} MB", end="", file=sys.stderr)
            if progress:
                print(file=sys.stderr)
    except urllib.error.HTTPError as exc:
        raise EdgeRankerError(f"{url}: the server answered {exc.code} {exc.reason}; nothing was kept of it") from exc
    except (TimeoutError, urllib.error.URLError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            raise EdgeRankerError(f"{url} sent nothing for {TIMEOUT:g} s; nothing was kept of it") from exc
        raise EdgeRankerError(f"cannot reach {url}: {reason}") from exc
    except (OSError, http.client.HTTPException) as exc:  # a connection cut short, a full disk: said in one line
        raise EdgeRankerError(f"cannot fetch {url}: {exc}; nothing was kept of it") from exc


def fetch(root: Path, datasets: list[DataSet], base_url: str | None = None, progress: bool = True) -> list[Path]:
    """Download every file of ``datasets`` that ``root`` lacks, from its public home or from ``base_url`` (a mirror
    laid out as the data folder), each checked against its sha256; returns the files written."""
    import pooch  # the `fetch` extra; the CLI names it when missing

    base_url = None if base_url is None else mirror_url(base_url)
    missing = [f for d in datasets for f in d.files if not present(root, f)]
    written = []
    for f in missing:
        url = f"{base_url}/{f.path}" if base_url else f.url
        if url is None:
            continue
        target = root / f.path
        download = functools.partial(_download, size=f.bytes, name=f.path, progress=progress)
        try:
            pooch.retrieve(
                url, known_hash=f"sha256:{f.sha256}", fname=target.name, path=target.parent, downloader=download
            )
        except EdgeRankerError:
            raise
        except ValueError as exc:  # pooch's word for a hash that does not match: the download was removed
            raise EdgeRankerError(f"{url} is not the file the registry names ({exc}); nothing was kept of it") from exc
        except Exception as exc:  # the file system's errors (pooch's move of the checked file), said in one line
            raise EdgeRankerError(f"cannot fetch {url}: {exc}") from exc
        written.append(target)
    homeless = [f.path for f in missing if f.url is None and base_url is None]
    if homeless:  # the others were fetched and stay
        raise EdgeRankerError(
            f"fetched {len(written)} file(s) into {root}; {len(homeless)} have no known public home (e.g. "
            f"{homeless[0]}): fetch them from a mirror laid out as the data folder, with --mirror URL"
        )
    return written
