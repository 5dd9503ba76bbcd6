PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test
BYTECODE := env -u PYTHONDONTWRITEBYTECODE

.PHONY: demo test bench lint serve clean first-run-notice

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# pip stays quiet (its own output is a page of "Collecting …" lines), so the first `make demo` says
# what it installs before it starts and how long that took once it is done.
first-run-notice:
	@if [ ! -e $(STAMP_RUN) ]; then echo "First run: installing labdeck and its dependencies (textual, \
	httpx, pydantic, uvicorn, keyring …) into $(VENV); this takes about 25 s."; \
	elif [ pyproject.toml -nt $(STAMP_RUN) ]; then echo "pyproject.toml changed: installing labdeck's \
	dependencies into $(VENV) again (a few seconds when nothing new is needed)."; fi

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	@started=$$(date +%s); $(BIN)/pip install --quiet -e . \
	&& echo "Installed in $$(( $$(date +%s) - started )) s."
	@touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@ $(STAMP_RUN)

# `make demo INSTANCES=2`: one board over two simulated instances (spec and gitlab dialects).
demo: first-run-notice $(STAMP_RUN)
	$(BIN)/labdeck --demo $(if $(INSTANCES),--instances $(INSTANCES))

serve: first-run-notice $(STAMP_RUN)
	$(BIN)/labdeck serve

lint: $(STAMP_TEST)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# Four workers for everything but the pseudo-terminal tests (on two cores: a UI test waits on its
# simulator, timers and back-offs much of the time; three workers took 644 s on a quiet machine,
# four 612 s on a loaded one), which then run
# alone: they time what a person sees (a hang-up ends the process within 2 s), and a busy
# neighbour would make them lie.
# The bytecode is written first: where PYTHONDONTWRITEBYTECODE is set, every console, CLI and
# simulator process a test starts would otherwise compile labdeck's modules again (0.4 s each).
# pytest's rewritten test modules are written too (two collections, one per core), or each of the
# five pytest processes would rewrite all of them again: 10 of its 15 s of collection.
# Both collections run beside the lint (mypy keeps one core busy for 16 s); the lint's status is
# the step's.
test: $(STAMP_TEST)
	$(BIN)/python -m compileall -q src
	@$(BYTECODE) $(BIN)/python -m pytest --collect-only -q tests/ui >/dev/null 2>&1 & \
	$(BYTECODE) $(BIN)/python -m pytest --collect-only -q tests --ignore=tests/ui >/dev/null 2>&1 & \
	$(MAKE) --no-print-directory lint; status=$$?; wait; exit $$status
	$(BYTECODE) $(BIN)/python -m pytest -n 4 -m "not pty"
	$(BYTECODE) $(BIN)/python -m pytest -m pty

bench: $(STAMP_TEST)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build dist .mypy_cache .ruff_cache
