"""``cards update``: the current official VTES lists and their official French and Spanish
translations, fetched when a network is there, checked, and swapped in as a user cache.

The files are kept as VEKN publishes them (CSV, and one zip per translation): data that
cannot run code, read again by whichever krcg line is installed. They live in
``<cache>/vtes-lists/<folder>``; a pointer file names the folder in use and is replaced in one
``os.replace``, so a reader sees the old lists or the new ones, never half of each. With no
update, or when the stored lists cannot be read, krcg's bundled lists are used (offline start).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from companion.cards.catalog import SourceError
from companion.games.vtes.common import FILES, POINTER, TRANSLATIONS, current, root  # noqa: F401 - named for callers

MAX_BYTES = 64 * 1024 * 1024  # the lists are a few MB: anything far bigger is not them
KEEP_SHARE = 0.98  # new lists must still hold this share of the cards known today
WITNESS = "100845"  # Govern the Unaligned: in every list since 1994


class UpdateError(SourceError):
    """The update did not happen; the lists in use are unchanged. The message says why."""


def _say(key: str, **values: object) -> str:
    """One of the game's own sentences (cardmap/vtes/game.yaml ``messages:``), in the user's
    language. ``cards update`` runs without the card library: the game file is read for them."""
    from companion.i18n import t
    from companion.table.data import TableDataError, load_table

    if t(key) == key:
        try:
            load_table("vtes")  # reading the game file adds its sentences to the table
        except TableDataError:
            pass  # the key itself then: still says which check refused
    return t(key, **values)


@dataclass
class UpdateResult:
    folder: Path
    cards: int
    translated: dict[str, int] = field(default_factory=dict)  # language → cards with an official text
    added: int = 0
    changed: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"folder": str(self.folder), "cards": self.cards, "translated": self.translated,
                "added": self.added, "changed": self.changed}


def info() -> dict[str, Any] | None:
    """What ``cards update`` last stored (date, source, counts), or None."""
    folder = current()
    if folder is None:
        return None
    try:
        return json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def sources(mirror: str | None = None) -> dict[str, str]:
    """File name → URL. ``mirror`` (a base URL) serves every file under its own name."""
    if mirror:
        base = mirror.rstrip("/") + "/"
        return {name: base + name for name in (*FILES, *TRANSLATIONS.values())}
    data = yaml.safe_load((Path(__file__).with_name("sources.yaml")).read_text(encoding="utf-8"))
    urls = {name: data["lists"] + name for name in FILES}
    urls.update({TRANSLATIONS[code]: url for code, url in data["translations"].items()})
    return urls


def _fetch(url: str, dest: Path, timeout: float) -> None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response, dest.open("wb") as out:
            size = 0
            while chunk := response.read(1 << 16):
                size += len(chunk)
                if size > MAX_BYTES:
                    raise UpdateError(_say("cards.vtes.update.too_big", url=url, mb=MAX_BYTES // (1024 * 1024)))
                out.write(chunk)
    except urllib.error.HTTPError as exc:
        raise UpdateError(f"{url}: HTTP {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        reason = getattr(exc, "reason", exc)
        raise UpdateError(f"{url}: {reason}") from exc


def _check_archive(path: Path, code: str) -> None:
    wanted = {f"vtessets.{code}.csv", f"vtescrypt.{code}.csv", f"vteslib.{code}.csv"}
    try:
        with zipfile.ZipFile(path) as z:
            missing = wanted - set(z.namelist())
    except zipfile.BadZipFile as exc:
        raise UpdateError(_say("cards.vtes.update.not_zip", file=path.name)) from exc
    if missing:
        raise UpdateError(_say("cards.vtes.update.missing", file=path.name, names=", ".join(sorted(missing))))


def check(folder: Path) -> tuple[list[Any], dict[str, int], dict[str, Any]]:
    """Read the lists with the installed krcg and compare them with the lists in use. Returns
    the cards, per language how many have an official translation, and the cards in use by id."""
    from companion.games.vtes import cards as vtes

    # The archives first: a bad download is refused before krcg reads any list (seconds on a Pi).
    for code in TRANSLATIONS:
        _check_archive(folder / TRANSLATIONS[code], code)
    old = in_use()
    known = set(old)
    # The collection in memory is the new lists' from here (krcg 4 has one global map): kept
    # under their folder's name, whose lists ``update`` swaps in (``vtes.moved``); dropped on a
    # refusal, read again on next use.
    try:
        new = list(vtes.cards_of(vtes.read_lists(folder)))
    except Exception as exc:
        vtes.forget()
        raise UpdateError(_say("cards.vtes.update.unreadable", why=f"{type(exc).__name__}: {exc}")) from exc
    ids = {c.id for c in new}
    try:
        if WITNESS not in ids:
            raise UpdateError(_say("cards.vtes.update.no_witness", card=WITNESS))
        kept = len(known & ids)
        if known and kept < KEEP_SHARE * len(known):
            raise UpdateError(_say("cards.vtes.update.too_few", kept=kept, known=len(known)))
    except UpdateError:
        vtes.forget()
        raise
    translated = {code[:2]: sum(1 for c in new if code[:2] in (c.extra.get("i18n") or {})) for code in TRANSLATIONS}
    return new, translated, old


def in_use() -> dict[str, Any]:
    """The cards of the lists in use, by id: as the card index holds them when its VTES row was
    built from these very lists and krcg (what every start reads, in tens of milliseconds), else
    read with krcg (a second here, several on a Pi: an update before any start, say). A row that
    holds a user's own VTES card too is not the lists alone: krcg reads them then."""
    from companion.cards import index
    from companion.games.vtes import cards as vtes

    stored = index.stored_cards("vtes")
    if stored and not any(c.extra.get("overlay") for c in stored.values()):
        return stored
    return {c.id: c for c in vtes.iter_cards()}


def update(mirror: str | None = None, timeout: float = 60.0) -> UpdateResult:
    """Fetch, check, swap. Raises ``UpdateError`` (the lists in use untouched) on any problem."""
    from companion.games.vtes import cards as vtes

    base = root()
    base.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="new-", dir=base))
    try:
        for name, url in sources(mirror).items():
            _fetch(url, staging / name, timeout)
        new, translated, old = check(staging)
        added = sum(1 for c in new if c.id not in old)
        changed = sum(1 for c in new if c.id in old and c.text != old[c.id].text)
        meta = {"fetched": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "source": mirror or "official",
                "cards": len(new), "translated": translated, "krcg": vtes.krcg_version()}
        (staging / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        folder = base / f"lists-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{os.getpid()}"
        staging.rename(folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        vtes.forget()
        raise
    previous = current()
    fd, tmp = tempfile.mkstemp(prefix="pointer-", dir=base)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(folder.name)
    os.replace(tmp, base / POINTER)  # the swap: one rename
    if previous is not None and previous != folder:
        shutil.rmtree(previous, ignore_errors=True)
    # The lists just read are the ones in use: the card index rebuilt next (``cards update``
    # does it at once) takes them from memory instead of having krcg read them a second time.
    vtes.moved(staging, folder)
    return UpdateResult(folder, len(new), translated, added, changed)


def revert() -> bool:
    """Back to krcg's bundled lists. Returns whether there were updated lists."""
    from companion.games.vtes import cards as vtes

    folder = current()
    if root().is_dir():
        (root() / POINTER).unlink(missing_ok=True)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
    vtes.forget()
    return folder is not None
