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

import errno
import json
import logging
import os
import socket
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.table import statediff as fx
from companion.textsafe import printable

log = logging.getLogger(__name__)

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
    """The journal file cannot be opened or is not a journal, or a change could not be written.

    ``key`` names the cause in the translation table (``journal.cause.*``), so that a front end
    can say it in words ("disque plein") rather than show SQLite's message."""

    def __init__(self, message: str, key: str = "journal.cause.other") -> None:
        super().__init__(message)
        self.key = key

    def describe(self, lang: str | None = None) -> str:
        """The cause in words, then the technical detail."""
        from companion.i18n import t

        return f"{t(self.key, lang)} ({self})"


class GameLocked(JournalError):
    """Another program has this game open: one writer per game."""

    def __init__(self, message: str, game_id: int, holder: str) -> None:
        super().__init__(message, "journal.cause.locked_game")
        self.game_id = game_id
        self.holder = holder

    def describe(self, lang: str | None = None) -> str:
        from companion.i18n import t

        return t("journal.game_locked", lang, id=self.game_id, holder=self.holder)


class JournalConflict(JournalError):
    """The game moved on in the journal since this program last read it (another writer)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "journal.cause.conflict")


# SQLite's primary result codes, by the cause a person can act on.
_CAUSES = {
    13: "journal.cause.full",  # SQLITE_FULL
    10: "journal.cause.io",  # SQLITE_IOERR
    8: "journal.cause.read_only",  # SQLITE_READONLY
    5: "journal.cause.busy",  # SQLITE_BUSY
    6: "journal.cause.busy",  # SQLITE_LOCKED
    11: "journal.cause.damaged",  # SQLITE_CORRUPT
    26: "journal.cause.damaged",  # SQLITE_NOTADB
    14: "journal.cause.cannot_open",  # SQLITE_CANTOPEN
}
_OS_CAUSES = {errno.ENOSPC: "journal.cause.full", errno.EDQUOT: "journal.cause.full",
              errno.EROFS: "journal.cause.read_only", errno.EACCES: "journal.cause.read_only",
              errno.EPERM: "journal.cause.read_only", errno.EIO: "journal.cause.io"}
_DAMAGED = {11, 26}
SQLITE_HEADER = b"SQLite format 3\x00"
OUR_TABLES = {"games", "events", "sqlite_sequence"}


def _cause(exc: BaseException) -> str:
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None:
            return _CAUSES.get(code & 0xFF, "journal.cause.other")
        text = str(exc).lower()
        if "disk is full" in text:
            return "journal.cause.full"
        if "locked" in text:
            return "journal.cause.busy"
        if "malformed" in text or "not a database" in text:
            return "journal.cause.damaged"
        return "journal.cause.other"
    if isinstance(exc, OSError):
        return _OS_CAUSES.get(exc.errno or 0, "journal.cause.other")
    return "journal.cause.other"


def _error(path: Path, exc: BaseException) -> JournalError:
    cause = _cause(exc)
    if cause in ("journal.cause.io", "journal.cause.cannot_open") and _disk_full(path):
        # SQLite says "disk I/O error" when it cannot create its -wal or -shm file on a full
        # disk: the person needs to hear "disk full", not a failing SD card.
        cause = "journal.cause.full"
    return JournalError(f"{path}: {exc}", cause)


def _disk_full(path: Path) -> bool:
    import shutil

    try:
        return shutil.disk_usage(path.parent).free < 64 * 1024
    except OSError:
        return False


def _is_damage(exc: BaseException) -> bool:
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _DAMAGED
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


class _Damaged(Exception):
    """Raised inside ``Journal.__init__`` when the file must be set aside."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Notice:
    """What happened to the journal at opening, for the user, in one sentence."""

    key: str
    values: dict[str, Any]


