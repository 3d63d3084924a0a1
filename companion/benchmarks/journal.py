"""``bench journal``: the time to make one event durable, and to replay a 5,000-event game.

Returns a dict (the ``bench`` command prints it as JSON). Budgets: durable append median under
5 ms, replay of 5,000 events under 200 ms. The events are real: a VTES table played through
``Game.apply`` into a real SQLite journal with the production settings (WAL, synchronous=FULL).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.table.engine import Game, Intent
from companion.table.journal import Journal


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def journal_bench(appends: int = 300, replay_events: int = 5000, directory: str | None = None) -> dict[str, Any]:
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
                                            "effects": [{"p": ["seats", 1, "c", main], "o": 30, "n": 29}]},
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

        # 3. Replay of a long game.
        long_game = Game.new(journal, game_id, ["Ann", "Bob", "Cy", "Dee"], seed=8)
        cycle = [Intent("counter", 0, {"counter": main, "amount": 1, "mode": "+"}),
                 Intent("counter", 3, {"counter": main, "amount": 1, "mode": "+"}),
                 Intent("counter", 1, {"counter": second, "amount": 1, "mode": "+"}),
                 Intent("next"), Intent("toss"), Intent("undo"), Intent("redo")]
        count = len(journal.event_ids(long_game.id))
        i = 0
        while count < replay_events:
            if long_game.apply(cycle[i % len(cycle)]).ok:
                count += 1
            i += 1
        t0 = time.perf_counter()
        replayed = Game.open(journal, long_game.id)
        replay_ms = (time.perf_counter() - t0) * 1000
        same = replayed.state == long_game.state
        journal.close()
    return {
        "journal_append_durable_ms": {"median": round(statistics.median(raw), 3),
                                      "p95": round(_percentile(raw, .95), 3), "n": len(raw), "budget_median": 5.0},
        "apply_intent_durable_ms": {"median": round(statistics.median(applied), 3),
                                    "p95": round(_percentile(applied, .95), 3), "n": len(applied)},
        "replay_ms": {"events": count, "ms": round(replay_ms, 1), "budget": 200.0, "same_state": same},
        "sqlite": {"journal_mode": "wal", "synchronous": "FULL"},
        "ok": statistics.median(raw) < 5.0 and replay_ms < 200.0 and same,
    }
