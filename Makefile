# sgr-kit: every artefact is rebuilt from raw inputs by these targets.
# `make report` and `make test` each create the environment when needed.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
OUT    ?= out
DEMO   := data/demo

.PHONY: setup report test demo benchmark clean help

help:
	@echo "make report     score the embedded demo benchmark and build the report in $(OUT)/demo"
	@echo "make test       run every test (unit, property, doctest, fixture, CLI)"
	@echo "make setup      create $(VENV) with sgr-kit (editable) and its test tools"
	@echo "make demo       regenerate data/demo from its seed"
	@echo "make benchmark  measure scoring throughput and peak memory"

setup: $(STAMP)

# Re-install only when the package's dependency list changes.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

# The main job: score the (synthetic) demo benchmark and build the report in out/demo.
report: $(STAMP)
	$(BIN)/sgr-kit report --tasks $(DEMO)/constraint.jsonl --tasks $(DEMO)/goal.jsonl \
		--runs $(DEMO)/runs.jsonl --out $(OUT)/demo --force

test: $(STAMP)
	$(BIN)/python -m pytest

demo: $(STAMP)
	$(BIN)/sgr-kit demo --out $(DEMO) --force

benchmark: $(STAMP)
	$(BIN)/python benchmarks/bench_scoring.py

clean:
	rm -rf $(OUT) .pytest_cache .hypothesis
