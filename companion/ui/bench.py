"""Start-up and memory budgets of the app, measured on a real window.

``bench_startup()`` starts ``python -m companion.ui.bench`` several times (an offscreen window
when there is no display), each run reporting from inside its main loop how long after process
start its first frame came. The first run warms the card index, as a home install would have
done on its first day.

``bench_memory()`` reads the resident memory of such starts at their steady state, without the
software renderer's share when the window renders in software (no GPU here): see
companion/benchmarks/memory.py for how that share is measured, and ``METHOD_*`` for what the
result says of it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

FIRST_FRAME_BUDGET_S = 1.0  # DESIGN.md: cold start to first frame (cached card index)
RSS_BUDGET_MB = 150.0  # DESIGN.md: resident memory of the running app (GPU rendering)
MEMORY_RUNS = 3  # starts profiled by heaptrack, to tell the software renderer's heap from ours
SETTLE_S = 1.0  # resident memory steady for this long: the reading is taken
SETTLE_LIMIT_S = 20.0  # never wait longer than this for it (the reading then says so)
# Set for a profiled start: it ends at its reading, so the heap profiler records as still
# allocated exactly what was allocated then (os._exit: nothing freed on the way out).
END_AT_READING = "COMPANION_BENCH_END_AT_READING"


def _reading() -> dict[str, Any]:
    """Resident memory and the heap's figures, all taken at one moment (benchmarks.memory)."""
    from companion.benchmarks import memory

    reading = memory.smaps()
    reading["malloc_in_use"] = memory.malloc_in_use()
    reading["python_arenas"] = memory.python_arenas()
    return reading


def _child() -> int:
    from companion.ui.app import run_app  # noqa: I001 - first: it configures Kivy before Kivy loads

    from kivy.app import App
    from kivy.clock import Clock

    from companion import benchmarks
    from companion.benchmarks import clocks, memory

    report: dict[str, Any] = {}

    def first_flip(window: Any) -> None:
        # CPU time of the process up to its first frame, and the longest time one of its threads
        # waited for a CPU other programs held since the process began (benchmarks.clocks):
        # unlike the wall clock, neither grows when other programs share the machine.
        window.unbind(on_flip=first_flip)
        report["first_frame_cpu_s"] = round(time.process_time(), 3)
        report["first_frame_waits_s"] = clocks.waited_s({}, clocks.snapshot())

    def first_tick(_dt: float) -> None:
        from kivy.core.window import Window

        Window.bind(on_flip=first_flip)  # the first tick comes before the first frame is drawn

    Clock.schedule_once(first_tick, 0)

    # The memory is read at the steady state of a start: the first screen shown, a card read and
    # shown, the cards and their search index loaded, a player's searches answered, the other
    # screens made (the app makes them in idle time), then the resident memory unchanged for
    # SETTLE_S. So the reading depends on no ordering of the start's background work.
    ready_at: list[float] = []
    recent: list[tuple[float, int]] = []

    def probe(_dt: float) -> None:
        app = App.get_running_app()
        if app is None or app.root is None or app.last_scan is None or app.first_frame_after is None:
            return
        if not ready_at:
            if not app.library.search_ready or app.root.manager.pending:
                return
            for query in benchmarks.SEARCH_QUERIES:
                app.library.search(query)
            ready_at.append(time.monotonic())
            return
        now = time.monotonic()
        recent.append((now, memory.smaps()["rss_kb"]))
        window = [kb for at, kb in recent if at >= now - SETTLE_S]
        steady = recent[0][0] <= now - SETTLE_S and max(window) - min(window) < 1024
        if not steady and now - ready_at[0] < SETTLE_LIMIT_S:
            return
        report["first_frame_s"] = app.first_frame_after
        report["memory"] = _reading()
        report["memory"].update(steady=steady, after_ready_s=round(now - ready_at[0], 2),
                                index_rebuilt=app.library.rebuilt)  # another program's index replaced ours
        if os.environ.get(END_AT_READING):
            print(json.dumps(report), flush=True)
            memory.stop_heap_profiler()
            os._exit(0)
        app.stop()

    Clock.schedule_interval(probe, 0.1)
    Clock.schedule_once(lambda _dt: App.get_running_app().stop(), 60)  # never hang a bench
    from companion import registry

    run_app(f"sim:{registry.example_ref()}")
    print(json.dumps(report))
    return 0


