PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test

.PHONY: demo test bench lint serve clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@ $(STAMP_RUN)

demo: $(STAMP_RUN)
	$(BIN)/labdeck --demo

serve: $(STAMP_RUN)
	$(BIN)/labdeck serve

lint: $(STAMP_TEST)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

# Two workers for everything but the pseudo-terminal tests, which then run alone: they time what a
# person sees (a hang-up ends the process within 2 s), and a busy neighbour would make them lie.
test: lint
	$(BIN)/python -m pytest -n 2 -m "not pty"
	$(BIN)/python -m pytest -m pty

bench: $(STAMP_TEST)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build dist .mypy_cache .ruff_cache
