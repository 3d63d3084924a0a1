"""Helpers for the UI tests: a real Kivy window offscreen, screenshots read back as pixels, and a
driver that runs the whole app (``run_app``) in a child process and reports what it showed.

The driver runs as ``python -m tests.ui_helpers OUT_DIR READER`` so that the app gets a process
of its own, with the real App.run loop, reader thread and Clock hand-off, and a hang is ended by
the parent's timeout instead of stalling the test session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# --- keys --------------------------------------------------------------------------------
def send_key(window, keycode: int, codepoint: str | None = None, modifiers: list[str] | None = None) -> None:
    """One key as a real keyboard reaches Kivy's SDL2 window (window_sdl2.py, its main loop):
    ``on_key_down``; ``on_keyboard`` only if nobody took the key down; the character typed as
    ``on_textinput`` (SDL sends it for printable keys whoever took the key down); ``on_key_up``."""
    mods = list(modifiers or [])
    if not window.dispatch("on_key_down", keycode, 0, codepoint, mods):
        window.dispatch("on_keyboard", keycode, 0, codepoint, mods)
    if codepoint and codepoint.isprintable() and not {"ctrl", "alt", "meta"} & set(mods):
        window.dispatch("on_textinput", codepoint)
    window.dispatch("on_key_up", keycode, 0)


# --- frames ------------------------------------------------------------------------------
def frames(count: int = 2, draw: bool = True) -> None:
    """Advance the event loop ``count`` frames, the window drawn on the last one only, and not at
    all with ``draw=False`` (the app's own companion.ui.screens.card.advance). Drawing is the
    costly part offscreen (Mesa's llvmpipe: 25-90 ms of CPU for the table at 800x480), and between
    two touches or keys nothing looks at the window's pixels: screenshots draw their own picture."""
    from companion.ui.screens.card import advance

    advance(count, draw)


# --- pixels ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pixels:
    width: int
    height: int
    data: bytes  # RGBA, top row first

    def at(self, x: int, y_top: int) -> tuple[int, int, int]:
        i = (y_top * self.width + x) * 4
        return self.data[i], self.data[i + 1], self.data[i + 2]

    def colours(self, box: tuple[int, int, int, int] | None = None, step: int = 2) -> Counter:
        """Count the colours in a box (x, y_top, width, height), one pixel in ``step`` each way."""
        x0, y0, w, h = box or (0, 0, self.width, self.height)
        x0, y0 = max(0, x0), max(0, y0)
        x1, y1 = min(self.width, x0 + w), min(self.height, y0 + h)
        counts: Counter = Counter()
        if x1 <= x0:
            return counts
        # A row's pixels as slices of its bytes (the same (r, g, b) as ``at``): a third of the CPU
        # of a call of ``at`` per pixel, and the UI tests count whole screenshots often.
        stride, jump = self.width * 4, 4 * step
        for y in range(y0, y1, step):
            row = self.data[y * stride + x0 * 4:y * stride + x1 * 4]
            counts.update(zip(row[0::jump], row[1::jump], row[2::jump], strict=True))
        return counts


def home_root(session, roots: list | None = None):
    """An app root on Home over ``session``: the module's (``roots``, the ``app_root`` fixture)
    started afresh over it as a new evening starts it (Root.new_session), made and kept there
    the first time; with no ``roots``, one of its own, as at a start."""
    from companion.ui.app import build_root

    if roots:
        root = roots[0]
        if root.parent is not None:  # an earlier test stopped before its close: not its failure too
            root.parent.remove_widget(root)
        root.new_session(session, start="home")
        return root
    root = build_root(session, start="home")
    if roots is not None:
        roots.append(root)
    return root


def window_pixels(window) -> Pixels:
    """The window's pixels as its screenshot reads them (``Window.screenshot``: glReadPixels of
    the frame drawn last), top row first, with no PNG written and decoded again: the PNG's
    compression was about 0.1 s of CPU a picture, and nothing reads the file."""
    from kivy.graphics.opengl import GL_RGBA, GL_UNSIGNED_BYTE, glReadPixels

    width, height = (int(v) for v in window.size)
    data = glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE)
    stride = width * 4
    # OpenGL's rows come bottom first.
    return Pixels(width, height, b"".join(data[y * stride:(y + 1) * stride] for y in range(height - 1, -1, -1)))


def read_png(path: str | Path) -> Pixels:
    """Decode a screenshot with Kivy's own image loader (needs the Kivy window to exist)."""
    from kivy.core.image import ImageLoader

    image = ImageLoader.load(str(path), keep_data=True)
    data = image._data[0]
    if data.fmt not in ("rgba", "bgra"):
        raise AssertionError(f"unexpected screenshot format {data.fmt}")
    raw = bytes(data.data)
    if data.fmt == "bgra":
        raw = b"".join(raw[i + 2:i + 3] + raw[i + 1:i + 2] + raw[i:i + 1] + raw[i + 3:i + 4]
                       for i in range(0, len(raw), 4))
    return Pixels(data.width, data.height, raw)


def widget_box(widget, window_height: int) -> tuple[int, int, int, int]:
    """A widget's box in screenshot coordinates (x, y from the top, width, height)."""
    x, y = widget.to_window(widget.x, widget.y)
    return int(x), int(window_height - y - widget.height), int(widget.width), int(widget.height)


def relative_luminance(rgb: tuple[int, int, int]) -> float:
    from companion.ui.theme import relative_luminance as lum

    return lum(tuple(c / 255 for c in rgb))  # type: ignore[arg-type]


def measured_contrast(pixels: Pixels, box: tuple[int, int, int, int]) -> float:
    """Contrast between the background of a text box (its commonest colour) and its ink (the
    pixel furthest from the background in luminance), as a reader's eye would judge it."""
    counts = pixels.colours(box, step=1)
    background = counts.most_common(1)[0][0]
    lb = relative_luminance(background)
    ink = max(counts, key=lambda c: abs(relative_luminance(c) - lb))
    la = relative_luminance(ink)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)


