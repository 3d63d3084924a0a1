"""Recovery that recovers (issue 22, items 1 and 2): real journals damaged in the four ways a
table meets (truncated, header zeroed, last pages zeroed, garbage over the whole file) at random
offsets give back at least 90% of the events that survive in the file, and the sentence's
figures are true; a crash during recovery loses nothing and the next start finishes it; damage
while the program runs is noticed at the next write and nothing announced is lost."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.i18n.grammar import count
from companion.table.commands import Parser
from companion.table.engine import Game
from companion.table.journal import Journal

pytestmark = pytest.mark.timeout(600)

# The journals are in memory (/dev/shm) where the machine has it, as the venue tests' files: the
# same SQLite code and fsync calls, without a disk's cost for each of the season's 880 commits and
# each recovery's writes; a process that dies (os._exit) leaves the same files as on a disk.
RAM = Path("/dev/shm")


@pytest.fixture(scope="module")
def ram_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    if not (RAM.is_dir() and os.access(RAM, os.W_OK)):
        yield tmp_path_factory.getbasetemp()
        return
    root = Path(tempfile.mkdtemp(prefix="companion-journal-tests-", dir=RAM))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _folder(root: Path, name: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=re.sub(r"[^\w.-]", "_", name)[:40] + "-", dir=root))


@pytest.fixture
def tmp_path(request: pytest.FixtureRequest, ram_root: Path) -> Path:
    """A test's own folder, in memory (see above)."""
    return _folder(ram_root, request.node.name)

ROOT = Path(__file__).resolve().parents[2]
PAGE = 4096
GAMES = 8
MOVES = 110
_SEASON: dict[str, object] = {}


def play(game: Game, lines: list[str], tag: str) -> None:
    parser = Parser(game.data, [s["name"] for s in game.state["seats"]], crypt_card=lambda name: None)
    for n, line in enumerate(lines):
        intent = parser.parse(line)
        intent.text = f"{line} #{tag}-{n}"  # each payload unique, so that the test can find it in the file
        assert game.apply(intent).ok


def pools(game: Game) -> list[int]:
    return [s["counters"]["pool"] for s in game.state["seats"]]


def season(folder: Path) -> dict[str, object]:
    """One journal of several games, built once: its bytes, its events and each game's pools."""
    if not _SEASON:
        path = folder / "season.sqlite3"
        with Journal(path) as j:
            for n in range(GAMES):
                g = Game.new(j, "vtes", ["Ann", "Bob", "Cy", "Dee"][: 3 + n % 2], seed=n)
                lines = [f"pool {1 + i % 3} {'-1' if i % 4 else '+2'}" for i in range(MOVES)]
                play(g, lines, f"g{n}")
                g.close()
        db = sqlite3.connect(path)
        events = {eid: (gid, payload) for eid, gid, payload in db.execute("SELECT id, game_id, payload FROM events")}
        db.close()
        with Journal(path) as j:
            final = {row.id: pools(Game.open(j, row.id)) for row in j.games()}
        # Each event's payload parsed once: what every damaged copy gives back is compared with it.
        payloads = {eid: json.loads(payload) for eid, (_gid, payload) in events.items()}
        _SEASON.update(bytes=path.read_bytes(), events=events, payloads=payloads, pools=final)
    return _SEASON


def surviving(original: bytes, damaged: bytes, events: dict[int, tuple[int, str]]) -> set[int]:
    """The events whose page is still whole in the damaged file: found by their bytes, not by
    the code under test."""
    def intact(page: int) -> bool:
        start = page * PAGE
        return damaged[start:start + PAGE] == original[start:start + PAGE] and start + PAGE <= len(damaged)

    pages = _whole_pages(original, events)
    return {eid for eid, on in pages.items() if any(intact(page) for page in on)}


_PAGES: dict[tuple[int, int], dict[int, list[int]]] = {}


