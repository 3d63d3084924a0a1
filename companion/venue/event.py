"""The event, in its own SQLite file: registration, seating, rounds, every entry the tables sent,
results (proposed, validated, refused, overridden), judge calls. A hub killed with kill -9 and
started again reads it all back: every change is one committed transaction.

Entries are kept by (table, seq): the same entry coming twice (QoS 1 delivers at least once, the
table resends until acknowledged) is applied once.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from companion import registry
from companion.venue import scoring

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE,
    vekn    TEXT NOT NULL DEFAULT '',
    pinned  INTEGER,                  -- a table this player must sit at (accessibility)
    dropped INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS seating (
    round    INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    seat     INTEGER NOT NULL,
    player   TEXT NOT NULL,
    PRIMARY KEY (round, table_no, seat)
);
CREATE TABLE IF NOT EXISTS rounds (
    round    INTEGER PRIMARY KEY,
    final    INTEGER NOT NULL DEFAULT 0,
    started  REAL,
    duration REAL NOT NULL DEFAULT 0,
    state    TEXT NOT NULL DEFAULT 'seated'   -- seated | running | paused | over
);
CREATE TABLE IF NOT EXISTS entries (
    table_no INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    kind     TEXT NOT NULL,
    body     TEXT NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (table_no, seq)
);
CREATE TABLE IF NOT EXISTS results (
    round    INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    body     TEXT NOT NULL,       -- {"players": [...], "vp": [...]} or {"players", "winners"}
    status   TEXT NOT NULL,       -- validated | refused | override
    reason   TEXT NOT NULL DEFAULT '',
    seq      INTEGER,             -- the table's entry it came from (None: the organiser)
    updated  REAL NOT NULL,
    PRIMARY KEY (round, table_no)
);
CREATE TABLE IF NOT EXISTS judge_calls (
    id       INTEGER PRIMARY KEY,
    table_no INTEGER NOT NULL,
    body     TEXT NOT NULL,
    ts       REAL NOT NULL,
    done     INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS tables (
    table_no INTEGER PRIMARY KEY,
    state    TEXT,
    online   INTEGER NOT NULL DEFAULT 0,
    updated  REAL NOT NULL DEFAULT 0
);
"""


