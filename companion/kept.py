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


def read_file(path: str | os.PathLike[str], *, code: bool = False) -> bytes | None:
    """The bytes of the kept file at ``path``, or None when it cannot be read or is not a plain
    file. ``code``: the file holds code that runs (kept kv rules, as ``__pycache__`` does), so it
    is read only if this user owns it and neither its group nor others may write it (as ssh
    treats a key)."""
    try:
        # Opened without waiting and read only if it is a plain file: a FIFO or a device put where
        # the file should be would otherwise hold the start forever.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as file:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return None
            if code:
                owner = os.getuid() if hasattr(os, "getuid") else info.st_uid
                if info.st_uid != owner or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                    return None
            return file.read()
    except OSError:
        return None


def write_file(path: str | os.PathLike[str], data: bytes) -> None:
    """Write a kept file whole or not at all (programs start together: each writes its own part,
    then puts it in place), writable by this user only whatever the umask (002 on many desktops:
    see ``read_file``'s ``code``). Raises OSError when the cache cannot be written."""
    part = f"{os.fspath(path)}.{os.getpid()}"
    with os.fdopen(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as file:
        file.write(data)
    os.replace(part, path)


def read(name: str, text: str) -> tuple[bool, Any]:
    """(True, the data) kept in the cache file ``name`` for this very ``text``, else (False, None)."""
    import marshal

    from companion import paths

    held = read_file(paths.cache_dir() / name)
    if held is None or held[:_DIGEST] != _digest(text):
        return False, None
    try:
        return True, marshal.loads(held[_DIGEST:])
    except (ValueError, EOFError, TypeError):
        return False, None


def keep(name: str, text: str, data: Any) -> None:
    """Keep ``data``, parsed from ``text``, in the cache file ``name`` (silently not, when the
    cache cannot be written or the data is not plain)."""
    import marshal

    from companion import paths

    try:
        write_file(paths.cache_dir() / name, _digest(text) + marshal.dumps(data))
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
