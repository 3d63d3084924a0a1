"""The console companion plays from a numeric keypad too: a line of keypad keys, then Enter,
does what those keys do in the app (docs/keys.md); ``+N``, ``-N`` and ``=N`` change the selected
counter; a keypad sequence never carries over to the next line. Results are printed with digits
(a braille display), and said by the same announcer as the app's (the voice is captured)."""

import subprocess
from pathlib import Path

import pytest

from tests.cli_run import run_cli
from tests.speech_capture import capture_env, spoken

pytestmark = pytest.mark.timeout(90)


def console(tmp_path: Path, script: str, env: dict | None = None, *extra: str) -> subprocess.CompletedProcess:
    # In this process (tests.cli_run): what the console writes and says, and its status.
    return run_cli("console", "--game", "vtes", "--players", "Ann,Bob,Cy", "--seed", "1",
                   "--journal", str(tmp_path / "games.sqlite3"), *extra, stdin=script, env=env)


def test_keypad_lines_drive_the_game(tmp_path: Path) -> None:
    run = console(tmp_path, "*\n*\n/73\n7\n/2\n-\n1\npool 1 -2\n7\n3\n")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith("Phase : Maître."))  # the first keypad star
    said = lines[start:]
    for expected in ("Cy saigne Ann de 3.", "Ann : réserve -3, maintenant 27.",
                     "Annulé (1).", "Ann : réserve +3, maintenant 30.",  # the keypad undo says what it undid
                     # readings are written with digits (a braille display), said with words
                     "Bob : réserve 30, points de victoire 0, transferts 0. Proie : Cy.",
                     "Bob : réserve -1, maintenant 29.",
                     "Ann : réserve -2, maintenant 28.", "Ann : réserve +2, maintenant 30.",  # a typed command, undone
                     "Manche 1, au tour de Cy, phase Séides."):
        assert expected in said, (expected, said)
    assert said.index("Cy saigne Ann de 3.") < said.index("Ann : réserve +3, maintenant 30.")
    # the final state printed at the end of input agrees with what was said
    assert "1. Ann : réserve 30" in run.stdout and "2. Bob : réserve 29" in run.stdout
    assert "Traceback" not in run.stderr


def test_amounts_for_the_selected_counter_and_no_prefix_carried_over(tmp_path: Path) -> None:
    # "/" alone leaves a prefix waiting: the next line must not complete it (it would select seat 2).
    run = console(tmp_path, "/2\n-3\n+2\n=25\n/\n2\n")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "Bob : réserve -3, maintenant 27." in out
    assert "Bob : réserve +2, maintenant 29." in out
    assert "Bob : réserve -4, maintenant 25." in out
    # "2" alone is the keypad's 2 (next counter on the table), never seat 2 chosen again
    assert out.count("Bob : réserve 30,") == 1
    assert "2. Bob : réserve 25" in out
    assert "Traceback" not in run.stderr


def test_typed_and_keypad_results_are_said_the_same_way(tmp_path: Path) -> None:
    env, log = capture_env(tmp_path)

    def last_said(line: str, *extra: str) -> str:
        # One line a run (resuming the game): a key's answer cuts short what was being said, as
        # it should for a player typing fast, so each run's last message is the one to check.
        before = len(spoken(log))
        run = console(tmp_path, line + "\n", env, "--speak", *extra)
        assert run.returncode == 0, run.stderr
        # the goodbye (game number, how to resume) closes every run: the answer is the one before
        said = [x for x in spoken(log)[before:] if not x[1].startswith("Au revoir.")]
        assert said and all(voice.startswith("fr") for voice, _ in said), said
        return said[-1][1]

    # a change the player typed: whose and where it stands, numbers as words (docs/speech.md)
    assert last_said("pool 2 -3") == "Bob, vingt-sept."
    # a typed undo says what it undid, as the keypad's does
    assert last_said("undo", "--resume", "1") == "Annulé. Bob, réserve, plus trois, total trente."
    assert last_said("redo", "--resume", "1") == "Rétabli. Bob, réserve, moins trois, reste vingt-sept."
    assert last_said("7", "--resume", "1") == "Annulé. Bob, réserve, plus trois, total trente."
    # durations in words, not "zéro heure dix"
    timer = last_said("timer", "--resume", "1")
    assert timer.startswith("Ce tour : ") and "seconde" in timer, timer
    assert not any(ch.isdigit() for ch in timer) and " heure" not in timer, timer
