"""Render every screen of every game with a demo table into PNG files (``python -m companion
screenshots``). One process for all the sizes asked: Kivy makes its window once, as large as
the largest size, then the window is resized for each size, as a user resizes it, and each game's
demo is played once for all of them; the command starts ``python -m companion.ui.screenshots OUT WxH,WxH…``.

The screens come from ``companion.ui.app.SCREENS`` (the app's own registration), so a new screen
is photographed without a change here. Each game's demo table is its data folder's demo.yaml
(through the registry); the games are played in a journal of their own in a temporary folder,
never in the user's.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

log = logging.getLogger(__name__)

SETTLE_FRAMES = 4


def _demo_file() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("screenshots.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def demo_data() -> dict[str, Any]:
    """Each game with a demo table (``cardmap/<id>/demo.yaml``), in menu order."""
    from companion import registry

    found = {game: registry.demo(game) for game in registry.ids()}
    return {game: data for game, data in found.items() if data}


def demo_names() -> list[str]:
    return list(_demo_file().get("names") or [])


def file_name(screen: str, game: str, size: tuple[int, int], players: int | None = None, scale: float = 1.0) -> str:
    tail = (f"-{players}p" if players else "") + (f"-{int(round(scale * 100))}pct" if scale != 1.0 else "")
    return f"{screen}-{game}-{size[0]}x{size[1]}{tail}.png"


def parse_players(text: str) -> str | dict[str, str] | None:
    """``4``, ``max``, or per game: ``game=6,other=4`` (the others: max)."""
    if not text:
        return None
    if "=" not in text:
        return text
    return dict(part.split("=", 1) for part in text.split(",") if "=" in part)


def players_for(game: str, wanted: str | int | dict[str, str] | None, demo: dict[str, Any]) -> list[str]:
    """The demo's players, or ``wanted`` of them (``max``: as many as the game allows)."""
    from companion.table.data import load_table

    names = list(demo["players"])
    if isinstance(wanted, dict):
        wanted = wanted.get(game, "max")
    if wanted in (None, ""):
        return names
    data = load_table(game)
    count = data.seats_max if str(wanted) == "max" else max(data.seats_min, min(data.seats_max, int(wanted)))
    pool = names + [n for n in demo_names() if n not in names]
    return pool[:count]


