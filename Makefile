# The two commands of the README: `make run` and `make test`. Every set-up step lives here.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Three pytest workers a core (at most 12): most tests wait on child processes, sockets, emulators
# and browsers. One worker a core left the cores idle a third of the run (on 2 cores: 8 min 16 s
# with 2 workers, 5 min 22 s with 4, the same tests); with two a core they were still idle about a
# tenth of it (1.74 cores busy on average), with three not at all after set-up (vmstat, each second).
WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$((n * 3)))
PYTEST_PARALLEL ?= -n $(WORKERS) --dist loadfile
# Python writes its compiled files (__pycache__) in every recipe, whatever the shell says: with
# PYTHONDONTWRITEBYTECODE set (some machines set it), the test run's pytest processes (the nox
# matrix's ones, in venvs installed without compiling) compiled again at every run whatever they
# imported before tests/conftest.py could unset it, and `make run` compiled the program at every start.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test matrix setup lint bench soak clean

setup: $(STAMP)

$(STAMP): pyproject.toml deploy/system-packages.sh
	@bash deploy/system-packages.sh
	@# No pip in the venv (ensurepip: 6.6 CPU-s of the 24 a fresh setup took): uv installs everything,
	@# uv itself from PATH if there is one, else into the venv by this Python's own pip.
	@test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV)
	@# uv (from PyPI, a wheel) installs the rest: its downloads run in parallel and its cache serves
	@# nox's venvs too (a fresh venv here: 30 s with uv, 95 s with pip); pip if uv cannot be had.
	@# Nothing compiled at install (uv's --compile-bytecode: 10 CPU-s, a quarter of it numpy's, which
	@# nothing here imports): the compile below takes only the packages the program and its tests load.
	@# First from uv's cache alone (--offline), as noxfile.py does: on a machine that has installed them
	@# before, asking the index again costs 3 of the 3.4 CPU-s of this install (uv parses every
	@# package's index page); anything missing from the cache (a fresh machine, a new requirement)
	@# makes it fail before it installs anything, and the index is asked.
	@# The program itself is not built (an editable install: setuptools in a build venv, 2.5 CPU-s at
	@# every fresh clone): a .pth file puts this folder on the venv's path, as noxfile.py does; the
	@# package's build and metadata are test_wheel.py's. (Nothing here runs the `table-companion`
	@# command an install would add: the Makefile and the tests run `python -m companion`.)
	@uv=$$(command -v uv) || { uv=$(BIN)/uv; test -x $$uv || $(PYTHON) -m pip --python $(BIN)/python install -q \
			--disable-pip-version-check uv 2>/dev/null || { $(BIN)/python -m ensurepip >/dev/null && $(BIN)/python -m pip \
			install -q --disable-pip-version-check uv; }; }; \
	{ $$uv pip install -q --offline --python $(BIN)/python -r pyproject.toml --extra dev 2>/dev/null \
		|| $$uv pip install -q --python $(BIN)/python -r pyproject.toml --extra dev; } \
		&& for site in $(VENV)/lib/python*/site-packages; do echo "$(CURDIR)" > $$site/table_companion_source.pth; done \
		|| { $(BIN)/python -m ensurepip >/dev/null; $(BIN)/python -m pip install -q --upgrade pip && $(BIN)/python -m pip install -q -e '.[dev]'; }
	@# Compiled once here, in parallel, rather than by the first processes that import them, all at
	@# once (pytest's xdist workers collect the same modules side by side): what the program, its
	@# tests and their tools load. Left out, compiled by Python if something ever imports them:
	@# numpy (krcg's seating, unused here), setuptools and pkg_resources (builds), docutils (Kivy's
	@# optional helper), pygments' lexers but pytest's two, virtualenv and distlib (nox builds with uv),
	@# Kivy's own tests and tools and its video, audio and camera providers, playwright's asyncio API
	@# (the tests drive the sync one), cffi and pycparser (build-time), rich's markdown (markdown_it,
	@# mdurl), unidecode's per-character-block tables, filelock's soft/sqlite/async locks, dateutil's
	@# parser, packaging's licences, urllib3's emscripten: none read in a whole run (their compiled
	@# files' access times, fresh clone). And pytest's plugins (hypothesis, xdist, pytest_timeout):
	@# pytest imports them through its assertion rewriter, from pycs of its own, never these.
	@# Two compileall processes on halves of the list, not `compileall -j 0`: its pool sends the files
	@# one by one to its workers (2.5 of its 9.5 CPU-s here).
	@list=$$(mktemp -d) && find $(VENV)/lib/python*/site-packages companion -name '*.py' \
		| grep -Pv '/site-packages/(numpy|setuptools|pkg_resources|_distutils_hack|docutils|pygments/lexers/(?!(__init__|_mapping|python|diff)\.py)|virtualenv|distlib|pip/|kivy/tests/test_|kivy/tools|kivy/core/(video|audio|camera)|playwright/async_api|greenlet/tests|cffi|pycparser|markdown_it|mdurl|unidecode/x\d|filelock/_(soft|sqlite|async_lock)|dateutil/parser|packaging/licenses|urllib3/contrib/emscripten|hypothesis|_hypothesis|xdist/|pytest_timeout)' \
		| split -n r/2 - $$list/part && { for part in $$list/part*; do $(BIN)/python -m compileall -q -i $$part > /dev/null & done; wait; }; \
		rm -rf $$list
	@touch $(STAMP)

