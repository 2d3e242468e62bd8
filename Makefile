# Passe: `make play` to play, `make test` to run the whole suite.

# The newest Python 3.11 or newer on PATH (python3.19 .. python3.11, then
# python3): a machine with only 3.12 or 3.13 (Ubuntu 24.04, Fedora 41) plays
# too. Each candidate is run, not only looked up: a pyenv shim exists for
# versions it cannot start. PYTHON=... chooses another.
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell for p in python3.19 python3.18 python3.17 python3.16 python3.15 python3.14 \
	python3.13 python3.12 python3.11 python3; do \
	$$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && { echo $$p; break; }; \
	done)
endif
VENV ?= .venv
BIN := $(VENV)/bin
STAMP_APP := $(VENV)/.installed-app
STAMP_DEV := $(VENV)/.installed-dev
STAMP_BENCH := $(VENV)/.installed-bench
# Exactly the locked versions (with their hashes): requirements/*.txt, made by
# `make lock` from pyproject.toml's bounds (README, "Upgrading the tools").
LOCK_APP := requirements/app.txt
LOCK_DEV := requirements/dev.txt
# The project itself, editable, without dependencies (the lock brought them).
# setuptools prints a boxed BuildBackendWarning about editable installs that
# means nothing to a player (issue 18): silence that warning alone.
INSTALL_SELF := PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install \
	--quiet --no-deps -e .

.PHONY: play test soak lint typecheck bench strength lock mutation clean

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "Passe needs Python 3.11 or newer (python3.11, python3.12, python3.13, ...): install one, or set PYTHON=..."; exit 2; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "Passe needs Python 3.11 or newer; $(PYTHON) is older: set PYTHON=..."; exit 2; }
	@echo "Making $(VENV) with $$($(PYTHON) -c 'import sys; print("Python", sys.version.split()[0])') ($(PYTHON)), once"
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_APP): pyproject.toml $(LOCK_APP) | $(BIN)/python
	@echo "Installing Passe and the versions in $(LOCK_APP) into $(VENV) (about a minute)"
	@$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK_APP)
	@$(INSTALL_SELF)
	@touch $@

$(STAMP_DEV): pyproject.toml $(LOCK_DEV) | $(BIN)/python
	@echo "Installing Passe and the versions in $(LOCK_DEV) into $(VENV)"
	@$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK_DEV)
	@$(INSTALL_SELF)
	@touch $@ $(STAMP_APP)

# The benchmarks' peers (open_spiel, dominoes) are bounded, not locked: they
# are compared against, never part of the verdict of `make test` (what the
# dev lock installed stays as it is: pip only adds what is missing).
$(STAMP_BENCH): pyproject.toml $(STAMP_DEV)
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet -e '.[bench]'
	touch $@

play: $(STAMP_APP)
	@$(BIN)/passe

