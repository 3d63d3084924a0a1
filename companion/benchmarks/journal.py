"""``bench journal``: the time to make one event durable, to reopen games of 5,000, 20,000 and
50,000 events, and the memory a long game takes while it is played.

Returns a dict (the ``bench`` command prints it as JSON). Budgets: durable append median under
5 ms; reopening 50,000 events at most 12x reopening 5,000 (linear); a live undo as fast late in a
long game as early; memory held by the game flat (under 1 MB per 10,000 commands). The events
are real: a table of the first game played through ``Game.apply`` into a real SQLite journal with the
production settings (WAL, synchronous=FULL) for the durable times."""

from __future__ import annotations

import shutil
import sqlite3
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from companion.table.engine import Game, Intent
from companion.table.journal import Journal


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def journal_bench(appends: int = 300, replay_sizes: tuple[int, ...] = (5000, 20000, 50000),
                  directory: str | None = None, traced: int = 10000) -> dict[str, Any]:
    """``traced``: how many of the long game's last commands have their memory measured (10,000,
    the budget's count; all of a shorter game's). tracemalloc makes every allocation several
    times slower: a quick run (a test's) traces fewer, the game played the same."""
    from companion.benchmarks import bench_game

    game_id, main, second = bench_game()
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        path = Path(tmp) / "bench.sqlite3"
        journal = Journal(path)

        # 1. One raw durable append (the journal alone), as the budget is stated.
        gid, _ = journal.new_game(game_id, ["A", "B", "C", "D"])
        raw = []
        for i in range(appends):
            t0 = time.perf_counter()
            journal.append(gid, "counter", {"counter": main, "amount": -1, "i": i,
                                            "effects": [{"p": ["seats", 1, "counters", main], "o": 30, "n": 29}]},
                           seat=1, source="key")
            raw.append((time.perf_counter() - t0) * 1000)

        # 2. A whole intent through the rules, durable when apply returns.
        game = Game.new(journal, game_id, ["Ann", "Bob", "Cy", "Dee"], seed=7)
        applied = []
        moves = [Intent("counter", 2, {"counter": main, "amount": -1, "mode": "+"}),
                 Intent("counter", 2, {"counter": main, "amount": 1, "mode": "+"}),
                 Intent("next"), Intent("undo"), Intent("redo")]
        while game.last_event_id is None or len(applied) < appends:
            for intent in moves:
                t0 = time.perf_counter()
                result = game.apply(intent)
                applied.append((time.perf_counter() - t0) * 1000)
                assert result.ok, result.text("en")

        # 3. Reopening long games, 5,000 to 50,000 events: linear in the events (budget: 50,000
        # at most 12x 5,000). One game is played to the longest size; shorter ones are its prefixes.
        journal.close()
        replay = _replays(path, replay_sizes, game_id, cycle(main, second), traced)
    return {
        "journal_append_durable_ms": {"median": round(statistics.median(raw), 3),
                                      "p95": round(_percentile(raw, .95), 3), "n": len(raw), "budget_median": 5.0},
        "apply_intent_durable_ms": {"median": round(statistics.median(applied), 3),
                                    "p95": round(_percentile(applied, .95), 3), "n": len(applied)},
        "reopen": replay,
        "sqlite": {"journal_mode": "wal", "synchronous": "FULL"},
        "ok": statistics.median(raw) < 5.0 and replay["ok"],
    }


def cycle(main: str, second: str) -> list[Intent]:
    """The commands a long game repeats: changes, turns, a toss, undos and redos."""
    return [Intent("counter", 0, {"counter": main, "amount": 1, "mode": "+"}),
            Intent("counter", 3, {"counter": main, "amount": 1, "mode": "+"}),
            Intent("counter", 1, {"counter": second, "amount": 1, "mode": "+"}),
            Intent("next"), Intent("toss"), Intent("undo"), Intent("redo"),
            Intent("counter", 2, {"counter": main, "amount": -1, "mode": "+"}), Intent("undo"),
            Intent("counter", 2, {"counter": main, "amount": 1, "mode": "+"}), Intent("undo", args={"count": 2}),
            Intent("redo", args={"count": 2})]


def _undo_ms(game: Game) -> float:
    """One live undo and its redo, the median of 20, in ms."""
    times = []
    for _ in range(20):
        t0 = time.perf_counter()
        assert game.apply(Intent("undo")).ok
        times.append((time.perf_counter() - t0) * 1000)
        assert game.apply(Intent("redo")).ok
    return statistics.median(times)


def _replays(path: Path, sizes: tuple[int, ...], game_id: str, moves: list[Intent],
             traced: int = 10000) -> dict[str, Any]:
    journal = Journal(path)
    # Playing 50,000 changes with an fsync each would time the disk, not the game: the long game
    # is written without waiting for the disk (only here, in the bench).
    journal._db.execute("PRAGMA synchronous=OFF")
    game = Game.new(journal, game_id, ["Ann", "Bob", "Cy", "Dee"], seed=8)
    first = game.id
    count, i, memory = len(journal.event_ids(first)), 0, {}
    tracing, undo_early = False, 0.0
    while count < max(sizes):
        if not undo_early and count >= 200:
            undo_early = _undo_ms(game)
        if not tracing and count >= max(sizes) - traced:
            tracemalloc.start()  # what the last 10,000 commands (``traced``) leave held
            tracing = True
        if game.apply(moves[i % len(moves)]).ok:
            count += 1
        i += 1
    if tracing:
        held, _peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        memory = {"held_kb_per_10k_commands": round(held / 1024, 1), "budget_kb": 1024}
    undo_late = _undo_ms(game)
    live = game.state
    game.close()
    ids = journal.event_ids(first)
    journal.close()
    out: dict[str, Any] = {"events": {}}
    for n in sorted(sizes):
        copy = path.with_name(f"reopen-{n}.sqlite3")
        shutil.copyfile(path, copy)
        db = sqlite3.connect(copy)
        last = ids[-1] if n == max(sizes) else ids[min(n, len(ids)) - 1]
        db.execute("DELETE FROM events WHERE game_id = ? AND id > ?", (first, last))
        db.commit()
        db.close()
        times = []
        with Journal(copy) as j:
            for _ in range(5):
                t0 = time.perf_counter()
                g = Game.open(j, first)
                times.append((time.perf_counter() - t0) * 1000)
                g.close()
            # The longest is the whole game as played (its last undos included): the state must be the live one.
            same = n < max(sizes) or g.state == live
        # The ratio is taken on the fastest of five: on a shared machine the others measure the
        # neighbours' load (median given too).
        out["events"][str(n)] = {"reopen_ms": round(min(times), 1), "median_ms": round(statistics.median(times), 1),
                                 "same_state": same}
    small, big = out["events"][str(min(sizes))]["reopen_ms"], out["events"][str(max(sizes))]["reopen_ms"]
    ratio = big / small if small else 0.0
    out.update(ratio=round(ratio, 2), budget_ratio=12.0,
               undo_ms={"at_start": round(undo_early, 3), "after": round(undo_late, 3)}, memory=memory)
    out["ok"] = (ratio <= out["budget_ratio"] and all(v["same_state"] for v in out["events"].values())
                 and (not memory or memory["held_kb_per_10k_commands"] < memory["budget_kb"]))
    return out
