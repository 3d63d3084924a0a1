"""JSON in and out of the phone server, hostile input in mind.

In: a request or socket message is one JSON object, read whole or refused (``Unreadable``): not
JSON, nested deep enough to exhaust the parser's recursion, or holding a lone UTF-16 surrogate
(``"\\ud800"`` is legal JSON that no UTF-8 text can carry, and would later break every phone's
feed it reached).
Out: every text handed to a socket is valid UTF-8, whatever a line of the table holds (a player
name from a non-UTF-8 terminal, a card reference): one bad character is replaced, never a
reason for a writer to stop.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 32  # an honest message is two levels deep; deeper is an attack on the parser


class Unreadable(ValueError):
    """A body or a socket message the server will not act on."""


def parse(text: str | bytes) -> dict[str, Any]:
    """One JSON object, or ``Unreadable``."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise Unreadable("not UTF-8") from None
    if _too_deep(text):
        raise Unreadable("nested too deep")
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        raise Unreadable("not JSON") from None
    if not isinstance(body, dict):
        raise Unreadable("not an object")
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise Unreadable("a lone surrogate") from None
    return body


def _too_deep(text: str) -> bool:
    """Brackets opened and not yet closed, outside strings, past MAX_DEPTH (a cheap scan, before
    the parser recurses)."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def dumps(value: Any) -> str:
    """JSON text that is valid UTF-8 whatever ``value`` holds (lone surrogates become U+FFFD)."""
    return clean(json.dumps(value, ensure_ascii=False))


def clean(text: str) -> str:
    """A line of text made valid UTF-8 (lone surrogates become U+FFFD)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
