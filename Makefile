# The two commands of the README: `make run` and `make test`. Every set-up step lives here.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test setup lint bench soak clean

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
	$(BIN)/python -m pytest

# An hour of fuzzing of every input that comes from outside (tags, the hub, command words, card
# files, journal payloads); not in CI. FUZZ_SECONDS shortens it; the inputs tried go to FUZZ_REPORT.
FUZZ_SECONDS ?= 3600
FUZZ_REPORT  ?= fuzz-report.json
soak: setup
	COMPANION_FUZZ=soak COMPANION_FUZZ_SECONDS=$(FUZZ_SECONDS) COMPANION_FUZZ_REPORT=$(FUZZ_REPORT) \
		$(BIN)/python -m pytest -q -p no:randomly tests/test_fuzz.py
	@cat $(FUZZ_REPORT)

bench: setup
	$(BIN)/python -m companion bench all

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