class Demo:
    """The app's root with every registered screen, and a demo table for one game at a time."""

    def __init__(self, workdir: Path, library: Any = None, start: str = "card") -> None:
        from companion.cards.library import CardLibrary
        from companion.play.voice import Voice
        from companion.ui.app import build_root
        from companion.ui.session_mirror import SessionMirror

        self.library = library if library is not None else CardLibrary()
        self.library.games  # noqa: B018 - the index, loaded before any screen asks for it
        self.session = SessionMirror(voice=Voice(enabled=False), journal_path=workdir / "demo.sqlite3",
                                     library=self.library)
        self.root = build_root(self.session, start=start)
        self.data = demo_data()
        self._extra: dict[str, Any] = {}

    def screens(self) -> list[str]:
        from companion.ui.app import SCREENS

        return [spec.name for spec in SCREENS if self.root.has_screen(spec.name)]

    def card(self, ref: str) -> Any:
        return self.library.get(ref) or self._extra.get(ref)

    def _demo_cards(self, game: str) -> None:
        from companion import registry
        from companion.cards.cardfile import parse_card

        info = self.library.game(game)
        for i, item in enumerate(self.data[game].get("cards") or []):
            card = parse_card(str(registry.folder(game) / "demo.yaml"), item, f"cards[{i}]", info, overlay=True)
            self._extra[card.ref] = card

    def set_game(self, game: str, players: str | int | dict[str, str] | None = None,
                 screens: Iterable[str] | None = None) -> None:
        """Start the demo game: players, a few table commands, cards laid, a deck, a query. Only
        the ``screens`` that will be shown get their demo (the cards laid, a deck checked, a search), when given."""
        from companion.readers.events import TagEvent
        from companion.tags.resolve import Scan

        demo = self.data[game]
        self._demo_cards(game)
        result = self.session.new_game(game, players_for(game, players, demo), seed=7)
        if not result.ok:
            log.warning("demo game %s: %s", game, result.lines())
        for command in demo.get("commands") or []:
            self.session.apply(command, source="key")

        def scan(ref: str, uid: str) -> Scan:
            event = TagEvent("laid", reader="sim", seat=1, uid=uid)
            card = self.card(ref)
            return Scan(event, "card", card=card, ref=ref) if card is not None else Scan(event, "unknown", ref=ref)

        shown = None if screens is None else set(screens)
        if shown is None or "card" in shown:
            card_screen = self.root.get_screen("card")
            card_screen.clear_history()
            for i, ref in enumerate([*reversed(demo.get("history") or []), demo["card"]]):
                card_screen.show_scan(scan(ref, f"04DE00{i:02X}A1B2C3"))
        for name in self.screens():
            if shown is not None and name not in shown:
                continue
            screen = self.root.get_screen(name)
            demo_hook = getattr(self, f"_demo_{name}", None)
            if callable(demo_hook):
                demo_hook(screen, game, demo, scan)

    # --- what each of the screens of this module shows in the demo ------------------------------
    def _demo_rules(self, screen: Any, game: str, demo: dict, _scan: Any) -> None:
        screen.game = game
        screen.query = demo.get("rules", "")
        screen.search_now()

    def _demo_deck(self, screen: Any, game: str, demo: dict, _scan: Any) -> None:
        screen.game = game
        screen.clear()
        for ref, n in (demo.get("deck") or {}).items():
            card = self.card(ref)
            if card is not None:
                screen.add_card(card, n)
        screen.wait_checked()

    def _demo_enroll(self, screen: Any, game: str, demo: dict, _scan: Any) -> None:
        from companion.readers.events import TagEvent
        from companion.tags.resolve import Scan

        screen.game = game
        screen.start(Scan(TagEvent("laid", reader="sim", seat=1, uid="04C0FFEE123456"), "unknown",
                          detail="no NDEF message and UID not in the collection"))
        screen.query = demo.get("enroll", "")
        screen.search_now()


def frames(count: int = SETTLE_FRAMES) -> None:
    """``count`` frames of the event loop, the window drawn on the last one only: layout and the
    labels' textures settle in the clock's part of each frame, and only the last drawing is read
    back (drawing is the costly part in software GL: 25-90 ms of CPU for a table)."""
    from companion.ui.screens.card import advance

    advance(count)


def save_window_png(path: Path) -> None:
    """What the window shows, as a PNG file, written by Kivy's own ``Window.screenshot`` (which
    numbers its files: it writes in a folder of its own, then the file is moved to ``path``)."""
    from kivy.core.window import Window

    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        Path(Window.screenshot(name=str(Path(tmp) / "shot.png"))).replace(path)


