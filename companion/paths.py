"""Where the companion keeps the user's files. ``COMPANION_HOME`` overrides all of them
(tests and portable installs); otherwise the platform's user directories."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "table-companion"


def _home() -> Path | None:
    value = os.environ.get("COMPANION_HOME")
    return Path(value) if value else None


def data_dir() -> Path:
    """Users' own cards, their tag collection, saved games: never inside the package."""
    home = _home()
    path = home / "data" if home else Path(platformdirs.user_data_dir(APP))
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    """Rebuildable things: the compiled card index."""
    home = _home()
    path = home / "cache" if home else Path(platformdirs.user_cache_dir(APP))
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    home = _home()
    path = home / "config" if home else Path(platformdirs.user_config_dir(APP))
    path.mkdir(parents=True, exist_ok=True)
    return path
