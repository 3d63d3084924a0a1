"""``bench venue``: 60 simulated tables of 5 at a realistic pace, then bursts where every table
changes at once; how long a table's change takes to reach the organiser's board (the board's
WebSocket notice, on loopback), p50/p95, and the hub's CPU and memory. Goal: p95 under 250 ms.

Real parts: Mosquitto, the hub as its own process (``python -m companion venue --broker``), 60
real tables in this process (a Session, a SQLite journal and a TableLink each), aiohttp's client
as the board. A change is timed from the moment the table's journal has it (the state's ``ts``)
to the board's notice carrying that ``ts``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

GOAL_P95_MS = 250.0


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1) if ordered else float("nan")


def _proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _proc_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def bench_venue(tables: int = 60, seconds: float = 30.0, bursts: int = 5, directory: str | None = None,
                ) -> dict[str, Any]:
    import aiohttp

    from companion.play.session import Session
    from companion.venue.broker import Broker
    from companion.venue.link import TableLink, VenueAddress

    event = "bench"
    rng = random.Random(1)
    with tempfile.TemporaryDirectory(dir=directory, prefix="venue-bench-") as tmp:
        folder = Path(tmp)
        broker = Broker(folder / "broker", event, tables)
        broker.start()
        (folder / "players.txt").write_text("\n".join(f"Joueur {i:03d}" for i in range(1, 5 * tables + 1)),
                                            encoding="utf-8")
        env = dict(os.environ, PYTHONPATH=os.environ.get("PYTHONPATH", ""))
        hub = subprocess.Popen([sys.executable, "-m", "companion", "venue", "--event", event, "--json", "--port", "0",
                                "--folder", str(folder / "event"), "--players", str(folder / "players.txt"),
                                "--seat-iterations", "300",
                                "--broker", f"mqtt://hub:{broker.credentials.hub}@127.0.0.1:{broker.port}"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        links: list[TableLink] = []
        try:
            info = json.loads(hub.stdout.readline() if hub.stdout else "{}")
            token = info["board"].split("token=")[1]
            base = info["public"].rsplit("/", 1)[0]
            latencies: dict[str, list[float]] = {"pace": [], "burst": []}
            phase = ["setup"]
            rss: list[float] = []
            views: list[tuple[float, int]] = []

            async def board(stop: asyncio.Event, ready: asyncio.Event) -> None:
                async with aiohttp.ClientSession() as http:
                    async with http.post(f"{base}/api/action", json={"action": "seat"},
                                         headers={"X-Token": token}) as r:
                        await r.json()
                    async with http.ws_connect(f"{base}/ws?token={token}") as ws:
                        ready.set()

                        async def fetch_views() -> None:
                            # the organiser's page fetches the whole view after notices: time it, on
                            # its own task so that the notices are read meanwhile
                            while not stop.is_set():
                                await asyncio.sleep(1.0)
                                if phase[0] != "pace":
                                    continue
                                t0 = time.perf_counter()
                                async with http.get(f"{base}/api/organiser", headers={"X-Token": token}) as r:
                                    body = await r.read()
                                views.append(((time.perf_counter() - t0) * 1000, len(body)))

                        fetcher = asyncio.create_task(fetch_views())
                        while not stop.is_set():
                            try:
                                msg = await ws.receive(timeout=0.5)
                            except TimeoutError:
                                continue
                            if msg.type != aiohttp.WSMsgType.TEXT:
                                break
                            data = json.loads(msg.data)
                            if data.get("type") == "table" and isinstance(data.get("ts"), float) \
                                    and phase[0] in latencies:
                                latencies[phase[0]].append((time.time() - data["ts"]) * 1000)
                        fetcher.cancel()

            loop = asyncio.new_event_loop()
            stop, ready = asyncio.Event(), asyncio.Event()
            board_thread = threading.Thread(target=lambda: loop.run_until_complete(board(stop, ready)), daemon=True)
            board_thread.start()
            deadline = time.monotonic() + 120
            while not ready.is_set() and time.monotonic() < deadline:
                time.sleep(0.05)
            for n in range(1, tables + 1):
                session = Session(journal_path=folder / f"table-{n}" / "games.sqlite3")
                address = VenueAddress("127.0.0.1", broker.port, event, n, broker.credentials.tables[n])
                links.append(TableLink(session, address, auto_start=True).start())
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not all(link.session.game is not None and link.connected
                                                          for link in links):
                time.sleep(0.1)
            time.sleep(1.0)
            cpu0, wall0 = _proc_cpu(hub.pid), time.monotonic()
            # a realistic pace: each table changes every 2 to 6 seconds
            phase[0] = "pace"
            due = {n: time.monotonic() + rng.uniform(0, 4) for n in range(tables)}
            end = time.monotonic() + seconds
            changes = 0
            while time.monotonic() < end:
                now = time.monotonic()
                for n, at in due.items():
                    if now >= at:
                        s = links[n].session
                        s.apply(f"pool {rng.randint(1, 5)} {rng.choice(['-1', '+1'])}", source="script")
                        changes += 1
                        due[n] = now + rng.uniform(2, 6)
                if int(now * 2) != int((now - 0.05) * 2):
                    rss.append(_proc_rss_mb(hub.pid))
                time.sleep(0.05)
            pace_cpu = (_proc_cpu(hub.pid) - cpu0) / (time.monotonic() - wall0)
            # bursts: every table changes at once
            phase[0] = "burst"
            for _ in range(bursts):
                for link in links:
                    link.session.apply(f"pool {rng.randint(1, 5)} -1", source="script")
                    changes += 1
                time.sleep(2.0)
                rss.append(_proc_rss_mb(hub.pid))
            phase[0] = "done"
            loop.call_soon_threadsafe(stop.set)
            board_thread.join(10)
            pace, burst = latencies["pace"], latencies["burst"]
            p95 = max(_pct(pace, 0.95), _pct(burst, 0.95))
            return {
                "ok": bool(pace) and bool(burst) and p95 < GOAL_P95_MS,
                "goal_p95_ms": GOAL_P95_MS,
                "tables": tables, "players": 5 * tables, "changes": changes,
                "pace": {"seen": len(pace), "p50_ms": _pct(pace, 0.5), "p95_ms": _pct(pace, 0.95),
                         "mean_ms": round(statistics.mean(pace), 1) if pace else None},
                "burst": {"tables_at_once": tables, "times": bursts, "seen": len(burst),
                          "p50_ms": _pct(burst, 0.5), "p95_ms": _pct(burst, 0.95)},
                "organiser_view": {"fetches": len(views), "p50_ms": _pct([v[0] for v in views], 0.5),
                                   "p95_ms": _pct([v[0] for v in views], 0.95),
                                   "kb": round(max((v[1] for v in views), default=0) / 1024, 1)},
                "hub": {"cpu_percent_at_pace": round(pace_cpu * 100, 1), "rss_mb_max": round(max(rss), 1),
                        "rss_mb_last": round(rss[-1], 1)},
            }
        finally:
            for link in links:
                link.stop(drain=0)
                link.session.close()
            hub.terminate()
            try:
                hub.wait(20)
            except subprocess.TimeoutExpired:
                hub.kill()
                hub.wait()
            broker.stop()
