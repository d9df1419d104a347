#!/usr/bin/env bash
# Loss and initialisation ablation for the semantic student on a subset (3,000 Tatoeba pairs per language,
# 2 epochs, 50k vocabulary), scored on the STS *dev* split so the test split stays untouched for the report.
# Two runs at a time, one thread each (a 1-layer student trains faster that way on 2 cores).
set -euo pipefail
VOCAB=${VOCAB:-vocab/build/wp50k-a0.7}
OUT=${OUT:-runs/ablate}
mkdir -p "$OUT"
export OMP_NUM_THREADS=1
run() {  # name, then distill options
  local name=$1; shift
  [ -f "$OUT/$name.eval.json" ] && return 0
  edge-ranker distill semantic --vocab "$VOCAB" --out "$OUT/$name" --overwrite --max-pairs 3000 --epochs 2 --bible 0 "$@" > "$OUT/$name.log" 2>&1
  edge-ranker eval "$OUT/$name" --sts --split dev --out "$OUT/$name.eval.json" --overwrite > /dev/null
}
run mse --loss mse=1 & run mse-noinit --loss mse=1 --no-init & wait
run cosine --loss cosine=1 & run l2 --loss l2=1 & wait
run mse+relational --loss mse=1 --loss relational=1 & run mse+contrastive --loss mse=1 --loss contrastive=1 & wait
run mse+bible --loss mse=1 --bible 3000 & wait
run cosine+contrastive --loss cosine=1 --loss contrastive=1 & run mse+relational+contrastive --loss mse=1 --loss relational=1 --loss contrastive=1 & wait
