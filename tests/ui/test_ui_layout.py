"""The Table screen's layout at every window size, for every game at its largest table, read
from the layout report that ``python -m companion screenshots --layout`` writes beside each
picture (boxes in window pixels, origin at the top left).

One child process renders the five games at each window size and text scale, its one window
resized and its text scale set between them, each game's demo played once for all of them. What is checked is what a
player needs from their chair: every seat's numbers inside the window, none on top of another,
the main number first and large (digits of about 10 mm on the glass), every button a 12 mm
touch target.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ui_helpers import read_png

pytestmark = [pytest.mark.ui, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
# The largest table each game's rules allow, as the issue lists them (Ascension: up to 4).
PLAYERS = {"vtes": 6, "ascension": 4, "res-arcana": 4, "rise": 2, "astral": 2}
SIZES = [("800x480", 1.0), ("1024x600", 1.0), ("1280x800", 1.0), ("480x800", 1.0), ("800x480", 2.0)]
DIGIT = 0.7  # a digit's height as a part of the font size (bold Atkinson Hyperlegible)
MAIN_MM = 9.5  # "about 10 mm": the smallest main number any seat gets
# Where the glass is too small for that: Res Arcana's five essences side by side, four players,
# the 7" screen held upright. The side panels are 163 px thick once the middle strip keeps its
# buttons: a row of 12 mm buttons and the essences' names leave the digits 8.8 mm.
SMALLER = {("480x800", "res-arcana"): 8.5}


def tag(size: str, scale: float) -> str:
    return size + ("" if scale == 1.0 else f"-{int(scale * 100)}pct")


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, dict[str, dict]]:
    """{size tag: {game: report}} from one child process for every size and text scale (a child a
    scale started the program and played the five demos once per scale: 1.3 CPU-s more)."""
    out = tmp_path_factory.mktemp("layout")
    env = dict(os.environ, PYTHONPATH=str(ROOT), SDL_VIDEODRIVER="offscreen", KIVY_NO_ARGS="1",
               KIVY_NO_CONSOLELOG="1", COMPANION_SPEECH="silent", LOCAL_CARDS="1", NO_TRANSLATIONS="1")
    players = ",".join(f"{g}={n}" for g, n in PLAYERS.items())
    sizes = ",".join(size if scale == 1.0 else f"{size}@{scale}" for size, scale in SIZES)
    command = [sys.executable, "-m", "companion.ui.screenshots", str(out), sizes, ",".join(PLAYERS), "table",
               players, "layout", "1.0"]
    log = out / "screenshots.log"
    with log.open("w", encoding="utf-8") as sink:
        done = subprocess.run(command, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT, timeout=600)
    output = log.read_text(encoding="utf-8", errors="replace")
    assert done.returncode == 0, output[-3000:]
    found: dict[str, dict[str, dict]] = {}
    for size, scale in SIZES:
        found[tag(size, scale)] = {}
        for game, n in PLAYERS.items():
            suffix = f"-{n}p" + ("" if scale == 1.0 else f"-{int(scale * 100)}pct")
            picture = out / f"table-{game}-{size}{suffix}.png"
            assert picture.is_file(), (picture, output[-3000:])
            report = json.loads(picture.with_suffix(".json").read_text(encoding="utf-8"))
            report["png"] = str(picture)
            found[tag(size, scale)][game] = report
    return found


def inside(box: list[float], window: list[int]) -> bool:
    x, y, w, h = box
    return x >= -0.5 and y >= -0.5 and x + w <= window[0] + 0.5 and y + h <= window[1] + 0.5


def overlap(a: list[float], b: list[float]) -> float:
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return max(0.0, w) * max(0.0, h)


CASES = [(tag(size, scale), game) for size, scale in SIZES for game in PLAYERS]


@pytest.mark.parametrize("size,game", CASES)
def test_every_seat_at_a_glance(reports, size, game):
    report = reports[size][game]
    window, items = report["window"], report["items"]
    w, h = (int(v) for v in size.split("-")[0].split("x"))
    assert window == [w, h]
    pixels = read_png(Path(report["png"]))
    assert (pixels.width, pixels.height) == (w, h)
    counters = [i for i in items if i["role"] == "counter" and i["seat"] is not None]
    seats = sorted({i["seat"] for i in counters})
    assert seats == list(range(1, PLAYERS[game] + 1)), "a seat is missing from the table"
    for item in counters:
        assert inside(item["box"], window), f"seat {item['seat']} {item['name']} at {item['box']} is off the window"
        assert item["box"][2] > 0 and item["box"][3] > 0
    for k, a in enumerate(counters):
        for b in counters[k + 1:]:
            assert overlap(a['box'], b['box']) < 1.0, f"{a['name']} ({a['seat']}) covers {b['name']} ({b['seat']})"
    mm = report["mm_px"]
    for seat in seats:
        mine = [i for i in counters if i["seat"] == seat]
        first = mine[0]
        assert first["main"], f"seat {seat}: the first counter listed is not its main number"
        digits = first["font_px"] * DIGIT
        least = SMALLER.get((size, game), MAIN_MM)
        assert digits >= least * mm, f"seat {seat}: main digits {digits / mm:.1f} mm tall"
        assert digits <= first["box"][3] + 1, f"seat {seat}: the main number is taller than its box"
        assert all(first["font_px"] >= i["font_px"] for i in mine), f"seat {seat}: a small counter is bigger"


@pytest.mark.parametrize("size,game", CASES)
def test_touch_targets_are_large_and_apart(reports, size, game):
    report = reports[size][game]
    window, items = report["window"], report["items"]
    touch = report["touch_px"]
    buttons = [i for i in items if i["role"] == "button"]
    names = {i["name"] for i in buttons}
    assert {"next", "end", "undo", "redo", "menu"} <= names
    for b in buttons:
        assert inside(b["box"], window), f"{b['name']} of seat {b['seat']} at {b['box']} is off the window"
        assert min(b["box"][2], b["box"][3]) >= touch - 1, f"{b['name']} of seat {b['seat']}: {b['box']}"
    for k, a in enumerate(buttons):
        for b in buttons[k + 1:]:
            assert overlap(a["box"], b["box"]) < 1.0, f"{a['name']} ({a['seat']}) covers {b['name']} ({b['seat']})"
    panels = [i for i in items if i["role"] == "panel"]
    angles = {p["name"]: p["angle"] for p in panels}
    assert angles.get("bottom", 0) == 0 and angles.get("top", 180) == 180
    assert angles.get("right", 90) == 90 and angles.get("left", 270) == 270