# --- the whole app in a child process ------------------------------------------------------
def run_app_process(out_dir: Path, reader: str, size: str = "800x480", timeout: float = 40.0) -> dict:
    env = dict(os.environ)
    env.update(COMPANION_WINDOW=size, COMPANION_SPEECH="silent", SDL_VIDEODRIVER="offscreen",
               KIVY_NO_ARGS="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "tests.ui_helpers", str(out_dir), reader],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    report_path = out_dir / "report.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    report["returncode"] = proc.returncode
    report["stderr"] = proc.stderr
    return report


def _drive(out_dir: Path, reader: str) -> int:
    """Run ``run_app`` as ``python -m companion run`` does, and from inside its main loop: wait
    for the first scan, take a screenshot, press R, then Escape; write what happened as JSON."""
    from companion.ui.app import run_app  # first: it sets Kivy up and sizes the window

    report: dict = {"steps": []}
    import time

    from kivy.app import App
    from kivy.clock import Clock

    deadline = time.monotonic() + 25

    def step(name: str) -> None:
        report["steps"].append(name)

    state = {"phase": "wait-scan", "frames": 0}

    def probe(_dt: float) -> None:
        from kivy.core.window import Window

        app = App.get_running_app()
        if app is None or app.root is None:
            return
        screen = app.card_screen
        if time.monotonic() > deadline:
            step("timeout")
            report["notice"] = screen.notice
            app.stop()
            return
        phase = state["phase"]
        if phase == "wait-scan":
            ready = app.last_scan is not None or (reader.startswith("nope") and app.runtime.scans.wait_ready(0))
            if ready and app.voice.wait_idle(0.0 if app.last_scan is None else 2.0):
                state["phase"] = "settle"
        elif phase == "settle":
            state["frames"] += 1
            if state["frames"] >= 3:  # let layout and textures settle before the picture
                report["screenshot"] = Window.screenshot(name=str(out_dir / "app.png"))
                report.update(title=screen.title, mode=screen.mode, notice=screen.notice, where=screen.where,
                              fields=[list(f) for f in screen.fields], text=screen.text,
                              first_frame_after=app.first_frame_after, window=list(Window.size),
                              window_title=app.title)  # SDL sets the native title from it
                step("shown")
                send_key(Window, ord("r"), "r")
                state["phase"] = "repeat"
        elif phase == "repeat":
            if app.voice.wait_idle(2.0):
                speaker = app.voice.speaker()
                history = speaker.history if speaker is not None else []
                report["spoken"] = [" ".join(u.text for u in message) for message in history]
                report["sent"] = list(app.voice.sent)
                step("repeated")
                send_key(Window, 27)  # Escape: back, never quit
                report["after_escape"] = app.root.current
                send_key(Window, ord("q"), "q", ["ctrl"])
                state["phase"] = "quitting"

    def first_tick(_dt: float) -> None:
        # The clock's first tick comes before the first frame is drawn: what was made for it.
        app = App.get_running_app()
        report["made_for_first_frame"] = [s.name for s in app.root.manager.screens]

    Clock.schedule_once(first_tick, 0)  # before the probe: it runs first in the first tick
    Clock.schedule_interval(probe, 0.05)
    started = time.monotonic()
    rc = run_app(reader)
    report["run_app_returned"] = rc
    report["seconds"] = round(time.monotonic() - started, 2)
    (out_dir / "report.json").write_text(json.dumps(report, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(_drive(Path(sys.argv[1]), sys.argv[2]))
