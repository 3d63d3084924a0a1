"""The user's collection: which tag UID is which card, for tags that hold no reference.

A YAML mapping ``UID: game:id`` in the user data directory (see cardmap/collection.example.yaml).
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
from pathlib import Path

import yaml

from companion import paths
from companion.cards.model import parse_ref
from companion.cards.yamlload import MAX_FILE_BYTES, DataError, refuse_aliases
from companion.textsafe import printable

log = logging.getLogger(__name__)


def collection_path() -> Path:
    return paths.data_dir() / "collection.yaml"


def load_uid_map(path: Path | None = None) -> dict[str, str]:
    """UID (upper-case hex) → reference. A broken file is reported and treated as empty."""
    path = path or collection_path()
    if not os.path.lexists(path):
        return {}
    try:
        data = _parse(_read(path), str(path))
    except (OSError, ValueError, yaml.YAMLError, DataError) as exc:  # ValueError: not UTF-8
        log.warning("collection %s unreadable: %s", path, printable(exc, limit=300))
        return {}
    if not isinstance(data, dict):
        log.warning("collection %s: expected a mapping UID: game:id", path)
        return {}
    result = {}
    for uid, ref in data.items():
        uid_text = str(uid).replace(":", "").upper()
        if isinstance(ref, str) and parse_ref(ref):
            result[uid_text] = ref
    return result


def _read(path: Path) -> str:
    from companion import userfiles

    return userfiles.read_text(path, MAX_FILE_BYTES)


def problem(path: Path | None = None, lang: str | None = None) -> str | None:
    """One sentence naming the collection file, what is wrong with it and the fix, or None when
    it reads well (or does not exist): said and shown at start, since a bad collection makes
    every tag known by its UID "unknown"."""
    from companion import userfiles
    from companion.i18n import t

    path = path or collection_path()
    if not os.path.lexists(path):
        return None
    try:
        data = _parse(_read(path), str(path))
        why = "" if isinstance(data, dict) else t("collection.not_mapping", lang)
    except userfiles.Unreadable as exc:
        why = t(exc.key, lang)
    except UnicodeDecodeError:
        why = t("collection.not_utf8", lang)
    except (OSError, yaml.YAMLError, DataError, ValueError) as exc:
        why = printable(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, limit=160)
    return t("collection.unreadable", lang, path=str(path), why=why) if why else None


class CollectionError(Exception):
    """The collection file exists but cannot be read safely: it is left untouched."""


def _parse(text: str, shown: str = "collection.yaml") -> object:
    # BaseLoader keeps every scalar a string: an unquoted UID such as 04112233445566 would
    # otherwise be read as an (octal) integer and lose its leading zero. Collections are shared
    # between players, so the same limits as card files apply (no aliases, a size cap).
    if len(text) > MAX_FILE_BYTES:
        raise DataError(shown, 0, "", f"too large ({len(text)} characters)")
    if "&" in text:
        refuse_aliases(text, shown)
    return yaml.load(text, Loader=yaml.BaseLoader) or {}


def normalize_uid(uid: str) -> str:
    return str(uid).replace(":", "").replace(" ", "").upper()


def bind_uid(uid: str, ref: str, note: str = "", path: Path | None = None) -> Path:
    """Map a tag's UID to a card reference in the collection, keeping every other entry and the
    user's comments. The file is replaced atomically, so a crash leaves the old or the new one."""
    if parse_ref(ref) is None:
        raise ValueError(f"not a card reference: {ref!r}")
    uid = normalize_uid(uid)
    if not re.fullmatch(r"[0-9A-F]{8,20}", uid):
        raise ValueError(f"not a tag UID: {uid!r}")
    path = path or collection_path()
    try:
        text = _read(path) if os.path.lexists(path) else ""
        data = _parse(text, str(path))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, DataError) as exc:
        raise CollectionError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from exc
    if not isinstance(data, dict):
        raise CollectionError("expected a mapping UID: game:id")
    same = [key for key in data if normalize_uid(key) == uid]
    if [data[key] for key in same] == [ref]:
        return path
    lines = text.splitlines(keepends=True)
    for key in same:  # the old mapping of this UID goes; its line only
        pattern = re.compile(r"^\s*[\"']?" + re.escape(str(key)) + r"[\"']?\s*:")
        lines = [line for line in lines if not pattern.match(line)]
    new_text = "".join(lines)
    if new_text and not new_text.endswith("\n"):
        new_text += "\n"
    comment = " ".join(note.split())
    new_text += f'"{uid}": "{ref}"' + (f"  # {comment}" if comment else "") + "\n"
    expected = {normalize_uid(k): v for k, v in data.items() if normalize_uid(k) != uid}
    expected[uid] = ref
    try:
        check = _parse(new_text)
    except yaml.YAMLError:
        check = None
    if not isinstance(check, dict) or {normalize_uid(k): v for k, v in check.items()} != expected:
        # A layout line edits cannot follow (a flow mapping, say): write the mapping out afresh.
        new_text = "# UID: card reference (python -m companion tag bind)\n" + yaml.safe_dump(
            expected, allow_unicode=True, default_flow_style=False, default_style='"')
    try:
        _write_atomic(path, new_text)
    except OSError as exc:  # a read-only home, a full disk: nothing was changed, say why
        raise CollectionError(f"cannot save {path}: {exc.strerror or exc}") from None
    return path


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".collection-", suffix=".yaml", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
