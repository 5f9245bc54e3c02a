# sgr-kit: every artefact is rebuilt from raw inputs by these targets.
# `make report` and `make test` each create the environment when needed.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
OUT    ?= out
DEMO   := data/demo

.PHONY: setup browser report test test-fast stress slowest docs demo benchmark clean help

help:
	@echo "make report     build the full report of the embedded (synthetic) demo in $(OUT)/demo and refresh figures/"
	@echo "make test       run every test (unit, property, doctest, notebooks, report, release, browser)"
	@echo "make test-fast  every test except the slow and browser ones (the inner loop)"
	@echo "make stress     the concurrent tests 20 times in a row beside CPU-burning processes"
	@echo "make slowest    run every test and print the wall time and the 20 slowest tests"
	@echo "make docs       build the manual (docs/) into docs/_build/html, offline, warnings as errors"
	@echo "make setup      create $(VENV) with sgr-kit (editable), its test tools, the manual's, inspect_ai and the runner's tools"
	@echo "make browser    install Chromium (Debian) and Playwright for the browser test"
	@echo "make demo       regenerate data/demo from its seed"
	@echo "make benchmark  measure scoring, statistics, explorer, annotator, report and trajectory-reading speed"

setup: $(STAMP)

# Re-install only when the package's dependency list changes.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,docs,inspect,run]'
	@touch $(STAMP)

# Chromium from Debian and Playwright's Python package (never its own browser download).
# Under CI a failed install stops the build; elsewhere the browser test then skips, saying why.
browser: $(STAMP)
	bash scripts/install-browser $(VENV) || [ -z "$$CI" ]

# The main job: score the (synthetic) demo benchmark, build the report in out/demo, and
# refresh the committed figures/ (byte-stable: fixed metadata) from the demo's figures.
report: $(STAMP)
	$(BIN)/sgr-kit report --out $(OUT)/demo --force
	mkdir -p figures
	cp $(OUT)/demo/figures/*.png $(OUT)/demo/figures/*.svg figures/

# Tests run in parallel (pytest-xdist: two workers, each taking tests from the other when it runs
# out) and in a random order (pytest-randomly; the seed is printed, -p randomly --randomly-seed=N
# repeats an order). PYTEST_PARALLEL="-n 0" runs them in one process.
PYTEST_PARALLEL ?= -n 2 --dist worksteal

# Python's bytecode caches (__pycache__, ignored by git) are written during the tests even where
# PYTHONDONTWRITEBYTECODE is set: each of the suite's hundreds of processes would otherwise compile
# sgr-kit (and pytest rewrite the test modules) again.
test test-fast stress slowest: export PYTHONDONTWRITEBYTECODE :=

test: $(STAMP) browser
	$(BIN)/python -m pytest $(PYTEST_PARALLEL)

# The inner loop: property tests with a fifth of their examples (the `dev` profile, tests/conftest.py).
test-fast: $(STAMP)
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-dev} $(BIN)/python -m pytest $(PYTEST_PARALLEL) -m "not slow and not browser"

# The tests marked `concurrent` (signals, locks, threads, processes) 20 times in a row beside two
# CPU-burning processes; and the suite's wall time with its 20 slowest tests.
stress: $(STAMP)
	$(BIN)/python benchmarks/stress_concurrent.py --rounds 20 --burners 2

slowest: $(STAMP) browser
	$(BIN)/python benchmarks/slowest_tests.py

# The manual: Sphinx with warnings as errors; executes the report's notebooks on the demo.
docs: $(STAMP)
	$(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html
	@echo "the manual: docs/_build/html/index.html"

demo: $(STAMP)
	$(BIN)/sgr-kit demo --out $(DEMO) --force

benchmark: $(STAMP)
	$(BIN)/python benchmarks/bench_scoring.py
	$(BIN)/python benchmarks/bench_stats.py
	$(BIN)/python benchmarks/bench_explorer.py
	$(BIN)/python benchmarks/bench_annotate.py
	$(BIN)/python benchmarks/bench_report.py
	$(BIN)/python benchmarks/bench_trajectories.py
	$(BIN)/python benchmarks/bench_trajectories_codex.py

clean:
	rm -rf $(OUT) .pytest_cache .hypothesis docs/_build docs/api docs/jupyter_execute
