"""The table's venue options, light to import (``--help`` stays fast)."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--venue", metavar="URL", help="join an organiser's hub: the enrolment URL it printed "
                                                  "(mqtt://table-N:PASSWORD@HOST:PORT/EVENT)")
    p.add_argument("--table", type=int, metavar="N", help="this table's number at the venue")
