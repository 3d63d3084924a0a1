"""Test set-up shared by every test: a private COMPANION_HOME, offline krcg, and a Kivy that
renders real pixels offscreen with no X server (see ../shared/TESTING.md).

Things built once per test session, because every test reads them and none changes them:

- the compiled card index, in a cache folder of the session (``COMPANION_CACHE``) that every
  child process started by a test reads too, whatever home the test gives it (a test about the
  index itself drops the variable);
- one card library (the ``card_library`` fixture);
- where the rulebooks are (``../shared/seeds``, or ``COMPANION_SEEDS``): tests that read them ask
  for the ``rulebooks`` fixture and are skipped, with one line in the header, when they are absent.

Under pytest-xdist (``make test`` runs ``-n auto --dist loadfile``) each test file stays in one
worker, the longest files first; the window files go to a third of the workers (each makes its one
Kivy window once) and the browser files to one other (one Chromium a run).
"""

import atexit
import gc
import importlib.util
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Full collections ten times rarer (Python's default: one every 10 young-generation passes). A test
# process keeps what a whole session builds (the card libraries, a worker's Kivy window and its app
# roots), and each full collection walked all of it again: a fifth of the CPU of a window test
# file went there (test_ui_table.py: 4.7 of 18.7 CPU-s, 22 full collections; with this, 3 and 2.4 s).
# Garbage in cycles still goes, later. And a young collection every 5,000 new objects rather than
# 700: fewer objects of a session pass into the old generations, which are then walked less often
# (test_ui_table, test_search, test_long_games and test_web in one process, GC time by gc.callbacks,
# two runs each: 2.48 s and 3 full collections with 700, 1.58 s and 1 with 5,000).
gc.set_threshold(5000, 10, 100)
_home = tempfile.mkdtemp(prefix="companion-test-")
if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("COMPANION_HOME") == os.environ.get("_COMPANION_TEST_HOME"):
    # Each xdist worker its own home (journal, collection, Kivy's config): two tests running at
    # once never share a file. The card index stays shared (COMPANION_CACHE, inherited).
    os.environ["COMPANION_HOME"] = _home
    os.environ["KIVY_HOME"] = os.path.join(_home, "kivy")
os.environ.setdefault("COMPANION_HOME", _home)
os.environ.setdefault("_COMPANION_TEST_HOME", os.environ["COMPANION_HOME"])
os.environ.setdefault("LOCAL_CARDS", "1")
os.environ.setdefault("NO_TRANSLATIONS", "1")
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")
os.environ.setdefault("KIVY_HOME", os.path.join(_home, "kivy"))
os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
# No multisampling, as the kiosk's own Kivy config has it (deploy/kivy-config.ini): Kivy's default
# (2) made Mesa's software GL draw each frame about 2.7 times over (25 -> 70 ms of CPU for the
# table at 800x480). An environment variable, so that the tests' Kivy children draw so too.
os.environ.setdefault("KCFG_GRAPHICS_MULTISAMPLES", "0")
# Tests make no sound unless one asks for a voice (COMPANION_SPEECH=espeak through monkeypatch).
os.environ.setdefault("COMPANION_SPEECH", "silent")
# The tests start a few hundred `python -m companion` children: with PYTHONDONTWRITEBYTECODE (set
# on some machines) each compiled the whole program again (0.1-0.2 s of CPU per child). Its
# compiled files are kept in __pycache__ as an installed program keeps them; the first child writes them.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False
# The session's card index, shared by the tests' child processes (set before xdist's workers start:
# they inherit it). Built in the background while tests are collected; see card_index below.
os.environ.setdefault("COMPANION_CACHE", os.path.join(os.environ["COMPANION_HOME"], "shared-cache"))
_INDEX_READY = Path(os.environ["COMPANION_CACHE"]) / "index-built"
# What a whole game by ear says, played once for the session and read by every test module that
# only reads it (tests.speech_measure.play_by_ear_once); set here so that xdist's workers inherit it.
if not os.environ.get("_COMPANION_TEST_HEARD"):
    os.environ["_COMPANION_TEST_HEARD"] = tempfile.mkdtemp(prefix="companion-heard-")
# The ready mark is written whatever happens: if the build failed, tests build the index themselves.
# Under a lock: the matrix's Pythons share one cache when their krcg is the same (noxfile.py), and
# a session that finds the mark once the lock is its own builds nothing.
_BUILD_INDEX = """
import fcntl, sys
from pathlib import Path
ready = Path(sys.argv[1])
with open(ready.with_name("index-build.lock"), "w") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    if not ready.exists():
        try:
            from companion.cards.library import CardLibrary
            CardLibrary().catalog
        finally:
            ready.write_text("built")
"""

SEEDS = Path(os.environ.get("COMPANION_SEEDS") or ROOT.parent / "shared" / "seeds")
NO_SEEDS = f"rulebooks: not at {SEEDS} (set COMPANION_SEEDS): the tests that read them did not run"


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker: the controller started the build
        atexit.register(_worker_exit)
        return
    Path(os.environ["COMPANION_CACHE"]).mkdir(parents=True, exist_ok=True)
    if not _INDEX_READY.exists():
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        config._companion_index = subprocess.Popen(  # type: ignore[attr-defined]
            [sys.executable, "-c", _BUILD_INDEX, str(_INDEX_READY)], cwd=ROOT, env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _rewrite_for_workers(config)


def _worker_exit() -> None:
    """An xdist worker's last act, once its tests have run, its results have reached the controller
    and its channel is closed: leave without the interpreter's teardown, which freed every object
    of a worker that had drawn windows one by one (about 1 CPU-second per window worker, more than
    its Kivy window cost to make). Registered at configure time, so it runs after every exit
    handler registered since (they run last-registered first); of those registered before, only
    logging's does anything in a worker, and is run here. Only the workers: their exit status is
    not read (the controller has every result from the channel), where a pytest of its own, or a
    pytest started by a test, exits with its status."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    os._exit(0)


def _rewrite_for_workers(config: pytest.Config) -> None:
    """Under xdist, write the test files' assertion-rewritten pycs once, here, before the workers
    start. Every worker imports every test file to collect it; on a fresh clone each of them
    rewrote all of them at the same time (pytest's rewriting: ~7.5 CPU-s for the whole suite on
    this machine, 5x a plain compile). The workers then read these pycs. pytest's own rewriting
    functions (private: anything unexpected and the workers rewrite as before); a pyc already up
    to date is only read (~0.1 s for the suite)."""
    workers = getattr(config.option, "numprocesses", None)
    if not isinstance(workers, int) or workers < 2 or config.option.collectonly or sys.dont_write_bytecode:
        return
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
        files: set[Path] = set()
        for arg in config.args:
            path = Path(config.invocation_params.dir, arg.split("::", 1)[0])
            if path.is_dir():
                files.update(p for p in path.rglob("*.py") if p.name.startswith("test_") or p.name == "conftest.py")
            elif path.suffix == ".py":
                files.add(path)
        for fn in sorted(files):
            pyc = rewrite.get_cache_dir(fn) / (fn.name[:-3] + rewrite.PYC_TAIL)
            if rewrite._read_pyc(fn, pyc, state.trace) is None and rewrite.try_makedirs(pyc.parent):
                source_meta, code = rewrite._rewrite_test(fn, config)
                rewrite._write_pyc(state, code, source_meta, pyc)
    except Exception:  # a pytest whose internals moved: the workers rewrite, as before
        return
    # pytest rewrites a plugin's whole package too, hypothesis's among them, in pycs of its own
    # (uv's or compileall's are not read): every worker imports hypothesis to collect the property
    # tests, and on a fresh clone each rewrote its ~70 modules at the same time (0.65 CPU-s each).
    # Imported here they are rewritten once; this process imports it at the end anyway (the
    # hypothesis plugin's terminal summary), so a later run pays nothing for it.
    if importlib.util.find_spec("hypothesis") is not None:
        import hypothesis.strategies  # noqa: F401


def pytest_unconfigure(config: pytest.Config) -> None:
    proc = getattr(config, "_companion_index", None)
    if proc is not None and proc.poll() is None:
        proc.kill()
        proc.wait()


def pytest_report_header(config: pytest.Config) -> str:
    return f"rulebooks: {SEEDS}" if SEEDS.is_dir() else NO_SEEDS


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if not SEEDS.is_dir() and not hasattr(config, "workerinput"):
        terminalreporter.write_line(NO_SEEDS)  # the one line, even with -q (the header is not shown then)


@pytest.fixture(autouse=True)
def _language_put_back():
    """The process's language as it was before the test: a test that changes it (cli.main with
    --lang, a setting applied) left the next test of its worker in English (the venue's boards,
    drawn in the hub's language, failed so after test_cli_start). Put back through set_language,
    so that what listens to the language (the theme, a voice) follows too."""
    i18n = sys.modules.get("companion.i18n")
    env = os.environ.get("COMPANION_LANG")
    before = (i18n._lang, i18n._chosen) if i18n is not None else (env if env in ("fr", "en") else "fr", env is not None)
    yield
    i18n = sys.modules.get("companion.i18n")
    if i18n is not None and (i18n._lang, i18n._chosen) != before:
        i18n.set_language(before[0])
        i18n._chosen = before[1]


@pytest.fixture(scope="session", autouse=True)
def card_index() -> Path:
    """The session's card index, built once by a child process started at configure time (in
    parallel with collection); every test waits for it, so no two tests build it at once."""
    deadline = time.monotonic() + 600
    while not _INDEX_READY.exists():
        if time.monotonic() > deadline:
            pytest.fail(f"the session's card index was not built in {os.environ['COMPANION_CACHE']}")
        time.sleep(0.05)
    return Path(os.environ["COMPANION_CACHE"])


@pytest.fixture(scope="session")
def card_library(card_index):
    """One card library for the whole session, read from the session's index: for tests that only
    read cards (a test that adds cards makes its own)."""
    from companion.cards.library import CardLibrary

    library = CardLibrary()
    library.games  # noqa: B018  (load now, not inside the first test that asks)
    return library


@pytest.fixture(scope="session")
def rulebooks() -> Path:
    """The rulebooks' text (../shared/seeds), or the test is skipped with the header's reason."""
    if not SEEDS.is_dir():
        pytest.skip(NO_SEEDS)
    return SEEDS


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not SEEDS.is_dir():  # deselected, not skipped one by one: the summary says it in one line
        without = [item for item in items if "rulebooks" in getattr(item, "fixturenames", ())]
        if without:
            config.hook.pytest_deselected(items=without)
            items[:] = [item for item in items if item not in without]


if importlib.util.find_spec("xdist") is not None:
    import functools
    import re

    # Wall seconds of the files that take longest in a worker (run of -n 6 on 2 cores, loaded
    # machine), most of it waiting: on children (wheel, krcg, update), timeouts, emulators. Their
    # count of tests says nothing of it (test_read_only_home: 1 test, 44 s; test_wheel: 2, 72 s),
    # and ordered by that count they started last and ran alone at the end with the cores idle
    # (that run: test_wheel, test_venue_simulate, test_read_only_home, test_journal_crash and
    # test_venue_faults started in the last 90 s; the 6 workers ended over 41 s, 427 to 468 s).
    # Only an order: a stale figure costs some balance, never a test.
    _WALL = {
        "tests/ui/test_ui_screens.py": 195, "tests/ui/test_ui_table.py": 136,
        "tests/games/vtes/test_vtes_update.py": 134, "tests/unit/test_fuzz.py": 108,
        "tests/unit/test_search.py": 85, "tests/ui/test_ui_layout.py": 72,
        "tests/integration/test_wheel.py": 72, "tests/ui/test_by_ear_app.py": 67,
        "tests/ui/test_ui_card.py": 66, "tests/ui/test_a11y_app.py": 64,
        "tests/games/vtes/test_vtes_krcg.py": 62, "tests/integration/test_web_whole_games.py": 61,
        "tests/unit/test_long_games.py": 60, "tests/unit/test_kv_kept.py": 48,
        "tests/unit/test_table_props.py": 46, "tests/integration/test_web.py": 46,
        "tests/integration/test_read_only_home.py": 44, "tests/integration/test_web_phone_page.py": 44,
        "tests/ui/test_ui_venue.py": 35, "tests/integration/test_web_hostile.py": 35,
        "tests/venue/test_venue_simulate.py": 33, "tests/integration/test_journal_crash.py": 29,
        "tests/venue/test_venue_command.py": 27, "tests/hardware/test_tag_enroll.py": 27,
        "tests/ui/test_ui_user_files_special.py": 27, "tests/unit/test_bench_compare.py": 27,
        "tests/integration/test_speech_no_sound_card.py": 27, "tests/venue/test_venue_faults.py": 29,
        "tests/ui/test_ui_terminal_quiet.py": 20, "tests/hardware/test_scan_to_play_console.py": 20,
        "tests/integration/test_web_fuzz.py": 19, "tests/venue/test_venue_cli.py": 18,
        "tests/integration/test_web_tls.py": 18,
    }
    _USES_WINDOW = re.compile(
        r"def test_\w*\([^)]*\bwindow\b|@pytest\.fixture[^\n]*\n(?:@[^\n]*\n)*def \w+\([^)]*\bwindow\b")

    @functools.cache
    def _kind(scope: str) -> str:
        """"browser" for a file that drives the shared Chromium, "window" for one that asks for the
        Kivy window (a test or a fixture of its own taking ``window``), "" for the others."""
        try:
            source = Path(ROOT, scope).read_text(encoding="utf-8")
        except OSError:
            return ""
        if "chromium_process_fixture" in source:
            return "browser"
        return "window" if _USES_WINDOW.search(source) else ""

    def _cost(scope: str, tests: int) -> float:
        """A file's likely wall time, to start the longest first: its measured figure, else about
        0.8 s a test (the other files' mean), six times that for a window test (frames drawn in software)."""
        return _WALL.get(scope) or tests * 0.8 * (6 if _kind(scope) == "window" else 1)

    def pytest_xdist_make_scheduler(config: pytest.Config, log):
        """With ``--dist loadfile``: a file's tests stay in one worker (they share module fixtures),
        the longest files first so that no long file starts last and runs alone at the end. A
        scheduler of our own, because xdist's ``xdist_group`` marks no longer group anything with
        pytest 9.2's node ids (pytest-xdist issue 1386), and xdist orders files by their count of tests.

        Each worker that runs a window test imports Kivy and makes its own window (~0.5 CPU-s), and
        each that runs a browser test launches its own Chromium (1-2 CPU-s): spread as they came, a run of 6 workers
        made 5 windows and 3 launches. So the window files go to a third of the workers (2 of 6:
        their ~620 s of wall in all is under two workers' share, ~430 s each), and the browser files
        to one other worker (~145 s), each such worker taking its own kind first, then the plain
        files as the others do. A worker with nothing of its kind or plain left stops (in a run of 6,
        the browser and window workers are done with their kind long before the plain files). So
        ordered, a run made 2 windows and 1 launch, and its 6 workers ended within 29 s of each other."""
        if config.getvalue("dist") != "loadfile":
            return None
        from xdist.scheduler import LoadScopeScheduling

        class LongestFileFirst(LoadScopeScheduling):
            _kinds: dict | None = None

            def _assign_work_unit(self, node) -> None:
                # The queue is whole before the first file is handed out: order it once, by cost
                # (the workers keep their own collection order: only the queue moves).
                if self._kinds is None:
                    ordered = sorted(self.workqueue.items(), key=lambda item: -_cost(item[0], len(item[1])))
                    self.workqueue.clear()
                    self.workqueue.update(ordered)
                    nodes = sorted(self.nodes, key=lambda n: n.gateway.id)
                    windows = (len(nodes) + 2) // 3
                    self._kinds = {n: "window" for n in nodes[:windows]}
                    self._kinds[nodes[-1] if len(nodes) > windows else nodes[0]] = "browser"
                own = self._kinds.get(node, "")
                alive = {kind for n, kind in self._kinds.items() if n in self.assigned_work and not n.shutting_down}
                scope = next((s for s in self.workqueue if own and _kind(s) == own), None)
                if scope is None:  # plain files, else those whose worker is gone (crashed, say)
                    scope = next((s for s in self.workqueue if not _kind(s) or _kind(s) not in alive), None)
                if scope is not None:
                    self.workqueue.move_to_end(scope, last=False)
                    super()._assign_work_unit(node)
                elif not self._pending_of(self.assigned_work[node]):
                    node.shutdown()  # what is left is another worker's kind: no second window or Chromium

            def _split_scope(self, nodeid: str) -> str:
                return nodeid.split("::", 1)[0]

        return LongestFileFirst(config, log)


# The largest window any UI test asks for (1280x800; 480x800 is as tall). Offscreen, Kivy's GL
# surface keeps the size the window was made at: a window made at 800x480 and then enlarged draws
# only its bottom-left 800x480, the rest of a screenshot black or garbage. So the window is made
# this large once and resized for each test; a test needing more must raise this.
LARGEST_WINDOW = (1280, 800)


@pytest.fixture(scope="module")
def window():
    """The one real Kivy window (offscreen SDL), handed out at 800x480 like the Raspberry Pi's 7"
    display; made at LARGEST_WINDOW, so that a test may resize it up to that and still have every
    pixel drawn. Kivy is imported only by the tests that ask for it."""
    from companion.ui.app import DEFAULT_WINDOW, configure_window

    configure_window()
    from kivy.config import Config

    # Set here, not through COMPANION_WINDOW: the tests' child processes inherit the environment.
    Config.set("graphics", "width", str(LARGEST_WINDOW[0]))
    Config.set("graphics", "height", str(LARGEST_WINDOW[1]))
    from kivy.base import EventLoop

    EventLoop.ensure_window()
    from kivy.core.window import Window

    Window.size = DEFAULT_WINDOW
    for _ in range(2):  # laid out at that size before the first test looks
        EventLoop.idle()
    return Window