class Journal:
    """One SQLite file holding every game. Each ``append`` is its own committed, fsynced
    transaction, so an event the caller got back is on the disk.

    Opening never stops the program on a damaged file: a file SQLite reports damaged (by its
    ``quick_check`` or an error while opening), or an empty one, is set aside under a new name
    (kept, never deleted), what can be read is copied game by game into a new journal, and
    ``notice`` says so. A file that is not a journal (another program's database, a text file) is
    refused untouched."""

    def __init__(self, path: str | Path, timeout: float = 5.0, check: bool = True) -> None:
        from companion.table import recovery

        self.path = Path(path)
        self.timeout = timeout
        self.notice: Notice | None = None
        self.set_aside: Path | None = None
        self._locks: dict[int, _GameLock] = {}
        self._fd: int | None = None
        self._damaged = False  # damage found while running: every change is refused
        self._full: JournalError | None = None  # opened read-only on a full disk
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _error(self.path, exc) from exc
        record = recovery.read_record(self.path)
        if record is not None:
            # A recovery was under way when the program stopped (a crash, a power cut): finish it.
            self._db = self._recover(str(record.get("reason") or "resumed"))
        else:
            try:
                self._db = self._open(check)
            except _Damaged as damaged:
                self._db = self._recover(damaged.reason)
            except JournalError as exc:
                if exc.key != "journal.cause.full" or not self.path.exists():
                    raise
                # A full disk: the games can still be listed, exported and shown; every change is
                # refused, saying the disk is full, until space is freed and the program restarted.
                self._db = self._open_read_only(exc)
        self._watch()

    def _open_read_only(self, cause: JournalError) -> sqlite3.Connection:
        for flags in ("mode=ro", "immutable=1"):  # immutable: when even the -shm cannot be made
            try:
                db = sqlite3.connect(f"file:{self.path}?{flags}", uri=True, isolation_level=None,
                                     timeout=self.timeout, check_same_thread=False)
                db.execute("SELECT COUNT(*) FROM games").fetchone()
            except sqlite3.Error:
                continue
            self._full = cause
            self.notice = Notice("journal.notice.full", {"path": str(self.path)})
            log.info("journal %s opened read-only: %s", self.path, cause)
            return db
        raise cause

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: we issue BEGIN/COMMIT ourselves, nothing is left pending.
        # The core's Session serves one change at a time from any thread (the window, the phone
        # server): the connection is shared under its lock, never used by two at once.
        return sqlite3.connect(str(self.path), isolation_level=None, timeout=self.timeout,
                               check_same_thread=False)

    def _open(self, check: bool) -> sqlite3.Connection:
        existed = self.path.exists()
        if existed:
            try:
                size = self.path.stat().st_size
                with open(self.path, "rb") as f:
                    head = f.read(len(SQLITE_HEADER))
            except OSError as exc:
                raise _error(self.path, exc) from exc
            if size == 0:
                raise _Damaged("empty")
            if head != SQLITE_HEADER:
                from companion.table import recovery

                # Zeroed by a power cut, or overwritten: a journal still holds rows of ours.
                if head.strip(b"\x00") and not recovery.read_rows(self.path).ours:
                    raise JournalError(f"{self.path}: not a Table Companion journal (not an SQLite file)",
                                       "journal.cause.not_a_journal")
                raise _Damaged("header")
        db = None
        try:
            db = self._connect()
            if existed:
                tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                foreign = tables - OUR_TABLES
                if foreign or (tables and not {"games", "events"} <= tables):
                    db.close()
                    raise JournalError(
                        f"{self.path}: not a Table Companion journal (tables {', '.join(sorted(tables))})",
                        "journal.cause.not_a_journal")
                if check:
                    # Reads every page once; on a journal of a few MB that is a few ms.
                    result = db.execute("PRAGMA quick_check(1)").fetchone()[0]
                    if result != "ok":
                        db.close()
                        raise _Damaged(str(result))
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")  # see the module docstring
            db.execute("PRAGMA foreign_keys=ON")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                db.close()
                raise JournalError(f"{self.path}: journal version {version} is newer than this program",
                                   "journal.cause.newer")
            db.executescript(_SCHEMA)
            if version < SCHEMA_VERSION:
                db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            return db
        except sqlite3.Error as exc:
            if db is not None:
                db.close()
            if _is_damage(exc):
                raise _Damaged(str(exc)) from exc
            error = _error(self.path, exc)
            if error.key in ("journal.cause.cannot_open", "journal.cause.other") and not os.access(
                    self.path.parent, os.W_OK):
                error.key = "journal.cause.read_only"
            raise error from exc

    def _recover(self, reason: str) -> sqlite3.Connection:
        """Keep the damaged file under a new name, put in its place a new journal holding every
        game that can be read from it, and say so (``recovery`` tells how, crash-safe)."""
        from companion.table import recovery

        try:
            aside, figures = recovery.recover(self.path, reason, _SCHEMA, SCHEMA_VERSION)
        except OSError as exc:
            raise _error(self.path, exc) from exc
        self.set_aside = aside
        db = self._open(check=False)
        if reason == "empty":
            self.notice = Notice("journal.notice.empty", {"path": str(self.path), "aside": str(aside)})
        else:
            self.notice = Notice("journal.notice.recovered", {
                "path": str(self.path), "aside": str(aside), "games": figures.games,
                "events": figures.events, "lost_games": figures.lost_games, "lost": figures.lost_events})
        # The user is told in one sentence (notice); the technical reason goes to the log only.
        log.info("journal %s damaged (%s): set aside as %s", self.path, reason, aside)
        return db

    # -- damage while running -----------------------------------------------------------------

    def _watch(self) -> None:
        """Keep a descriptor on the journal file, to tell at each write that the file at the
        journal's name is still this one and still an SQLite file."""
        if not hasattr(os, "pread"):  # pragma: no cover - not POSIX: SQLite's own checks remain
            return
        try:
            self._fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            self._fd = None

    def _intact(self) -> bool:
        """The cheap check before each commit: same file (device and inode), SQLite's header,
        and not shorter than the header says. A checkpoint by another program can be writing
        page 1 just now: a failed check is read again before it is believed."""
        if self._fd is None:
            return True
        for attempt in range(3):
            if self._looks_intact():
                return True
            if attempt < 2:
                time.sleep(0.05)
        return False

    def _looks_intact(self) -> bool:
        assert self._fd is not None
        try:
            named = os.stat(self.path)
            own = os.fstat(self._fd)
            head = os.pread(self._fd, 100, 0)
        except OSError:
            return False
        if (named.st_dev, named.st_ino) != (own.st_dev, own.st_ino) or head[:16] != SQLITE_HEADER:
            return False
        page = int.from_bytes(head[16:18], "big")
        page = 65536 if page == 1 else page
        pages = int.from_bytes(head[28:32], "big")
        counted = head[92:96] == head[24:28]  # the page count is valid only then (fileformat2)
        return not (counted and own.st_size < pages * page)

    def _keep_damaged(self) -> None:
        """The file was damaged, truncated or replaced under this program: keep what this
        program wrote (the file it opened, and its log) and have the next start recover from it."""
        if self._damaged:
            return
        self._damaged = True
        from companion.table import recovery

        try:
            aside = recovery.aside_name(self.path)
            with open(aside, "wb") as out:
                if self._fd is not None:
                    offset = 0
                    while chunk := os.pread(self._fd, 1 << 20, offset):
                        out.write(chunk)
                        offset += len(chunk)
                out.flush()
                os.fsync(out.fileno())
            wal = self.path.with_name(self.path.name + "-wal")
            if wal.exists():
                import shutil

                shutil.copyfile(wal, aside.with_name(aside.name + "-wal"))
            recovery.write_record(self.path, {"aside": aside.name, "reason": "running"})
            self.set_aside = aside
            log.warning("journal %s damaged while running: what was written is kept as %s", self.path, aside)
        except OSError as exc:
            log.warning("journal %s damaged while running; cannot keep a copy: %s", self.path, exc)

    def notice_text(self, lang: str | None = None) -> str:
        """The notice in one sentence, or ""."""
        if self.notice is None:
            return ""
        from companion.i18n import t

        return t(self.notice.key, lang, **self.notice.values)

    def close(self) -> None:
        for lock in list(self._locks.values()):
            lock.release()
        self._locks.clear()
        self._db.close()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one writer per game ---------------------------------------------------------------

    def lock_game(self, game_id: int, holder: str = "") -> None:
        """Hold game ``game_id`` for this program until ``unlock_game`` or ``close``; raise
        GameLocked naming the program that holds it. The lock is the kernel's (``lockf``): it
        goes with the process, even on ``kill -9``."""
        lock = self._locks.get(game_id)
        if lock is not None:
            lock.count += 1
            return
        # The lock sits by the real file: a journal opened through a link is the same journal.
        lock = _GameLock.acquire(Path(os.path.realpath(self.path)), game_id, holder)
        if lock is not None:
            self._locks[game_id] = lock

    def unlock_game(self, game_id: int) -> None:
        lock = self._locks.get(game_id)
        if lock is None:
            return
        lock.count -= 1
        if lock.count <= 0:
            lock.release()
            del self._locks[game_id]

    # -- writing ------------------------------------------------------------------------------

    def _write(self, work: Callable[[], Any]) -> Any:
        """Run ``work`` in one immediate transaction. Any failure rolls back (when SQLite has
        not already) and is raised as JournalError naming its real cause: a full disk makes
        SQLite end the transaction itself, and a blind ROLLBACK would then hide the cause
        behind "cannot rollback - no transaction is active"."""
        if self._damaged:
            raise JournalError(f"{self.path}: damaged while running", "journal.cause.damaged_running")
        if self._full is not None:
            raise JournalError(str(self._full), "journal.cause.full")
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._failure(exc) from exc
        try:
            result = work()
            if not self._intact():
                raise JournalError(f"{self.path}: the file was damaged or replaced while running",
                                   "journal.cause.damaged_running")
            self._db.execute("COMMIT")
        except BaseException as exc:
            if self._db.in_transaction:
                try:
                    self._db.execute("ROLLBACK")
                except sqlite3.Error:
                    log.warning("journal %s: rollback failed after %s", self.path, exc)
            if isinstance(exc, JournalError) and exc.key == "journal.cause.damaged_running":
                self._keep_damaged()
            if isinstance(exc, sqlite3.Error):
                raise self._failure(exc) from exc
            raise
        return result

    def _failure(self, exc: sqlite3.Error) -> JournalError:
        if _is_damage(exc) and not self._intact():
            self._keep_damaged()
            return JournalError(f"{self.path}: {exc}", "journal.cause.damaged_running")
        return _error(self.path, exc)

    def new_game(self, game: str, players: list[str], ts: float | None = None,
                 first: tuple[str, dict[str, Any], str] | None = None) -> tuple[int, Event | None]:
        """Create a game and, in the same transaction, its first event ``(type, payload,
        source)``: a crash can never leave a game without its set-up."""
        now = time.time() if ts is None else ts

        def work() -> tuple[int, Event | None]:
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
            return gid, event

        gid, event = self._write(work)
        return gid, event

    def append(self, game_id: int, type_: str, payload: dict[str, Any], *, seat: int | None = None,
               source: str = "key", ts: float | None = None, status: str | None = None,
               summary: str | None = None, after: int | None = None) -> Event:
        """Write one event and make it durable; only then return it. With ``after`` (the last
        event id this program knows of the game), refuse with JournalConflict when another
        program has written since."""
        if source not in SOURCES:
            raise ValueError(f"unknown input source {source!r}; expected one of {SOURCES}")
        now = time.time() if ts is None else ts
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))

        def work() -> sqlite3.Cursor:
            if after is not None:
                # Inside the write transaction: no other program can slip an event in between.
                last = self._db.execute("SELECT MAX(id) FROM events WHERE game_id = ?", (game_id,)).fetchone()[0]
                if last != after:
                    raise JournalConflict(f"{self.path}: game {game_id} was changed by another program "
                                          f"(last event {last}, expected {after})")
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
            return cur

        cur = self._write(work)
        return Event(int(cur.lastrowid), game_id, type_, seat, now, source, payload)

    def events(self, game_id: int) -> list[Event]:
        return list(self.iter_events(game_id))

    def iter_events(self, game_id: int, after: int | None = None) -> Iterator[Event]:
        """The events of a game in order (only those after event ``after``, when given: what a
        follower of a long game reads at each change, not the whole game again). A payload that
        is not a JSON object (hand-edited, damaged) comes as ``{"damaged": reason}``, for the
        replay to skip and report."""
        try:
            query = "SELECT id, type, seat, ts, source, payload FROM events WHERE game_id = ?"
            if after is None:
                rows = self._db.execute(query + " ORDER BY id", (game_id,)).fetchall()
            else:
                rows = self._db.execute(query + " AND id > ? ORDER BY id", (game_id, after)).fetchall()
        except sqlite3.Error as exc:
            raise _error(self.path, exc) from exc
        for eid, type_, seat, ts, source, payload in rows:
            yield Event(eid, game_id, str(type_), seat if isinstance(seat, int) else None,
                        ts if isinstance(ts, int | float) else 0.0, str(source), _payload(payload))

    def effects_of(self, ids: list[int]) -> dict[int, list[dict[str, Any]]]:
        """The recorded effects of the events ``ids`` (what an undo takes back): read when asked,
        so that a long game does not keep every event's effects in memory."""
        out: dict[int, list[dict[str, Any]]] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for eid, payload in self._read(f"SELECT id, payload FROM events WHERE id IN ({marks})", tuple(chunk)):
                effects = _payload(payload).get("effects")
                out[eid] = effects if isinstance(effects, list) else []
        return out

    def event_ids(self, game_id: int) -> list[int]:
        return [r[0] for r in self._read("SELECT id FROM events WHERE game_id = ? ORDER BY id", (game_id,))]

    def last_event_id(self, game_id: int) -> int | None:
        return self._read("SELECT MAX(id) FROM events WHERE game_id = ?", (game_id,))[0][0]

    def _read(self, query: str, args: tuple) -> list[tuple]:
        try:
            return self._db.execute(query, args).fetchall()
        except sqlite3.Error as exc:
            raise _error(self.path, exc) from exc

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
        return [GameRow(i, game, c, u, _players(p), s, summ, n)
                for i, game, c, u, p, s, summ, n in self._read(query, args)]


