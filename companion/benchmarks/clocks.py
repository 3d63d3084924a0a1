"""Clocks for the budgets on a machine other programs share.

A wall-clock sample on a busy machine counts the time its threads sat runnable while other
programs held every CPU: with a load average of 8 on 2 cores, a 12 ms path takes 60 ms now and
then, and a p95 says more about the neighbours than about the program. So each sample is read
on more than one clock:

- ``wall``: the elapsed time, what a player would feel on this machine as it is now;
- ``cpu``: the CPU time of this process (every thread) and of the children named;
- ``waited``: the time a thread of this process (or of a child named) spent runnable but
  waiting for a CPU (Linux's scheduler statistics, ``/proc/<pid>/task/<tid>/schedstat``): the
  longest such wait of any one thread during the sample;

and ``unshared`` = wall - waited is the elapsed time the same work takes when nobody else wants
the CPUs: the waits on devices, pipes and timers stay in it, only a queue for a CPU goes. A
budget is judged on the unshared figure (the one a Raspberry Pi that runs the companion alone
sees, before its own speed factor), and every result also says the wall figure, whether it alone
would pass, and the load average before and after. Without schedstat (not Linux), unshared is
the wall figure.

Why one thread's wait and not the sum: two threads runnable at once (a parent and the engine it
just started) wait at the same time, and a sum would take that time off twice. One thread's
wait is the least of the path's waits, so the unshared figure errs on the slow side: a budget
it keeps is kept. A path that hands work from thread to thread (reader, emulator, resolver) may
then look slower than it is under a heavy load, so ``unshared_low`` takes off the sum of the
threads' waits (erring fast) and the verdict says "inconclusive" when only that one keeps the
budget: measure again on a quieter machine.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Iterable
from typing import Any

Snapshot = dict[str, int]  # "pid/tid" → nanoseconds that thread has waited for a CPU


def _tasks(pid: str, into: Snapshot) -> tuple[int, bool]:
    """Add the waits of process ``pid``'s threads ("self" for this one) to ``into``; their CPU
    time in nanoseconds, and whether the system said anything."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0, False
    cpu = 0
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                fields = f.read().split()
            into[f"{pid}/{tid}"] = int(fields[1])
            cpu += int(fields[0])
        except (OSError, IndexError, ValueError):
            continue  # a thread that ended meanwhile
    return cpu, True


def snapshot() -> Snapshot | None:
    """The waits of this process's threads so far; None where the system does not say."""
    into: Snapshot = {}
    return into if _tasks("self", into)[1] else None


def waited_s(before: Snapshot | None, after: Snapshot | None) -> tuple[float, float] | None:
    """The waits for a CPU between two snapshots, in seconds: the longest of any one thread,
    and the sum over the threads (a thread new in ``after`` counts from its start)."""
    if before is None or after is None:
        return None
    waits = [ns - before.get(task, 0) for task, ns in after.items()]
    return max(waits, default=0) / 1e9, sum(w for w in waits if w > 0) / 1e9


def machine() -> dict[str, Any]:
    return {"cores": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()]}


class Clock:
    """One sample on the clocks: ``start()``, the work, ``stop()``."""

    def __init__(self) -> None:
        self.wall = self.cpu = 0.0
        self.waits: Snapshot | None = None

    # The wall clock is read first and last: a wait while reading the others counts in the wall
    # figure and not in the waited one, never the reverse (a sample errs on the slow side).
    def start(self) -> Clock:
        self.wall = time.perf_counter()
        self.cpu = time.process_time()
        self.waits = snapshot()
        return self

    def stop(self, children: Iterable[int] = ()) -> dict[str, float | None]:
        """The sample; ``children``: processes started during it and still running, whose CPU
        time and waits count too (an engine that speaks)."""
        after = snapshot()
        cpu = time.process_time() - self.cpu
        if after is not None:
            for pid in children:
                cpu += _tasks(str(pid), after)[0] / 1e9
        wall = time.perf_counter() - self.wall
        return sample(wall, cpu, waited_s(self.waits, after))


def sample(wall_s: float, cpu_s: float | None, waited: tuple[float, float] | None) -> dict[str, float | None]:
    """One sample in milliseconds, ``waited`` as ``waited_s`` gives it. ``unshared`` takes off
    the longest wait of one thread (errs slow), ``unshared_low`` the sum of all threads' waits
    (errs fast when two of them waited at once); neither is above the wall figure nor below
    the CPU time the sample used (the work took at least that long), unless that CPU time is
    itself above the wall figure (threads or a child at work on several cores at once): the wall
    figure then."""
    cpu = cpu_s or 0.0
    if waited is None:
        return {"wall": wall_s * 1000, "cpu": None if cpu_s is None else cpu_s * 1000, "waited": None,
                "unshared": wall_s * 1000, "unshared_low": wall_s * 1000}
    longest, total = waited
    return {"wall": wall_s * 1000, "cpu": None if cpu_s is None else cpu_s * 1000, "waited": longest * 1000,
            "unshared": min(wall_s, max(wall_s - longest, cpu)) * 1000,
            "unshared_low": min(wall_s, max(wall_s - total, cpu)) * 1000}


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 3),
        "max_ms": round(ordered[-1], 3),
    }


def judge(samples: list[dict[str, float | None]], budget_ms: float, stat: str = "p95_ms",
          before: dict[str, Any] | None = None) -> dict[str, Any]:
    """The samples' figures on each clock, and the verdict on ``budget_ms`` for ``stat``: "ok"
    when the unshared figure keeps it; "inconclusive" when only the low one does (the answer
    then hangs on how the threads' waits overlapped: measure again on a quieter machine);
    "over" when even the low one misses it. ``before`` is ``machine()`` when the bench began."""
    out: dict[str, Any] = {"n": len(samples)}
    for clock in ("wall", "cpu", "waited", "unshared", "unshared_low"):
        values = [s[clock] for s in samples if s.get(clock) is not None]
        if values:
            out[clock] = _stats(values)  # type: ignore[arg-type]
    if not samples:
        return {**out, "ok": False, "error": "no sample"}
    schedstat = "waited" in out
    verdict = ("ok" if out["unshared"][stat] < budget_ms
               else "inconclusive" if out["unshared_low"][stat] < budget_ms else "over")
    return {
        **out,
        "budget_ms": budget_ms,
        "judged_on": f"unshared {stat[:-3]}" + ("" if schedstat else " (= wall: no scheduler statistics here)"),
        "verdict": verdict,
        "ok_on_wall": out["wall"][stat] < budget_ms,
        "machine": {"before": before or machine(), "after": machine()},
        "ok": verdict == "ok",
    }
