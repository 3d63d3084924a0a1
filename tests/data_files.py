"""The shipped data files (cardmap/<game>/*.yaml) as tests read them to check their facts: each
file parsed once per test process, with libyaml's parser (as the program's own loaders read
them: companion/cards/yamlload.py), not once per test with PyYAML's pure-Python one. The shipped
game.yaml and cards.yaml files are some 100 kB each; read again by each of some forty tests, the
parsing was most of tests/unit/test_game_data.py and test_card_data.py (10 CPU-s a Python).

What ``parsed`` returns is shared by every test of the process: read it, never change it."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml

CARDMAP = Path(__file__).resolve().parents[1] / "cardmap"
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.cache
def parsed(path: Path) -> Any:
    """The YAML document at ``path`` (read once; the same object at every call)."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)  # noqa: S506 - a safe loader


def game_file(game: str, name: str = "game.yaml") -> Any:
    """``cardmap/<game>/<name>``, parsed once."""
    return parsed(CARDMAP / game / name)
