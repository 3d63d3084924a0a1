"""The session's card index (``COMPANION_CACHE``, built once by tests/conftest.py) for a test that
gives a program a home of its own: a copy in that home's cache, so that the program rebuilds only
the games the test changed (the index is kept per game) instead of all five, VTES's 4,000 cards
through krcg with them (4-5 s of CPU each time). The tests whose point is a first build from
nothing (tests/unit/test_card_index.py, tests/integration/test_wheel.py) do not use it."""

import os
import shutil
import sqlite3
from pathlib import Path

SESSION_INDEX = Path(os.environ["COMPANION_CACHE"]) / "cards-index.sqlite3"  # read before a test drops the variable


def warm_index(home: Path, cache: Path | None = None) -> Path:
    """Copy the session's card index into ``cache`` (by default where a program whose
    COMPANION_HOME is ``home``, without COMPANION_CACHE, keeps it: companion.paths.cache_dir),
    unless an index is there already (the program's own, maybe newer). Returns the folder."""
    cache = cache or home / "cache"
    target = cache / SESSION_INDEX.name
    if not target.exists() and SESSION_INDEX.exists():  # no session index: the program builds one
        cache.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SESSION_INDEX, target)
    return cache


def without(cache: Path, *games: str) -> Path:
    """Drop ``games``' rows from the card index in ``cache`` (a copy: see ``warm_index``): a
    program using it builds those games again from their sources, as a first start does, and
    reads the others as they are (and the search's parts, found again by what they are made of)."""
    with sqlite3.connect(cache / SESSION_INDEX.name) as db:
        db.executemany("DELETE FROM cards WHERE game = ?", [(game,) for game in games])
    db.close()
    return cache


def with_kept(cache: Path) -> Path:
    """Copy into ``cache`` what the session's programs kept so far besides the card index: the
    YAML files kept parsed (``*.marshal``: the games', the phrases', the messages'), the games'
    headers, the Kivy rules (``kv``). Each is checked by the program against the text it was made
    from (a stale one is read as absent and made again), so a program given them starts as any
    second start does, for the tests whose point is not what a first start makes. Not the lists
    ``cards update`` fetched (they change which cards there are). Returns the folder."""
    session = SESSION_INDEX.parent
    cache.mkdir(parents=True, exist_ok=True)
    for kept in [*session.glob("*.marshal"), session / "game-headers.json"]:
        if kept.is_file() and not (cache / kept.name).exists():
            shutil.copyfile(kept, cache / kept.name)
    if (session / "kv").is_dir():
        shutil.copytree(session / "kv", cache / "kv", dirs_exist_ok=True)
    return cache
