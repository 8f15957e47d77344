# Every target sets itself up from nothing: it creates .venv and installs planviz first.
# `make lab` installs only what the notebooks need (planviz, JupyterLab, Voila); `make test` adds the
# test tools (pytest, Hypothesis, nbclient, Notebook 7, playwright). Each has its own install stamp.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
LAB_STAMP  := $(VENV)/.lab-stamp
TEST_STAMP := $(VENV)/.test-stamp
PYTEST_ARGS ?=
# pytest-xdist: one worker per logical CPU; --dist loadfile hands out whole units (a test file, tests/browser, a
# package's doctests: tests/conftest.py), so a module's or the browsers' fixtures start once. XDIST= runs serially.
XDIST ?= -n logical --dist loadfile
LAB_ARGS ?=

.PHONY: install test test-quick lint format lab demo bench binder-check jscheck clean

# A current pip installs the lab in about half the time of the pip a new venv starts with; skipping the
# byte-compilation of every installed file saves a third more (Python compiles what it imports, once).
PIP := $(BIN)/python -m pip install -q --no-compile

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip

$(LAB_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) -e '.[lab]'
	touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) -e '.[test,lab]'
	touch $@ $(LAB_STAMP)

# .venv with planviz and the lab; then `source .venv/bin/activate` puts `planviz` and `jupyter` on PATH.
install: $(LAB_STAMP)

# The whole suite but the Binder check (its own target below; CI runs both), on every core: each notebook runs once.
test: $(TEST_STAMP)
	$(BIN)/python -m pytest $(XDIST) --ignore=tests/test_binder.py $(PYTEST_ARGS)

# The edit-test loop: everything but the slow group (100k-step inputs), real browsers and the Binder venv.
test-quick: $(TEST_STAMP)
	$(BIN)/python -m pytest $(XDIST) -m "not slow and not browser and not binder" $(PYTEST_ARGS)

# ruff check and ruff format --check over planviz/, tests/ and benchmarks/ (seconds; `make test` runs them too)
lint: $(TEST_STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_style.py $(PYTEST_ARGS)

# Sort the imports, then format: what `make lint` asks for (rules in [tool.ruff] of pyproject.toml).
format: $(TEST_STAMP)
	$(BIN)/python -m ruff check --select I --fix planviz tests benchmarks
	$(BIN)/python -m ruff format planviz tests benchmarks

# JupyterLab refuses to start as root without --allow-root (containers, Binder-like machines).
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: $(LAB_STAMP)
	$(BIN)/jupyter lab $(ROOT_FLAG) $(LAB_ARGS) notebooks/

demo: $(LAB_STAMP)
	$(BIN)/python -m planviz.frontends.cli.demo out/

bench: $(LAB_STAMP)
	$(BIN)/python benchmarks/run.py

# A fresh venv from binder/requirements.txt alone runs every notebook (a few minutes; needs a pip index).
binder-check: $(TEST_STAMP)
	$(BIN)/python -m pytest -m binder tests/test_binder.py $(PYTEST_ARGS)

# TypeScript's checker over the front end's modules (planviz/frontends/js: `// @ts-check` + JSDoc, jsconfig.json;
# nothing is compiled). TypeScript comes from npm into ./node_modules (package.json, package-lock.json).
node_modules/.bin/tsc: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

jscheck: node_modules/.bin/tsc
	node_modules/.bin/tsc -p jsconfig.json && echo "jscheck: the front end's modules type-check"

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis *.egg-info node_modules
