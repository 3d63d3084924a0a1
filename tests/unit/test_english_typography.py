"""English text follows English typography (issue 24): no space before ":", ";", "?" or "!"
(French puts one there, and it leaked into English: "Shared : pool 60"). Every English message
of the data is scanned, and the lines a whole English game writes and says."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from companion import registry
from companion.cards.gamedata import load_game
from tests.cli_run import run_cli

ROOT = Path(__file__).resolve().parents[2]
FRENCH_SPACE = re.compile(r"\S[ \u00a0\u202f][:;?!](?=\s|$|[\"'”)])")


def _english(tree: object, where: str) -> Iterator[tuple[str, str]]:
    """(where, text) of every string under an ``en`` key of a tree of data."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            if key == "en":
                yield from _strings(value, f"{where}.en")
            else:
                yield from _english(value, f"{where}.{key}")
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            yield from _english(value, f"{where}[{i}]")


def _strings(tree: object, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(tree, str):
        yield where, tree
    elif isinstance(tree, dict):
        for key, value in tree.items():
            yield from _strings(value, f"{where}.{key}")
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            yield from _strings(value, f"{where}[{i}]")


def _all_english() -> Iterator[tuple[str, str]]:
    for path in [*sorted((ROOT / "companion").rglob("*.yaml"))]:
        if "screenshots" in path.name:
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        yield from _english(data, str(path.relative_to(ROOT)))
    for gid in registry.builtin_ids():
        game = load_game(registry.game_file(gid))
        for key, texts in game.messages.items():
            yield f"{gid}:messages.{key}", texts.get("en", "")
        yield from _strings(game.speech.get("en") or {}, f"{gid}:speech.en")
        for phase in game.table.get("phases") or []:
            yield from _english(phase, f"{gid}:table.phases")


def test_no_english_message_has_a_french_space_before_punctuation() -> None:
    found = [f"{where}: {text!r}" for where, text in _all_english() if FRENCH_SPACE.search(text)]
    assert not found, "\n".join(found)


@pytest.mark.timeout(200)
@pytest.mark.parametrize("game", ["vtes", "ascension", "res-arcana", "rise", "astral"])
def test_an_english_game_writes_english_typography(tmp_path: Path, game: str) -> None:
    """What the console writes in an English game, including its status and help lines."""
    from tests.speech_capture import capture_env, spoken

    env, log = capture_env(tmp_path)
    env["COMPANION_LANG"] = "en"
    lines = ["status", "next", "status", "help", "quit"]
    run = run_cli("console", "--speak", "--game", game, "--players", "Ann,Bob", "--seed", "1",
                  "--journal", str(tmp_path / "g.sqlite3"), stdin="".join(x + "\n" for x in lines), env=env)
    assert run.returncode == 0, run.stderr
    written = [x for x in run.stdout.splitlines() if FRENCH_SPACE.search(x)]
    said = [x for _v, x in spoken(log) if FRENCH_SPACE.search(x)]
    assert not written and not said, "\n".join(written + said)
