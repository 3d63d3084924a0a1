"""The append-only journal of games: one SQLite file, one row per event, never rewritten.

Durability choice, measured on the project's machine (Debian 12, ext4 on a virtio disk, 300
single-row commits each, WAL mode):

    synchronous=FULL    median 0.19 ms, p95 0.28 ms   (fsync of the WAL at every commit)
    synchronous=NORMAL  median 0.02 ms, p95 0.03 ms   (no fsync at commit; only at checkpoints)
    synchronous=EXTRA   median 0.25 ms, p95 0.36 ms

Both FULL and NORMAL survive ``kill -9``: a committed transaction is in the WAL file, which the
operating system keeps even if the process dies. Only FULL also survives a power cut or a kernel
crash, because NORMAL leaves the last commits in the page cache until the next checkpoint. FULL
costs a fraction of a millisecond here and far less than the 5 ms budget, so we take FULL: a
player is told a change only once it is on the disk (``bench.journal_bench`` re-measures it; on a
slow SD card the budget is what to watch). EXTRA also syncs the directory after a WAL reset, which
only matters for the rollback journal modes, so it buys nothing in WAL.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id       INTEGER PRIMARY KEY,
    game     TEXT NOT NULL,
    created  REAL NOT NULL,
    players  TEXT NOT NULL,          -- JSON list of seat names, in table order
    updated  REAL NOT NULL,
    status   TEXT NOT NULL DEFAULT 'playing',
    summary  TEXT NOT NULL DEFAULT '' -- a one-line state for listings (winner, turn)
);
CREATE TABLE IF NOT EXISTS events (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id  INTEGER NOT NULL REFERENCES games(id),
    type     TEXT NOT NULL,
    seat     INTEGER,                -- 0-based seat the event concerns, if any
    ts       REAL NOT NULL,          -- wall-clock time (Unix seconds)
    source   TEXT NOT NULL,          -- touch | key | scan | script | phone
    payload  TEXT NOT NULL           -- JSON
);
CREATE INDEX IF NOT EXISTS events_by_game ON events (game_id, id);
"""

SOURCES = ("touch", "key", "scan", "script", "phone")


@dataclass(frozen=True)
class Event:
    id: int
    game_id: int
    type: str
    seat: int | None
    ts: float
    source: str
    payload: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "seat": self.seat, "ts": self.ts,
                "source": self.source, "payload": self.payload}


@dataclass(frozen=True)
class GameRow:
    id: int
    game: str
    created: float
    updated: float
    players: list[str]
    status: str
    summary: str
    events: int


class JournalError(Exception):
    """The journal file cannot be opened or is not a journal."""


class Journal:
    """One SQLite file holding every game. Each ``append`` is its own committed, fsynced
    transaction, so an event the caller got back is on the disk."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, nothing is left pending.
            # The core's Session serves one change at a time from any thread (the window, the phone
            # server): the connection is shared under its lock, never used by two at once.
            self._db = sqlite3.connect(str(self.path), isolation_level=None, timeout=5.0, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")  # see the module docstring
            self._db.execute("PRAGMA foreign_keys=ON")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise JournalError(f"{self.path}: journal version {version} is newer than this program")
            self._db.executescript(_SCHEMA)
            if version < SCHEMA_VERSION:
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: {exc}") from exc

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def new_game(self, game: str, players: list[str], ts: float | None = None,
                 first: tuple[str, dict[str, Any], str] | None = None) -> tuple[int, Event | None]:
        """Create a game and, in the same transaction, its first event ``(type, payload,
        source)``: a crash can never leave a game without its set-up."""
        now = time.time() if ts is None else ts
        self._db.execute("BEGIN IMMEDIATE")
        try:
            cur = self._db.execute(
                "INSERT INTO games (game, created, players, updated) VALUES (?, ?, ?, ?)",
                (game, now, json.dumps(players, ensure_ascii=False), now))
            gid = int(cur.lastrowid)
            event = None
            if first is not None:
                type_, payload, source = first
                ecur = self._db.execute(
                    "INSERT INTO events (game_id, type, seat, ts, source, payload) VALUES (?, ?, NULL, ?, ?, ?)",
                    (gid, type_, now, source, json.dumps(payload, ensure_ascii=False, separators=(",", ":"))))
                event = Event(int(ecur.lastrowid), gid, type_, None, now, source, payload)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        return gid, event

    def append(self, game_id: int, type_: str, payload: dict[str, Any], *, seat: int | None = None,
               source: str = "key", ts: float | None = None, status: str | None = None,
               summary: str | None = None) -> Event:
        """Write one event and make it durable; only then return it."""
        if source not in SOURCES:
            raise ValueError(f"unknown input source {source!r}; expected one of {SOURCES}")
        now = time.time() if ts is None else ts
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        self._db.execute("BEGIN IMMEDIATE")
        try:
            cur = self._db.execute(
                "INSERT INTO events (game_id, type, seat, ts, source, payload) VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, type_, seat, now, source, text))
            sets, values = ["updated = ?"], [now]
            if status is not None:
                sets.append("status = ?")
                values.append(status)
            if summary is not None:
                sets.append("summary = ?")
                values.append(summary)
            self._db.execute(f"UPDATE games SET {', '.join(sets)} WHERE id = ?", (*values, game_id))
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        return Event(int(cur.lastrowid), game_id, type_, seat, now, source, payload)

    def events(self, game_id: int) -> list[Event]:
        return list(self.iter_events(game_id))

    def iter_events(self, game_id: int) -> Iterator[Event]:
        rows = self._db.execute(
            "SELECT id, type, seat, ts, source, payload FROM events WHERE game_id = ? ORDER BY id", (game_id,))
        for eid, type_, seat, ts, source, payload in rows:
            yield Event(eid, game_id, type_, seat, ts, source, json.loads(payload))

    def event_ids(self, game_id: int) -> list[int]:
        return [r[0] for r in self._db.execute("SELECT id FROM events WHERE game_id = ? ORDER BY id", (game_id,))]

    def game(self, game_id: int) -> GameRow | None:
        rows = [g for g in self._games("WHERE g.id = ?", (game_id,))]
        return rows[0] if rows else None

    def games(self) -> list[GameRow]:
        """Every game, the most recently played first."""
        return self._games("", ())

    def _games(self, where: str, args: tuple) -> list[GameRow]:
        query = ("SELECT g.id, g.game, g.created, g.updated, g.players, g.status, g.summary, "
                 "(SELECT COUNT(*) FROM events e WHERE e.game_id = g.id) "
                 f"FROM games g {where} ORDER BY g.updated DESC, g.id DESC")
        return [GameRow(i, game, c, u, json.loads(p), s, summ, n)
                for i, game, c, u, p, s, summ, n in self._db.execute(query, args)]