def _payload(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError) as exc:
        return {"damaged": f"{type(exc).__name__}: {exc}"[:200]}
    if not isinstance(value, dict):
        return {"damaged": "not a JSON object"}
    if "effects" in value:
        fx.upgrade(value["effects"])
    return value


def _players(text: Any) -> list[str]:
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return []
    return [str(p) for p in value] if isinstance(value, list) else []


class _GameLock:
    """A ``lockf`` lock on ``<journal>.locks/<game>.lock``, which also says who holds it."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.count = 1

    @classmethod
    def acquire(cls, journal: Path, game_id: int, holder: str) -> _GameLock | None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not on Linux: SQLite's own check remains
            return None
        folder = journal.with_name(journal.name + ".locks")
        path = folder / f"{game_id}.lock"
        try:
            folder.mkdir(exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return None  # a read-only folder: nothing can be written there by anyone
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            try:
                who = path.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                who = ""
            who = printable(who, limit=200) or "?"
            raise GameLocked(f"game {game_id} is open in another program ({who})", game_id, who) from None
        info = holder or f"{Path(sys.argv[0]).name or 'python'} {' '.join(sys.argv[1:3])}".strip()
        text = f"{info}, pid {os.getpid()} on {socket.gethostname()}"
        try:
            os.ftruncate(fd, 0)
            os.write(fd, text.encode("utf-8"))
        except OSError:
            pass  # the lock holds without its label
        return cls(fd)

    def release(self) -> None:
        try:
            os.close(self.fd)  # closing the descriptor drops the lockf lock
        except OSError:
            pass

