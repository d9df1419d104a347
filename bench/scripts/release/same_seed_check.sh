#!/bin/bash
# Trains two short recipes (relevance with the judged loss, mined passages and passage queries; semantic with
# nearest-neighbour columns) at one seed with the code of git revision REV and with the working tree, and compares
# the students byte for byte: a refactor of the training side must not change what it trains.
# usage: bash bench/scripts/release/same_seed_check.sh REV   (EDGE_RANKER_DATA must name the data folder)
set -euo pipefail
REV=${1:?give a git revision to compare against}
: "${EDGE_RANKER_DATA:?set EDGE_RANKER_DATA to the data folder}"
HERE=$(git rev-parse --show-toplevel)
WORK=$(mktemp -d)
git -C "$HERE" worktree add -q --detach "$WORK/before" "$REV"
trap 'git -C "$HERE" worktree remove --force "$WORK/before"' EXIT
export EDGE_RANKER_CACHE="$WORK/cache"  # one teacher cache: both sides read the same targets
PY=${PY:-python}
short() {  # CODE TAG LOSS_FLAGS...
  local code=$1 tag=$2; shift 2
  PYTHONPATH=$code $PY -m edge_ranker.cli distill relevance --vocab "$code/edge_ranker/models/relevance" \
    --out "$WORK/$tag-rel" --max-pairs 30 --passages 10 --wiki-summaries 0 --retrieval-docs 40 --epochs 2 \
    --passage-queries 1 --seed 3 "$@" > /dev/null
  PYTHONPATH=$code $PY -m edge_ranker.cli distill semantic --vocab "$code/edge_ranker/models/semantic" \
    --out "$WORK/$tag-sem" --max-pairs 30 --bible 0 --no-sts-train --no-news --mono 30 --epochs 2 --seed 3 > /dev/null
}
# the judged loss beside the recipe's three: `--judged 0.5` before the options were generated from the settings
if PYTHONPATH=$WORK/before $PY -m edge_ranker.cli distill --help | grep -q -- "--judged"; then
  short "$WORK/before" before --judged 0.5
else
  short "$WORK/before" before --loss mse=1 --loss relational=1 --loss contrastive=1 --loss judged=0.5
fi
short "$HERE" after --loss mse=1 --loss relational=1 --loss contrastive=1 --loss judged=0.5
status=0
for k in rel sem; do
  for f in model.safetensors pca.npz student.json config.json; do
    if cmp -s "$WORK/before-$k/$f" "$WORK/after-$k/$f"; then echo "$k $f identical"; else echo "$k $f DIFFERS"; status=1; fi
  done
  $PY -c "import json,sys; a,b=(json.load(open(f'$WORK/{s}-$k/train_log.json')) for s in ('before','after')); print('$k epoch losses', a['epochs'], b['epochs'])"
done
exit $status
