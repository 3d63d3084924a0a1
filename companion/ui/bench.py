"""Start-up and memory budgets of the app, measured on a real window.

``bench_startup()`` starts ``python -m companion.ui.bench`` several times (an offscreen window
when there is no display), each run reporting from inside its main loop how long after process
start its first frame came, and its resident memory once the cards are loaded and one card is
shown. The first run warms the card index, as a home install would have done on its first day.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

FIRST_FRAME_BUDGET_S = 1.0  # DESIGN.md: cold start to first frame (cached card index)
RSS_BUDGET_MB = 150.0


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _software_gl_mb() -> float:
    """Memory of Mesa's software renderer (llvmpipe: libLLVM and the swrast driver). On a machine
    with no GPU it is a fixed cost of any OpenGL window, about 65 MB; a Raspberry Pi or a laptop
    renders with its GPU driver instead, so the budget is judged without it (both are reported)."""
    total = 0
    mapping = ""
    with open("/proc/self/smaps", encoding="utf-8", errors="replace") as f:
        for line in f:
            first = line.split(maxsplit=1)[0]
            if "-" in first and not first.endswith(":"):
                mapping = line.rsplit(maxsplit=1)[-1] if line.count(" ") >= 5 else ""
            elif first == "Rss:" and ("libLLVM" in mapping or "swrast" in mapping or "llvmpipe" in mapping):
                total += int(line.split()[1])
    return total / 1024


def _child() -> int:
    from companion.ui.app import run_app  # noqa: I001 - first: it configures Kivy before Kivy loads

    from kivy.app import App
    from kivy.clock import Clock

    from companion.benchmarks import clocks

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

    def probe(_dt: float) -> None:
        app = App.get_running_app()
        if app is None or app.root is None or app.last_scan is None:
            return
        report["first_frame_s"] = app.first_frame_after
        report["rss_mb"] = round(_rss_mb(), 1)
        report["software_gl_mb"] = round(_software_gl_mb(), 1)
        app.stop()

    Clock.schedule_interval(probe, 0.05)
    Clock.schedule_once(lambda _dt: App.get_running_app().stop(), 30)  # never hang a bench
    from companion import registry

    run_app(f"sim:{registry.example_ref()}")
    print(json.dumps(report))
    return 0


def bench_startup(runs: int = 10) -> dict[str, Any]:
    """``runs`` starts after one that warms the card index; the first frame judged on the p95 of
    its unshared figure (benchmarks.clocks), the memory on the largest run."""
    from companion.benchmarks import clocks

    env = dict(os.environ)
    if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        env.setdefault("SDL_VIDEODRIVER", "offscreen")
    env.setdefault("COMPANION_SPEECH", "silent")
    # An installed program has its bytecode compiled (pip does it): let the warm-up run write it
    # here too, or every run would compile the whole program before its first frame.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = clocks.machine()
    results = []
    for _ in range(runs + 1):
        proc = subprocess.run([sys.executable, "-m", "companion.ui.bench"], capture_output=True, text=True,
                              timeout=60, env=env)
        lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
        if proc.returncode != 0 or not lines:
            return {"ok": False, "error": (proc.stderr or proc.stdout)[-500:]}
        results.append(json.loads(lines[-1]))
    warm = [r for r in results[1:] if r.get("first_frame_s") is not None]  # the first run may have built the index
    if not warm:
        return {"ok": False, "error": "no first frame time measured (needs Linux /proc)"}
    samples = [clocks.sample(r["first_frame_s"], r.get("first_frame_cpu_s"), r.get("first_frame_waits_s"))
               for r in warm]
    frame = clocks.judge(samples, FIRST_FRAME_BUDGET_S * 1000, "p95_ms", before)
    rss = max(r["rss_mb"] for r in warm)
    rss_own = max(r["rss_mb"] - r.get("software_gl_mb", 0.0) for r in warm)
    return {
        "runs": len(warm),
        "first_frame": frame,
        "rss_mb_max": rss,
        "rss_mb_max_without_software_gl": round(rss_own, 1),
        "budget_rss_mb": RSS_BUDGET_MB,
        "ok": frame["ok"] and rss_own < RSS_BUDGET_MB,
    }


if __name__ == "__main__":
    sys.exit(_child())
