PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test
BYTECODE := env -u PYTHONDONTWRITEBYTECODE

.PHONY: demo test bench lint serve clean first-run-notice

# uv installs the dependencies in about 10 s, fetching uv itself included, where pip took 33-47 s
# (uv fetches in parallel; a venv without pip saves the 9 s ensurepip takes, and uv puts pip in
# for the README's `pip install` lines). pip stays the fallback: where the machine's pip
# cannot fetch uv (an old pip without --python, no PyPI, only a pip mirror uv would not know of),
# the venv gets pip and pip installs.
$(BIN)/python:
	$(PYTHON) -m venv --without-pip $(VENV)

INSTALL = install() { \
	if $(PYTHON) -m pip --python $(BIN)/python install --quiet --disable-pip-version-check uv >/dev/null 2>&1 \
	   && $(BIN)/uv pip install --quiet --python $(BIN)/python pip "$$@"; then return 0; fi; \
	echo "uv could not be installed or could not install; installing with pip."; \
	{ [ -x $(BIN)/pip ] || $(BIN)/python -m ensurepip --upgrade --default-pip >/dev/null; } \
	&& $(BIN)/python -m pip install --quiet "$$@"; }; install

# pip stays quiet (its own output is a page of "Collecting …" lines), so the first `make demo` says
# what it installs before it starts and how long that took once it is done.
first-run-notice:
	@if [ ! -e $(STAMP_RUN) ]; then echo "First run: installing labdeck and its dependencies (textual, \
	httpx, pydantic, uvicorn, keyring …) into $(VENV); this takes about 10 s."; \
	elif [ pyproject.toml -nt $(STAMP_RUN) ]; then echo "pyproject.toml changed: installing labdeck's \
	dependencies into $(VENV) again (a few seconds when nothing new is needed)."; fi

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	@started=$$(date +%s); $(INSTALL) -e . \
	&& echo "Installed in $$(( $$(date +%s) - started )) s."
	@touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	@$(INSTALL) -e '.[test]'
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
# four 612 s on a loaded one, six no less than four), which then run alone: they time what a person
# sees (a hang-up ends the process within 2 s), and a busy neighbour would make them lie. They
# live in tests/pty and tests/bench (conftest.py refuses a `pty` test elsewhere), so that run
# collects only those folders, not all 2,700 tests again (8 s).
# The lint runs beside everything at the lowest priority and is reported at the end: the
# four-worker part keeps both cores busy, so it takes its CPU (mypy's 16 s) mostly while the
# pseudo-terminal tests, which leave a core and a half idle, wait on their consoles.
# The bytecode is written first: where PYTHONDONTWRITEBYTECODE is set, every console, CLI and
# simulator process a test starts would otherwise compile labdeck's modules again (0.4 s each).
# pytest's rewritten test modules are written too (two collections, one per core), or each of the
# five pytest processes would rewrite all of them again: 10 of its 15 s of collection.
test: $(STAMP_TEST)
	$(BIN)/python -m compileall -q src
	@nice -n 19 $(MAKE) --no-print-directory lint > $(VENV)/lint.log 2>&1 & lint=$$!; \
	$(BYTECODE) $(BIN)/python -m pytest --collect-only -q tests/ui >/dev/null 2>&1 & ui=$$!; \
	$(BYTECODE) $(BIN)/python -m pytest --collect-only -q tests --ignore=tests/ui >/dev/null 2>&1; wait $$ui; \
	echo '$(BYTECODE) $(BIN)/python -m pytest -n 4 -m "not pty"'; \
	$(BYTECODE) $(BIN)/python -m pytest -n 4 -m "not pty"; tests=$$?; \
	echo '$(BYTECODE) $(BIN)/python -m pytest -m pty tests/pty tests/bench'; \
	$(BYTECODE) $(BIN)/python -m pytest -m pty tests/pty tests/bench; pty=$$?; \
	wait $$lint; linted=$$?; echo "lint (ruff, mypy, lint-imports):"; cat $(VENV)/lint.log; \
	[ $$linted -eq 0 ] || echo "make test: the lint failed (above)."; \
	[ $$tests -eq 0 ] && [ $$pty -eq 0 ] && [ $$linted -eq 0 ]

bench: $(STAMP_TEST)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build dist .mypy_cache .ruff_cache
