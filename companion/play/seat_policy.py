"""What a seat's own device (a phone) may do at the table: the rule, in the core, so that every
front end that lets a seat act for itself applies the same one (DESIGN.md "Seats, privacy").

- A seat acts for itself only: "pool -2" on Ann's phone is Ann's pool; a line naming another
  seat is refused.
- Counters of its own seat at any time; the turn's actions (next phase, pass, the game's verbs)
  on its own turn only, and the refusal says whose turn it is.
- Undo and redo from a seat (see ``Session``) are that seat's own.

Answers are plain dicts ``{"ok", "lines", "revision"}`` plus an HTTP-like ``status`` the web front
end may use; the lines are in the asker's language.
"""

from __future__ import annotations

from typing import Any

from companion.i18n import t

ANY_TIME = ("counter", "undo", "redo")  # verbs a seat may use when it is not its turn


def active_seat(session: Any) -> int | None:
    """The 1-based seat whose turn it is, or None."""
    game = session.game
    if game is None:
        return None
    seat = game.to_json().get("active_seat")
    return seat if isinstance(seat, int) else None


def seat_command(session: Any, seat: int, command: str, lang: str = "fr", source: str = "phone") -> dict[str, Any]:
    """A command line from seat ``seat`` (1-based), acting as that seat."""
    if session.game is None:
        return {"ok": False, "lines": [t("ui.no_game", lang)], "status": 409}
    try:
        intent = session.parser(source).parse(command)
    except Exception:
        intent = None  # the session words the refusal itself, below
    if intent is not None:
        own = seat - 1
        if intent.verb == "counter" and intent.seat is None:
            intent.seat = own  # "pool -2" on Ann's phone is Ann's pool
        elif intent.seat is not None and intent.seat != own:
            return {"ok": False, "lines": [t("phones.api.not_your_seat", lang)], "status": 403}
        elif intent.verb not in ANY_TIME and active_seat(session) != seat:
            return {"ok": False, "lines": [why_waiting(session, seat, lang)], "status": 403}
        intent.args["by"] = own  # its author: the seat's undo takes back its own changes only
        result = session.apply(intent, source=source)
    else:
        result = session.apply(command, source=source)
    return {"ok": result.ok, "lines": result.lines(lang), "revision": session.revision}


def undo_counts(session: Any) -> dict[str, list[int]]:
    """Per seat (1-based, as text keys for JSON), how many of its own changes it may undo and redo."""
    game = session.game
    if game is None:
        return {}
    return {str(n): list(game.undoable_by(n - 1)) for n in range(1, len(session.seat_names) + 1)}


def why_waiting(session: Any, seat: int, lang: str = "fr") -> str:
    """Why seat ``seat``'s turn actions wait: whose turn it is."""
    active = active_seat(session)
    names = session.seat_names
    if active is None or active == seat or not 1 <= active <= len(names):
        return t("phones.api.not_your_turn", lang)
    return t("phones.waiting_for", lang, name=names[active - 1])
