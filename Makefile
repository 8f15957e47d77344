# Every target sets itself up from nothing: it creates .venv and installs planviz first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
PYTEST_ARGS ?=

.PHONY: test lab demo bench binder-check clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,lab]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

demo: $(STAMP)
	$(BIN)/python -m planviz.demo out/

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis *.egg-info