def render(out: Path, size: tuple[int, int] | Iterable[tuple[int, int] | tuple[int, int, float]],
           games: Iterable[str] | None = None, screens: Iterable[str] | None = None,
           players: str | int | dict[str, str] | None = None, layout: bool = False,
           scale: float = 1.0) -> list[Path]:
    """Every screen of every game, at ``size`` or at each of several window sizes, in this
    process's one window, resized between pictures as a user resizes it; with ``layout``, a JSON
    file beside each Table picture says where each counter and button is. Each game's demo is
    played once for all the sizes: it is most of the time of a picture. A size given as
    ``(width, height, text scale)`` is drawn at that text scale, the others at ``scale``: one
    process and one demo a game for several text scales, set between pictures as Settings sets it."""
    import json

    from companion.ui.app import WINDOW_ENV, configure_window

    shots = [(w, h, scale if s is None else s) for w, h, s in _shots(size)]
    sizes = [(w, h) for w, h, _s in shots]
    # Kivy makes its window once, and its GL surface keeps the size it was made at (offscreen,
    # the part added by a larger size is never drawn): made as wide and as tall as the largest
    # size asked, each size drawn in its corner.
    os.environ[WINDOW_ENV] = f"{max(w for w, _ in sizes)}x{max(h for _, h in sizes)}"
    configure_window()  # before Kivy makes its window: it reads the size only then
    from kivy.base import EventLoop
    from kivy.core.window import Window

    from companion.ui.theme import theme

    EventLoop.ensure_window()
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="companion-shots-") as tmp:
        from companion.ui.app import SCREENS

        # The first screen pictured is made first: a screen never pictured (the Card screen, which
        # the app makes first) is neither made nor laid out again at each size.
        first = next((spec.name for spec in SCREENS if screens is None or spec.name in set(screens)), "card")
        demo = Demo(Path(tmp), start=first)
        Window.size = sizes[0]
        theme.text_scale = shots[0][2]
        Window.add_widget(demo.root)
        frames()
        wanted_games = list(games or demo.data)
        wanted_screens = [s for s in demo.screens() if screens is None or s in set(screens)]
        for game in wanted_games:
            if game not in demo.data or demo.library.game(game) is None:
                log.warning("no demo for %s", game)
                continue
            theme.text_scale = shots[0][2]  # each game's demo played at its first picture's text scale
            demo.set_game(game, players, wanted_screens)
            count = len(demo.session.game.state["seats"]) if players not in (None, "") else None
            for width, height, text_scale in shots:
                Window.size = (width, height)  # laid out again by the frames below
                theme.text_scale = text_scale
                for name in wanted_screens:
                    demo.root.show(name)
                    frames()
                    target = out / file_name(name, game, (width, height), count, text_scale)
                    save_window_png(target)
                    written.append(target)
                    report = getattr(demo.root.get_screen(name), "layout_report", None)
                    if layout and callable(report):
                        target.with_suffix(".json").write_text(json.dumps(report(), ensure_ascii=False, indent=1),
                                                               encoding="utf-8")
        Window.remove_widget(demo.root)
        demo.session.close()
    return written


def _shots(size: tuple[int, int] | Iterable[tuple[int, int] | tuple[int, int, float]]
           ) -> list[tuple[int, int, float | None]]:
    """(width, height, text scale or None) of each picture size asked."""
    items = list(size)
    if len(items) == 2 and all(isinstance(n, int) for n in items):
        return [(int(items[0]), int(items[1]), None)]
    if not items:
        raise ValueError("no window size")
    return [(int(item[0]), int(item[1]), float(item[2]) if len(item) > 2 else None) for item in items]


def parse_sizes(text: str) -> list[tuple[int, int] | tuple[int, int, float]]:
    """``WxH,WxH@SCALE…``: the window sizes drawn by one process, each at the text scale after
    its ``@`` if it has one."""
    sizes: list[tuple[int, int] | tuple[int, int, float]] = []
    for part in text.split(","):
        dims, _, text_scale = part.strip().partition("@")
        width, _, height = dims.partition("x")
        sizes.append((int(width), int(height), float(text_scale)) if text_scale else (int(width), int(height)))
    return sizes


def main(argv: list[str]) -> int:
    """``python -m companion.ui.screenshots OUT WxH[@SCALE][,WxH[@SCALE]…] [GAME,GAME] [SCREEN,SCREEN] [PLAYERS]
    [layout] [SCALE]``: every size in this one process and its one window (SCALE: the text scale of
    the sizes without one of their own)."""
    out = Path(argv[0])
    sizes = parse_sizes(argv[1])
    games = argv[2].split(",") if len(argv) > 2 and argv[2] else None
    screens = argv[3].split(",") if len(argv) > 3 and argv[3] else None
    players = parse_players(argv[4]) if len(argv) > 4 else None
    layout = len(argv) > 5 and argv[5] == "layout"
    scale = float(argv[6]) if len(argv) > 6 and argv[6] else 1.0
    for path in render(out, sizes, games, screens, players, layout, scale):
        print(path, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
