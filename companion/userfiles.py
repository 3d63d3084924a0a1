"""Reading a file a user put somewhere (their cards folder, their collection, their settings):
only a regular file is read, and never more than a cap counted on the bytes actually read.

A FIFO blocks whoever opens it and reads forever, a link to /dev/zero never ends, a link to a USB
stick that is not mounted points nowhere, two links to each other loop. ``st_size`` says 0 for
all of them, so it cannot be the guard: the file is opened without blocking, ``fstat`` of the
open descriptor says what it is, and reading stops one byte past the cap. What is skipped is
named in the user's language (``Unreadable.describe``), never a traceback.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class Unreadable(OSError):
    """A user's file that is not read, and why, as a message key of ``companion.i18n``."""

    def __init__(self, path: Path | str, key: str, detail: str = "") -> None:
        super().__init__(f"{path}: {key}{': ' + detail if detail else ''}")
        self.path = str(path)
        self.key = key
        self.detail = detail

    def reason(self, lang: str | None = None) -> str:
        """Why the file is skipped, without its path: for a message that names the path already
        (a DataError), where the path twice pushed the why past the cut of a load problem."""
        from companion.i18n import t

        return t(self.key, lang)

    def describe(self, lang: str | None = None) -> str:
        """One line naming the file and why it is skipped."""
        from companion.i18n import t

        return t("userfile.skipped", lang, path=self.path, why=t(self.key, lang))


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "userfile.fifo"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "userfile.device"
    if stat.S_ISSOCK(mode):
        return "userfile.socket"
    if stat.S_ISDIR(mode):
        return "userfile.folder"
    return "userfile.special"


def check(path: Path | str) -> None:
    """Raise Unreadable unless ``path`` is (or links to) a regular file; cheap, opens nothing."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _why(path, exc) from None
    if not stat.S_ISREG(st.st_mode):
        raise Unreadable(path, _kind(st.st_mode))


def _why(path: Path | str, exc: OSError) -> Unreadable:
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):  # a socket cannot even be opened (ENXIO): say what it is
            return Unreadable(path, _kind(mode))
    except OSError:
        pass
    if exc.errno == errno.ELOOP:
        return Unreadable(path, "userfile.loop")
    if exc.errno == errno.ENOENT and os.path.islink(path):
        return Unreadable(path, "userfile.dangling", os.readlink(path))
    if exc.errno == errno.ENOENT:
        return Unreadable(path, "userfile.missing")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return Unreadable(path, "userfile.no_right")
    return Unreadable(path, "userfile.cannot_read", exc.strerror or str(exc))


def read_bytes(path: Path | str, limit: int) -> bytes:
    """The bytes of a regular file, at most ``limit`` of them; Unreadable otherwise."""
    try:
        # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _why(path, exc) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise Unreadable(path, _kind(mode))
        chunks, got = [], 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:
            raise Unreadable(path, "userfile.too_large", f"> {limit}")
        return b"".join(chunks)
    except OSError as exc:
        if isinstance(exc, Unreadable):
            raise
        raise _why(path, exc) from None
    finally:
        os.close(fd)


def read_text(path: Path | str, limit: int, encoding: str = "utf-8") -> str:
    """The text of a regular file; UnicodeDecodeError as ``bytes.decode`` raises it."""
    return read_bytes(path, limit).decode(encoding)


SETTINGS_BYTES = 1 << 20  # a settings file is a few hundred bytes


def settings_path() -> Path:
    from companion import paths

    return paths.config_dir() / "companion.ini"


def settings_problems(path: Path | None = None, lang: str | None = None) -> list[str]:
    """One sentence per thing wrong in the settings file, each naming the file and the fix: the
    whole file when it cannot be read, else each key whose value is not used as written (a rate of
    "fast", a language "xx", a misspelt key) and what is used instead. [] when all is well."""
    path = path or settings_path()
    if not os.path.lexists(path):
        return []  # (before the imports: most starts have no settings file to check)
    import configparser

    from companion import usersettings
    from companion.i18n import t

    try:
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(read_text(path, SETTINGS_BYTES), str(path))
    except Unreadable as exc:
        why = t(exc.key, lang)
    except UnicodeDecodeError:
        why = t("collection.not_utf8", lang)
    except configparser.Error as exc:
        why = str(exc).splitlines()[0][:160]
    else:
        return [bad.describe(path, lang) for bad in usersettings.bad_values(parser)]
    return [t("settings.unreadable", lang, path=str(path), why=why)]


def settings_problem(path: Path | None = None, lang: str | None = None) -> str | None:
    """The settings file's problems in one paragraph, or None when it reads well or does not exist
    (a damaged settings file is otherwise silently replaced by defaults)."""
    found = settings_problems(path, lang)
    return " ".join(found) if found else None
