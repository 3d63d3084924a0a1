"""The words of speech (phrases.yaml), read once: what numbers.py and phrases.py both use."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import yaml


@functools.cache
def _all() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("phrases.yaml").read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)


def data(lang: str) -> dict[str, Any]:
    """The phrase tree of one language; an unknown language falls back to French."""
    table = _all()
    return table.get(lang) or table["fr"]
