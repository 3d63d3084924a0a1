"""The table's outbox: what the table must get to the hub, kept in SQLite until the hub has it.

Entries are numbered per table (``seq``, 1, 2, 3...): the journal's events of the games played
at the venue (copied from the table's journal, which stays the source: a crash between the two
is healed by copying again from the journal's last copied event), and the table's own messages
(a result confirmed, a judge call). An entry is sent again until the hub acknowledges its
``seq``; the hub applies (table, seq) once, however often it comes.

The file sits beside the table's journal, one per event and table, so nothing of the journal's
own schema is touched.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL,              -- journal | result | judge
    body       TEXT NOT NULL,              -- JSON
    journal_id INTEGER UNIQUE              -- the journal event copied, for kind = journal
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class Outbox:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # a confirmed result is on the disk before it is said
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def add(self, kind: str, body: dict[str, Any], journal_id: int | None = None) -> int | None:
        """Queue an entry; returns its seq, or None for a journal event already queued."""
        with self._lock:
            cur = self._db.execute("INSERT OR IGNORE INTO outbox (kind, body, journal_id) VALUES (?, ?, ?)",
                                   (kind, json.dumps(body, ensure_ascii=False), journal_id))
            return cur.lastrowid if cur.rowcount else None

    def last_journal_id(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT MAX(journal_id) FROM outbox").fetchone()
        return int(row[0] or 0)

    def pending(self, limit: int = 500) -> list[tuple[int, str, dict[str, Any]]]:
        """The entries the hub has not acknowledged, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT seq, kind, body FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
                                    (self._acked(), limit)).fetchall()
        return [(int(s), k, json.loads(b)) for s, k, b in rows]

    def last_seq(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM outbox").fetchone()
        return int(row[0] or 0)

    def ack(self, seq: int) -> None:
        """The hub has every entry up to ``seq``."""
        with self._lock:
            if seq > self._acked():
                self._set("acked", str(int(seq)))

    @property
    def acked(self) -> int:
        with self._lock:
            return self._acked()

    def get(self, key: str, default: Any = None) -> Any:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def put(self, key: str, value: Any) -> None:
        with self._lock:
            self._set(key, json.dumps(value, ensure_ascii=False))

    def _acked(self) -> int:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'acked'").fetchone()
        return int(row[0]) if row else 0

    def _set(self, key: str, value: str) -> None:
        self._db.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = ?",
                         (key, value, value))
