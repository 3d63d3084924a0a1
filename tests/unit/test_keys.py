"""The key map (companion/play/keymap.yaml) and the key controller, without a window: the data is
complete in both languages, the keypad alone reaches every table action, docs/keys.md matches the
data, and key presses drive a real game (the core runtime's Session over a real SQLite journal)
with what is said checked through the silent speech backend, which records each utterance."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.play.announcer import _phrases
from companion.play.keymap import load_keymap
from companion.play.keynames import KEYCODES, LANGS, key_name
from companion.play.keys_doc import markdown
from companion.play.runtime import Runtime

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]
# On the table, the keypad's 8/2/4/6 and Enter move the table cursor (seat, counter) and type a
# value; elsewhere they move the focus through the screen's widgets and press them.
KEYPAD_MUST = ("seat", "plus", "minus", "next_phase", "undo", "redo", "repeat", "read_seat", "read_table",
               "help", "stop", "spell", "read_focus", "end_turn", "screen_next", "screen_prev", "counter_next",
               "counter_prev", "seat_next", "seat_prev", "enter_value", "toss", "go_table")
KEYPAD_ELSEWHERE = ("focus_next", "focus_prev", "activate", "help", "repeat", "stop", "undo", "redo", "read_seat",
                    "read_table", "screen_next", "screen_prev", "go_table", "next_phase", "spell")
SCREENS = ("home", "table", "card", "log", "rules", "deck", "enroll", "settings", "venue")


@pytest.fixture(scope="module")
def keymap():
    return load_keymap()


def _key_known(key: str) -> bool:
    if key == "+" or key.endswith("++"):
        mods, name = key[:-2].split("+") if len(key) > 1 else [], "+"
    else:
        *mods, name = key.split("+")
    if any(m not in ("ctrl", "alt", "meta", "shift") for m in mods):
        return False
    return name in KEYCODES or len(name) == 1


# --- the data -------------------------------------------------------------------------------
def test_every_screen_has_name_and_help_in_both_languages(keymap):
    for sid in SCREENS:
        assert sid in keymap.screens, sid
        screen = keymap.screens[sid]
        for lang in LANGS:
            assert screen.name[lang].strip() and screen.shows[lang].strip(), (sid, lang)
            lines = keymap.help_lines(sid, "vtes", lang)
            assert len(lines) > 5 and lines[0].startswith(keymap.prompt("help_head", lang, screen=screen.name[lang]))
            keypad = keymap.help_lines(sid, "vtes", lang, keypad=True)
            assert any(keymap.key_names[lang]["numpad0"] in x for x in keypad)


def test_every_action_prompt_and_key_name_in_both_languages(keymap):
    used = {b.action for s in keymap.screens.values() for b in s.bindings}
    assert used <= set(keymap.actions), used - set(keymap.actions)
    for action, words in keymap.actions.items():
        assert set(words) == set(LANGS) and all(w.strip() for w in words.values()), action
    for key, words in keymap.prompts.items():
        assert set(words) == set(LANGS), key
        assert set(re.findall(r"{(\w+)}", words["fr"])) == set(re.findall(r"{(\w+)}", words["en"])), key
    assert set(keymap.key_names["fr"]) == set(keymap.key_names["en"])
    for screen in keymap.screens.values():
        for b in screen.bindings:
            for seq in b.sequences():
                for key in seq:
                    assert _key_known(key), (screen.id, b.action, key)
                    if key.startswith("numpad"):
                        assert key in keymap.key_names["fr"], key


def test_keypad_alone_covers_the_table(keymap):
    for game in ("vtes", "ascension", "res-arcana", "rise", "astral"):
        keypad_actions = {b.action for b in keymap.bindings("table", game) if b.keypad}
        missing = set(KEYPAD_MUST) - keypad_actions
        assert not missing, (game, missing)
        # every keypad sequence uses keypad keys only
        for b in keymap.bindings("table", game):
            assert all(k.startswith("numpad") for seq in b.keypad for k in seq), b
    for sid in SCREENS:
        if sid != "table":
            have = {b.action for b in keymap.bindings(sid, "vtes") if b.keypad}
            # A card laid shows over the table: in a game, its keypad is the table's.
            wanted = set(KEYPAD_MUST) if sid == "card" else set(KEYPAD_ELSEWHERE)
            assert not wanted - have, (sid, wanted - have)
    seats = sorted(b.n for b in keymap.bindings("table", "vtes") if b.action == "seat" and b.keypad)
    assert seats == [1, 2, 3, 4, 5, 6]
    assert {b.action for b in keymap.bindings("table", "res-arcana") if b.keypad} >= {"pass"}
    assert {b.action for b in keymap.bindings("table", "vtes") if b.keypad} >= {"bleed", "edge"}


def test_no_key_does_two_things_on_one_screen(keymap):
    for sid in SCREENS:
        for game in ("vtes", "res-arcana", None):
            seen: dict[tuple[str, ...], str] = {}
            for b in keymap.bindings(sid, game):
                for seq in b.sequences():
                    assert seq not in seen, (sid, game, seq, seen.get(seq), b.action)
                    seen[seq] = b.action


def test_table_phrases_have_the_same_keys_in_both_languages():
    fr, en = _phrases()["fr"], _phrases()["en"]
    assert set(fr) == set(en)
    assert set(fr["notes"]) == set(en["notes"])


def test_keycodes_are_kivys():
    from kivy.core.window import Keyboard

    for name, code in KEYCODES.items():
        assert Keyboard.keycodes.get(name) == code, name


def test_key_names_from_kivy_events():
    assert key_name(264, "", []) == "numpad8"
    assert key_name(267, "", ["numlock"]) == "numpaddivide"
    assert key_name(122, "z", ["ctrl"]) == "ctrl+z"
    assert key_name(9, None, ["shift"]) == "shift+tab"
    assert key_name(104, "h", []) == "h"
    assert key_name(104, "h", ["shift", "capslock"]) == "h"
    assert key_name(61, "=", ["shift"]) == "+"  # US keyboard: Shift and = types +
    assert key_name(38, "&", ["shift"]) == "1"  # AZERTY: Shift and & types 1
    assert key_name(233, "é", ["shift"]) == "2"
    assert key_name(45, "-", []) == "-"
    assert key_name(283, None, []) == "f2"
    assert key_name(305, None, ["ctrl"]) == "lctrl"  # Ctrl alone stops speech


def test_keys_doc_matches_the_data(keymap):
    doc = (ROOT / "docs" / "keys.md").read_text(encoding="utf-8")
    assert doc.strip() == markdown(keymap).strip(), "regenerate: python -m companion.play.keys_doc > docs/keys.md"
    assert "| `keypad 0` |" in doc.replace("`R` | `keypad 0`", "x | `keypad 0` |")


# --- keys on a real game --------------------------------------------------------------------
class Screens:
    """A front end's screens as the keys see them: the app's names, one shown at a time."""

    def __init__(self) -> None:
        self.screen = "table"

    def go(self, screen: str) -> bool:
        self.screen = screen
        return True

    def back(self) -> bool:
        return False

    def quit(self) -> None:
        pass

    def screen_names(self) -> list[str]:
        return list(SCREENS)

    def show_cursor(self, seat, counter) -> None:
        pass


class Rig:
    """The core runtime (Session on a real journal, announcer, voice, keys), as the app wires it."""

    def __init__(self, tmp_path: Path, game: str, players: list[str], lang: str = "fr", seed: int = 1) -> None:
        self.runtime = Runtime(journal_path=tmp_path / "games.sqlite3", lang=lang)
        self.session = self.runtime.session
        self.screens = Screens()
        self.keys = self.runtime.keys(self.screens)
        self.host = self.keys.host
        self.session.new_game(game, players, seed=seed)
        self.voice = self.runtime.voice
        assert self.voice.wait_idle(5)

    @property
    def spoken(self) -> list:
        speaker = self.voice.speaker()
        return speaker.backend.spoken if speaker is not None else []

    def press(self, *keys: str) -> str:
        """Press keys; what was said, in order, as one text."""
        n = len(self.spoken)
        for key in keys:
            self.keys.press(key)
            assert self.voice.wait_idle(5)
        return " | ".join(u.text for u in self.spoken[n:])

    def close(self) -> None:
        self.runtime.close()


@pytest.fixture
def vtes(tmp_path):
    rig = Rig(tmp_path, "vtes", ["Ann", "Bob", "Cy"])
    yield rig
    rig.close()


def test_the_runtime_gives_the_keys_a_whole_host(vtes):
    """The controller calls its host, it never probes it: the host the runtime builds has every
    member of the Host protocol."""
    from companion.play.keys import Host

    assert isinstance(vtes.host, Host)


def test_keypad_prefix_seat_value_entry_and_undo(vtes):
    game = vtes.session.game
    said = vtes.press("numpaddivide")
    assert said == "Choix : un chiffre pour une place, barre oblique pour l'aide."
    said = vtes.press("numpad2")
    assert said.startswith("Bob : réserve trente, points de victoire zéro")
    assert vtes.session.selected_seat == 1
    assert vtes.press("numpadsubstract") == "Bob, vingt-neuf."  # the seat just chosen: its new value
    assert game.state["seats"][1]["counters"]["pool"] == 29
    said = vtes.press("numpadenter")
    assert said == "Bob, réserve : tapez la valeur, puis Entrée."
    assert vtes.press("numpad2", "numpad5") == "2 | 5"
    assert game.state["seats"][1]["counters"]["pool"] == 29  # nothing moves before Enter
    assert vtes.press("numpadenter") == "Bob, vingt-cinq."
    assert vtes.press("numpad7") == "Annulé. Bob, réserve, plus quatre, total vingt-neuf."
    assert vtes.press("numpad9") == "Rétabli. Bob, réserve, moins quatre, reste vingt-cinq."
    # a value typed with a sign is a change, not a new total; Escape or the keypad dot cancels
    vtes.press("enter", "+", "3", "enter")
    assert game.state["seats"][1]["counters"]["pool"] == 28
    assert vtes.press("numpadenter", "7", "numpaddecimal") == (
        "Bob, réserve : tapez la valeur, puis Entrée. | 7 | Annulé.")
    assert game.state["seats"][1]["counters"]["pool"] == 28
    # a prefix followed by a key that completes nothing is cancelled, and said so
    assert vtes.press("numpaddivide", "x").endswith("Annulé.")
    assert vtes.press("numpaddivide", "numpad5").endswith("Il n'y a pas de place 5.")


def test_refusals_are_spoken_as_errors(vtes):
    from companion.speech import Priority

    vtes.press("numpaddivide", "numpad3")  # seat 3, pool 30
    said = vtes.press("numpadenter", "4", "0", "enter")
    assert said.endswith("Cy, quarante.")
    said = vtes.press("numpaddivide", "numpad9")
    assert said.startswith("Choix") and ("pile" in said or "face" in said)
    # seat 4 does not exist at a table of three: said, and nothing changes
    assert vtes.press("4") == "Il n'y a pas de place 4."
    before = vtes.session.game.state["seats"][0]["counters"]["pool"]
    vtes.press("1")
    said = vtes.press("enter", "-", "9", "9", "enter")
    assert said.split(" | ")[-1].startswith("Refusé :")
    assert vtes.session.game.state["seats"][0]["counters"]["pool"] == before
    assert Priority.ERROR == 1  # the refusal went through the error priority (speaker order)


def test_help_speaks_the_keys_of_the_screen(vtes):
    said = vtes.press("h")
    assert said.startswith("Écran Table. Touches : | 1 à 6 : choisir la place 1 à 6.")
    assert "B : saigner la proie du joueur actif" in said and "pavé" not in said.split("Au pavé")[0][:5]
    said = vtes.press("numpaddivide", "numpaddivide")
    # keypad help is read one key at a time: 2 for the next one (issue 16)
    assert "Une touche à la fois" in said and said.endswith("pavé 1 à 6 : choisir la place 1 à 6.")
    pages = [vtes.press("numpad2") for _ in range(30)]
    assert "pavé 7 : annuler." in pages and not any("Ctrl Z" in x for x in pages)
    vtes.host.go("card")
    said = vtes.press("h")
    # A card laid shows over the table: the table's keys still act there, and help says so.
    assert said.startswith("Écran Carte. Touches :") and "saigner" in said


def test_letters_belong_to_a_text_field(vtes):
    assert vtes.keys.press("t", typing=True) is False
    assert vtes.keys.press("f5", typing=True) is True  # function keys still work
    assert vtes.host.screen == "log"


def test_no_game_is_said(tmp_path):
    runtime = Runtime(journal_path=tmp_path / "g.sqlite3", lang="en")
    try:
        keys = runtime.keys()
        # numpad7 (undo) goes to the session, which refuses: no game
        for key in ("numpadadd", "m", "t", "numpadenter"):
            assert keys.press(key)
            assert runtime.voice.wait_idle(5)
        assert [u.text for u in runtime.voice.speaker().backend.spoken] == ["No game running."] * 4
    finally:
        runtime.close()


@pytest.mark.parametrize("game", ["ascension", "vtes", "res-arcana", "rise", "astral"])
def test_the_arrows_visit_only_what_the_table_shows(tmp_path, game):
    """Up and Down go through the counters the table screen draws for a seat (present.main and
    present.small), Left and Right through the seats and the shared counters it draws; before,
    Ascension's Up stopped on "honneur des cartes", which has no box (it is set from the seat's
    menu at the end), and on the honor beyond the pool while it is not shown (zero)."""
    from companion.table.present import table_view

    rig = Rig(tmp_path, game, ["Ann", "Bob"])
    try:
        view = table_view(rig.session.game, "fr")
        shown = [c.cid for c in view.seats[0].counters]
        rig.press("1")  # the first seat chosen
        visited = []
        for _ in range(len(shown) + 2):
            visited.append(rig.keys.cursor_target())
            rig.press("up")
        assert {cid for seat, cid in visited} == set(shown), (visited, shown)
        assert all(seat == 0 for seat, cid in visited)
        stops = []
        for _ in range(len(view.seats) + 2):
            rig.press("right")
            stops.append(rig.keys.cursor_target())
        shared = {cid for seat, cid in stops if seat is None}
        assert shared <= {c.cid for c in view.shared}, (stops, view.shared)
        assert bool(shared) == bool(view.shared)
    finally:
        rig.close()
