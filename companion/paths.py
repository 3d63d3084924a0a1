"""Where the companion keeps the user's files. ``COMPANION_HOME`` overrides all of them
(tests and portable installs); otherwise the platform's user directories."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import platformdirs

APP = "table-companion"

log = logging.getLogger(__name__)


def _made(path: Path) -> Path:
    # A read-only home (a locked-down kiosk, an SD card remounted read-only) must not stop the
    # program: cards, rules and scanning only read. What writes says why it cannot, itself.
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        log.debug("cannot create %s: %s", path, exc)
    return path


def writable(path: Path) -> bool:
    """Whether files can be created in the folder ``path`` (made if missing)."""
    return _made(path).is_dir() and os.access(path, os.W_OK)


def _home() -> Path | None:
    value = os.environ.get("COMPANION_HOME")
    return Path(value) if value else None


def data_dir() -> Path:
    """Users' own cards, their tag collection, saved games: never inside the package."""
    home = _home()
    path = home / "data" if home else Path(platformdirs.user_data_dir(APP))
    return _made(path)


def cache_dir() -> Path:
    """Rebuildable things: the compiled card index. ``COMPANION_CACHE`` puts them in a folder of
    their own, which several homes may share (the test suite's programs, each with its own home,
    read one card index built once instead of building it each)."""
    shared = os.environ.get("COMPANION_CACHE")
    if shared:
        return _made(Path(shared))
    home = _home()
    path = home / "cache" if home else Path(platformdirs.user_cache_dir(APP))
    return _made(path)


def config_dir() -> Path:
    home = _home()
    path = home / "config" if home else Path(platformdirs.user_config_dir(APP))
    return _made(path)
