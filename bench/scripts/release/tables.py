"""Render the JSON results under runs/ and bench/results/ as the Markdown tables of bench/RESULTS.md."""

from __future__ import annotations

import json
import sys
from pathlib import Path

LANGS = ["en", "de", "fr", "it", "es", "pl", "pt", "nl", "ru", "tr"]


def sts_row(name: str, s: dict, size: str = "") -> str:
    mono = [s[f"{lang}-{lang}"] for lang in LANGS]
    cross = [s[f"en-{lang}"] for lang in LANGS[1:]]
    cells = [f"{x:.1f}" for x in mono + cross]
    return (
        f"| {name} | {size} | "
        + " | ".join(cells)
        + f" | {sum(mono) / len(mono):.1f} | {sum(cross) / len(cross):.1f} | **{s['avg']:.2f}** |"
    )


def sts_header() -> str:
    cols = [f"{lang}-{lang}" for lang in LANGS] + [f"en-{lang}" for lang in LANGS[1:]]
    return (
        "| model | MB | " + " | ".join(cols) + " | mono avg | cross avg | avg |\n|---|---|" + "---|" * (len(cols) + 3)
    )


def load(path: str) -> dict:
    return json.loads(Path(path).read_text())


def main(kind: str, *paths: str) -> None:
    if kind == "sts":
        print(sts_header())
        for p in paths:
            label, _, file = p.partition("=")
            data = load(file)
            for name, res in data.items():
                if "sts" in res:
                    print(sts_row(label if label and len(data) == 1 else f"{label} {name}".strip(), res["sts"]))
    elif kind == "retrieval":
        print(
            "| model | set | queries | docs | MRR@10 | nDCG@10 | MAP@100 | Recall@100 |\n"
            "|---|---|---|---|---|---|---|---|"
        )
        for p in paths:
            label, _, file = p.partition("=")
            data = load(file)
            for name, res in data.items():
                row = label if label and len(data) == 1 else f"{label} {name}".strip()
                for ds in ("scifact", "squad-it", "wikiqa"):
                    if ds in res:
                        r = res[ds]
                        print(
                            f"| {row} | {ds} | {r['queries']} | {r['docs']} | {r['mrr@10']:.2f} | "
                            f"{r['ndcg@10']:.2f} | {r['map@100']:.2f} | {r.get('recall@100', float('nan')):.2f} |"
                        )
    elif kind == "quant":
        res = load(paths[0])
        print(
            "| variant | size MB | mean cos vs torch | min cos | Spearman pairwise sims | p50 ms 16 tok | "
            "p50 ms 128 tok (cut to max length) | quality |\n|---|---|---|---|---|---|---|---|"
        )
        for v, r in res["variants"].items():
            q = ""
            if "eval" in r:
                e = r["eval"]
                q = "; ".join(
                    ([f"STS avg {e['sts']['avg']:.2f}"] if "sts" in e else [])
                    + [f"{k} nDCG@10 {e[k]['ndcg@10']:.2f}" for k in ("scifact", "squad-it") if k in e]
                )
            print(
                f"| {v} | {r['bytes'] / 1e6:.2f} | {r['cos_mean']:.5f} | {r['cos_min']:.5f} | "
                f"{r['spearman_pairwise']:.5f} | {r['p50_ms_16tok']:.3f} | {r['p50_ms_128tok']:.3f} | {q} |"
            )


if __name__ == "__main__":
    main(sys.argv[1], *sys.argv[2:])
