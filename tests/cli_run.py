"""``python -m companion ARGS`` run inside the test's own process, for the tests that only read
what a command prints and its exit status: the same entry point (companion.cli.main, what
companion/__main__.py calls), the same environment, working folder and standard input, its
standard output and error captured, and the answer shaped as ``subprocess.run``'s. A child
process costs 0.2-0.5 s of CPU to start and import the program again; in here the program's
modules are already imported.

What a start would have given the command fresh is given it fresh, and what it changes in the
process is put back after it: the environment and the working folder, the language (read from
``COMPANION_LANG`` when the program starts; what follows it in the process does not hear the
command's ``--lang``), the logging handlers and levels the command sets up,
the signal handlers of ``console`` and ``table``, a venue joined with ``--venue`` (what every
runtime adds), and what the program keeps of the games' folders (``registry.forget``: a test's
own home has other games than the session's).

Tests about the process itself keep a real child: a terminal (pty), signals, kill -9, a pipe
read line by line while the program runs, the imports of a start, the installed wheel.
"""

from __future__ import annotations

import io
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, name))


def run_cli(*args: str, env: Mapping[str, str | None] | None = None, stdin: str | None = None,
            cwd: str | Path | None = None) -> subprocess.CompletedProcess[str]:
    """``args`` run as ``python -m companion`` would run them. ``env``: variables set for the run
    (a value None removes one), over the test process's own environment, as a child would inherit
    it. ``stdin``: what the command reads on its standard input (a pipe's text; empty if None)."""
    from companion import cli, i18n

    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_lang = (i18n._lang, i18n._chosen)
    # What follows the language in this process (a window's runtime kept by a test module) must not
    # hear the command's --lang: the command's listeners only, dropped after it.
    saved_listeners = i18n._listeners[:]
    i18n._listeners[:] = []
    root = logging.getLogger()
    notice = logging.getLogger("companion.notice")
    saved_root = (root.level, root.handlers[:])
    saved_notice = (notice.handlers[:], notice.propagate)
    saved_signals = {s: signal.getsignal(s) for s in _SIGNALS}
    saved_std = (sys.stdin, sys.stdout, sys.stderr)
    runtime = sys.modules.get("companion.play.runtime")
    saved_extensions = list(runtime.Runtime.extensions) if runtime is not None else None
    out, err = io.StringIO(), io.StringIO()
    try:
        for key, value in (env or {}).items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        if cwd is not None:
            os.chdir(cwd)
        _fresh_start(i18n)
        # No handler of pytest's on the root logger: the command's logging.basicConfig puts its own,
        # writing to the captured stderr as a program's warnings do.
        root.handlers[:] = []
        notice.handlers[:] = []
        sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin or ""), out, err
        try:
            status = cli.main(list(args))
        except SystemExit as exc:  # argparse's usage errors and --help, a command's sys.exit
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if exc.code is not None and not isinstance(exc.code, int):
                print(exc.code, file=err)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_std
        for handler in root.handlers:
            if handler not in saved_root[1]:
                handler.close()
        root.setLevel(saved_root[0])
        root.handlers[:] = saved_root[1]
        notice.handlers[:] = saved_notice[0]
        notice.propagate = saved_notice[1]
        for signum, handler in saved_signals.items():
            signal.signal(signum, handler)
        runtime = sys.modules.get("companion.play.runtime")
        if runtime is not None:  # a venue joined (--venue) is the command's, not the next test's
            runtime.Runtime.extensions[:] = saved_extensions or []
        os.chdir(saved_cwd)
        for key in set(os.environ) - set(saved_env):  # key by key: never an empty environment for a moment
            del os.environ[key]
        for key, value in saved_env.items():
            if os.environ.get(key) != value:
                os.environ[key] = value
        i18n._lang, i18n._chosen = saved_lang
        i18n._listeners[:] = saved_listeners
        _forget_games()
    return subprocess.CompletedProcess([sys.executable, "-m", "companion", *args], status, out.getvalue(),
                                       err.getvalue())


def _fresh_start(i18n) -> None:
    """What a new process reads once at start: the language from the environment, the games'
    folders from the (test's) home."""
    lang = os.environ.get("COMPANION_LANG")
    i18n._lang = lang if lang in i18n.LANGUAGES else "fr"
    i18n._chosen = i18n._lang == lang
    _forget_games()


def _forget_games() -> None:
    from companion import registry

    registry.forget()
    data = sys.modules.get("companion.table.data")
    if data is not None:
        data.forget_headers()
    gamedata = sys.modules.get("companion.cards.gamedata")
    if gamedata is not None:
        gamedata._last_read = None
