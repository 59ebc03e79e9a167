# Two commands do everything: `make demo` and `make test` (both install first).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
KB ?= default

.PHONY: install demo test bench lint clean-db

install: $(STAMP)

# torch goes in first and alone: `torch==2.13.0` is the CPU build; letting
# sentence-transformers pull torch would fetch a multi-GB CUDA build.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: install
	$(BIN)/ragbot ingest samples/kb --kb $(KB)
	$(BIN)/ragbot chat --kb $(KB)

test: install
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/python -m bench.search_latency
	$(BIN)/python -m bench.ingest_throughput
	$(BIN)/python -m bench.memory
	$(BIN)/python -m bench.answer_latency
	$(BIN)/python -m bench.embed_backends
	$(BIN)/python -m bench.cli_start
	$(BIN)/python -m bench.worker_memory
	$(BIN)/python -m bench.llm_calls
	$(BIN)/python -m bench.slack_latency
	$(BIN)/python -m bench.adversarial

lint: install
	$(BIN)/ruff check bot agent store tests bench
	$(BIN)/mypy bot agent store

clean-db:
	$(BIN)/ragbot db stop || true
