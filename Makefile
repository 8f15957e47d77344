# Every target sets itself up from nothing: it creates .venv and installs planviz first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
PYTEST_ARGS ?=

.PHONY: test test-quick lab demo bench binder-check clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,lab]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The edit-test loop: everything but the slow group (100k-step inputs), real browsers and the Binder venv.
test-quick: $(STAMP)
	$(BIN)/python -m pytest -m "not slow and not browser and not binder" $(PYTEST_ARGS)

# JupyterLab refuses to start as root without --allow-root (containers, Binder-like machines).
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: $(STAMP)
	$(BIN)/jupyter lab $(ROOT_FLAG) notebooks/

demo: $(STAMP)
	$(BIN)/python -m planviz.frontends.demo out/

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

binder-check: $(STAMP)
	$(BIN)/python -m pytest -m binder tests/test_binder.py

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis *.egg-info
