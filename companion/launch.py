"""``python -m companion run``: start the companion, the Kivy window when a display is there,
else the console. It stands above the front ends (as the CLI does): they never import each other."""

from __future__ import annotations

import argparse
import os
import sys


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--reader", action="extend", nargs="+", metavar="PATH[@SEAT]",
                   help="reader path (default: the simulator); repeat it for several readers, "
                        "@SEAT binds one to a seat, e.g. --reader usb:054c:06c3@1 --reader tty:S0:pn532@2")
    p.add_argument("--demo", action="store_true", help="simulated reader laying demo cards")
    p.add_argument("--console", action="store_true", help="force the console companion")


def display_available() -> bool:
    """True when a window can be opened: X11 or Wayland, a framebuffer driver chosen by the
    kiosk (SDL_VIDEODRIVER), or a desktop platform that always has one."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                or os.environ.get("SDL_VIDEODRIVER"))


def _demo_reader() -> str:
    """The simulated reader laying the first shipped game's demo cards (its demo.yaml)."""
    from companion import registry

    return "sim:" + ",".join(registry.demo_cards())


def run(args: argparse.Namespace) -> int:
    from companion import i18n
    from companion.i18n import t

    # With no --reader the app takes the readers of its settings (the console: the simulator).
    reader = " ".join(args.reader) if args.reader else (_demo_reader() if args.demo else None)
    if args.console or not display_available():
        if not args.console:
            print(t("console.no_display"), file=sys.stderr)
        from companion import console

        return console.main(reader or "sim", speak=True, lang=i18n.language())
    from companion.ui.app import run_app

    status = run_app(reader=reader)
    if status is None:  # no GL, no SDL: the console companion still works
        from companion import console

        return console.main(reader or "sim", speak=True, lang=i18n.language())
    return status
