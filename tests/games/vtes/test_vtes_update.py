"""``cards update``: the official VTES lists and their French and Spanish translations, fetched
from a local HTTP server on 127.0.0.1 (never the internet) that serves krcg's own English lists
plus a new card and small translation fixtures; checked; swapped in as a user cache. A bad
download changes nothing. Runs under krcg 4 and krcg 5 (the matrix of noxfile.py).

The successful update is done once for the module, through the command line as a user runs it
(``updated_once``): the tests that start from updated lists each get its home back as it left it,
instead of fetching, reading and indexing the lists again each (a few CPU-seconds per test)."""

import csv
import functools
import http.server
import io
import json
import os
import shutil
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from companion.cards import index as card_index
from companion.cards.library import CardLibrary
from companion.games.vtes import cards as vtes
from companion.games.vtes import update as vtes_update
from tests.cards_index import warm_index
from tests.cli_run import run_cli

FIXTURES = Path(__file__).parents[2] / "fixtures" / "vtes-update"


def _append_card(path: Path) -> None:
    """The new card, written in the column order of the list it joins."""
    text = path.read_text(encoding="utf-8-sig")
    header = next(csv.reader(io.StringIO(text)))
    new = next(csv.DictReader(io.StringIO((FIXTURES / "new-library-card.csv").read_text(encoding="utf-8"))))
    out = io.StringIO()
    csv.DictWriter(out, header, extrasaction="ignore", quoting=csv.QUOTE_ALL).writerow(
        {k: new.get(k, "") for k in header})
    path.write_text(text.rstrip("\n") + "\n" + out.getvalue(), encoding="utf-8")


def _zip(folder: Path, code: str) -> None:
    with zipfile.ZipFile(folder / f"vtescsv_utf8.{code}.zip", "w") as z:
        for kind in ("sets", "crypt", "lib"):
            name = f"vtes{kind}.{code}.csv"
            z.write(FIXTURES / name, name)


def _publish(folder: Path) -> None:
    """What the official sites would serve: krcg's bundled English lists, one new card, the
    fixtures' translations zipped as VEKN publishes them."""
    folder.mkdir()
    bundled = vtes.backend().bundled_folder()
    for name in ("vtessets.csv", "vtescrypt.csv", "vteslib.csv"):
        shutil.copyfile(bundled / name, folder / name)
    bundles = bundled / "vtesbundles.csv"  # krcg 5 ships one; krcg 4 does not read it
    shutil.copyfile(bundles if bundles.exists() else FIXTURES / "vtesbundles.csv", folder / "vtesbundles.csv")
    _append_card(folder / "vteslib.csv")
    _zip(folder, "fr-FR")
    _zip(folder, "es-ES")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@dataclass
class _Mirror:
    url: str
    served: Path  # the folder the server serves, which a test may spoil
    published: Path  # the same files as published, kept apart

    def restore(self) -> Path:
        shutil.rmtree(self.served, ignore_errors=True)
        shutil.copytree(self.published, self.served)
        return self.served


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Mirror]:
    """One server for the module: the update every test starts from (``updated_once``) names it
    as its source, which ``cards stats`` reports."""
    base = tmp_path_factory.mktemp("vtes-mirror")
    _publish(base / "published")
    served = base / "site"
    handler = functools.partial(_Quiet, directory=str(served))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    mirror = _Mirror(f"http://127.0.0.1:{httpd.server_address[1]}/", served, base / "published")
    mirror.restore()
    yield mirror
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def site(mirror: _Mirror) -> Path:
    """The served files as published (a test before may have cut or moved some)."""
    return mirror.restore()


@pytest.fixture
def server(mirror: _Mirror, site: Path) -> str:
    return mirror.url


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Iterator[Path]:
    path = tmp_path / "home"
    monkeypatch.setenv("COMPANION_HOME", str(path))
    # New lists in this home: its own index, a copy of the session's, in which the VTES row is
    # rebuilt from the lists in use (the other games are read as they are).
    monkeypatch.delenv("COMPANION_CACHE", raising=False)
    warm_index(path)
    vtes.forget()
    yield path
    vtes.forget()


@dataclass
class _Updated:
    home: Path
    saved: Path  # the home as the update left it
    offline: Path | None  # the lists in use before the update
    done: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def updated_once(mirror: _Mirror, tmp_path_factory: pytest.TempPathFactory) -> _Updated:
    """One ``cards update`` through the command line, as a user runs it, in a home of its own
    with a copy of the session's card index (see ``home``), which the update brings up to date
    (its VTES row built from the new lists: seconds of CPU). Done once for the module: each test
    that starts from updated lists gets this home back as the update left it (``updated``)."""
    base = tmp_path_factory.mktemp("vtes-updated")
    home = base / "home"
    mirror.restore()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("COMPANION_HOME", str(home))
        env.delenv("COMPANION_CACHE", raising=False)
        warm_index(home)
        vtes.forget()
        offline = vtes_update.current()
        done = _cli(home, "cards", "update", "--mirror", mirror.url, "--json")
        vtes.forget()
    # Kept with copy2's modes, sizes and modification times, and put back at the very same path:
    # the card index's VTES key names the lists' files by path, size and time.
    shutil.copytree(home, base / "saved")
    return _Updated(home, base / "saved", offline, done)


