"""The MQTT topics of a venue, in one place, so that the tables, the hub and the broker's ACL
agree. Everything of an event is under ``tc/<event>/``.

A table writes only under ``tc/<event>/table/<n>/`` (the broker's ACL enforces it, so no table can
forge another's results); the hub writes under ``tc/<event>/hub/``, which every table reads.
"""

from __future__ import annotations

import re

ROOT = "tc"
_SAFE = re.compile(r"[^A-Za-z0-9_-]+")


def event_slug(name: str) -> str:
    """An event's name as one topic level and a folder name: no ``/``, ``+``, ``#`` nor spaces."""
    slug = _SAFE.sub("-", name.strip()).strip("-")
    return slug[:64] or "event"


def prefix(event: str) -> str:
    return f"{ROOT}/{event_slug(event)}"


def table_user(table: int) -> str:
    return f"table-{int(table)}"


def table_topic(event: str, table: int, what: str) -> str:
    """What a table publishes: ``state`` (retained), ``presence`` (retained, its Last Will),
    ``entry`` (QoS 1 outbox entries: journal events, results, judge calls)."""
    return f"{prefix(event)}/table/{int(table)}/{what}"


def hub_topic(event: str, what: str, table: int | None = None) -> str:
    """What the hub publishes: ``clock`` (retained), ``ack/<n>`` and ``seating/<n>`` (retained)."""
    return f"{prefix(event)}/hub/{what}" + ("" if table is None else f"/{int(table)}")


def parse_table_topic(event: str, topic: str) -> tuple[int, str] | None:
    """(table, what) of a table's topic of this event, or None."""
    head = f"{prefix(event)}/table/"
    if not topic.startswith(head):
        return None
    rest = topic[len(head):].split("/")
    if len(rest) != 2 or not rest[0].isdigit():
        return None
    return int(rest[0]), rest[1]


def acl(event: str, tables: int, hub_user: str = "hub") -> str:
    """The broker's ACL file: the hub reads and writes the whole event; table n writes only its own
    topics and reads the hub's."""
    p = prefix(event)
    lines = [f"user {hub_user}", f"topic readwrite {p}/#", ""]
    for n in range(1, tables + 1):
        lines += [f"user {table_user(n)}", f"topic write {p}/table/{n}/#", f"topic read {p}/hub/#", ""]
    return "\n".join(lines)
