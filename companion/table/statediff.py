"""A state diff: the changes an event makes to the state (its "effects" in the journal; not
a card's effects, which are cards/effects.py), as plain set operations with the value
before and after. The state is a JSON tree; an effect is ``{"p": path, "o": old, "n": new}``
(``o`` absent: the key was added; ``n`` absent: it was removed).

Recording the values rather than re-running the rules makes replay independent of the rules
code (a journal written by an older version replays the same) and makes undo exact: apply the
effects of an event backwards with ``o`` and ``n`` swapped.
"""

from __future__ import annotations

import copy
from typing import Any

Effect = dict[str, Any]


_SCALARS = frozenset({str, int, float, bool, type(None)})


def copy_tree(value: Any) -> Any:
    """A copy of a JSON tree (the state, an effect's value) sharing no container with it: what
    ``copy.deepcopy`` gives for such a tree, 3-4 times faster (it is taken at every change, a
    hot path on a Raspberry Pi). A value of another type is deep-copied as before."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _SCALARS else copy_tree(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _SCALARS else copy_tree(v) for v in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)


def _same(a: Any, b: Any) -> bool:
    # True == 1 in Python; a flag turning into a number is still a change.
    return type(a) is type(b) and a == b


def diff(old: Any, new: Any, path: tuple = ()) -> list[Effect]:
    out: list[Effect] = []
    _diff(old, new, path, out)
    return out


def _diff(old: Any, new: Any, path: tuple, out: list[Effect]) -> None:
    # Taken at every change over the whole state: two scalars side by side are compared here,
    # without a call for each (most of a state is counters that did not change).
    if isinstance(old, dict) and isinstance(new, dict):
        for k, a in old.items():
            if k not in new:
                out.append({"p": [*path, k], "o": a})
                continue
            b = new[k]
            kind = type(a)
            if kind in _SCALARS and type(b) in _SCALARS:
                if not (kind is type(b) and a == b):
                    out.append({"p": [*path, k], "o": a, "n": b})
            else:
                _diff(a, b, (*path, k), out)
        for k in new:
            if k not in old:
                out.append({"p": [*path, k], "n": new[k]})
        return
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new) and path:
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            _diff(a, b, (*path, i), out)
        return
    if _same(old, new):
        return
    if not path:
        raise ValueError("the state root must stay a mapping")
    out.append({"p": list(path), "o": old, "n": new})


# Journals written before a seat's counters were named "counters" call them "c": read them under
# today's name, so an old game replays, undoes and exports as if written today.
OLD_SEAT_KEYS = {"c": "counters"}


def _upgrade_seat(seat: Any) -> None:
    if isinstance(seat, dict):
        for old, new in OLD_SEAT_KEYS.items():
            if old in seat and new not in seat:
                seat[new] = seat.pop(old)


def upgrade(effects: Any) -> Any:
    """Effects read from an older journal, in place, under today's names (see OLD_SEAT_KEYS).
    Anything that is not a well-formed effect is left for the checks that follow to refuse."""
    if not isinstance(effects, list):
        return effects
    for e in effects:
        p = e.get("p") if isinstance(e, dict) else None
        if not isinstance(p, list) or not p or p[0] != "seats":
            continue
        if len(p) >= 3 and isinstance(p[2], str) and p[2] in OLD_SEAT_KEYS:
            e["p"] = [*p[:2], OLD_SEAT_KEYS[p[2]], *p[3:]]
        for side in ("o", "n"):
            value = e.get(side)
            if len(p) == 1 and isinstance(value, list):
                for seat in value:
                    _upgrade_seat(seat)
            elif len(p) == 2:
                _upgrade_seat(value)
    return effects


def _set(state: Any, path: list, present: bool, value: Any) -> None:
    node = state
    for key in path[:-1]:
        node = node[key]
    last = path[-1]
    if present:
        node[last] = value
    elif isinstance(node, dict):
        node.pop(last, None)


def _fresh(value: Any) -> Any:
    # The state must never share a container with a recorded effect, or a later change would
    # rewrite history in memory; scalars need no copy (the common case, and replay's hot path).
    return copy_tree(value) if isinstance(value, (dict, list)) else value


def apply(state: dict, effects: list[Effect]) -> None:
    """Apply effects forwards, in place."""
    for e in effects:
        _set(state, e["p"], "n" in e, _fresh(e.get("n")))


def apply_checked(state: dict, effects: Any) -> None:
    """Apply effects read from a file: ValueError, and the state exactly as it was, when one is
    not a well-formed effect or does not fit the state (a hand-edited or damaged journal)."""
    if not isinstance(effects, list):
        raise ValueError("effects are not a list")
    undo: list[tuple[Any, Any, bool, Any]] = []  # (container, key, was present, old value)
    try:
        for e in effects:
            if not isinstance(e, dict) or not isinstance(e.get("p"), list) or not e["p"]:
                raise ValueError(f"not an effect: {e!r:.80}")
            path = e["p"]
            if not all(isinstance(k, str | int) and not isinstance(k, bool) for k in path):
                raise ValueError(f"bad path: {path!r:.80}")
            node = state
            for key in path[:-1]:
                node = node[key]
            last = path[-1]
            if isinstance(node, dict):
                undo.append((node, last, last in node, node.get(last)))
            elif isinstance(node, list) and isinstance(last, int) and -len(node) <= last < len(node):
                undo.append((node, last, True, node[last]))
            else:
                raise ValueError(f"the path does not fit the state: {path!r:.80}")
            _set(state, path, "n" in e, _fresh(e.get("n")))
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        for node, key, present, old in reversed(undo):
            if present:
                node[key] = old
            else:
                node.pop(key, None)
        raise ValueError(f"effect does not fit the state: {exc}"[:200]) from None


def revert(state: dict, effects: list[Effect]) -> None:
    """Apply effects backwards, in place: the state before them."""
    for e in reversed(effects):
        _set(state, e["p"], "o" in e, _fresh(e.get("o")))


def inverse(effects: list[Effect]) -> list[Effect]:
    out = []
    for e in reversed(effects):
        r: Effect = {"p": e["p"]}
        if "n" in e:
            r["o"] = e["n"]
        if "o" in e:
            r["n"] = e["o"]
        out.append(r)
    return out
