"""``python -m companion <command>``: one module per command, under ``companion.commands`` or with
the front end it starts (``run``: companion.launch; ``console``: companion.console).

Each command module has ``configure(parser)`` and ``run(args) -> int``; heavy imports stay
inside ``run`` so that ``--help`` and start-up stay fast.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from companion import __version__

COMMANDS: dict[str, str] = {
    "run": "Start the companion: the window, or the console when there is no display.",
    "console": "The console companion: one line per card scanned; table commands on stdin.",
    "table": "Play a game with command words from a script or stdin; print the final state.",
    "cards": "Search, show, add and validate cards.",
    "games": "List the games; write a starting folder for a game of your own.",
    "rules": "Search the rules and glossary of a game.",
    "deck": "Check a deck list against the game's rules.",
    "tag": "Read, write, bind and enroll tags.",
    "speak": "Speak a card, or write what would be spoken to a WAV file.",
    "doctor": "Find readers and check the system for what stops them.",
    "bench": "Measure the performance budgets; prints JSON.",
    "screenshots": "Render every screen of every game into PNG files.",
    "serve": "Run the table with no window, the players' phones as their own seats.",
    "venue": "The organiser's hub of a venue: tables over MQTT, seating, rounds, results, boards.",
}


# The commands that start a front end live with it (or above them all, for ``run``); the others
# are the CLI's own, under companion.commands.
FRONT_ENDS: dict[str, str] = {"run": "companion.launch", "console": "companion.console",
                              "serve": "companion.web.serve"}
# Front ends that are not a table (no --venue): the venue's hub.
OTHER_FRONT_ENDS: dict[str, str] = {"venue": "companion.venue.command"}


def _module(name: str):
    module = FRONT_ENDS.get(name) or OTHER_FRONT_ENDS.get(name)
    return importlib.import_module(module or f"companion.commands.{name.replace('-', '_')}")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m companion", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=__version__)
    parser.add_argument("--lang", choices=("fr", "en"), help="language of messages (default fr)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_text, add_help=False)
            continue
        try:
            module = _module(name)
        except ModuleNotFoundError:
            continue  # a command not built yet is simply not offered
        p = sub.add_parser(name, help=help_text, description=help_text)
        module.configure(p)
        if name in FRONT_ENDS:  # a table of a venue: --venue URL --table N
            from companion.venue.options import add_arguments

            add_arguments(p)
    return parser


def _command_word(argv: list[str]) -> str | None:
    """The first word of ``argv`` that is neither an option nor the value of ``--lang`` (the one
    option before the command that takes a value): the command, if it is one. Taking "en" of
    ``--lang en table`` for the command built the parser of every command, importing them all
    (the phone server's ssl, the venue's asyncio: a quarter of a second of CPU at each start)."""
    after_lang = False
    for arg in argv:
        if after_lang:
            after_lang = False
        elif arg == "--lang":
            after_lang = True
        elif not arg.startswith("-"):
            return arg
    return None


def _lang_asked(argv: list[str]) -> str | None:
    """The language ``--lang`` asks for before the command (``--lang en`` or ``--lang=en``)."""
    for arg, following in zip(argv, [*argv[1:], None], strict=True):
        value = following if arg == "--lang" else arg[7:] if arg.startswith("--lang=") else None
        if value in ("fr", "en"):
            return value
        if not arg.startswith("-") and arg != value:
            break  # the command: a --lang after it is the command's own
    return None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in argv if not a.startswith("-")), None)
    if first is None or first not in COMMANDS:
        if not any(a in ("-h", "--help", "--version") for a in argv) and first is None:
            argv = ["run", *argv]
    command = _command_word(argv)
    lang = _lang_asked(argv)
    if lang is not None:  # before parsing: an argument refused is told in that language
        from companion import i18n

        i18n.set_language(lang, chosen=True)
    parser = build_parser(only=command if command in COMMANDS else None)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    _notices_as_sentences()
    if args.lang:
        from companion import i18n

        i18n.set_language(args.lang, chosen=True)  # wins over the app's settings file

    if not args.command:
        parser.print_help()
        return 2
    if args.command in ("console", "table", "run"):
        _stop_on_signals()
    if getattr(args, "venue", None):
        from companion.i18n import t
        from companion.venue.join import install

        try:
            install(args.venue, args.table)
        except ValueError:
            print(t("venue.bad_url", url=args.venue), file=sys.stderr)
            return 2
    try:
        return int(_module(args.command).run(args) or 0)
    except BrokenPipeError:
        # Whoever read the output has gone (``| head``): stop without a traceback, as cat does.
        # Python would still flush stdout into the closed pipe at exit: point it at /dev/null.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE: what a shell reports for a tool a closed pipe stopped
    except KeyboardInterrupt:
        return 130


def _notices_as_sentences() -> None:
    """What the program tells the user from deep inside (a voice that does not exist) goes to the
    terminal as the sentence it is, in the user's language, without the log's English prefix."""
    notice = logging.getLogger("companion.notice")
    if not notice.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        notice.addHandler(handler)
        notice.propagate = False


def _stop_on_signals() -> None:
    """SIGTERM (systemd, kill) and SIGHUP (the terminal closed) end the console and the table
    the way Ctrl-C does: the goodbye said, where the game is and how to resume it."""
    import signal

    def interrupt(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), interrupt)
