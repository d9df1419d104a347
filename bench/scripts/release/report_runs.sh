#!/usr/bin/env bash
# Every measurement in bench/RESULTS.md after the default models are trained (bench/scripts/release/train_defaults.sh):
# teacher and students on the same data in one run per table, the quantization comparison, the asymmetric
# mode, and the speed/size/energy benchmark. Teacher embeddings come from the on-disk cache when present.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export EDGE_RANKER_DATA=${EDGE_RANKER_DATA:-../shared/data} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mkdir -p runs/report
step=${1:-all}
if [ "$step" = all ] || [ "$step" = eval ]; then
  # Table 1 (test split): full teacher, PCA-128 teacher, torch student, shipped int8 student
  edge-ranker eval teacher:use-multilingual-v3 reduced:runs/semantic runs/semantic semantic \
    --sts --out runs/report/sts_test.json --overwrite > /dev/null
  # Table 2: full teacher, PCA-128 teacher, torch student, shipped int8, asymmetric mode, the semantic student
  edge-ranker eval teacher:multilingual-e5-small reduced:runs/relevance runs/relevance relevance semantic \
    --retrieval scifact squad-it wikiqa --out runs/report/retrieval.json --overwrite > /dev/null
  edge-ranker eval relevance --docs reduced:runs/relevance --retrieval scifact squad-it wikiqa \
    --out runs/report/retrieval_asymmetric.json --overwrite > /dev/null
fi
if [ "$step" = all ] || [ "$step" = quant ]; then
  python bench/scripts/benchmarks/quantize_compare.py runs/semantic --out runs/report/quant-semantic --overwrite --sts > /dev/null
  python bench/scripts/benchmarks/quantize_compare.py runs/relevance --out runs/report/quant-relevance --overwrite --retrieval scifact squad-it > /dev/null
fi
if [ "$step" = all ] || [ "$step" = bench ]; then
  edge-ranker export runs/semantic --out runs/semantic-fp32 --overwrite --quantize fp32 --name semantic-fp32 > /dev/null
  edge-ranker export runs/relevance --out runs/relevance-fp32 --overwrite --quantize fp32 --name relevance-fp32 > /dev/null
  edge-ranker bench --energy semantic runs/semantic-fp32 teacher:use-multilingual-v3 \
    relevance runs/relevance-fp32 teacher:multilingual-e5-small --out bench/results --tag energy-bench --overwrite \
    | tee runs/report/bench.txt
fi
