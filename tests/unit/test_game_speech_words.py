"""Issue 21: a game's words for the ear live in its own folder (``speech:`` in its game.yaml), read
through the registry, so the speech package names no game and a user's game folder brings its
own spoken words (counter names, gender, on/off sentences, short forms of its notes) by data."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from companion import registry
from companion.play.announcer import Announcer
from companion.speech.lexicon import game_once, game_words
from companion.speech.phrases import change_speech, counter_names
from companion.table.data import load_table

ROOT = Path(__file__).resolve().parents[2]


def _id_pattern() -> re.Pattern[str]:
    words = set()
    for gid in registry.builtin_ids():
        words |= {gid, gid.replace("-", "_"), gid.replace("-", " ")}
    return re.compile(r"(?i)(?<![A-Za-z])(" + "|".join(sorted(map(re.escape, words))) + r")(?![A-Za-z])")


def test_the_speech_package_and_the_announcer_name_no_game() -> None:
    pattern = _id_pattern()
    files = [*sorted((ROOT / "companion" / "speech").glob("*.*")), ROOT / "companion" / "play" / "announcer.py"]
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for path in files if path.suffix in (".py", ".yaml")
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not found, "\n".join(found)


def test_every_shipped_game_has_its_words_in_its_folder() -> None:
    for gid in registry.builtin_ids():
        fr, en = game_words("fr", gid), game_words("en", gid)
        assert fr.get("counters"), gid
        assert set(fr) == set(en), gid  # both languages say the same things
    assert counter_names("vtes", "pool") == {"fr": "réserve", "en": "pool"}
    assert change_speech("Ann", "vtes.edge", 1, 1, "fr", "vtes")[0].text == "Ann prend l'Avantage."


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user's game copied from a shipped one under a new id, as a game group would start one,
    its spoken words changed to be told apart from the original's."""
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path))
    folder = tmp_path / "data" / "games" / "my-astral"
    shutil.copytree(ROOT / "cardmap" / "astral", folder)
    text = (folder / "game.yaml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^id: astral$", "id: my-astral", text)
    text = text.replace("stars: {name: étoiles, feminine: true}", "stars: {name: comètes, feminine: true}")
    (folder / "game.yaml").write_text(text, encoding="utf-8")
    registry.forget()
    yield tmp_path
    registry.forget()


def test_a_user_game_brings_its_own_spoken_words(user_home: Path) -> None:
    assert "my-astral" in registry.ids()
    assert counter_names("my-astral", "stars")["fr"] == "comètes"
    # its gender too: "une", not "un"
    assert change_speech("Ann", {"fr": "comètes"}, 1, 1, "fr", "my-astral")[0].text == "Ann, comètes, plus une."
    # and its once-a-game notes, by data
    assert "table.astral.hand_limit" in game_once("my-astral")


def test_the_announcer_says_a_games_notes_in_its_own_words() -> None:
    announcer = Announcer(lambda *a: None, lang="fr")

    game = SimpleNamespace(data=load_table("vtes"))
    said = announcer.note_text("table.vtes.transfers", {"name": "Ann", "amount": 4}, game)
    assert said == "Transferts d'Ann : quatre."


def test_a_new_game_from_the_template_says_its_counters_its_own_way(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from companion.commands import games

    monkeypatch.setenv("COMPANION_HOME", str(tmp_path))
    registry.forget()
    try:
        assert games.run(argparse.Namespace(action="new", id="duel", name="Duel", json=False)) == 0
        assert counter_names("duel", "life") == {"fr": "vie", "en": "life"}
        # "vie" is feminine: "une", which only the game's own words can say
        assert change_speech("Ann", {"fr": "vie"}, 1, 1, "fr", "duel")[0].text == "Ann, vie, plus une."
    finally:
        registry.forget()
