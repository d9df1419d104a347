#!/usr/bin/env bash
# Builds the default vocabularies (3 sizes at alpha 0.7, and alpha 1.0 at each size for the smoothing
# comparison), times the 50k build, and writes the comparison tables used in vocab/README.md.
# Data root: $EDGE_RANKER_DATA (default ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
export EDGE_RANKER_DATA=${EDGE_RANKER_DATA:-../shared/data}
for size in 30000 50000 100000; do
  for alpha in 0.7 1.0; do
    out=vocab/build/wp$((size / 1000))k-a$alpha
    /usr/bin/time -f "%e s wall, %M KB peak: $out" edge-ranker vocab build --recipe vocab/recipe.json \
      --size $size --alpha $alpha --out "$out" --overwrite > /dev/null
  done
done
python - <<'PY'
import json, os
from pathlib import Path
from edge_ranker.vocab.builder import load_recipe
import sys
sys.path.insert(0, "vocab")
from compare_vocabs import compare_vocabs, markdown, save
corpora = load_recipe("vocab/recipe.json", os.environ["EDGE_RANKER_DATA"])
folders = {f"{s}k a={a}": Path(f"vocab/build/wp{s}k-a{a}") for s in (30, 50, 100) for a in ("0.7", "1.0")}
table = compare_vocabs(corpora, folders)
save(table, "vocab/build/comparison.json")
for metric in ("fertility", "unk_rate"):
    print(f"\n### {metric}\n")
    print(markdown(table, metric))
for s in (30, 50, 100):
    r = json.loads(Path(f"vocab/build/wp{s}k-a0.7/report.json").read_text())
    print(f"{s}k: built in {r['seconds']} s; shares:",
          {k: (round(v['raw_share'], 3), round(v['smoothed_share'], 3)) for k, v in r["languages"].items()})
PY
