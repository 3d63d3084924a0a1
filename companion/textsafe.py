"""Text from a tag, a wire or a user's file, made safe to print, log, speak or show.

Such text is hostile input: an NDEF record type or a Text record's language code can hold ESC
sequences that retitle a terminal, clear the screen or move the cursor, and bidirectional
overrides make a line read differently from what it holds (and confuse screen readers). Every
front end passes such text through ``printable`` before it reaches a terminal, a log line, the
voice or a label. No Kivy, no I/O: the console, the app and the CLI all call it.
"""

from __future__ import annotations

import re
import unicodedata

# Unicode categories that never belong in a line shown to a person: controls (C0, C1, DEL),
# format characters (bidi overrides and isolates, zero-width joiners), line and paragraph
# separators, surrogates, private use and unassigned code points.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
# A cap for one field: a tag holds under 1 KB, so anything longer is noise or an attack on
# the screen reader's patience.
DEFAULT_LIMIT = 2000


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


# The space separators (Unicode category Zs) but the space itself: fine in a line shown to a
# person, yet not "printable" for ``str.isprintable`` (French typography's no-break spaces,
# U+00A0 and U+202F, are among them). Only Zs characters belong here: one missing merely sends
# a text through the slow loop below, whose answer is the same.
_SPACES = "\u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u202f\u205f\u3000"
_SPACES_RE = re.compile(f"[{_SPACES}]+")
_SPACES_AND_NEWLINES_RE = re.compile(f"[{_SPACES}\n]+")


def printable(text: object, limit: int | None = DEFAULT_LIMIT, keep_newlines: bool = False) -> str:
    """``text`` with every control, format or unassigned character shown as its escape
    (``\\x1b``), so a person sees that something odd was there and nothing acts on the terminal.
    Tabs become spaces; newlines stay only when ``keep_newlines``. Longer than ``limit``
    characters: cut, with an ellipsis."""
    value = text if isinstance(text, str) else str(text)
    # The usual text has nothing to escape: said in C, without a Python step per character (every
    # line said or shown, every text of a game's data, passes here; a Pi is slow at such loops).
    # ``isprintable`` is false exactly for the unsafe categories and the Zs spaces taken out first.
    if "\t" not in value and (value.isprintable() or (
            _SPACES_AND_NEWLINES_RE if keep_newlines else _SPACES_RE).sub("", value).isprintable()):
        return value if limit is None or len(value) <= limit else value[: max(0, limit - 1)] + "…"
    out: list[str] = []
    for ch in value:
        if ch == "\t":
            out.append(" ")
        elif ch == "\n" and keep_newlines:
            out.append(ch)
        elif ch.isascii() and ch.isprintable():
            out.append(ch)
        elif unicodedata.category(ch) in _UNSAFE_CATEGORIES:
            out.append(_escape(ch))
        else:
            out.append(ch)
    result = "".join(out)
    if limit is not None and len(result) > limit:
        result = result[: max(0, limit - 1)] + "…"
    return result


def is_printable(text: str) -> bool:
    """Whether ``printable`` would leave ``text`` as it is (newlines allowed)."""
    return printable(text, limit=None, keep_newlines=True) == text


# A path in a sentence: from a slash (or the shipped "cardmap/") to the next space or colon,
# never the slashes of a URL or of words ("and/or").
_PATH = re.compile(r"(?<![\w:/.~-])(?:~?/|cardmap/)[^\s:]+")


def short_path(path: str, most: int = 80) -> str:
    """``path`` in at most ``most`` characters: its start and its file name kept, the middle left
    out ("/media/usb/…/my-game.yaml"), so that the sentence around it keeps its reason whole."""
    if len(path) <= most:
        return path
    _head, _sep, name = path.rpartition("/")
    if len(name) + 20 > most:  # a file name too long to keep whole: cut it in its middle too
        keep = most - 1
        return path[: keep - keep // 2] + "…" + path[len(path) - keep // 2:]
    return path[: most - len(name) - 2] + "…/" + name


def short_paths(text: str, most: int = 80) -> str:
    """``text`` with each path longer than ``most`` characters shortened in its middle."""
    return _PATH.sub(lambda m: short_path(m.group(0), most), text)
