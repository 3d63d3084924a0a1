"""The lesser defects of issue 22 (item 5), each as a user meets it: an export while the game is
played elsewhere, a journal opened through a link, SIGTERM and SIGHUP, a clock that jumped."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.table.data import load_table
from companion.table.model import duration_text, render
from tests.cli_run import run_cli

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]


def start(*args: str, home: Path) -> subprocess.Popen:
    env = {**os.environ, "COMPANION_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "companion", "--lang", "en", *args], cwd=ROOT, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run(*args: str, home: Path, stdin: str = "") -> subprocess.CompletedProcess:
    """A program that only answers in what it prints and its status: run in this process
    (tests/cli_run.py, the same entry point; 0.3 CPU-s of a child's start each). What holds the
    journal meanwhile, or takes a signal, is a real process (``start``)."""
    return run_cli("--lang", "en", *args, env={"COMPANION_HOME": str(home)}, stdin=stdin, cwd=ROOT)


def wait_for(proc: subprocess.Popen, text: str, stream: str = "stderr", limit: float = 60) -> str:
    """What ``proc`` wrote on ``stream`` until ``text`` appears (a deadline only against a hang)."""
    pipe = getattr(proc, stream)
    seen = ""
    end = time.monotonic() + limit
    while text not in seen and time.monotonic() < end:
        ready, _, _ = select.select([pipe], [], [], 0.5)
        if ready:
            line = pipe.readline()
            if not line:
                break
            seen += line
    assert text in seen, seen
    return seen


def holding(journal: Path, home: Path) -> subprocess.Popen:
    """A table program playing game 1 of ``journal``, waiting for its next line."""
    proc = start("table", "--journal", str(journal), "--resume", "1", home=home)
    wait_for(proc, "Journal")
    return proc


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Game 1 (Ann's pool at 28) made once by the table program, as a user makes it: each test
    plays on a copy (the tests are about what comes after, and the game made is the same)."""
    folder = tmp_path_factory.mktemp("made")
    path = folder / "games.sqlite3"
    made = run("table", "--journal", str(path), "--game", "vtes", "--players", "Ann,Bob", home=folder,
               stdin="pool 1 -2\n")
    assert made.returncode == 0, made.stderr
    return path


@pytest.fixture
def game(tmp_path: Path, made: Path) -> Path:
    path = tmp_path / "games.sqlite3"
    shutil.copy2(made, path)  # (the program that made it has ended: no -wal left beside it)
    return path


def test_an_export_while_the_game_is_played_elsewhere(tmp_path: Path, game: Path) -> None:
    proc = holding(game, tmp_path)
    try:
        for kind in ("text", "json"):
            done = run("table", "--journal", str(game), "--resume", "1", "--export", kind, home=tmp_path)
            assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
            assert "28" in done.stdout
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


def test_a_journal_opened_through_a_link_is_the_same_journal(tmp_path: Path, game: Path) -> None:
    link = tmp_path / "link.sqlite3"
    link.symlink_to(game)
    proc = holding(link, tmp_path)
    try:
        second = run("table", "--journal", str(game), "--resume", "1", home=tmp_path, stdin="pool 2 -1\n")
        assert second.returncode != 0 and "open in another program" in second.stderr, second.stderr
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_the_table_says_goodbye_on_sigterm_and_sighup(tmp_path: Path, game: Path, sig: int) -> None:
    proc = holding(game, tmp_path)
    proc.stdin.write("pool 2 -3\n")
    proc.stdin.flush()
    wait_for(proc, "27", stream="stdout")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert "Final state:" in out  # where the game is, as at the end of the input


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_the_console_says_goodbye_on_sigterm_and_sighup(tmp_path: Path, game: Path, sig: int) -> None:
    proc = start("console", "--journal", str(game), "--resume", "1", home=tmp_path)
    proc.stdin.write("pool 2 -3\n")  # answered once the console reads its input
    proc.stdin.flush()
    wait_for(proc, "27", stream="stdout")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert "Goodbye. Game number 1 is saved" in out + err


def test_a_clock_that_jumped_is_not_shown_as_ten_years() -> None:
    assert duration_text(75) == "1:15" and duration_text(3 * 3600 + 5) == "3:00:05"
    assert duration_text(87600 * 3600) == "--:--"
    data = load_table("vtes")
    text = render(data, "table.timer", {"turn": "@s:315360000", "round": "@s:60", "game": "@s:315360000"}, lang="en")
    assert "87600" not in text and "unknown (the system clock changed)" in text and "1:00" in text


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 512 kB file system of its own (tmpfs), to fill up; skipped where mounting is not allowed."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {mounted.stderr.decode()[:200]}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_full_disk_at_start_is_said_as_such_and_the_games_still_listed(tmp_path: Path, small_disk: Path) -> None:
    path = small_disk / "games.sqlite3"
    made = run("table", "--journal", str(path), "--game", "vtes", "--players", "Ann,Bob", home=tmp_path,
               stdin="pool 1 -2\n")
    assert made.returncode == 0, made.stderr
    with open(small_disk / "filler", "wb") as f:  # the disk fills up while the program is stopped
        try:
            while True:
                f.write(b"\0" * 65536)
        except OSError:
            pass
    listed = run("table", "--journal", str(path), "--list", home=tmp_path)
    assert listed.returncode == 0 and "Ann, Bob" in listed.stdout, listed.stderr
    assert "is full" in listed.stderr and "I/O" not in listed.stderr and "SD card" not in listed.stderr
    resumed = run("table", "--journal", str(path), "--resume", "1", home=tmp_path, stdin="pool 2 -1\n")
    assert "disk full" in resumed.stdout and "Traceback" not in resumed.stderr
    assert "Bob: pool 30" in resumed.stdout  # refused: nothing moved
    (small_disk / "filler").unlink()  # space freed: play goes on
    again = run("table", "--journal", str(path), "--resume", "1", home=tmp_path, stdin="pool 2 -1\n")
    assert again.returncode == 0 and "Bob: pool 29" in again.stdout, again.stdout + again.stderr


def test_the_phone_server_says_goodbye_on_sighup(tmp_path: Path, game: Path) -> None:
    proc = start("serve", "--journal", str(game), "--resume", "1", "--port", "0", home=tmp_path)
    wait_for(proc, "http", stream="stdout")
    proc.send_signal(signal.SIGHUP)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert "Goodbye. Game number 1 is saved" in err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_the_window_closes_cleanly_on_sigterm_and_sighup(tmp_path: Path, sig: int) -> None:
    proc = start("run", "--reader", "sim", home=tmp_path)
    settings = tmp_path / "config" / "companion.ini"  # written by the window once it runs
    end = time.monotonic() + 90
    while not settings.exists() and proc.poll() is None and time.monotonic() < end:
        time.sleep(0.1)
    assert settings.exists(), proc.stderr.read() if proc.poll() is not None else "no window"
    time.sleep(1.0)  # let Kivy's loop turn
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert "Goodbye." in err
