"""How much should each model weigh in the interests? The personalised feed (``eval --personal``'s users, through
``Ranker.feedback`` / ``rank``) with the semantic model's share of an interest's cosine set to each of SHARES (the
relevance model has the rest; the runtime's ``SEMANTIC_SHARE``), and the semantic model alone; the share of
USE-multilingual-v3's gain over random (plain rule) beside each.
``python bench/scripts/experiments/interest_share.py --data DIR [--split train] [--item-sentences 4] [--semantic MODEL]
[--relevance MODEL]``"""

from __future__ import annotations

import argparse
import json
import tempfile

import numpy as np

import edge_ranker.runtime.ranker as ranker_module
from edge_ranker.evaluate.encoders import resolve_encoder
from edge_ranker.evaluate.personal import SETTINGS, evaluate_personal
from edge_ranker.paths import cache_root, data_root
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.store import PreferenceStore

SHARES = (0.5, 0.65, 0.8, 0.9)
USE = "teacher:use-multilingual-v3"


def set_share(share: float, ranker: ranker_module.Ranker) -> None:
    """The Ranker reads these two module constants when it builds interest vectors; ``ranker`` checks it did."""
    ranker_module.SEMANTIC_SCALE = np.float32(np.sqrt(share))
    ranker_module.PASSAGE_SCALE = np.float32(np.sqrt(1.0 - share))
    x, y = "a river", "a football match"
    a, b = ranker.interest_vectors([x, y])
    sem = ranker.semantic.encode(x) @ ranker.semantic.encode(y)
    rel = ranker.relevance.encode(x, role="passage") @ ranker.relevance.encode(y, role="passage")
    if abs(a @ b - (share * sem + (1 - share) * rel)) > 1e-5:
        raise SystemExit(f"the Ranker did not take share {share}: interest_vectors no longer reads the module's scales")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", help="the data folder (default $EDGE_RANKER_DATA)")
    parser.add_argument("--split", choices=["dev", "train"], default="dev")
    parser.add_argument("--item-sentences", type=int, default=1)
    parser.add_argument("--semantic", default="semantic", help="the semantic model folder (default: the shipped one)")
    parser.add_argument("--relevance", default="relevance", help="the relevance model (default: the shipped one)")
    a = parser.parse_args()
    semantic, relevance = resolve_encoder(a.semantic, cache_root(None)), Encoder.load(a.relevance)
    tmp = tempfile.TemporaryDirectory()
    probe = ranker_module.Ranker(Encoder.load(a.semantic), relevance, PreferenceStore(f"{tmp.name}/p.db"))
    teacher = {USE: resolve_encoder(USE, cache_root(None))}
    root, split, items = data_root(a.data), a.split, a.item_sentences
    use = evaluate_personal(teacher, root, split=split, item_sentences=items)
    out: dict[str, dict] = {}
    for share in (*SHARES, 1.0):
        set_share(share, probe)
        got = evaluate_personal(
            {a.semantic: semantic}, root, split=split, item_sentences=items, relevance=relevance if share < 1 else None
        )
        row, gains = {}, []
        for s in SETTINGS:
            rand, top = got[s]["random"]["ndcg@10"], use[s][USE]["plain"]["ndcg@10"]
            row[s] = round(got[s][a.semantic]["ranker"]["ndcg@10"], 3)
            gains.append((row[s] - rand) / (top - rand))
        row["share of USE's gain"] = round(float(np.mean(gains)), 3)
        out["semantic alone" if share == 1 else f"semantic share {share:g}"] = row
        print(json.dumps({share: row}), flush=True)
    probe.store.close()
    tmp.cleanup()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
