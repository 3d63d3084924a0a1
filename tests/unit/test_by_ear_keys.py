"""Keys for a player who cannot see the screen (core, no window): keypad help one key at a
time, the history of messages back and forth, the last card read again, and short readings at
the short verbosity. Speech is the silent backend's record of what the app said."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.play.keymap import load_keymap
from companion.play.runtime import Runtime
from companion.readers.events import TagEvent

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def runtime(tmp_path: Path):
    rt = Runtime(journal_path=tmp_path / "games.sqlite3", lang="fr")
    yield rt
    rt.close()


def press(rt: Runtime, keys, *names: str) -> None:
    # one key at a time, each answer heard before the next key (a key cuts short what is said)
    for name in names:
        keys.press(name)
        assert rt.voice.wait_idle(5)


def said(rt: Runtime) -> list[str]:
    assert rt.voice.wait_idle(5)
    speaker = rt.voice.speaker()
    return [u.text for u in speaker.backend.spoken] if speaker is not None else []


def test_keypad_help_is_read_one_key_at_a_time(runtime) -> None:
    runtime.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    keys = runtime.keys()
    lines = load_keymap().help_lines("table", "vtes", "fr", keypad=True)
    before = len(said(runtime))
    press(runtime, keys, "numpaddivide")
    press(runtime, keys, "numpaddivide")
    first = said(runtime)[before:]
    assert lines[1] == "Au pavé numérique :"
    assert first[-1] == lines[2] and "Une touche à la fois" in " ".join(first), first
    assert len(" ".join(first)) < len(" ".join(lines)) / 3  # not the whole help in one breath
    press(runtime, keys, "numpad2")
    press(runtime, keys, "numpad2")
    press(runtime, keys, "numpad8")
    assert said(runtime)[-3:] == [lines[3], lines[4], lines[3]], said(runtime)[-6:]
    press(runtime, keys, "numpad8")
    press(runtime, keys, "numpad8")
    assert said(runtime)[-1] == "Début de l'aide."
    # any other key leaves the help and does its own work: 2 moves the table cursor again
    press(runtime, keys, "numpadmul")
    assert runtime.session.game.state["phase"] == 1
    press(runtime, keys, "numpad2")
    assert said(runtime)[-1].startswith("Cy, points de victoire"), said(runtime)[-1]


def test_history_back_and_forth_and_the_last_card_again(runtime) -> None:
    runtime.load_cards()
    runtime.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    keys = runtime.keys()
    for line in ("pool 2 -3", "pool 3 -1"):
        runtime.session.apply(line, source="key")
        assert runtime.voice.wait_idle(5)
    press(runtime, keys, "j")
    press(runtime, keys, "k")
    press(runtime, keys, "k")
    # back from the newest: the one before it; forward again to the newest, then the end (each as
    # it was said: a change the player made is said by its value, docs/speech.md)
    assert said(runtime)[-4:] == ["Cy, vingt-neuf.", "Bob, vingt-sept.", "Cy, vingt-neuf.", "Dernier message."]
    press(runtime, keys, "o")
    assert said(runtime)[-1] == "Aucune carte lue."
    scan = runtime.scans.resolve(TagEvent("laid", reader="sim", uid="", ndef=None))
    runtime.lay(scan)
    count = len(runtime.voice.sent)
    press(runtime, keys, "o")
    assert len(runtime.voice.sent) == count + 1 and runtime.voice.sent[-1] == runtime.voice.sent[-2]


def test_short_readings_at_the_short_verbosity(runtime) -> None:
    runtime.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    keys = runtime.keys()
    press(runtime, keys, "t")
    full = said(runtime)
    assert any("points de victoire zéro" in x for x in full)
    runtime.voice.verbosity = "short"
    before = len(full)
    press(runtime, keys, "t")
    short = said(runtime)[before:]
    assert short and not any("zéro" in x for x in short), short
    assert len(" ".join(short)) < len(" ".join(full[before - len(short):]))
    assert any(x.startswith("Bob : réserve trente.") for x in short), short
