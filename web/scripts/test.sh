#!/usr/bin/env bash
# The web package's tests as CI runs them: npm ci, then npm test (Node's test runner, the browser test in Debian's
# headless Chromium driven by playwright-core, which downloads no browser), then npm run hermes (the golden checks
# under Hermes, React Native's engine, from the npm package hermes-engine-cli). As root, installs chromium where
# missing.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v npm > /dev/null || { echo "npm not found: the web package's tests need Node 20+ with npm" >&2; exit 1; }
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' \
  || { echo "node $(node --version) is too old: the web package needs Node 20+" >&2; exit 1; }
if [ -z "${CHROMIUM:-}" ] && [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq chromium > /dev/null
  else
    echo "chromium not found: install Debian's (apt-get install chromium) or set CHROMIUM to a Chromium binary" >&2
    exit 1
  fi
fi
npm ci --no-audit --no-fund --loglevel=error
npm test
npm run hermes
