"""A read-only home (issue 15, item 8): a locked-down kiosk, or an SD card the kernel remounted
read-only. Cards, rules and scanning work; saving a card, a tag binding or a game says why it
cannot, in words, with no traceback."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cards_index import warm_index
from tests.cli_run import run_cli

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def read_only(folder: Path):
    """``folder`` made read-only for real: a read-only bind mount as root (root ignores file
    modes), the file modes otherwise."""
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        bound = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True, check=False)
        if bound.returncode != 0:
            pytest.skip("a read-only bind mount needs the right to mount")
        try:
            subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], check=True, capture_output=True)
            yield folder
        finally:
            subprocess.run(["umount", "-l", str(folder)], check=False)
    else:
        folder.chmod(0o555)
        try:
            yield folder
        finally:
            folder.chmod(0o755)


def companion(home: Path, *args: str) -> subprocess.CompletedProcess:
    """A first program in the read-only home: no card index it may keep (its cache is read-only
    too, inside the home), so it builds one in memory. A process of its own, as a first start is."""
    env = {**os.environ, "COMPANION_HOME": str(home)}
    env.pop("COMPANION_CACHE", None)
    return subprocess.run([sys.executable, "-m", "companion", "--lang", "en", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def companion_with(cache: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    """The next programs, with a read-only cache holding a card index (a kiosk's, built before):
    run in this process (tests/cli_run.py), the same entry point and environment, since these
    only check what the command prints and its status (0.3 CPU-s of a child's start each)."""
    return run_cli("--lang", "en", *args, env={"COMPANION_HOME": str(home), "COMPANION_CACHE": str(cache)},
                   cwd=ROOT)


def test_reading_works_and_saving_says_why_not(tmp_path: Path) -> None:
    home = tmp_path / "home"
    # The first program builds the card index and cannot keep it; the others read the session's,
    # read-only too, instead of building it each (4-5 s of CPU each).
    cache = warm_index(home, tmp_path / "cache")
    with read_only(home), read_only(cache):
        with pytest.raises(OSError):
            (home / "probe").write_text("x")  # it really is read-only
        search = companion(home, "cards", "search", "--game", "res-arcana", "athanor")
        assert search.returncode == 0 and "Athanor" in search.stdout, search.stderr
        rules = companion_with(cache, home, "rules", "--game", "vtes", "bleed")
        assert rules.returncode == 0 and rules.stdout.strip(), rules.stderr
        scan = companion_with(cache, home, "console", "--reader", "sim:vtes:100845", "--count", "1")
        assert scan.returncode == 0 and "Govern the Unaligned" in scan.stdout, scan.stderr
        game = companion_with(cache, home, "table", "--game", "vtes", "--players", "Ann,Bob")
        assert game.returncode == 2 and "read-only" in game.stderr
        add = companion_with(cache, home, "cards", "add", "--game", "rise", "--name", "Foo", "--type", "invocateur",
                             "--text", "A card.")
        assert add.returncode != 0 and "cannot save: the folder is read-only" in add.stderr + add.stdout
        for run in (search, rules, scan, game, add):
            assert "Traceback" not in run.stderr, run.stderr
