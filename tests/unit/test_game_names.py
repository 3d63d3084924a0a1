"""A game's knowledge lives in its two folders (cardmap/<id>/ and companion/games/<id>/): the
generic packages of companion/ never name a game (issue 21's grep, run as its "Done means" says)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PATTERN = r"vtes|ascension|res.arcana|astral|\brise\b"


def _git_grep() -> list[str] | None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return None
    done = subprocess.run(["git", "grep", "-n", "-i", "-E", PATTERN, "--", "companion", ":!companion/games"],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):  # 1: nothing found
        pytest.fail(f"git grep failed: {done.stderr}")
    return done.stdout.splitlines()


def _walk() -> list[str]:
    """The same search without git (a source tree that is not a checkout): every text file."""
    found = []
    rx = re.compile(PATTERN, re.IGNORECASE)
    games = ROOT / "companion" / "games"
    for path in sorted((ROOT / "companion").rglob("*")):
        if not path.is_file() or games in path.parents or "__pycache__" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        found += [f"{path.relative_to(ROOT)}:{n}:{line}" for n, line in enumerate(text.splitlines(), 1)
                  if rx.search(line)]
    return found


def test_no_game_is_named_outside_its_folders():
    lines = _git_grep()
    if lines is None:
        lines = _walk()
    assert lines == [], f"{len(lines)} line(s) of companion/ outside companion/games/ name a game:\n" + "\n".join(lines)


def test_the_search_finds_a_game_named_in_generic_code():
    """The pattern does catch a name (a grep that finds nothing because it is wrong proves nothing)."""
    assert re.search(PATTERN, "the venue's VTES scoring", re.IGNORECASE)
    assert re.search(PATTERN, "res-arcana:sirene", re.IGNORECASE)
    assert re.search(PATTERN, "Rise and ASTRAL", re.IGNORECASE)
    assert not re.search(PATTERN, "the sunrise, a rising counter", re.IGNORECASE)


def test_examples_and_demo_tables_come_from_the_games_data():
    """What the generic code shows as an example is the first shipped game's demo data
    (cardmap/<id>/demo.yaml), read through the registry."""
    from companion import registry
    from companion.i18n import t
    from companion.launch import _demo_reader
    from companion.ui.screenshots import demo_data

    first = registry.builtin_ids()[0]
    assert registry.example_game() == first
    assert registry.example_ref() == registry.demo(first)["card"] and registry.example_ref().startswith(first + ":")
    assert _demo_reader() == "sim:" + ",".join(registry.demo(first)["reader"])
    assert list(demo_data()) == [g for g in registry.ids() if registry.demo(g)] == list(registry.builtin_ids())
    assert t("speak.unknown", "en", ref="x", example=registry.example_ref()) == (
        f"No card “x”: give a reference ({registry.example_ref()}) or a card's exact name.")
    assert f"partie {first} Ann Bob" in t("console.welcome", "fr", game=registry.example_game())


def test_a_games_own_options_and_commands_are_offered_by_its_code():
    """``table --teams`` comes from the game whose code offers it (its table_options hook);
    ``cards update`` updates the lists of a game whose card source can fetch them again."""
    from companion import registry
    from companion.cli import build_parser

    offering = [g for g in registry.builtin_ids() if "teams" in (registry.hook(g, "table_options") or {})]
    assert offering
    table = build_parser("table")._subparsers._group_actions[0].choices["table"]
    assert table._option_string_actions["--teams"].help.startswith(f"{offering[0]}: teams of two")
    args = table.parse_args(["--game", offering[0], "--teams"])
    assert args.teams is True
    cards = build_parser("cards")._subparsers._group_actions[0].choices["cards"]
    assert "update" in cards._subparsers._group_actions[0].choices
    from companion.commands.cards import _sources

    updating = [g for g in registry.builtin_ids()
                if hasattr(registry.hook(g, "card_source") or object(), "update")]
    assert [game for game, _ in _sources()] == updating and len(updating) == 1