# Six workers on two cores: the networked, SSH, browser and process tests
# spend much of their time waiting on brokers and child processes, which
# more workers fill. Measured on an idle 2-core machine (4 December, 1,454
# tests): 6:00 and 6:12 with -n 3, 5:07 and 4:43 with -n 4 (earlier, with
# a smaller suite: 6:11 with -n 2, 5:00 with -n 3); 5 December, 1,674
# tests, bytecode cached (below), from no cache as on a fresh clone: 4:24
# with -n 4, 3:58 with -n 6 (-n 8: 4:01, the CPU full). Four once made a
# TUI test fail beside a benchmark (3 December: the lobby's on_mount found
# no child yet); the timing-bound tests found since were made exact.
# Work stealing (--dist worksteal): a worker that runs out of tests takes
# some of another's, so the suite does not end on one worker's queue of long
# networked tests (5 December: 1,486 tests, CI's clean clone 5:12 with the
# default distribution; 5:01 on this machine with stealing, the browser
# tests included).
# 6 December, 2,183 tests: a clean clone's 4:16 on 3.11 and 4:22 on 3.13
# (CI's part), once the footer stopped rebuilding its keys on every table
# update (tui/widgets/footer.py: the suite's CPU 479 -> 404 CPU-s). The CPU
# is 90%+ busy throughout (vmstat), so more workers do not help (-n 8: no
# faster); less CPU per test is what shortens the suite.
# 6 December, another machine of the same kind, 2,204 tests: 6:43 to 8:04
# in four runs (698 to 835 user CPU-s for the same code: this machine's
# speed moved by a quarter within minutes, a 10-million-step Python loop
# taking 1.0 to 1.3 s), against 5:00 the day before on a quieter one.
# 7 December, 2,249 tests, a clean clone: 4:10 and 4:09 (432 and 414
# CPU-s), then 3:57 and 3:46 (394 and 376) once each worker froze what
# collection imported and collected garbage less often (tests/conftest.py:
# the collector had been a quarter of the workers' CPU).
# 7 December, a new machine, 2,380-2,389 tests: 3:31 (346 CPU-s, the loop
# 0.84 s) in the morning; 4:05 to 4:23 (416 to 450 CPU-s, the loop 1.03 to
# 1.19 s) in the afternoon, the same tests. Per test, 3.11 and 3.13 spend
# the same CPU (303 and 304 CPU-s on the tests both run); the pytest
# workers spend 220 CPU-s, the 425 processes the tests start 134 (the
# embedded broker 150 times, 0.18 CPU-s each).
# TESTS=... runs a part (CI's second Python: see .ci/run). The last line
# says the suite's CPU seconds and the machine's speed (tests/cpu_report.py):
# a wall time alone on this machine kind measures the machine.
# Bytecode is cached (pytest's rewritten tests too): this machine kind sets
# PYTHONDONTWRITEBYTECODE=1, under which every worker and every process a
# test starts compiled the project and rewrote the tests from source again
# (5 December: collection 5.8 s of CPU per worker, 1.6 s cached; the suite's
# CPU 7:00 -> 6:01 min at -n 4). One collection first fills the cache, so
# that on a fresh clone the workers do not each compile it at once.
unexport PYTHONDONTWRITEBYTECODE
TEST_WORKERS ?= 6
TESTS ?=
test: $(STAMP_DEV)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest --collect-only -q $(TESTS) > /dev/null
	$(BIN)/python -m tests.cpu_report \
		$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal -q --durations=12 $(TESTS)

# Heavy tests left out of `make test` (e.g. twenty SSH sessions at once).
# Long runs: the soak-marked tests, and every property test with all its games
# (the notation's round trips and damaged files too: tests/core/test_notation.py).
# A soak test may legitimately run for long: an hour each before pytest-timeout
# calls it stuck (the default, 300 s, is for `make test`).
soak: $(STAMP_DEV)
	PASSE_SOAK=1 $(BIN)/python -m pytest -m soak -q --timeout=3600
	PASSE_SOAK=1 $(BIN)/python -m pytest -n 2 -q --timeout=3600 tests/passpass tests/dominoes tests/fashion \
		tests/core/test_notation.py

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

# Recompile the locks from pyproject.toml: the newest versions its bounds
# allow, one lock valid on every Python from 3.11 (markers where they differ),
# with the hashes of every file. The app's lock takes the dev lock's versions.
# UPGRADE=1 moves every package to its newest allowed version; without it,
# only what pyproject.toml's changes require moves.
UV_COMPILE = $(BIN)/uv pip compile pyproject.toml --universal --python-version 3.11 \
	--generate-hashes --no-header $(if $(UPGRADE),--upgrade)
lock: $(STAMP_DEV)
	$(UV_COMPILE) --extra dev -o $(LOCK_DEV)
	$(UV_COMPILE) -c $(LOCK_DEV) -o $(LOCK_APP)

# Mutation testing (docs/testing.md): mutmut over net/wire, codec, rooms,
# authority, remote and each game's scoring, then the score per module and
# the survivors not judged equivalent. Long (tens of minutes per module on a
# busy machine); never part of `make test`.
# make mutation MUTATION_ARGS="net/protocol/wire.py net/protocol/codec.py" for some modules,
# MUTATION_WORKERS=2 for two at once.
MUTATION_ARGS ?=
MUTATION_WORKERS ?= 1
STAMP_MUTATION := $(VENV)/.installed-mutation
$(STAMP_MUTATION): pyproject.toml $(STAMP_DEV)
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet -e '.[dev,mutation]'
	touch $@
mutation: $(STAMP_MUTATION)
	$(BIN)/python -m tests.mutation run --workers $(MUTATION_WORKERS) $(MUTATION_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
