"""``python -m companion bench WHAT``: measure a performance budget, print JSON."""

from __future__ import annotations

import argparse
import importlib
import json

# what → (module, function); each returns a dict with at least "ok".
BENCHES = {
    "search": ("companion.benchmarks", "bench_search"),
    "load": ("companion.benchmarks", "bench_load"),
    "journal": ("companion.benchmarks.journal", "journal_bench"),
    "scan": ("companion.benchmarks.scan", "bench_scan"),
    "speech": ("companion.benchmarks.speech", "bench_speech"),
    "startup": ("companion.ui.bench", "bench_startup"),
    "memory": ("companion.ui.bench", "bench_memory"),
    "phones": ("companion.benchmarks.phones", "bench_phones"),
    "compare": ("companion.benchmarks", "bench_compare"),
    "venue": ("companion.venue.bench", "bench_venue"),
}


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("what", choices=[*BENCHES, "all"])
    p.add_argument("--json", action="store_true", help="(the output is always JSON)")


def run(args: argparse.Namespace) -> int:
    names = list(BENCHES) if args.what == "all" else [args.what]
    results = {}
    for name in names:
        module_name, func = BENCHES[name]
        try:
            fn = getattr(importlib.import_module(module_name), func)
        except (ImportError, AttributeError) as exc:
            results[name] = {"ok": False, "error": f"not available: {exc}"}
            continue
        try:
            results[name] = fn()
        except Exception as exc:  # one failing bench must not hide the others
            results[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    out = results[names[0]] if len(names) == 1 else results
    print(json.dumps(out, ensure_ascii=False, indent=1))
    return 0 if all(r.get("ok") for r in results.values()) else 1
