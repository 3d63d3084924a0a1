"""The Python matrix of ``make test``: the suite's Python-sensitive part under every other
supported Python found on this machine (3.11 to 3.13; the main suite already ran under the
project's own .venv).

Which part, and why: the card library and VTES through both krcg lines (3.11 gets krcg 4,
3.12+ krcg 5), card updates, decks, search, game data, table rules and journal, speech phrases
and real espeak-ng. Left out: the Kivy window, reader emulators and console tests, which do
not depend on the krcg line and take most of the suite's time (the main suite runs them; tests
marked ``ui`` in the files above are deselected for the same reason).

Interpreters are found on PATH and under pyenv (``pyenv root``); a missing one is skipped with
a line saying so, never downloaded. Each version keeps its venv in ``.nox/`` and reinstalls
only when pyproject.toml changes, so a second run starts in seconds.

The Pythons of one run that have the same krcg share one card index (tests/conftest.py builds it
once, under a lock): its key is the games' files and krcg's version, not Python's (the index is
JSON, its typo keys the same in every process: companion/cards/index.py, search.py).
"""

from __future__ import annotations

import atexit
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nox

VERSIONS = ("3.11", "3.12", "3.13")
MAIN = f"{sys.version_info.major}.{sys.version_info.minor}"  # nox runs in the project's .venv
TESTS = [
    "tests/games/vtes/test_vtes_krcg.py", "tests/games/vtes/test_vtes_update.py",
    "tests/unit/test_cards_loader.py", "tests/unit/test_card_data.py", "tests/unit/test_search.py",
    "tests/unit/test_game_data.py", "tests/unit/test_i18n.py", "tests/unit/test_table_rules.py",
    "tests/unit/test_journal.py", "tests/unit/test_phrases.py",
    "tests/integration/test_load_problems.py", "tests/integration/test_cards_cli.py",
    "tests/integration/test_decks.py", "tests/integration/test_table_games.py",
    "tests/integration/test_speech.py", "tests/integration/test_card_play.py",
]

nox.options.download_python = "never"
# uv builds a venv from its cache in seconds, where pip downloads everything again (no pip cache here).
nox.options.default_venv_backend = "uv|virtualenv"
# Not compiled at install (22 CPU-s per venv against 7, most of it for modules these tests never
# import: Kivy's); the tests' pytest writes what it imports instead (PYTHONDONTWRITEBYTECODE
# emptied for it, see matrix()), and every child process it starts reads that.
os.environ.pop("UV_COMPILE_BYTECODE", None)
nox.options.reuse_venv = "yes"
nox.options.error_on_missing_interpreters = False
nox.options.sessions = ["matrix"]

# The card indexes of this run, one per krcg version (see the module's doc): made by the first nox
# process, inherited by the sessions' own (nox -j runs each in a child), removed when it ends.
if not os.environ.get("_COMPANION_MATRIX_CACHE"):
    os.environ["_COMPANION_MATRIX_CACHE"] = tempfile.mkdtemp(prefix="companion-matrix-")
    atexit.register(shutil.rmtree, os.environ["_COMPANION_MATRIX_CACHE"], True)


def _pyenv_root() -> Path | None:
    exe = shutil.which("pyenv")
    if exe:
        try:
            out = subprocess.run([exe, "root"], capture_output=True, text=True, timeout=10, check=True).stdout.strip()
            return Path(out) if out else None
        except (OSError, subprocess.SubprocessError):
            pass
    env = os.environ.get("PYENV_ROOT")
    return Path(env) if env else None


def find(version: str) -> str | None:
    """An interpreter of ``version``: on PATH (not a pyenv shim, which may not run it), else the
    newest of pyenv's builds."""
    exe = shutil.which(f"python{version}")
    if exe and "/shims/" not in exe:
        return exe
    root = _pyenv_root()
    if root is not None:
        builds = sorted(glob.glob(str(root / "versions" / f"{version}.*" / "bin" / f"python{version}")),
                        key=lambda p: [int(x) for x in Path(p).parts[-3].split(".") if x.isdigit()])
        if builds:
            return builds[-1]
    return None


OTHERS = [v for v in VERSIONS if v != MAIN]
FOUND = {v: find(v) for v in OTHERS}
for _version, _exe in FOUND.items():
    if _exe is None:
        print(f"nox matrix: Python {_version} not found on PATH nor under pyenv: skipped", file=sys.stderr)
PYTHONS = [v for v, exe in FOUND.items() if exe]
# nox finds "3.12" as python3.12 on PATH: put the builds found first (a pyenv shim would refuse).
os.environ["PATH"] = os.pathsep.join([*(str(Path(exe).parent) for exe in FOUND.values() if exe),
                                      os.environ.get("PATH", "")])


@nox.session(python=PYTHONS or False, allow_parallel=True)
def matrix(session: nox.Session) -> None:
    """The representative part of the suite under one other Python."""
    if not PYTHONS:
        session.skip("no other Python 3.11-3.13 on this machine: the matrix has nothing to run")
    stamp = Path(session.virtualenv.location) / ".installed"
    key = hashlib.sha256(Path("pyproject.toml").read_bytes() + b"deps+pth").hexdigest()
    if not stamp.exists() or stamp.read_text() != key:
        if session.venv_backend != "uv":  # uv's venvs have no pip, and need none
            session.install("-q", "--upgrade", "pip")
            session.install("-q", "-e", ".[test]")
        else:
            # The dependencies, and this folder on the venv's path (a .pth file): what an editable
            # install gives these tests, without its build (setuptools in a venv of its own: 3 CPU-s
            # per Python); the package's build and metadata are the main suite's (test_wheel.py).
            # First from uv's cache alone (--offline): the main venv's install has just asked the
            # index about the same packages (make test's setup), and asking again costs 3 CPU-s per
            # Python here (uv parses every index page again). Anything missing from the cache (a
            # fresh machine, a new release asked for) makes it fail at once, before it installs
            # anything; then the index is asked. Its output (-q) only says why it failed
            # (run_install: session.install returns nothing to tell).
            args = ("-q", "-r", "pyproject.toml", "--extra", "test")
            if session.run_install("uv", "pip", "install", "--offline", *args, silent=True,
                                   success_codes=range(256), external=True):
                session.install(*args)
            (site,) = Path(session.virtualenv.location).glob("lib/python*/site-packages")
            (site / "table_companion_source.pth").write_text(f"{Path.cwd()}\n", encoding="utf-8")
        stamp.write_text(key)
    # krcg's version from its metadata (importing krcg costs half a second): the line said, and the
    # card index this Python shares with the run's others that have the same.
    said = session.run("python", "-c", "import sys, importlib.metadata as m; "
                       "print(f'Python {sys.version.split()[0]}, krcg', m.version('krcg'))", silent=True)
    print(said.strip())
    cache = Path(os.environ["_COMPANION_MATRIX_CACHE"]) / f"krcg-{said.split()[-1]}"
    # One process per Python, no xdist workers: the Pythons run side by side (nox -j) and beside
    # the main suite, which already keep the cores busy.
    session.run("python", "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-m", "not ui",
                *TESTS, *session.posargs, env={"PYTHONDONTWRITEBYTECODE": "", "COMPANION_CACHE": str(cache)})
