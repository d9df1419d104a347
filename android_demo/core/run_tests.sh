#!/usr/bin/env bash
# Compiles the plain-JVM core and runs its golden-vector test (GoldenTest) and the spec's cases and constants
# (SpecTest) with the JDK alone (no Gradle, no Maven, no Android SDK: none of those repositories is reachable from CI
# machines). Installs a JDK if javac is missing.
# Leaves a runnable jar of the core in build/edge-ranker-core.jar (java -jar ... rank FEED.jsonl; see Main).
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v javac > /dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq default-jdk-headless > /dev/null
  else
    echo "javac not found: install a JDK 11+ (e.g. apt-get install default-jdk-headless)" >&2
    exit 1
  fi
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/main" "$out/test" build
javac -d "$out/main" $(find src/main/java -name '*.java')
cp ../../spec/unicode/unicode.tsv "$out/main/"  # read by WordPieceTokenizer
cp ../../spec/stopwords/stopwords.tsv "$out/main/"  # read by Stopwords
javac -d "$out/test" -cp "$out/main" $(find src/test/java -name '*.java')
# the golden scenario end to end, then every case of spec/cases and the constants (both run, either fails the script)
status=0
java -cp "$out/main:$out/test" ai.edgeranker.core.GoldenTest ../../spec/golden ../../edge_ranker/models || status=1
java -cp "$out/main:$out/test" ai.edgeranker.core.SpecTest ../../spec || status=1
[ "$status" = 0 ] || { echo "FAIL GoldenTest or SpecTest (the lines above say which checks)" >&2; exit 1; }
jar --create --file build/edge-ranker-core.jar --main-class ai.edgeranker.core.Main -C "$out/main" .
# the command line end to end: the demo feed, its scripted history and query, one JSON line per document
(cd ../.. && java -jar android_demo/core/build/edge-ranker-core.jar rank edge_ranker/demo/feed.jsonl \
  --history edge_ranker/demo/history.json --query "tomato recipe" | wc -l | grep -qx 24) \
  || { echo "FAIL Main rank on the demo feed" >&2; exit 1; }
echo "Main rank: the demo feed ranked from the jar"
# a feed Python refuses: one line that says why, exit 2, never a stack trace
printf '{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n' > "$out/twice.jsonl"
status=0
java -jar build/edge-ranker-core.jar rank "$out/twice.jsonl" 2> "$out/err" || status=$?
[ "$status" = 2 ] && [ "$(wc -l < "$out/err")" = 1 ] && grep -q "line 2: id 'a' was already given on line 1" "$out/err" \
  || { echo "FAIL Main rank on a feed with an id twice: exit $status, $(head -c 300 "$out/err")" >&2; exit 1; }
echo "Main rank: a bad feed refused in one line"
# rank's options in Python's words, before the models load
status=0
java -jar build/edge-ranker-core.jar rank "$out/twice.jsonl" --duplicates merge 2> "$out/err" || status=$?
[ "$status" = 2 ] && grep -qx "edge-ranker-core: error: duplicates must be one of 'fold', 'keep', got 'merge'" "$out/err" \
  || { echo "FAIL Main rank --duplicates merge: exit $status, $(head -c 300 "$out/err")" >&2; exit 1; }
echo "Main rank: an unknown --duplicates refused"
status=0
java -jar build/edge-ranker-core.jar rank "$out/twice.jsonl" --diversity -0.5 2> "$out/err" || status=$?
[ "$status" = 2 ] && grep -qx "edge-ranker-core: error: the diversity weight must be a finite number >= 0, got -0.5" "$out/err" \
  || { echo "FAIL Main rank --diversity -0.5: exit $status, $(head -c 300 "$out/err")" >&2; exit 1; }
(cd ../.. && java -jar android_demo/core/build/edge-ranker-core.jar rank edge_ranker/demo/feed.jsonl \
  --history edge_ranker/demo/history.json --diversity 0 | wc -l | grep -qx 24) \
  || { echo "FAIL Main rank --diversity 0 on the demo feed" >&2; exit 1; }
echo "Main rank: --diversity taken, a negative one refused"
# bench reads its feed once, so standard input works: a row per model and length
(cd ../.. && java -jar android_demo/core/build/edge-ranker-core.jar bench --runs 1 --feed - < edge_ranker/demo/feed.jsonl \
  | grep -cE '^(semantic|relevance) ' | grep -qx 4) || { echo "FAIL Main bench on a feed from standard input" >&2; exit 1; }
echo "Main bench: the demo feed read from standard input"