@pytest.fixture
def updated(updated_once: _Updated, monkeypatch) -> Iterator[Path]:
    """The home ``updated_once``'s update left, as it left it (a test before may have changed it)."""
    home = updated_once.home
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(updated_once.saved, home)
    monkeypatch.setenv("COMPANION_HOME", str(home))
    monkeypatch.delenv("COMPANION_CACHE", raising=False)
    vtes.forget()
    yield home
    vtes.forget()


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COMPANION_HOME": str(home)}
    env.pop("COMPANION_CACHE", None)  # new lists in this home: its own index (see ``home``)
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``_cli``'s command in this process (tests.cli_run), for what only reads its output and
    status: no child to start and import the program again (0.2-0.3 CPU-s each)."""
    return run_cli(*args, env={"COMPANION_HOME": str(home), "COMPANION_CACHE": None})


def test_update_fetches_checks_and_swaps_in_the_new_lists(card_library, updated_once: _Updated, updated: Path,
                                                           server: str) -> None:
    home = updated
    # krcg's bundled lists, as the session's card index holds them.
    bundled = len(card_library.load("vtes"))
    assert updated_once.offline is None  # offline start: krcg's bundled lists
    done = updated_once.done  # ``cards update --mirror <server> --json``, run by the fixture
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["cards"] == bundled + 1 and result["added"] == 1
    assert result["translated"]["fr"] >= 3 and result["translated"]["es"] >= 1
    # The card index is brought up to date with the new lists: the next start reads them warm.
    stored = card_index.stored_cards("vtes")
    assert stored is not None and "109999" in stored and len(stored) == bundled + 1
    shown = _run(home, "--lang", "fr", "cards", "show", "vtes:100845")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[0].startswith("Diriger les indécis")
    assert "liste officielle de test" in shown.stdout  # the fetched translation, on krcg 4 as on krcg 5
    new = _run(home, "--lang", "en", "cards", "show", "vtes:109999")
    assert new.returncode == 0 and new.stdout.startswith("Companion Test Card"), new.stderr
    found = _run(home, "cards", "search", "--game", "vtes", "Regir a los no alineados")
    assert found.stdout.startswith("vtes:100845"), found.stdout
    stats = _run(home, "cards", "stats", "--json")
    assert json.loads(stats.stdout)["vtes_lists"]["updated"]["source"] == server
    # What is stored is data, not code: the official CSVs and zips and a JSON note.
    folder = vtes_update.current()
    assert folder is not None and {p.suffix for p in folder.iterdir()} == {".csv", ".zip", ".json"}


def test_an_update_is_refused_whole_and_changes_nothing(updated: Path, server: str, site: Path) -> None:
    home = updated
    before = vtes_update.current()
    assert before is not None
    library = CardLibrary()
    assert library.get("vtes:109999") is not None
    # A truncated crypt list (a download cut short): krcg's rulings name vampires it lacks.
    crypt = (site / "vtescrypt.csv").read_text(encoding="utf-8-sig").splitlines(keepends=True)
    (site / "vtescrypt.csv").write_text("".join(crypt[:40]), encoding="utf-8")
    with pytest.raises(vtes_update.UpdateError, match="krcg ne sait pas lire|cartes connues aujourd"):
        vtes_update.update(server)
    # A file missing on the server, then a translation that is not a zip.
    (site / "vtescrypt.csv").write_text("".join(crypt), encoding="utf-8")
    (site / "vtescsv_utf8.es-ES.zip").rename(site / "moved.zip")
    with pytest.raises(vtes_update.UpdateError, match="HTTP 404"):
        vtes_update.update(server)
    (site / "vtescsv_utf8.es-ES.zip").write_text("<html>maintenance</html>", encoding="utf-8")
    with pytest.raises(vtes_update.UpdateError, match="ce n'est pas une archive zip"):
        vtes_update.update(server)
    assert vtes_update.current() == before
    assert [p.name for p in vtes_update.root().iterdir() if p.name.startswith("new-")] == []
    # The CLI says so in one line and exits 1.
    refused = _run(home, "--lang", "en", "cards", "update", "--mirror", server)
    assert refused.returncode == 1 and "Update refused, the lists in use are unchanged" in refused.stderr
    assert "not a zip archive" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr
    # In French, the reason too.
    refused = _run(home, "--lang", "fr", "cards", "update", "--mirror", server)
    assert refused.returncode == 1 and "Mise à jour refusée" in refused.stderr
    assert "ce n'est pas une archive zip" in refused.stderr and "not a zip" not in refused.stderr, refused.stderr
    # Back to krcg's bundled lists on request.
    assert vtes_update.revert() and vtes_update.current() is None
    assert all(c.id != "109999" for c in vtes.iter_cards())


def test_no_network_is_a_clear_message(home: Path) -> None:
    # A closed port on loopback stands for a machine with no network.
    refused = _run(home, "cards", "update", "--mirror", "http://127.0.0.1:9/", "--timeout", "5")
    assert refused.returncode == 1 and "Mise à jour refusée" in refused.stderr, refused.stderr
    assert vtes_update.current() is None


def test_stored_lists_krcg_cannot_read_fall_back_to_the_bundled_ones(updated: Path) -> None:
    folder = vtes_update.current()
    assert folder is not None
    (folder / "vteslib.csv").write_text('"Id","Name"\n"1","broken"\n', encoding="utf-8")
    vtes.forget()
    library = CardLibrary()
    assert len(library.load("vtes")) > 4000 and library.get("vtes:109999") is None
    (problem,) = library.load_problems("en")
    assert "loaded only in part" in problem and "cards update" in problem, problem


def test_krcg_missing_is_said_in_the_users_language(monkeypatch) -> None:
    # krcg is installed here: its version lookup is what a machine without it answers.
    from companion.i18n import language, set_language

    monkeypatch.setattr(vtes, "krcg_version", lambda: "missing")
    before = language()
    try:
        set_language("fr")
        with pytest.raises(ImportError, match="krcg n'est pas installé : « pip install -e . » l'installe"):
            vtes.krcg_major()
        set_language("en")
        with pytest.raises(ImportError, match="krcg is not installed"):
            vtes.krcg_major()
    finally:
        set_language(before)
