#!/usr/bin/env bash
# Trains, evaluates, exports and installs the two shipped default models (seeded, reproducible):
#   edge_ranker/models/semantic   <- USE-multilingual-v3, 50k vocabulary, 1 layer, 128-d
#   edge_ranker/models/relevance  <- multilingual-e5-small, 50k vocabulary, 1 layer, 128-d
# Needs: pip install torch==2.13.0 && pip install -e ".[train,teachers,data]"; data at $EDGE_RANKER_DATA.
# Usage: bash bench/scripts/release/train_defaults.sh [semantic|relevance|both]
#        FROM=runs/relevance-default bash bench/scripts/release/train_defaults.sh relevance   # export, eval, install a finished run
set -euo pipefail
cd "$(dirname "$0")/../../.."
export EDGE_RANKER_DATA=${EDGE_RANKER_DATA:-../shared/data} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
VOCAB=vocab/build/wp50k-a0.7
WHICH=${1:-both}
# One process on 2 cores: with both cores as its threads it trains either student faster than 2 processes
# under `accelerate launch` (semantic 1.6x, relevance 1.15x per step; bench/experiments/training-time.md, "Padding
# out of the training step" and "e5 in torch"). PROCS=N sets another count (the batch size stays global).
distill_cmd() {
  local procs=${PROCS:-1}
  if [ "$procs" -gt 1 ]; then
    echo "accelerate launch --multi_gpu --num_processes $procs --num_machines 1 --mixed_precision no --dynamo_backend no -m edge_ranker.cli distill"
  else
    echo "edge-ranker distill"
  fi
}
SEM_LOSS=${SEM_LOSS:-}  # empty: the recipe default (mse + relational + contrastive)
# Windows of max_length tokens the runtime reads of a long text: the semantic student, trained on sentences of at
# most 64 tokens, reads articles in 8 (bench/RESULTS.md, "Long documents"); the relevance student, trained on
# passages of 256, reads its first 256 tokens (more windows cost it 0.4-0.7 nDCG@10 on SciFact and SQuAD-it).
SEM_WINDOWS=${SEM_WINDOWS:-8}
REL_WINDOWS=${REL_WINDOWS:-1}
# How each table is stored: int8 weights keep a 128-d student under 8 MB (the 2-layer 256-d alternative needs
# int4-weights-block64); fp32 activations, so a text's vector does not depend on its batch.
SEM_QUANT=${SEM_QUANT:-int8-weights}
REL_QUANT=${REL_QUANT:-int8-weights}
REL_LOSS=${REL_LOSS:-}
ship() {  # kind, eval options
  local kind=$1; shift
  local start=$SECONDS
  local loss_var=SEM_LOSS windows=$SEM_WINDOWS quant=$SEM_QUANT
  [ "$kind" = relevance ] && loss_var=REL_LOSS windows=$REL_WINDOWS quant=$REL_QUANT
  if [ -n "${FROM:-}" ]; then  # install a run trained before (its log has the teacher and training seconds)
    rm -rf "runs/$kind"; cp -r "$FROM" "runs/$kind"; cp "$FROM/train_log.json" "runs/$kind.train.json"
    python -c "import json,sys; l=json.load(open(sys.argv[1])); print(json.dumps({'train_seconds': round(l['teacher_seconds'] + l['train_seconds'])}))" \
      "$FROM/train_log.json" > "runs/$kind.time.json"
  else
    # shellcheck disable=SC2086
    $(distill_cmd) "$kind" --vocab $VOCAB --out runs/$kind --overwrite --seed 0 ${!loss_var} | tee runs/$kind.train.json
    echo "{\"train_seconds\": $((SECONDS - start))}" > runs/$kind.time.json
  fi
  edge-ranker export runs/$kind --out runs/$kind-exported --overwrite --name $kind --windows $windows --quantize $quant
  edge-ranker eval runs/$kind-exported runs/$kind reduced:runs/$kind "$@" --out runs/$kind.eval.json --overwrite > /dev/null
  python - "$kind" <<'PY'
import json, sys
kind = sys.argv[1]
ev = json.load(open(f"runs/{kind}.eval.json"))
student = ev[f"runs/{kind}-exported"]
metrics = {"split": "test", "train_seconds": json.load(open(f"runs/{kind}.time.json"))["train_seconds"]}
for k, v in student.items():
    if isinstance(v, dict):
        metrics[k] = {m: round(x, 2) for m, x in v.items() if m in ("avg", "ndcg@10", "mrr@10", "map@100", "recall@100")}
metrics["teacher_pca"] = {k: {m: round(x, 2) for m, x in v.items() if m in ("avg", "ndcg@10", "mrr@10")}
                          for k, v in ev[f"reduced:runs/{kind}"].items() if isinstance(v, dict)}
json.dump(metrics, open(f"runs/{kind}.metrics.json", "w"), indent=2)
PY
  edge-ranker export runs/$kind --out edge_ranker/models/$kind --overwrite --name $kind --windows $windows --quantize $quant \
    --metrics runs/$kind.metrics.json
}
if [ "$WHICH" = semantic ] || [ "$WHICH" = both ]; then ship semantic --sts; fi
if [ "$WHICH" = relevance ] || [ "$WHICH" = both ]; then ship relevance --retrieval scifact squad-it wikiqa; fi
