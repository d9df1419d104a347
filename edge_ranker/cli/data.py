"""``data`` and ``data fetch``: the data sets the recipes and evaluations read, their sources and licences, whether
the data folder holds them, and a download of those it lacks."""

from __future__ import annotations

import argparse
import sys

from edge_ranker.cli.common import print_json, terminal
from edge_ranker.paths import DATA_HELP, data_root


def cmd_data(a: argparse.Namespace) -> None:
    from edge_ranker.datasets.registry import chosen, fetch, load_registry, status

    root = data_root(a.data)
    sets = chosen(load_registry(), a.names)
    if a.data_command == "fetch":
        import pooch  # the `fetch` extra

        pooch.get_logger().setLevel("WARNING")  # its "Downloading ..." line: the progress names the file, and a
        # refusal stays the one line of the error
        written = fetch(root, sets, a.mirror, progress=terminal(sys.stderr))
        print(f"fetched {len(written)} file(s) into {root}; every file checked against its sha256")
        return
    rows = status(root, sets, verify=a.verify)
    if a.json or not terminal(sys.stdout):
        print_json({"data": str(root), "datasets": rows})
        return
    print(f"{'data set':<28} {'MB':>6}  {'present':>9}  licence / source")
    for r in rows:
        held = f"{r['present']}/{r['files']}"
        print(f"{r['folder']:<28} {r['bytes'] / 1e6:>6.1f}  {held:>9}  {r['licence']} / {r['source']}")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """data, data fetch"""
    d = sub.add_parser("data", help="the data sets training and evaluation read: sources, licences, what is here")
    d.add_argument("--data", help=DATA_HELP)
    d.add_argument("--verify", action="store_true", help="check each present file's sha256 too (default: its size)")
    d.add_argument("--json", action="store_true", help="JSON (the default when output is not a terminal)")
    d.set_defaults(func=cmd_data, names=[], mirror=None)
    ds = d.add_subparsers(dest="data_command")
    f = ds.add_parser("fetch", help="download the data sets the data folder lacks, each checked by its sha256")
    f.add_argument("names", nargs="*", metavar="FOLDER", help="data sets by folder, e.g. sts/stsb-tr (default: all)")
    f.add_argument("--data", help=DATA_HELP, default=argparse.SUPPRESS)  # given before or after `fetch`
    f.add_argument("--mirror", metavar="URL", help="fetch from this mirror, laid out as the data folder")
    f.set_defaults(func=cmd_data, verify=False, json=False)
