"""``python -m companion screenshots --out DIR [--size 800x480] …``: every screen of every game,
with a demo table, as PNG files named ``<screen>-<game>-<WxH>.png``."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

from companion import registry

SIZES = ("800x480", "1280x800")
PER_SIZE_TIMEOUT = 300  # seconds; software GL on a Raspberry Pi is slow, a hang is not


def _size(text: str) -> str:
    if not re.fullmatch(r"[1-9]\d{2,4}x[1-9]\d{2,4}", text):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 800x480, got {text!r}")
    return text


def _players(text: str) -> str:
    parts = [p.partition("=")[2] if "=" in p else p for p in text.split(",")]
    if not all(p == "max" or (p.isdigit() and 1 <= int(p) <= 8) for p in parts):
        raise argparse.ArgumentTypeError(f"expected a number of players, max, or GAME=N,GAME=N; got {text!r}")
    return text


def _scale(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 1.0 <= value <= 2.0:
        raise argparse.ArgumentTypeError(f"expected a text scale from 1.0 to 2.0, got {text!r}")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, type=Path, help="folder for the PNG files")
    parser.add_argument("--size", action="append", type=_size,
                        help=f"window size, repeatable (default: {' and '.join(SIZES)})")
    parser.add_argument("--game", action="append", choices=registry.ids(), help="only this game (repeatable)")
    parser.add_argument("--screen", action="append", help="only this screen (repeatable)")
    parser.add_argument("--players", type=_players, help="players at the table: a number, max (as many as "
                        "each game allows), or per game: ID=N,ID=N; default: the demo's")
    parser.add_argument("--layout", action="store_true", help="also write, beside each Table picture, a JSON "
                        "file with the box of every counter and button in window pixels")
    parser.add_argument("--scale", type=_scale, default=1.0, help="text scale, 1.0 to 2.0 (default 1.0)")


def run(args: argparse.Namespace) -> int:
    """One child process for every size (its window resized between them): the program and each
    game's demo are started once, not once per size. A child of its own, so that the window and
    its GL context go with it."""
    out: Path = args.out
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"{out}: {exc}", file=sys.stderr)
        return 2
    env = dict(os.environ)
    env.setdefault("SDL_VIDEODRIVER", "offscreen")  # no display needed
    env.update(KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1", COMPANION_SPEECH="silent")
    env.setdefault("LOCAL_CARDS", "1")
    env.setdefault("NO_TRANSLATIONS", "1")
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(x for x in (root, env.get("PYTHONPATH", "")) if x)
    sizes = args.size or list(SIZES)
    command = [sys.executable, "-m", "companion.ui.screenshots", str(out), ",".join(sizes),
               ",".join(args.game or []), ",".join(args.screen or []), args.players or "",
               "layout" if args.layout else "", str(args.scale)]
    timeout = PER_SIZE_TIMEOUT * len(sizes)
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"{', '.join(sizes)}: no answer after {timeout} s", file=sys.stderr)
        return 1
    written = [line for line in done.stdout.splitlines() if line.endswith(".png")]
    for line in written:
        print(line)
    status = 0
    for size in sizes:
        if done.returncode != 0 or not any(f"-{size}" in Path(line).name for line in written):
            tail = "\n".join(done.stderr.strip().splitlines()[-5:])
            print(f"{size}: screenshots failed (exit {done.returncode})\n{tail}", file=sys.stderr)
            status = 1
    return status
