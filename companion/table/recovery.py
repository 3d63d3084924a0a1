"""Saving what can be saved from a damaged journal (an SD card after a power cut, a bad sector,
a file truncated or overwritten).

Every readable row of the damaged file and of its write-ahead log is read page by page
(``sqlitefile``), trusting neither its header, its schema nor its indexes. Every game that has
at least one readable event comes back under its own number (``--resume 3`` still finds game 3),
even without its ``start`` event: the set-up is then rebuilt from the game's row (its kind and
players) and from the values the surviving events record as "before" (effects hold values, not
steps, so a number changed after the gap is right again). What was lost is counted exactly from
the event numbers, which SQLite gives in sequence and this program never deletes.

Crash-safe, in this order, each step durable before the next:
1. the damaged file (and its log) gets a second name, ``<journal>.damaged-<time>``, by a hard
   link (a copy on file systems without links), and ``<journal>.recovery`` records that name;
2. the new journal is written whole into ``<journal>.recovering`` and synced, and the figures are
   added to ``<journal>.recovery``;
3. the damaged file's log is removed from beside the journal (it is kept under the new name),
   then one rename puts the new journal in place of the damaged one, and the record is removed.
A start that finds ``<journal>.recovery`` resumes from the step it names; the damaged file is
never deleted, and nothing but the journal and the file set aside is left behind.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import sqlite3
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from companion.table import statediff as fx
from companion.table.sqlitefile import File

log = logging.getLogger(__name__)

SOURCES = ("touch", "key", "scan", "script", "phone")


@dataclass
class Figures:
    """What came back and what was lost, for the sentence the user is told."""

    games: int = 0
    events: int = 0
    lost_games: int = 0
    lost_events: int = 0


# -- reading the rows ---------------------------------------------------------------------------

def _is_event(v: list[Any]) -> bool:
    return (len(v) == 7 and v[0] is None and isinstance(v[1], int) and isinstance(v[2], str)
            and (v[3] is None or isinstance(v[3], int)) and isinstance(v[4], int | float)
            and v[5] in SOURCES and isinstance(v[6], str))


def _is_game(v: list[Any]) -> bool:
    return (len(v) == 7 and v[0] is None and isinstance(v[1], str) and isinstance(v[2], int | float)
            and isinstance(v[3], str) and isinstance(v[4], int | float) and isinstance(v[5], str)
            and isinstance(v[6], str))


@dataclass
class Rows:
    events: dict[int, tuple]  # id -> (id, game_id, type, seat, ts, source, payload)
    games: dict[int, tuple]  # id -> (id, game, created, players, updated, status, summary)
    sequence: int  # the last event number SQLite gave, when its row could be read

    @property
    def ours(self) -> bool:
        return bool(self.events or self.games)


def read_rows(path: Path) -> Rows:
    """Every readable row of our tables in the file at ``path`` (and its -wal)."""
    events: dict[int, tuple] = {}
    games: dict[int, tuple] = {}
    sequence = 0
    try:
        src = File(path)
    except OSError as exc:
        log.warning("cannot read %s: %s", path, exc)
        return Rows({}, {}, 0)
    for _page, rowid, v in src.rows():
        if rowid < 1:
            continue
        if _is_event(v):
            events[rowid] = (rowid, *v[1:])
        elif _is_game(v):
            old = games.get(rowid)
            if old is None or v[4] >= old[4]:  # a stale copy of the row: the latest update wins
                games[rowid] = (rowid, *v[1:])
        elif len(v) == 2 and v[0] == "events" and isinstance(v[1], int):
            sequence = max(sequence, v[1])
    return Rows(events, games, sequence)


# -- rebuilding the games -----------------------------------------------------------------------

def _json(text: Any) -> Any:
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return None
    if isinstance(value, dict) and "effects" in value:
        fx.upgrade(value["effects"])  # an older journal's names, as the replay reads them
    return value


def _counters_in(events: list[tuple]) -> tuple[set[str], set[str], int]:
    """The seat counters and shared counters the events change, and the number of seats they name."""
    counters: set[str] = set()
    shared: set[str] = set()
    seats = 0
    for row in events:
        for e in _json(row[6]).get("effects") or []:
            p = e.get("p") if isinstance(e, dict) else None
            if not isinstance(p, list) or len(p) < 2:
                continue
            if p[0] == "seats" and isinstance(p[1], int):
                seats = max(seats, p[1] + 1)
                if len(p) >= 4 and p[2] == "counters" and isinstance(p[3], str):
                    counters.add(p[3])
            elif p[0] == "shared" and isinstance(p[1], str):
                shared.add(p[1])
    return counters, shared, seats


def _guess_game(counters: set[str], shared: set[str]) -> str | None:
    """The kind of game whose counters are the ones the events change (its row and start lost):
    the one they fit best."""
    from companion import registry
    from companion.table.data import load_table

    best, score = None, 0.0
    try:
        known = registry.ids()  # the shipped games and the user's own
    except OSError:
        return None
    for gid in known:
        try:
            data = load_table(gid)
        except Exception:  # a game that does not load is not the one
            continue
        if not (counters or shared) or not counters <= set(data.counters) or not shared <= set(data.shared):
            continue
        fit = (len(counters) + len(shared)) / (len(data.counters) + len(data.shared))
        if fit > score:
            best, score = gid, fit
    return best


def _set_path(state: dict, path: list, value: Any) -> None:
    node: Any = state
    for key in path[:-1]:
        if isinstance(node, dict):
            node = node.setdefault(key, {})
        elif isinstance(node, list) and isinstance(key, int) and -len(node) <= key < len(node):
            node = node[key]
        else:
            return
    last = path[-1]
    if isinstance(node, dict) or (isinstance(node, list) and isinstance(last, int) and -len(node) <= last < len(node)):
        node[last] = value


def _start_for(gid: int, game: str, players: list[str], events: list[tuple]) -> dict[str, Any] | None:
    """The set-up of a game whose ``start`` is lost: the game's opening state, with every value
    the surviving events say it had before they changed it."""
    from companion.table.data import load_table

    try:
        data = load_table(game)
    except Exception as exc:  # an unknown kind of game: the game cannot be rebuilt
        log.warning("game %s (%s) cannot be rebuilt: %s", gid, game, exc)
        return None
    # The opening state every game's rules start from (rules/base.py); what a game's own rules
    # add to it is in the surviving events' "before" values, applied next. (The rules are not
    # asked: they build on the journal, which this module serves.)
    now = events[0][4]
    state: dict[str, Any] = {
        "game": data.id, "seed": 0, "rng": 0, "options": {},
        "seats": [{"name": n, "counters": {cid: c.start for cid, c in data.counters.items()}, "out": False, "turns": 0}
                  for n in players],
        "shared": {cid: c.start for cid, c in data.shared.items()},
        "first": None, "active": None, "turn": 0, "round": 0, "phase": None,
        "over": False, "winner": [], "clock": {"start": now, "turn": now, "round": now}}
    seen: set[str] = set()
    for row in events:
        for e in _json(row[6]).get("effects") or []:
            if not isinstance(e, dict) or not isinstance(e.get("p"), list) or not e["p"]:
                continue
            key = json.dumps(e["p"])
            if key in seen:
                continue
            seen.add(key)
            if "o" in e:
                _set_path(state, e["p"], e["o"])
    if state.get("first") is None and any(r[2] not in ("start", "first_player") for r in events):
        state["first"] = 0  # play went on: the draw happened, do not draw again on opening
    return {"players": players, "seed": 0, "options": {}, "game": game, "recovered": True,
            "notes": [["table.started", {"game": f"@g:{game}", "players": players}]],
            "effects": fx.diff({}, state)}


@dataclass
class Plan:
    games: list[tuple]  # game rows to write
    events: list[tuple]  # event rows to write, synthesised starts included
    figures: Figures
    sequence: int


def plan(rows: Rows) -> Plan:
    """What goes into the new journal, and the figures."""
    by_game: dict[int, list[tuple]] = {}
    bad = 0
    for eid in sorted(rows.events):
        row = rows.events[eid]
        if not isinstance(_json(row[6]), dict):
            bad += 1  # a row that reads but whose payload does not: lost
            continue
        by_game.setdefault(row[1], []).append(row)
    used = {r[0] for evs in by_game.values() for r in evs}
    last_event = max([rows.sequence, *rows.events]) if (rows.events or rows.sequence) else 0
    last_game = max([*rows.games, *by_game], default=0)
    out_games: list[tuple] = []
    out_events: list[tuple] = []
    figures = Figures()
    for gid in sorted(by_game):
        evs = by_game[gid]
        row = rows.games.get(gid)
        start = _json(evs[0][6]) if evs[0][2] == "start" else None
        if isinstance(start, dict) and isinstance(start.get("game"), str):
            game = start["game"]
            players = [str(p) for p in start.get("players") or []]
        elif row is not None:
            game = row[1]
            players = [str(p) for p in (_json(row[3]) or [])]
        else:
            counters, shared, seats = _counters_in(evs)
            game = _guess_game(counters, shared) or ""
            players = [str(n + 1) for n in range(seats)]
        synthetic = None
        if start is None:
            payload = _start_for(gid, game, players, evs) if game and players else None
            if payload is None:
                figures.lost_games += 1
                continue
            free = [n for n in range(evs[0][0] - 1, 0, -1) if n not in used]
            sid = free[0] if free else min(used) - 1
            used.add(sid)
            synthetic = (sid, gid, "start", None, evs[0][4], "script",
                         json.dumps(payload, ensure_ascii=False, separators=(",", ":")))
        if row is None:
            row = (gid, game, evs[0][4], json.dumps(players, ensure_ascii=False), evs[-1][4], "playing", "")
        out_games.append(row)
        if synthetic is not None:
            out_events.append(synthetic)
        out_events.extend(evs)
        figures.games += 1
        figures.events += len(evs)
    figures.lost_games = max(last_game - figures.games, figures.lost_games)
    figures.lost_events = max(last_event - figures.events, bad)
    return Plan(out_games, out_events, figures, last_event)


# -- writing, crash-safe ------------------------------------------------------------------------

def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _keep(src: Path, dest: Path) -> None:
    """A second name for ``src`` (a hard link; a synced copy where links are not possible)."""
    try:
        os.link(src, dest)
    except OSError:
        shutil.copyfile(src, dest)
        _fsync(dest)


def _sides(path: Path) -> tuple[Path, Path]:
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def record_path(path: Path) -> Path:
    return path.with_name(path.name + ".recovery")


def building_path(path: Path) -> Path:
    return path.with_name(path.name + ".recovering")


def write_record(path: Path, record: dict[str, Any]) -> None:
    target = record_path(path)
    tmp = target.with_name(target.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(record, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, target)
    _fsync_dir(path.parent)


def read_record(path: Path) -> dict[str, Any] | None:
    try:
        value = json.loads(record_path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def aside_name(path: Path, tag: str = "damaged") -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.{tag}-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.{tag}-{stamp}-{n}")
    return aside


def keep_aside(path: Path, reason: str) -> Path:
    """Step 1: record the name the damaged file will be kept under, then give it that name too
    (a crash between the two leaves a record that the next start completes, never a stray file)."""
    aside = aside_name(path)
    write_record(path, {"aside": aside.name, "reason": reason})
    _link_aside(path, aside)
    return aside


def _link_aside(path: Path, aside: Path) -> None:
    if not aside.exists():
        _keep(path, aside)
    wal, kept_wal = _sides(path)[0], aside.with_name(aside.name + "-wal")
    if wal.exists() and not kept_wal.exists():
        # SQLite finds a log by name: it is kept beside the damaged file, under its new name.
        _keep(wal, kept_wal)
    _fsync_dir(path.parent)


def _build(path: Path, aside: Path, schema: str, version: int) -> Figures:
    """Step 2: the new journal, whole, in ``<journal>.recovering``."""
    building = building_path(path)
    for stale in (building, building.with_name(building.name + "-journal")):
        stale.unlink(missing_ok=True)
    the_plan = plan(read_rows(aside))
    db = sqlite3.connect(str(building), isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=DELETE")  # no -wal or -shm to leave behind
        db.execute("PRAGMA synchronous=FULL")
        db.executescript(schema)
        db.execute(f"PRAGMA user_version={version}")
        db.execute("BEGIN IMMEDIATE")
        db.executemany("INSERT INTO games (id, game, created, players, updated, status, summary) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", the_plan.games)
        db.executemany("INSERT INTO events (id, game_id, type, seat, ts, source, payload) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", the_plan.events)
        # New events keep numbers after every one the damaged file gave, lost ones included.
        db.execute("DELETE FROM sqlite_sequence WHERE name = 'events'")
        db.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('events', ?)",
                   (max([the_plan.sequence, *(e[0] for e in the_plan.events)]),))
        db.execute("COMMIT")
    finally:
        db.close()
    _fsync(building)
    return the_plan.figures


def _swap(path: Path, record: dict[str, Any]) -> None:
    """Step 3: the new journal in place of the damaged one, by one rename."""
    building = building_path(path)
    if building.exists():
        if record.get("reason") == "running" and path.exists():
            # The file now at the journal's name is not the one this program wrote: keep it too.
            _keep(path, aside_name(path, "replaced"))
        for side in _sides(path):
            side.unlink(missing_ok=True)
        os.replace(building, path)
        _fsync_dir(path.parent)
    record_path(path).unlink(missing_ok=True)
    _fsync_dir(path.parent)


def recover(path: Path, reason: str, schema: str, version: int) -> tuple[Path, Figures]:
    """Recover the journal at ``path`` (or finish a recovery a crash interrupted); return the
    name the damaged file is kept under and the figures."""
    record = read_record(path)
    if not record or not record.get("aside"):
        keep_aside(path, reason)
        record = read_record(path) or {}
    aside = path.with_name(str(record["aside"]))
    record_path(path).with_name(record_path(path).name + ".tmp").unlink(missing_ok=True)
    if "figures" not in record:
        if record.get("reason") != "running":
            _link_aside(path, aside)  # the damaged file is still at the journal's name until the swap
        figures = _build(path, aside, schema, version)
        record = {**record, "figures": asdict(figures)}
        write_record(path, record)
    figures = Figures(**record["figures"])
    _swap(path, record)
    log.info("journal %s recovered from %s: %s", path, aside, figures)
    return aside, figures