def _start(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    proc = subprocess.run(command, capture_output=True, text=True, timeout=180, env=env)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError((proc.stderr or proc.stdout)[-500:])
    return json.loads(lines[-1])


def _command_env() -> tuple[list[str], dict[str, str]]:
    env = dict(os.environ)
    if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        env.setdefault("SDL_VIDEODRIVER", "offscreen")
    env.setdefault("COMPANION_SPEECH", "silent")
    env.pop(END_AT_READING, None)
    # An installed program has its bytecode compiled (pip does it): let the warm-up run write it
    # here too, or every run would compile the whole program before its first frame.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return [sys.executable, "-m", "companion.ui.bench"], env


def bench_startup(runs: int = 10) -> dict[str, Any]:
    """``runs`` starts after one that warms the card index; the first frame judged on the p95 of
    its unshared figure (benchmarks.clocks). Each start's whole resident memory at steady state
    is said too; the memory budget is ``bench memory``'s."""
    from companion.benchmarks import clocks

    command, env = _command_env()
    before = clocks.machine()
    try:
        results = [_start(command, env) for _ in range(runs + 1)]
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        return {"ok": False, "error": str(exc)}
    warm = [r for r in results[1:] if r.get("first_frame_s") is not None]  # the first run may have built the index
    if not warm:
        return {"ok": False, "error": "no first frame time measured (needs Linux /proc)"}
    samples = [clocks.sample(r["first_frame_s"], r.get("first_frame_cpu_s"), r.get("first_frame_waits_s"))
               for r in warm]
    frame = clocks.judge(samples, FIRST_FRAME_BUDGET_S * 1000, "p95_ms", before)
    return {
        "runs": len(warm),
        "first_frame": frame,
        "rss_mb_whole_process": [round(r["memory"]["rss_kb"] / 1024, 1) for r in warm if "memory" in r],
        "ok": frame["ok"],
    }


METHOD_PROFILED = (
    "resident memory at steady state (first screen, a card shown, cards and search index loaded, the bench's "
    "searches run, all screens made, RSS unchanged for 1 s) minus the software renderer's share: its libraries' "
    "file-mapped resident pages (/proc/PID/smaps) and the heap bytes still allocated by code of those libraries "
    "at that moment (heaptrack, stopped at the reading), counted resident only as far as the anonymous resident "
    "memory holds all heap in use and Python's arenas; heaptrack's own heap taken off too")
METHOD_FILES_ONLY = ("resident memory at steady state minus the software renderer's file mappings only: its heap "
                     "is not told apart (heaptrack is not installed: `apt install heaptrack`)")
METHOD_GPU = "resident memory at steady state, all of it (no software renderer loaded: a GPU driver's share is ours)"


def bench_memory(runs: int = MEMORY_RUNS) -> dict[str, Any]:
    """Our resident memory at steady state without the software renderer (benchmarks.memory):
    one start that warms the card index, then ``runs`` starts read, each profiled by heaptrack
    when the window renders in software here. Judged on the largest."""
    import shutil
    import tempfile

    from companion.benchmarks import memory

    command, env = _command_env()
    try:
        first = _start(command, env)["memory"]
        if not first["software_gl_loaded"]:
            method = METHOD_GPU
            judged = [memory.without_software_gl(_start(command, env)["memory"], None) for _ in range(runs)]
        elif not (shutil.which("heaptrack") and shutil.which("heaptrack_print")):
            method = METHOD_FILES_ONLY
            judged = [memory.without_software_gl(_start(command, env)["memory"], None) for _ in range(runs)]
        else:
            method = METHOD_PROFILED
            judged = []
            profiled = dict(env, **{END_AT_READING: "1"})
            with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp:
                for i in range(runs):
                    reading = _start(["heaptrack", "-o", os.path.join(tmp, f"run{i}"), *command], profiled)["memory"]
                    data = next(os.path.join(tmp, f) for f in os.listdir(tmp) if f.startswith(f"run{i}."))
                    judged.append(memory.without_software_gl(reading, memory.heaptrack_share(data))
                                  | {k: reading.get(k) for k in ("steady", "index_rebuilt")})
    except (RuntimeError, KeyError, StopIteration, OSError, subprocess.SubprocessError) as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    ours = max(j["ours_mb"] for j in judged)
    return {
        "method": method,
        "ours_mb_max": ours,
        "ours_mb": [j["ours_mb"] for j in judged],
        "budget_mb": RSS_BUDGET_MB,
        "runs": judged,
        "ok": ours < RSS_BUDGET_MB,
    }


if __name__ == "__main__":
    sys.exit(_child())
