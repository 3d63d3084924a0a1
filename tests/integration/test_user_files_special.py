"""User files that cannot hang the program (issue 22, item 3): only regular files are read, with
a cap counted on the bytes read (never st_size, which is 0 for a FIFO or /dev/zero); special
files, dangling links and loops are skipped with a line naming them in the user's language;
`cards add` never shows a traceback; a bad collection or settings file is named, with the fix."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from companion import userfiles
from companion.cards import catalog
from companion.cards.library import CardLibrary
from companion.cards.yamlload import MAX_FILE_BYTES
from tests.cards_index import warm_index

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
GOOD = "cards:\n  - id: mine\n    name: Mine\n    type: invocateur\n    text: Un texte.\n"


def special(folder: Path, kind: str) -> Path:
    """A file of the given kind at ``folder / name``."""
    path = folder / "rise.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "null":
        path.symlink_to("/dev/null")
    elif kind == "dangling":
        path.symlink_to(folder / "usb-stick" / "rise.yaml")
    elif kind == "loop":
        (folder / "other.yml").symlink_to(path)
        path.symlink_to(folder / "other.yml")
    elif kind == "folder":
        path.mkdir()
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(path))
        s.close()
    return path


KINDS = {"fifo": "FIFO", "zero": "device", "null": "device", "dangling": "missing file", "loop": "loop",
         "folder": "folder", "socket": "socket"}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_only_regular_files_are_read_and_the_others_named(tmp_path: Path, kind: str) -> None:
    path = special(tmp_path, kind)
    with pytest.raises(userfiles.Unreadable) as caught:
        userfiles.read_bytes(path, MAX_FILE_BYTES)  # returns at once: no FIFO waited on, no /dev/zero read
    line = caught.value.describe("en")
    assert str(path) in line and KINDS[kind] in line
    assert str(path) in caught.value.describe("fr") and "Fichier ignoré" in caught.value.describe("fr")


def test_the_cap_is_counted_on_the_bytes_read(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"x" * 101)
    with pytest.raises(userfiles.Unreadable) as caught:
        userfiles.read_bytes(path, 100)
    assert caught.value.key == "userfile.too_large"
    assert userfiles.read_bytes(path, 101) == b"x" * 101


BAD_CONTENTS = {
    "garbage": os.urandom(3000), "latin-1": "cards:\n  - id: é\n".encode("latin-1"),
    "tabs": b"cards:\n\t- id: x\n", "bomb": b"a: &a [x,x]\nb: &b [*a,*a]\ncards: *b\n",
    "recursive": b"cards: &a [*a]\n", "list": b"- 1\n- 2\n", "scalar": b"hello\n", "cards scalar": b"cards: x\n",
    "cards mapping": b"cards: {a: 1}\n", "cards numbers": b"cards: [1, 2]\n",
    "id list": b"cards:\n  - id: [1, 2]\n    name: X\n", "too large": b"#" * (MAX_FILE_BYTES + 10),
    "empty": b"", "comments": b"# nothing\n", "unclosed": b'cards: ["x\n', "duplicate": b"cards: []\ncards: []\n",
    "nul": b"cards:\x00 []\n",
}


def _add(capsys) -> tuple[int, str]:
    from companion.commands.cards import _add as add

    library = CardLibrary(catalog.build(with_sources=False))
    args = argparse.Namespace(game="rise", id=None, name="Ma carte", en_name=None, card_type="invocateur",
                              cost=None, text="Un texte.", keywords=None, stat=[], json=False)
    code = add(args, library)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("bad", [*sorted(KINDS), *sorted(BAD_CONTENTS)])
def test_cards_add_never_shows_a_traceback(tmp_path: Path, monkeypatch, capsys, bad: str) -> None:
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False)
    cards = tmp_path / "home" / "data" / "cards"
    cards.mkdir(parents=True)
    assert catalog.overlay_dir() == cards
    if bad in KINDS:
        path = special(cards, bad)
    else:
        path = cards / "rise.yaml"
        path.write_bytes(BAD_CONTENTS[bad])
    code, err = _add(capsys)  # any exception would fail the test: the command only catches DataError
    assert code in (0, 2)
    if code == 2:
        assert "rise.yaml" in err and "Traceback" not in err
    if bad in KINDS:
        assert code == 2


def test_a_fifo_and_a_link_to_dev_zero_in_the_cards_folder_do_not_stop_the_programs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cards = home / "data" / "cards"
    cards.mkdir(parents=True)
    os.mkfifo(cards / "rise.yaml")
    (cards / "astral.yaml").symlink_to("/dev/zero")
    (cards / "ascension.yaml").symlink_to(tmp_path / "not-mounted" / "ascension.yaml")
    env = {**os.environ, "COMPANION_HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("COMPANION_CACHE", None)  # the user's files in this home: its own card index
    warm_index(home)  # from the session's: only the games of the special files are rebuilt
    done = subprocess.run([sys.executable, "-m", "companion", "--lang", "en", "cards", "validate"], cwd=ROOT,
                          capture_output=True, text=True, timeout=100, env=env)
    out = done.stdout + done.stderr
    assert "Traceback" not in out
    for name, why in (("rise.yaml", "FIFO"), ("astral.yaml", "device"), ("ascension.yaml", "missing file")):
        assert name in out and why in out, out
    # The card index (keyed on the files' state) is built past them: every other card is found.
    found = subprocess.run([sys.executable, "-m", "companion", "--lang", "en", "cards", "search", "athanor"],
                           cwd=ROOT, capture_output=True, text=True, timeout=100, env=env)
    assert found.returncode == 0 and "res-arcana:athanor" in found.stdout, found.stderr


def test_a_bad_collection_is_named_with_the_fix(tmp_path: Path, monkeypatch) -> None:
    from companion.tags import collection

    monkeypatch.setenv("COMPANION_HOME", str(tmp_path))
    path = collection.collection_path()
    assert collection.problem() is None  # none: nothing to say
    path.write_text("04A1B2C3: [unclosed\n")
    sentence = collection.problem(lang="fr")
    assert sentence and str(path) in sentence and "UID: jeu:id" in sentence
    path.unlink()
    os.mkfifo(path)
    sentence = collection.problem(lang="en")
    assert sentence and "FIFO" in sentence and "Fix it" in sentence
    assert collection.load_uid_map() == {}  # and the tags are read on, never waiting on the FIFO


def test_a_bad_settings_file_is_named_with_the_fix(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path))
    path = userfiles.settings_path()
    assert userfiles.settings_problem() is None
    for bad in (b"no section header\n", b"[display]\nlanguage fr\n", b"\xff\xfe\x00", b"[a]\nx=1\n[a]\n"):
        path.write_bytes(bad)
        sentence = userfiles.settings_problem(lang="fr")
        assert sentence and str(path) in sentence and "supprimez-le" in sentence, bad
    path.write_text("[display]\nlanguage = fr\n")
    assert userfiles.settings_problem() is None


def test_the_console_says_a_bad_collection_at_start(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    os.mkfifo(home / "data" / "collection.yaml")
    env = {**os.environ, "COMPANION_HOME": str(home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "companion", "--lang", "en", "console"], cwd=ROOT, input="quit\n",
                          capture_output=True, text=True, timeout=100, env=env)
    assert "Traceback" not in done.stderr
    assert "collection" in done.stderr and "FIFO" in done.stderr and "Fix it" in done.stderr
