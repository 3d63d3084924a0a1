"""What to say after a change, for the ear: short, the seat's name first, the new value.

``describe(result, lang)`` gives one sentence per thing that happened. A speech module can
instead build its own phrase from ``result.changes`` (seat name, counter names, delta, value),
which is the hook meant for ``companion.speech``; this module does not depend on it.
"""

from __future__ import annotations

from companion.i18n import language
from companion.table.engine import Change, Result, render


def describe(result: Result, lang: str | None = None) -> list[str]:
    lang = lang or language()
    if not result.ok:
        return [result.reason_text(lang)]
    return [render(result.data, k, v, lang) for k, v in result.notes]


def describe_change(change: Change, lang: str | None = None) -> str:
    lang = lang or language()
    name = change.counter_names.get(lang) or change.counter_names.get("fr") or change.counter
    return f"{change.seat_name}, {name} {change.delta:+d}, {change.value}"
