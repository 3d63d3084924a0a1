"""``python -m companion doctor``: find readers and what stops them; exit 0 only when one is usable."""

from __future__ import annotations

import argparse


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    import json

    from companion import doctor

    report = doctor.diagnose()
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print(doctor.render(report))
    return 0 if report.ok else 1
