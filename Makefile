# Passe: `make play` to play, `make test` to run the whole suite.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP_APP := $(VENV)/.installed-app
STAMP_DEV := $(VENV)/.installed-dev
STAMP_BENCH := $(VENV)/.installed-bench

.PHONY: play test soak lint typecheck bench strength mutation clean

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null || { echo "Passe needs $(PYTHON) (Python 3.11 or newer): set PYTHON=..."; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_APP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(STAMP_APP)

$(STAMP_BENCH): pyproject.toml $(STAMP_DEV)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $@

play: $(STAMP_APP)
	$(BIN)/passe

# Three workers on two cores: the networked, SSH and process tests spend much
# of their time waiting on brokers and child processes, which a third worker
# fills (measured: 6:11 with -n 2, 5:00 with -n 3 on an idle 2-core machine).
test: $(STAMP_DEV)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 3 -q

# Heavy tests left out of `make test` (e.g. twenty SSH sessions at once).
# Long runs: the soak-marked tests, and every property test with all its games.
soak: $(STAMP_DEV)
	PASSE_SOAK=1 $(BIN)/python -m pytest -m soak -q
	PASSE_SOAK=1 $(BIN)/python -m pytest -n 2 -q tests/passpass tests/dominoes tests/fashion

lint: $(STAMP_DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP_DEV)
	$(BIN)/mypy

# Benchmarks print tables of rates and ratios vs peers; never part of `make test`.
# make bench BENCH_ARGS="engines --quick" runs one family, shorter.
BENCH_ARGS ?=
bench: $(STAMP_BENCH)
	$(BIN)/python -m bench $(BENCH_ARGS)

# The search bots' strength (docs/bots.md): every pairing of issue 12 through
# `passe simulate`, win shares with 95 % intervals. Resumable: results add up
# in bench/strength_results.jsonl (many hours on 2 cores for 500 games per
# pairing); make strength STRENGTH_ARGS="--games 20 --only dominoes" for a taste,
# STRENGTH_ARGS=report for the table alone.
STRENGTH_ARGS ?= run --games 500
strength: $(STAMP_DEV)
	$(BIN)/python -m bench.strength $(STRENGTH_ARGS)

# Mutation testing (docs/testing.md): mutmut over net/wire, codec, rooms,
# authority, remote and each game's scoring, then the score per module and
# the survivors not judged equivalent. Long (tens of minutes per module on a
# busy machine); never part of `make test`.
# make mutation MUTATION_ARGS="net/wire.py net/codec.py" for some modules,
# MUTATION_WORKERS=2 for two at once.
MUTATION_ARGS ?=
MUTATION_WORKERS ?= 1
STAMP_MUTATION := $(VENV)/.installed-mutation
$(STAMP_MUTATION): pyproject.toml $(STAMP_DEV)
	$(BIN)/python -m pip install --quiet -e '.[dev,mutation]'
	touch $@
mutation: $(STAMP_MUTATION)
	$(BIN)/python -m tests.mutation run --workers $(MUTATION_WORKERS) $(MUTATION_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
