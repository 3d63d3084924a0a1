"""The program's own YAML files that every start reads (the messages, the keys' map, the table's
phrases, the grammar), kept parsed in the cache folder.

Parsing one is milliseconds to tens of milliseconds here (several times that on a Pi), on the
way to the window's first frame; loading what the last program kept for that very text is a
fraction of a millisecond. The text's digest heads the kept file: another text (an upgrade, an
edit) is parsed and kept again. A cache that cannot be read or written (a read-only home) only
costs the parsing. Kept with marshal, which holds plain data only (what a safe YAML load gives)
and runs nothing it reads.
"""

from __future__ import annotations

import os
import stat
from typing import Any

_DIGEST = 16  # bytes of the text's digest at the head of a kept file


def _digest(text: str) -> bytes:
    import hashlib

    return hashlib.blake2b(text.encode("utf-8"), digest_size=_DIGEST).digest()


def read(name: str, text: str) -> tuple[bool, Any]:
    """(True, the data) kept in the cache file ``name`` for this very ``text``, else (False, None)."""
    import marshal

    from companion import paths

    try:
        # Opened without waiting and read only if it is a plain file: a FIFO or a device put where
        # the file should be would otherwise hold the start forever.
        fd = os.open(paths.cache_dir() / name, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return False, None
            held = file.read()
        if held[:_DIGEST] != _digest(text):
            return False, None
        return True, marshal.loads(held[_DIGEST:])
    except (OSError, ValueError, EOFError, TypeError):
        return False, None


def keep(name: str, text: str, data: Any) -> None:
    """Keep ``data``, parsed from ``text``, in the cache file ``name`` (silently not, when the
    cache cannot be written or the data is not plain)."""
    import marshal

    from companion import paths

    try:
        path = paths.cache_dir() / name
        part = path.with_name(f"{name}.{os.getpid()}")  # whole or not at all: programs start together
        part.write_bytes(_digest(text) + marshal.dumps(data))
        os.replace(part, path)
    except (OSError, ValueError):
        pass


def load_yaml(name: str, text: str) -> Any:
    """``text`` as a safe YAML load gives it (libyaml's parser when PyYAML has it), kept in the
    cache file ``name``."""
    found, data = read(name, text)
    if found:
        return data
    import yaml

    data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    keep(name, text, data)
    return data
