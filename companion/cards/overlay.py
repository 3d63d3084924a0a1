"""Users' own cards (for the games with no public card list, and any other): written to the user data directory,
never into the installed package, and searchable and scannable like the shipped ones."""

from __future__ import annotations

import os
import re
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

import yaml

from companion.cards.cardfile import parse_card
from companion.cards.catalog import overlay_dir
from companion.cards.gamedata import GameInfo
from companion.cards.model import Card
from companion.cards.yamlload import DataError, load_text
from companion.i18n import language, t


def slug(name: str) -> str:
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", plain).strip("-")[:64] or "carte"


def overlay_file(game: str) -> Path:
    return overlay_dir() / f"{game}.yaml"


def add_card(game: GameInfo, fields: dict[str, Any], existing_ids: set[str]) -> Card:
    """Check one card against the game's schema and append it to the user's overlay file.

    Raises DataError (naming the field) when the card is not valid or its id is taken.
    """
    fields = {k: v for k, v in fields.items() if v not in (None, "", [], {})}
    fields.setdefault("id", slug(str(fields.get("name", ""))))
    path = overlay_file(game.id)
    current: dict[str, Any] = {"cards": []}
    if os.path.lexists(path):
        from companion import userfiles
        from companion.cards.yamlload import MAX_FILE_BYTES

        try:
            text = userfiles.read_text(path, MAX_FILE_BYTES)
        except userfiles.Unreadable as exc:
            raise DataError(str(path), 0, "", exc.reason()) from None
        except UnicodeDecodeError as exc:
            raise DataError(str(path), 0, "", t("data.not_utf8", why=exc.reason, at=exc.start)) from None
        load_text(text, str(path))  # refuse to append to a file that is already broken
        current = yaml.safe_load(text) or {"cards": []}
        if not isinstance(current, dict) or not isinstance(current.setdefault("cards", []), list) or not all(
                isinstance(c, dict) and isinstance(c.get("id", ""), str) for c in current["cards"]):
            raise DataError(str(path), 0, "cards", t("cards.overlay_shape"))
    taken = existing_ids | {c.get("id") for c in current["cards"] if isinstance(c, dict)}
    if fields["id"] in taken:
        taken_id = t("cards.overlay_id_taken", id=repr(fields["id"]), game=game.name(language()))
        raise DataError(str(path), 0, "id", taken_id)
    # Validate through the same code that reads the file, with lines from the text we will write.
    item_text = yaml.safe_dump({"cards": [fields]}, allow_unicode=True, sort_keys=False)
    card = parse_card(str(path), load_text(item_text, str(path))["cards"][0], "cards[0]", game, overlay=True)
    current["cards"].append(fields)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, yaml.safe_dump(current, allow_unicode=True, sort_keys=False))
    except OSError as exc:  # a read-only home, a full disk: the card is refused, saying why
        import errno

        why = {errno.EROFS: t("data.read_only"), errno.ENOSPC: t("journal.cause.full"),
               errno.EACCES: t("data.no_right")}.get(exc.errno, exc.strerror or str(exc))
        raise DataError(str(path), 0, "", t("data.cannot_save", why=why)) from None
    return card


def _atomic_write(path: Path, text: str) -> None:
    # A crash while saving must leave the previous file whole: write aside, fsync, rename.
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("# Your own cards for the Table Companion (python -m companion cards add).\n")
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
