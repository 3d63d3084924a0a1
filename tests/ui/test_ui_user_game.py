"""A user's own game in the window (issue 21): a shipped game's folder copied under a new id into
``<data dir>/games/`` is a button on the Home screen, a game of it starts from there by touch, and
its counters change through the keys as a keyboard sends them to the real Kivy window (offscreen)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from companion import registry
from tests.cards_index import warm_index

pytestmark = [pytest.mark.ui, pytest.mark.timeout(180)]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def app(window, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from tests.ui.test_a11y_app import App, ticks

    class Quiet(App):
        pump = staticmethod(ticks)  # after each key, a frame undrawn: this test reads words and widgets

    home = tmp_path / "home"
    # An id of its own: a game's table data is read once per process (table.data.load_table)
    folder = home / "data" / "games" / "duel-window"
    shutil.copytree(ROOT / "cardmap" / "ascension", folder)
    text = (folder / "game.yaml").read_text(encoding="utf-8")
    text, n = re.subn(r"(?m)^id: ascension$", "id: duel-window", text)
    text, m = re.subn(r"(?m)^names: .*$", 'names: {fr: "Duel d\'essai", en: "Test duel"}', text)
    assert n == m == 1
    (folder / "game.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setenv("COMPANION_HOME", str(home))
    monkeypatch.delenv("COMPANION_CARDMAP", raising=False)
    monkeypatch.delenv("COMPANION_CACHE", raising=False)  # this home's games make its own card index
    warm_index(home)  # from the session's: only this home's own game is built
    registry.forget()
    window.size = (800, 480)  # the Raspberry Pi's 7" display
    a = Quiet(window, tmp_path)
    a.runtime.load_cards()
    yield a
    a.close()
    registry.forget()


def tap(window, widget) -> None:
    """A touch where the widget is drawn, scrolled into view first (the Home screen's own
    touch driver, tests/ui/test_ui_table.py's Stage)."""
    from tests.ui.test_ui_table import Stage

    stage = object.__new__(Stage)  # its touches need only the window
    stage.window = window
    stage.tap(widget)


def test_a_copied_game_is_on_home_starts_and_its_counters_move_by_keys(app) -> None:
    from tests.ui.test_a11y_app import frames

    home = app.root.get_screen("home")
    assert app.root.current == "home" and registry.is_user_game("duel-window")
    button = home._game_buttons.get("duel-window")
    assert button is not None, list(home._game_buttons)
    assert button.word == "Duel d'essai"  # its own name, from its own game.yaml
    tap(app.window, button)
    assert home.game == "duel-window"
    rows = list(reversed(home.ids.seats.children))
    assert len(rows) == 2
    for row, name in zip(rows, ["Ann", "Bob"], strict=True):
        row.ids.name_input.text = name  # typed; the keyboard itself is the keys' business
    home.seed = 1
    tap(app.window, home.ids.start)
    assert app.root.current == "table", home.message
    game = app.session.game
    assert game is not None and game.data.id == "duel-window"
    active = game.state["active"]
    before = dict(game.state["seats"][active]["counters"])
    # The keys: the cursor walks the active seat's counters; + and - change the one it is on.
    name = app.session.seat_names[active]
    said: list[str] = []
    for _ in range(len(before) + 1):  # to its honor, each counter said by its name on the way
        said += app.press("up")
        if said[-1] == f"{name}, honneur, zéro.":
            break
    assert said[-1] == f"{name}, honneur, zéro.", said
    moved = app.press("+", "+", "+")
    after = app.state["seats"][active]["counters"]
    changed = {k: after[k] - before[k] for k in after if after[k] != before[k]}
    assert changed == {"honor": 3}, (said, moved, changed)
    assert moved[-1] == f"{name}, trois.", moved  # the counter under the cursor: its value
    frames(2)
    assert app.table.counter_box(active, "honor").value == 3  # the screen shows what was said
    assert app.state["shared"]["pool"] == 0  # the generic rules: Ascension's honor pool is its code's
