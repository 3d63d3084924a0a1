"""Saving what can be saved from a damaged journal (an SD card after a power cut, a bad sector).

The damaged file is never deleted: it is renamed next to the journal, with its WAL, so that
anyone can try harder later. What can be read is copied game by game into the new journal, with
the same game and event numbers, so that ``--resume 3`` still finds game 3. A game whose events
cannot all be read keeps the events up to the first unreadable one: its state is then the state
it had at that moment, which a player can check and correct, rather than a wrong mix.

SQLite's own recovery (the ``sqlite3`` shell's ``.recover``, which reads past damaged pages)
is used when the shell is installed; otherwise the rows are read directly, which saves every
game whose pages are intact.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

log = logging.getLogger(__name__)

RECOVER_TIMEOUT = 20.0  # seconds for the sqlite3 shell; a journal of a season's games takes well under 1


def set_aside(path: Path) -> Path:
    """Rename the journal (and its -wal and -shm files) to ``<name>.damaged-<time>``; return the
    new name. Never overwrites an earlier one."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    os.replace(path, aside)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            # SQLite finds a WAL by name: keep it beside the damaged file, under its new name.
            os.replace(side, aside.with_name(aside.name + suffix))
    return aside


def _work_copy(aside: Path) -> Path:
    """A copy of the damaged file (and its WAL) to read from: reading must not change the file
    kept as evidence (SQLite would checkpoint its WAL into it)."""
    fd, tmp = tempfile.mkstemp(prefix=f"{aside.name}-", suffix=".read", dir=aside.parent)
    os.close(fd)
    work = Path(tmp)
    shutil.copyfile(aside, work)
    wal = aside.with_name(aside.name + "-wal")
    if wal.exists():
        shutil.copyfile(wal, work.with_name(work.name + "-wal"))
    return work


def _remove(db: Path) -> None:
    for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        path.unlink(missing_ok=True)


def _recovered_copy(work: Path) -> Path | None:
    """A fresh database holding what the sqlite3 shell's ``.recover`` could read from ``work``;
    None when the shell is missing or fails."""
    shell = shutil.which("sqlite3")
    if shell is None:
        return None
    out = work.with_name(work.name + ".recovered")
    try:
        dump = subprocess.run([shell, str(work), ".recover"], capture_output=True, timeout=RECOVER_TIMEOUT,
                              check=False)
        if not dump.stdout:
            return None
        subprocess.run([shell, str(out)], input=dump.stdout, capture_output=True, timeout=RECOVER_TIMEOUT,
                       check=False)
        return out if out.exists() else None
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("sqlite3 .recover of %s failed: %s", work, exc)
        _remove(out)
        return None


def _games_of(src: sqlite3.Connection) -> list[tuple]:
    try:
        return src.execute("SELECT id, game, created, players, updated, status, summary FROM games "
                           "ORDER BY id").fetchall()
    except sqlite3.Error:
        pass
    # The games table is lost: rebuild its rows from the events that name a game.
    try:
        ids = [r[0] for r in src.execute("SELECT DISTINCT game_id FROM events ORDER BY game_id")]
    except sqlite3.Error:
        return []
    rows = []
    for gid in ids:
        try:
            (payload,) = src.execute("SELECT payload FROM events WHERE game_id = ? AND type = 'start' "
                                     "ORDER BY id LIMIT 1", (gid,)).fetchone() or (None,)
            start = json.loads(payload) if payload else {}
        except (sqlite3.Error, ValueError):
            start = {}
        if isinstance(start, dict) and start.get("game"):
            now = time.time()
            rows.append((gid, start["game"], now, json.dumps(start.get("players", [])), now, "playing", ""))
    return rows


def _events_of(src: sqlite3.Connection, gid: int) -> tuple[list[tuple], bool]:
    """The readable events of a game, in order, and whether some were lost."""
    out: list[tuple] = []
    try:
        ids = [r[0] for r in src.execute("SELECT id FROM events WHERE game_id = ? ORDER BY id", (gid,))]
    except sqlite3.Error:
        return out, True
    for eid in ids:
        try:
            row = src.execute("SELECT id, game_id, type, seat, ts, source, payload FROM events WHERE id = ?",
                              (eid,)).fetchone()
            payload = json.loads(row[6])
        except (sqlite3.Error, ValueError, TypeError):
            return out, True  # what follows an unreadable event would replay onto a wrong state
        if not isinstance(payload, dict):
            return out, True
        out.append(row)
    return out, False


def _plan(src: sqlite3.Connection) -> list[tuple[tuple, list[tuple], bool]]:
    plan = []
    for row in _games_of(src):
        events, cut = _events_of(src, row[0])
        plan.append((row, events, cut))
    return plan


def _size(plan: list[tuple[tuple, list[tuple], bool]]) -> int:
    return sum(len(events) for _row, events, _cut in plan)


def copy_games(aside: Path, dest: sqlite3.Connection) -> tuple[int, int]:
    """Copy every readable game of the damaged file into ``dest`` (a new, empty journal).
    Returns (games saved whole or in part, games lost or cut short)."""
    try:
        work = _work_copy(aside)
    except OSError as exc:
        log.warning("cannot copy %s to read it: %s", aside, exc)
        return 0, 0
    recovered = None
    plan: list[tuple[tuple, list[tuple], bool]] = []
    try:
        # Both ways of reading, and the one that saves more events wins: reading the rows
        # directly is exact where pages are intact; .recover also reads around damaged ones.
        for source in (work, "recover"):
            if source == "recover":
                recovered = _recovered_copy(work)
                if recovered is None:
                    continue
                source = recovered
            try:
                src = sqlite3.connect(str(source), timeout=1.0)
                try:
                    candidate = _plan(src)
                finally:
                    src.close()
            except sqlite3.Error as exc:
                log.warning("reading %s: %s", source, exc)
                continue
            if _size(candidate) > _size(plan):
                plan = candidate
    finally:
        _remove(work)
        if recovered is not None:
            _remove(recovered)
    saved = lost = 0
    for row, events, cut in plan:
        if not events or events[0][2] != "start":
            lost += 1
            continue
        try:
            dest.execute("BEGIN IMMEDIATE")
            dest.execute("INSERT INTO games (id, game, created, players, updated, status, summary) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)", row)
            dest.executemany("INSERT INTO events (id, game_id, type, seat, ts, source, payload) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?)", events)
            dest.execute("COMMIT")
        except sqlite3.Error as exc:
            log.warning("game %s not recovered: %s", row[0], exc)
            if dest.in_transaction:
                dest.execute("ROLLBACK")
            lost += 1
            continue
        saved += 1
        lost += int(cut)
    return saved, lost
