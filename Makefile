# The two commands of the README: `make run` and `make test`. Every set-up step lives here.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test setup lint bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml deploy/system-packages.sh
	@bash deploy/system-packages.sh
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

run: setup
	$(BIN)/python -m companion run --demo

test: setup
	$(BIN)/python -m ruff check companion tests hardware
	$(BIN)/lint-imports
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/python -m companion bench all

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
