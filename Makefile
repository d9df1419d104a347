# Two entry points on a fresh machine (Python 3.10+; make test also needs Node 20+ with npm):
#   make demo   set up the runtime (numpy, onnxruntime, tokenizers) and rank a feed with the shipped models
#   make test   set up everything (torch==2.13.0 CPU build first, then the train, fetch and dev extras), run ruff,
#               the Python tests, the Android core's JVM golden test and the web package's tests (npm ci, then
#               npm test). As root it installs what the tests need from Debian's packages where missing: strace
#               (privacy test), a JDK (JVM test) and chromium (the web package's browser test).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test setup-runtime setup-dev lint

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

setup-runtime: $(BIN)/python
	$(BIN)/pip install --quiet -e .

demo: setup-runtime
	$(BIN)/edge-ranker demo

setup-dev: $(BIN)/python
	# the privacy test watches a process with strace; as root, install it where missing (Debian/Ubuntu)
	@command -v strace > /dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y -qq strace > /dev/null; } || echo "strace not found: the process-level privacy test will be skipped"
	# torch first and pinned: on these machines 2.13.0 is a local CPU build; any other spec pulls CUDA wheels
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e ".[train,fetch,dev]"

lint: setup-dev
	$(BIN)/ruff check edge_ranker tests spec

# every suite runs even when one before it fails; the last line names those that failed
test: setup-dev
	@failed=""; \
	$(BIN)/ruff check edge_ranker tests spec || failed="$$failed ruff"; \
	$(BIN)/python -m pytest -q || failed="$$failed python"; \
	bash android_demo/core/run_tests.sh || failed="$$failed jvm"; \
	bash web/scripts/test.sh || failed="$$failed web"; \
	if [ -n "$$failed" ]; then echo "make test: failed:$$failed"; exit 1; fi; \
	echo "make test: ruff, python, jvm and web all passed"