def _whole_pages(original: bytes, events: dict[int, tuple[int, str]]) -> dict[int, list[int]]:
    """Each event's bytes in the original file, by the pages that hold a whole copy of them, in
    the file's order: the same for every damage of the season's journal, so searched once (the
    search was most of the checks' time)."""
    key = (id(original), id(events))
    if key not in _PAGES:
        found: dict[int, list[int]] = {}
        for eid, (_gid, payload) in events.items():
            needle = payload.encode()
            on = found[eid] = []
            at = original.find(needle)
            while at >= 0:
                if at // PAGE == (at + len(needle) - 1) // PAGE:
                    on.append(at // PAGE)
                at = original.find(needle, at + 1)
        _PAGES[key] = found
    return _PAGES[key]


def damage(data: bytes, kind: str, rnd: random.Random) -> bytes:
    size = len(data)
    if kind == "truncated":
        return data[: rnd.randrange(PAGE, size)]
    if kind == "header zeroed":
        end = rnd.randrange(100, 3 * PAGE)
        return bytes(end) + data[end:]
    if kind == "last pages zeroed":
        # The last page at least, whole: a few bytes zeroed at the end can be only a page's unused
        # space, which damages nothing (seed 295497: the last 209 bytes; "no notice" then failed).
        start = rnd.randrange(size // 2, size - PAGE + 1)
        return data[:start] + bytes(size - start)
    if kind == "garbage":
        out = bytearray(data)
        out[0:512] = rnd.randbytes(512)  # the header too
        for _ in range(rnd.randrange(3, 12)):
            at, n = rnd.randrange(size), rnd.randrange(1, 2 * PAGE)
            out[at:at + n] = rnd.randbytes(min(n, size - at))
        return bytes(out)
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["truncated", "header zeroed", "last pages zeroed", "garbage"])
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_damaged_journals_give_back_what_survives(ram_root: Path, kind: str, seed: int) -> None:
    base = _folder(ram_root, "season")
    s = season(base)
    original, events = s["bytes"], s["events"]
    damaged = damage(original, kind, random.Random(seed))
    folder = _folder(ram_root, "damaged")
    path = folder / "games.sqlite3"
    path.write_bytes(damaged)
    alive = surviving(original, damaged, events)

    with Journal(path) as j:
        assert j.notice is not None and j.notice.key == "journal.notice.recovered"
        assert j.set_aside is not None and j.set_aside.read_bytes() == damaged  # kept, untouched
        back: dict[int, object] = {}
        synthetic = 0
        rows = j.games()
        for row in rows:
            for ev in j.events(row.id):
                if ev.payload.get("recovered"):
                    synthetic += 1
                    continue
                back[ev.id] = ev.payload
        for eid, payload in back.items():  # nothing invented, nothing changed
            assert eid in events and s["payloads"][eid] == payload
        assert len(alive & set(back)) >= 0.9 * len(alive), (len(alive), len(back))
        values = j.notice.values
        sentence = j.notice_text("en")
        said = f"{count(values['games'], 'game', 'en')} recovered with {count(values['events'], 'change', 'en')}"
        assert said in sentence
        # The figures are true: what came back is what is in the new journal...
        assert values["games"] == len(rows) and values["events"] == len(back)
        # ...and the lost are the rest, exactly when the last numbers could be read, never more.
        assert values["events"] + values["lost"] <= len(events)
        assert values["games"] + values["lost_games"] <= GAMES
        if max(events) in back:
            assert values["events"] + values["lost"] == len(events)
        if GAMES in {r.id for r in rows}:
            assert values["games"] + values["lost_games"] == GAMES
        for row in rows:
            g = Game.open(j, row.id)  # every game that came back opens and plays on
            ids = {eid for eid, (gid, _p) in events.items() if gid == row.id}
            if ids <= set(back):
                assert pools(g) == s["pools"][row.id]
            assert g.apply(Parser(g.data, [x["name"] for x in g.state["seats"]],
                                  crypt_card=lambda name: None).parse("pool 1 -1")).ok
            g.close()
    left = sorted(p.name for p in folder.iterdir() if p.name != "games.sqlite3.locks")
    assert left == sorted(["games.sqlite3", j.set_aside.name])  # no .read, -wal, -shm left behind


def test_a_crash_during_recovery_is_finished_at_the_next_start(tmp_path: Path) -> None:
    s = season(tmp_path)
    path = tmp_path / "games.sqlite3"
    for step in ("build", "swap"):
        for p in tmp_path.glob("games.sqlite3*"):
            shutil.rmtree(p) if p.is_dir() else p.unlink()
        path.write_bytes(bytes(100) + s["bytes"][100:])  # the header zeroed by a power cut
        # A real process dies (os._exit, as with kill -9) in the middle of the recovery.
        code = (
            "import os, sys\n"
            "from companion.table import recovery\n"
            "from companion.table.journal import Journal\n"
            f"step = {step!r}\n"
            "if step == 'build':\n"
            "    real = recovery.plan\n"
            "    def plan(rows):\n"
            "        os._exit(9)\n"
            "    recovery.plan = plan\n"
            "else:\n"
            "    real = os.replace\n"
            f"    os.replace = lambda a, b: os._exit(9) if str(b) == {str(path)!r} else real(a, b)\n"
            f"Journal({str(path)!r})\n")
        died = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert died.returncode == 9, died.stderr
        assert path.read_bytes()[:100] == bytes(100)  # the damaged file is still where it was
        with Journal(path) as j:
            assert j.notice is not None and j.notice.key == "journal.notice.recovered"
            assert j.notice.values["games"] == GAMES and j.notice.values["lost"] == 0
            assert {r.id: pools(Game.open(j, r.id)) for r in j.games()} == s["pools"]
        left = sorted(p.name for p in tmp_path.glob("games.sqlite3*"))
        assert left == sorted(["games.sqlite3", "games.sqlite3.locks", j.set_aside.name]), left
        with Journal(path) as j:  # and the next start is a plain one
            assert j.notice is None


def test_a_game_without_its_start_comes_back(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with Journal(path) as j:
        g = Game.new(j, "vtes", ["Ann", "Bob", "Cy"], seed=1)
        play(g, ["pool 1 -3", "pool 2 +1", "pool 3 -2"], "x")
        want = pools(g)
        g.close()
    db = sqlite3.connect(path)
    db.execute("DELETE FROM events WHERE type IN ('start', 'first_player')")  # as if their page was lost
    db.execute("DELETE FROM games")
    db.commit()
    db.close()
    data = bytearray(path.read_bytes())
    data[:100] = bytes(100)
    path.write_bytes(bytes(data))
    with Journal(path) as j:
        assert j.notice.values["games"] == 1 and j.notice.values["events"] == 3
        assert j.notice.values["lost"] == 2  # the start and the draw
        (row,) = j.games()
        assert row.game == "vtes" and len(row.players) == 3
        g = Game.open(j, row.id)
        assert pools(g) == want and g.opening is None or "first" not in str(g.opening.notes)


def test_a_text_file_is_still_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("shopping list\n" * 1000)
    before = path.read_bytes()
    from companion.table.journal import JournalError

    with pytest.raises(JournalError) as caught:
        Journal(path)
    assert caught.value.key == "journal.cause.not_a_journal" and path.read_bytes() == before


# --- item 2: damage while running -----------------------------------------------------------------------
@pytest.mark.parametrize("how", ["truncated", "overwritten", "replaced"])
def test_damage_while_running_is_refused_and_nothing_announced_is_lost(tmp_path: Path, how: str) -> None:
    path = tmp_path / "games.sqlite3"
    j = Journal(path)
    g = Game.new(j, "vtes", ["Ann", "Bob", "Cy"], seed=2)
    play(g, [f"pool {1 + i % 3} {'-1' if i % 2 else '+1'}" for i in range(200)], "a")
    j._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the events are in the main file, as after a while
    play(g, [f"pool {1 + i % 3} +1" for i in range(30)], "b")  # and some only in the log
    shown = pools(g)
    if how == "truncated":
        os.truncate(path, PAGE * 2)
    elif how == "overwritten":
        with open(path, "r+b") as f:
            f.write(os.urandom(PAGE))
    else:
        other = tmp_path / "other.sqlite3"
        with Journal(other) as o:
            Game.new(o, "vtes", ["X", "Y"], seed=3).close()
        os.replace(other, path)
    parser = Parser(g.data, ["Ann", "Bob", "Cy"], crypt_card=lambda name: None)
    refused = g.apply(parser.parse("pool 1 -5"))
    assert not refused.ok
    assert refused.reason[1]["cause"] == "@t:journal.cause.damaged_running"
    assert "abîmé ou remplacé" in " ".join(refused.lines("fr"))
    assert "damaged or replaced" in " ".join(refused.lines("en"))
    assert not g.apply(parser.parse("pool 2 -1")).ok  # and every later change
    assert pools(g) == shown
    g.close()
    j.close()
    with Journal(path) as j2:
        assert j2.notice is not None and j2.notice.key == "journal.notice.recovered"
        values = j2.notice.values
        (gid,) = [r.id for r in j2.games() if r.players == ["Ann", "Bob", "Cy"]]
        # Every change announced since the last checkpoint is back, and with it the numbers shown.
        assert pools(Game.open(j2, gid)) == shown
        back = [e.id for e in j2.events(gid) if e.type != "recovered" and not e.payload.get("recovered")]
        assert values["events"] + values["lost"] == 232  # start, draw, 230 changes
        if how != "truncated":
            assert values["lost"] == 0  # the file this program wrote is kept whole
        else:
            # Truncating the file destroyed what it held; the sentence says exactly how much.
            assert values["lost"] == 232 - len(back) and len(back) >= 30
