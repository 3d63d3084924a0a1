"""The app's typeface: Atkinson Hyperlegible (SIL OFL 1.1), drawn for readers with low vision.

The TTFs come from the PyPI package ``fontpkg-atkinson-hyperlegible``; the licence travels with
the app in ``assets/fonts/ATKINSON-HYPERLEGIBLE-LICENSE.txt``. Without the package the app
falls back to Kivy's bundled Roboto instead of failing.
"""

from __future__ import annotations

import functools
import logging
from importlib import resources
from pathlib import Path

import yaml

log = logging.getLogger(__name__)

FONT_NAME = "AtkinsonHyperlegible"
FALLBACK = "Roboto"
_STYLES = {
    "fn_regular": "Regular",
    "fn_italic": "Italic",
    "fn_bold": "Bold",
    "fn_bolditalic": "BoldItalic",
}


def font_files() -> dict[str, Path] | None:
    """The four TTFs by LabelBase.register argument, or None when the package is missing."""
    try:
        from fontpkg_atkinson_hyperlegible import ROOT
    except ImportError:
        return None
    files = {arg: Path(ROOT) / "files" / f"AtkinsonHyperlegible-{style}.ttf" for arg, style in _STYLES.items()}
    return files if all(p.is_file() for p in files.values()) else None


@functools.cache
def register() -> str:
    """Register the font with Kivy once; return the name labels should use."""
    from kivy.core.text import LabelBase

    files = font_files()
    if files is None:
        log.warning("Atkinson Hyperlegible not found (pip package fontpkg-atkinson-hyperlegible); using %s", FALLBACK)
        return FALLBACK
    LabelBase.register(name=FONT_NAME, **{arg: str(path) for arg, path in files.items()})
    return FONT_NAME


@functools.cache
def _substitutions() -> dict[str, str]:
    text = resources.files(__package__).joinpath("glyphs.yaml").read_text(encoding="utf-8")
    return {str(k): str(v) for k, v in (yaml.safe_load(text) or {}).items()}


def for_display(text: str) -> str:
    """Replace the symbols the font has no glyph for by readable equivalents (no empty boxes)."""
    for symbol, replacement in _substitutions().items():
        if symbol in text:
            text = text.replace(symbol, replacement)
    return text
