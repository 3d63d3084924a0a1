"""``echo vtes:100845 | console --reader sim --count 1`` used to wait for ever (issue 15, item 10):
a piped line was ignored unless a game ran, so the simulated reader never got its card."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def console(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", "--lang", "en", "console", *args], cwd=ROOT,
                          input=stdin, capture_output=True, text=True, timeout=60, env=dict(os.environ))


def test_a_piped_card_is_laid_and_the_run_ends() -> None:
    run = console("--reader", "sim", "--count", "1", stdin="vtes:100845\n")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("vtes:100845  Govern the Unaligned")


def test_piped_cards_without_a_count_end_with_the_input() -> None:
    run = console("--reader", "sim", stdin="vtes:100845\nKindred Intelligence\nnot a card at all\n")
    assert run.returncode == 0, run.stderr
    assert "Govern the Unaligned" in run.stdout and "Kindred Intelligence" in run.stdout


def test_an_empty_stdin_leaves_a_scripted_demo_running_to_its_count() -> None:
    run = console("--reader", "sim:vtes:100845,vtes:101050", "--count", "2", stdin="")
    assert run.returncode == 0, run.stderr
    assert "Govern the Unaligned" in run.stdout and "Kindred Intelligence" in run.stdout


def test_a_card_line_suits_a_braille_display() -> None:
    """Issue 16, item 8: the console's card line names the type, cost, clan and disciplines as
    the speech does, writes icons as words and numbers as digits, never a raw [dom] code."""
    out = console("--reader", "sim", "--count", "2", stdin="vtes:100845\nanson\n")
    govern, anson = out.stdout.splitlines()[:2]
    assert govern.startswith("vtes:100845  Govern the Unaligned  (Type: Action; Cost: 1 blood; Disciplines: Dominate)")
    assert "[dom]" not in govern and "[DOM]" not in govern and "Superior Dominate: +1 stealth action." in govern
    assert "+2 bleed" in govern  # digits, not "plus two"
    assert "Clan: Toreador" in anson and "superior Celerity" in anson and "Capacity: 8" in anson


def test_a_card_name_typed_wrong_first_is_found() -> None:
    """The search's index is not built before a piped script's first line (a script that names
    no card never pays for it): a first line naming a card with a typo builds it and finds it."""
    run = console("--reader", "sim", "--count", "1", stdin="deflektoin\n")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("vtes:100518  Deflection"), run.stdout


def test_a_person_typing_a_card_name_first_is_answered() -> None:
    """At a terminal, the search's index is built in a worker while the person reads the start;
    a card name typed wrong at once is found all the same (it waits for the index, or builds it)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "companion", "--lang", "en", "console", "--reader", "sim",
                             "--count", "1"], cwd=ROOT, stdin=follower, stdout=follower, stderr=follower,
                            env=dict(os.environ), close_fds=True)
    os.close(follower)
    out = b""
    try:
        os.write(leader, b"govrn the unalligned\n")  # typed before the console even asked
        deadline = time.monotonic() + 60
        while b"Govern the Unaligned" not in out and time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if ready:
                try:
                    out += os.read(leader, 4096)
                except OSError:
                    break
        assert proc.wait(timeout=60) == 0, out
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)
    assert b"vtes:100845  Govern the Unaligned" in out, out