class EventStore:
    def __init__(self, path: str | Path, name: str = "", game: str | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.RLock()
        if self.get("name") is None:
            self.put("name", name)
            self.put("game", game or registry.ids()[0])
            self.put("token", secrets.token_urlsafe(18))
        self._contiguous: dict[int, int] = {}
        for table_no, seqs in self._seqs_by_table().items():
            self._contiguous[table_no] = _contiguous(seqs)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- meta -------------------------------------------------------------------------------

    def get(self, key: str, default: Any = None) -> Any:
        row = self._q("SELECT value FROM meta WHERE key = ?", (key,))
        return default if not row else json.loads(row[0][0])

    def put(self, key: str, value: Any) -> None:
        text = json.dumps(value)
        self._x("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = ?",
                (key, text, text))

    @property
    def name(self) -> str:
        return str(self.get("name", ""))

    @property
    def game(self) -> str:
        return str(self.get("game", "") or registry.ids()[0])

    @property
    def token(self) -> str:
        return str(self.get("token", ""))

    # -- registration -----------------------------------------------------------------------

    def register(self, name: str, vekn: str = "") -> bool:
        """Add a player; False if the name is already registered."""
        name = " ".join(str(name).split())[:80]
        if not name:
            return False
        with self._lock:
            cur = self._x("INSERT OR IGNORE INTO players (name, vekn) VALUES (?, ?)", (name, str(vekn)[:20]))
        return bool(cur.rowcount)

    def pin(self, name: str, table_no: int | None) -> bool:
        cur = self._x("UPDATE players SET pinned = ? WHERE name = ?", (table_no, name))
        return bool(cur.rowcount)

    def drop(self, name: str, dropped: bool = True) -> bool:
        cur = self._x("UPDATE players SET dropped = ? WHERE name = ?", (int(dropped), name))
        return bool(cur.rowcount)

    def players(self, active_only: bool = False) -> list[dict[str, Any]]:
        rows = self._q("SELECT name, vekn, pinned, dropped FROM players ORDER BY id", ())
        out = [{"name": n, "vekn": v, "pinned": p, "dropped": bool(d)} for n, v, p, d in rows]
        return [p for p in out if not p["dropped"]] if active_only else out

    # -- rounds and seating -----------------------------------------------------------------

    def rounds(self) -> list[dict[str, Any]]:
        rows = self._q("SELECT round, final, started, duration, state FROM rounds ORDER BY round", ())
        return [{"round": r, "final": bool(f), "started": s, "duration": d, "state": st} for r, f, s, d, st in rows]

    def current_round(self) -> dict[str, Any] | None:
        rounds = self.rounds()
        return rounds[-1] if rounds else None

    def add_round(self, tables: list[list[str]], final: bool = False) -> int:
        with self._lock:
            number = (self._q("SELECT MAX(round) FROM rounds", ())[0][0] or 0) + 1
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("INSERT INTO rounds (round, final) VALUES (?, ?)", (number, int(final)))
                for t, players in enumerate(tables, 1):
                    for s, p in enumerate(players, 1):
                        self._db.execute("INSERT INTO seating VALUES (?, ?, ?, ?)", (number, t, s, p))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return number

    def seating(self, round_no: int) -> list[list[str]]:
        tables: dict[int, list[str]] = {}
        for t, _s, p in self._q("SELECT table_no, seat, player FROM seating WHERE round = ? ORDER BY table_no, seat",
                                (round_no,)):
            tables.setdefault(t, []).append(p)
        return [tables[k] for k in sorted(tables)]

    def set_clock(self, round_no: int, started: float | None, duration: float, state: str) -> None:
        self._x("UPDATE rounds SET started = ?, duration = ?, state = ? WHERE round = ?",
                (started, duration, state, round_no))

    # -- entries from the tables ------------------------------------------------------------

    def apply_entry(self, table_no: int, seq: int, kind: str, body: dict[str, Any]) -> bool:
        """Keep an entry once; returns False if (table, seq) was already there (nothing done)."""
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                # JSON in ASCII: a lone surrogate a table sent cannot stop the store
                cur = self._db.execute("INSERT OR IGNORE INTO entries VALUES (?, ?, ?, ?, ?)",
                                       (table_no, seq, kind, json.dumps(body), now))
                new = bool(cur.rowcount)
                if new and kind == "result":
                    self._take_result(table_no, seq, body, now)
                elif new and kind == "judge":
                    self._db.execute("INSERT INTO judge_calls (table_no, body, ts) VALUES (?, ?, ?)",
                                     (table_no, json.dumps(body), now))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            if new:
                self._advance(table_no, seq)
        return new

    def acked(self, table_no: int) -> int:
        """The highest seq of this table below which every entry is kept."""
        return self._contiguous.get(table_no, 0)

    def _advance(self, table_no: int, seq: int) -> None:
        c = self._contiguous.get(table_no, 0)
        if seq == c + 1:
            c = seq
            while self._q("SELECT 1 FROM entries WHERE table_no = ? AND seq = ?", (table_no, c + 1)):
                c += 1
            self._contiguous[table_no] = c

    def _seqs_by_table(self) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for t, s in self._q("SELECT table_no, seq FROM entries ORDER BY table_no, seq", ()):
            out.setdefault(t, []).append(s)
        return out

    def entries(self, table_no: int, kind: str | None = None) -> list[dict[str, Any]]:
        rows = self._q("SELECT seq, kind, body FROM entries WHERE table_no = ? ORDER BY seq", (table_no,))
        return [{"seq": s, "kind": k, "body": json.loads(b)} for s, k, b in rows if kind is None or k == kind]

    # -- results ----------------------------------------------------------------------------

    def _take_result(self, table_no: int, seq: int, body: dict[str, Any], now: float) -> None:
        round_no = body.get("round")
        status, reason = "validated", ""
        problem = self.check_result(round_no, table_no, body)
        if problem:
            status, reason = "refused", problem
        row = self._db.execute("SELECT status, seq FROM results WHERE round = ? AND table_no = ?",
                               (round_no, table_no)).fetchone()
        if row is not None and (row[0] == "override" or (row[1] is not None and row[1] > seq)):
            return  # the organiser's word, or a later confirmation from the table, stands
        if status == "refused" and row is not None and row[0] == "validated":
            return  # a bad resend never undoes a good result
        clean = {k: body[k] for k in ("players", "vp", "winners", "out", "game_id") if k in body}
        self._db.execute("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(round, table_no) DO UPDATE "
                         "SET body = excluded.body, status = excluded.status, reason = excluded.reason, "
                         "seq = excluded.seq, updated = excluded.updated",
                         (round_no if isinstance(round_no, int) else -1, table_no,
                          json.dumps(clean), status, reason, seq, now))

    def check_result(self, round_no: Any, table_no: int, body: dict[str, Any]) -> str | None:
        """None if the result can stand; else the message key of why not."""
        if not isinstance(round_no, int):
            return "venue.check.round"
        seated = self.seating(round_no)
        players = body.get("players")
        if not (1 <= table_no <= len(seated)) or not isinstance(players, list) or \
                sorted(map(str, players)) != sorted(seated[table_no - 1]):
            return "venue.check.players"
        tour = scoring.tournament(self.game)
        if tour is not None:
            vps = body.get("vp")
            if not isinstance(vps, list) or len(vps) != len(players) or \
                    not all(isinstance(v, int | float) for v in vps):
                return "venue.check.values"
            return tour.check([float(v) for v in vps])
        winners = body.get("winners")
        if not isinstance(winners, list) or not set(map(str, winners)) <= set(map(str, players)):
            return "venue.check.players"
        return None

    def override(self, round_no: int, table_no: int, body: dict[str, Any], reason: str) -> str | None:
        """The organiser's result, with a reason: it stands whatever the table sends later. Checked
        like any result (None: kept; else why not)."""
        reason = " ".join(str(reason).split())[:300]
        if not reason:
            return "venue.override.reason"
        problem = self.check_result(round_no, table_no, body)
        if problem:
            return problem
        clean = {k: body[k] for k in ("players", "vp", "winners") if k in body}
        self._x("INSERT INTO results VALUES (?, ?, ?, 'override', ?, NULL, ?) ON CONFLICT(round, table_no) DO UPDATE "
                "SET body = excluded.body, status = 'override', reason = excluded.reason, seq = NULL, "
                "updated = excluded.updated", (round_no, table_no, json.dumps(clean), reason,
                                               time.time()))
        return None

    def results(self, round_no: int | None = None) -> list[dict[str, Any]]:
        q = "SELECT round, table_no, body, status, reason, seq FROM results"
        rows = self._q(q + (" WHERE round = ?" if round_no is not None else "") + " ORDER BY round, table_no",
                       (round_no,) if round_no is not None else ())
        return [{"round": r, "table": t, **json.loads(b), "status": s, "reason": why, "seq": seq}
                for r, t, b, s, why, seq in rows]

    def counted(self, final: bool = False) -> list[dict[str, Any]]:
        """The results that count: validated or overridden, of the preliminary rounds (or the final)."""
        finals = {r["round"] for r in self.rounds() if r["final"]}
        return [r for r in self.results() if r["status"] in ("validated", "override")
                and (r["round"] in finals) == final]

    def standings(self) -> list[scoring.Standing]:
        finals = self.counted(final=True)
        return scoring.standings([p["name"] for p in self.players()], self.counted(), self.game,
                                 toss=self.get("toss") or {}, final=finals[-1] if finals else None)

    # -- judge calls and live tables --------------------------------------------------------

    def judge_calls(self, open_only: bool = True) -> list[dict[str, Any]]:
        rows = self._q("SELECT id, table_no, body, ts, done FROM judge_calls" + (" WHERE done = 0" if open_only else "")
                       + " ORDER BY id", ())
        return [{"id": i, "table": t, **json.loads(b), "ts": ts, "done": bool(d)} for i, t, b, ts, d in rows]

    def judge_done(self, call_id: int) -> bool:
        return bool(self._x("UPDATE judge_calls SET done = 1 WHERE id = ?", (call_id,)).rowcount)

    def set_table_state(self, table_no: int, state: dict[str, Any] | None = None, online: bool | None = None) -> None:
        now = time.time()
        with self._lock:
            self._x("INSERT OR IGNORE INTO tables (table_no) VALUES (?)", (table_no,))
            if state is not None:
                self._x("UPDATE tables SET state = ?, updated = ? WHERE table_no = ?",
                        (json.dumps(state), now, table_no))
            if online is not None:
                self._x("UPDATE tables SET online = ?, updated = ? WHERE table_no = ?", (int(online), now, table_no))

    def tables(self) -> dict[int, dict[str, Any]]:
        rows = self._q("SELECT table_no, state, online, updated FROM tables ORDER BY table_no", ())
        return {t: {"state": json.loads(s) if s else None, "online": bool(o), "updated": u} for t, s, o, u in rows}

    # -- SQL --------------------------------------------------------------------------------

    def _q(self, sql: str, args: tuple) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def _x(self, sql: str, args: tuple) -> sqlite3.Cursor:
        with self._lock:
            return self._db.execute(sql, args)


def _contiguous(seqs: list[int]) -> int:
    c = 0
    for s in seqs:
        if s == c + 1:
            c = s
        elif s > c + 1:
            break
    return c
