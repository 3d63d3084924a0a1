"""The signs of icons.yaml (the table's marks) and of a game's counters (its game.yaml), and
words written with them as markup: the sign drawn with the symbol font, the words with the UI
font."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import yaml

from companion.ui.widgets import GLYPH_FONT
from companion.ui.widgets.buttons import compose

ARROWS = ("\u2192", "\u2190")  # Atkinson Hyperlegible has no arrows


@functools.cache
def icons() -> dict[str, Any]:
    text = resources.files("companion.ui.widgets").joinpath("icons.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text) or {}


def mark(name: str) -> str:
    return str(icons().get("marks", {}).get(name, ""))


def counter_glyph(game: str, cid: str) -> str:
    """The sign a game's data gives a counter (game.yaml ``table.present.icons``), or none."""
    from companion.table.data import TableDataError, load_table

    try:
        return str((load_table(game).present.get("icons") or {}).get(cid, ""))
    except TableDataError:
        return ""


def markup(glyph: str, words: str) -> str:
    """``compose`` that also draws the arrows inside the words with the symbol font."""
    text = compose(glyph, words)
    for arrow in ARROWS:
        text = text.replace(arrow, f"[font={GLYPH_FONT}]{arrow}[/font]")
    return text


def marks_text(marks: tuple[tuple[str, str], ...]) -> str:
    """A seat's marks (``(mark, words)`` pairs) on one line."""
    return "   ".join(markup(mark(m), w) for m, w in marks)
