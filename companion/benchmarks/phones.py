"""``bench phones``: a change sent from a phone, to the state pushed back to every phone, made
durable first; p50/p95 over loopback. Goal: p95 under 50 ms.

Real parts: the phone server in its thread, the core Session over a real SQLite journal (WAL,
synchronous=FULL), aiohttp's client as the phones. Each change is timed from the send on one
phone to the moment the last phone has the state carrying that change's revision.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

GOAL_P95_MS = 50.0


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_phones(changes: int = 200, phones: int = 6, directory: str | None = None) -> dict[str, Any]:
    import aiohttp

    from companion.benchmarks import bench_game
    from companion.play.runtime import Runtime
    from companion.web.server import PhoneServer

    game_id, main, _ = bench_game()
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        runtime = Runtime(journal_path=Path(tmp) / "bench.sqlite3", lang="fr", speak=False)
        runtime.session.new_game(game_id, ["Ann", "Bob", "Cy"], seed=1)
        server = PhoneServer(runtime, port=0, rate=1e6, burst=1e6)
        server.start()
        seats = server.invitations()["seats"]
        times: list[float] = []

        async def wait_revision(ws: aiohttp.ClientWebSocketResponse, revision: int) -> None:
            while True:
                msg = json.loads((await ws.receive(timeout=30)).data)
                if msg["type"] in ("state", "hello") and msg["table"]["revision"] >= revision:
                    return

        async def go() -> None:
            async with aiohttp.ClientSession() as http:
                sockets = [await http.ws_connect(f"{server.url}/ws?token={seats[n % len(seats)]['token']}")
                           for n in range(phones)]
                for ws in sockets:
                    await wait_revision(ws, 0)
                for i in range(changes):
                    sender = sockets[i % phones]
                    revision = runtime.session.revision + 1
                    start = time.perf_counter()
                    command = f"{main} +1" if i % 2 else f"{main} -1"
                    await sender.send_str(json.dumps({"type": "command", "command": command}))
                    await asyncio.gather(*(wait_revision(ws, revision) for ws in sockets))
                    times.append((time.perf_counter() - start) * 1000)
                for ws in sockets:
                    await ws.close()

        try:
            asyncio.run(go())
        finally:
            server.stop()
            runtime.close()
    p50, p95 = statistics.median(times), _percentile(times, 0.95)
    return {"ok": p95 < GOAL_P95_MS, "changes": changes, "phones": phones,
            "p50_ms": round(p50, 2), "p95_ms": round(p95, 2), "max_ms": round(max(times), 2),
            "goal_p95_ms": GOAL_P95_MS}
