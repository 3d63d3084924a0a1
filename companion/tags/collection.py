"""The user's collection: which tag UID is which card, for tags that hold no reference.

A YAML mapping ``UID: game:id`` in the user data directory (see cardmap/collection.example.yaml).
"""

from __future__ import annotations

import logging
from pathlib import Path

import yaml

from companion import paths
from companion.cards.model import parse_ref

log = logging.getLogger(__name__)


def collection_path() -> Path:
    return paths.data_dir() / "collection.yaml"


def load_uid_map(path: Path | None = None) -> dict[str, str]:
    """UID (upper-case hex) → reference. A broken file is reported and treated as empty."""
    path = path or collection_path()
    if not path.exists():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        log.warning("collection %s unreadable: %s", path, exc)
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
