"""The rules index of a game is built once and kept (it took 50–110 ms of CPU a question here,
several times that on a Raspberry Pi), and built again only when the game's file changed: a
user's own game edited while the program runs answers with its new rules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from companion import registry
from companion.cards.catalog import build
from companion.cards.rules import rules_index, search_rules
from companion.cli import main


@pytest.fixture
def duel(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path))
    registry.forget()
    assert main(["games", "new", "duel"]) == 0
    path = tmp_path / "data" / "games" / "duel" / "game.yaml"
    yield path
    registry.forget()


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    before = path.stat()
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))


def test_two_questions_build_the_index_once(duel: Path) -> None:
    game = build(with_sources=False).games["duel"]
    first = rules_index(game)
    assert search_rules(game, "mise en place")[0].item.id == "setup"
    assert search_rules(game, "comment gagner") is not None
    assert rules_index(game) is first  # the same index: not built again


def test_an_edited_user_game_rules_are_found_after_the_edit(duel: Path) -> None:
    game = build(with_sources=False).games["duel"]
    first = rules_index(game)
    assert not search_rules(game, "préparatifs")
    edit(duel, 'title: {fr: "Mise en place"', 'title: {fr: "Préparatifs"')
    hits = search_rules(game, "préparatifs")
    assert hits and hits[0].item.id == "setup"
    again = rules_index(game)
    assert again is not first
    assert rules_index(game) is again  # kept again until the next change
