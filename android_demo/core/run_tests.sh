#!/usr/bin/env bash
# Compiles the plain-JVM core and runs its golden-vector test with the JDK alone (no Gradle, no Maven, no
# Android SDK: none of those repositories is reachable from CI machines). Installs a JDK if javac is missing.
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
javac -d "$out" $(find src/main/java src/test/java -name '*.java')
java -cp "$out" ai.edgeranker.core.GoldenTest ../golden ../../edge_ranker/models
