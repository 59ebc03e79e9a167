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

# The search databases (100k and 1M chunks) are loaded once, about 25 minutes on 2 cores,
# and kept on the benchmark server ($RAGBOT_BENCH_HOME, default /tmp/ragbot-bench) for the
# next run (--reuse).
bench: install
	$(BIN)/python -m bench.search_latency --sizes 100000,1000000 --vectors clustered \
		--ef 40,100,200 --maintenance-work-mem 3GB --build-workers 2 --reuse
	$(BIN)/python -m bench.keyword_plan --size 1000000 --vectors clustered
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