run: setup
	$(BIN)/python -m companion run --demo

# The hub firmware's tests run it under real MicroPython: its WebAssembly port from npm, run by
# Node, installed exactly as hardware/firmware/micropython/package-lock.json says.
MP_DIR := hardware/firmware/micropython
MP     := $(MP_DIR)/node_modules/.package-lock.json

$(MP): $(MP_DIR)/package-lock.json
	cd $(MP_DIR) && npm ci --no-audit --no-fund

# The suite runs in parallel (pytest-xdist, three workers a core; a file's tests stay together, the
# costliest files first, each worker with its own Kivy window, see tests/conftest.py): most tests wait on child
# processes, sockets and emulators. `make test PYTEST_PARALLEL=` runs them one after another.
# Beside the whole suite on the project's Python, nox runs the Python-sensitive part of it (card
# library, VTES through krcg 4 or 5, card updates, decks, search, game data, table rules, speech,
# card play; noxfile.py lists the files) under every other Python 3.11-3.13 found on PATH or under
# pyenv, each in its own venv in .nox/ (kept: a second run reinstalls nothing; built by uv). A
# missing one is skipped with a line saying so.
# The matrix runs beside pytest, its Pythons side by side (nox -j), its output printed after
# pytest's: most of the suite waits on children, sockets and emulators, and the matrix fills those
# waits (and builds its venvs, downloads, while pytest starts).
NOX_PARALLEL ?= 2
test: setup $(MP)
	$(BIN)/python -m ruff check companion tests hardware noxfile.py
	$(BIN)/lint-imports
	@$(BIN)/python -m nox --no-color -j $(NOX_PARALLEL) > $(VENV)/nox.log 2>&1 & nox=$$!; \
	$(BIN)/python -m pytest $(PYTEST_PARALLEL); rc=$$?; \
	echo "--- the Python matrix (nox, run beside pytest) ---"; \
	wait $$nox; nox_rc=$$?; cat $(VENV)/nox.log; \
	[ $$rc -ne 0 ] && exit $$rc; exit $$nox_rc

# Only the matrix (e.g. after changing the krcg adapter).
matrix: setup
	$(BIN)/python -m nox --no-color -j $(NOX_PARALLEL)

# An hour of fuzzing of every input that comes from outside (tags, the hub, command words, card
# files, journal payloads); not in CI. FUZZ_SECONDS shortens it; the inputs tried go to FUZZ_REPORT.
FUZZ_SECONDS ?= 3600
FUZZ_REPORT  ?= fuzz-report.json
soak: setup
	COMPANION_FUZZ=soak COMPANION_FUZZ_SECONDS=$(FUZZ_SECONDS) COMPANION_FUZZ_REPORT=$(FUZZ_REPORT) \
		$(BIN)/python -m pytest -q -p no:randomly tests/unit/test_fuzz.py
	@cat $(FUZZ_REPORT)

bench: setup
	$(BIN)/python -m companion bench all

clean:
	rm -rf $(VENV) .nox build *.egg-info .pytest_cache $(MP_DIR)/node_modules
