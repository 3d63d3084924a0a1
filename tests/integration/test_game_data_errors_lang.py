"""A user's own game (``<data dir>/games/<id>/``) with a mistake is named with file, line and cause
(issue 21, item 2), the cause in the user's language: French first, English second, from the one
translation table. Before, every cause of the game.yaml loader (cards.gamedata, its checker, the
YAML reader, the table section's reader) was English whatever the language."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion import i18n
from companion.cards.gamedata import read_game
from companion.cards.yamlload import DataError
from companion.table.data import TableDataError, parse_table
from tests.cards_index import warm_index
from tests.cli_run import run_cli

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).resolve().parents[2]

# (what is changed in the starting game.yaml, the start of the line named, the cause in French, in English)
MISTAKES = [
    ("players: {min: 2, max: 2}", "players: {min: 3, max: 2}", "players:",
     "min (3) est plus grand que max (2)", "min (3) is more than max (2)"),
    ("players: {min: 2, max: 2}", "players: {min: 2, max: deux}", "players:",
     "attendu : un nombre entier, trouvé : 'deux'", "expected a whole number, got 'deux'"),
    ("card_language: fr", "card_language: de", "card_language:",
     "attendu : l'une des valeurs fr, en, trouvé : 'de'", "expected one of fr, en, got 'de'"),
    ("order: 50", "order: 50\ncolour: blue", "colour:",
     "champ inconnu ; champs possibles :", "unknown field; expected one of:"),
    ("    kind: resource\n    text:\n      fr: \"Ce que", "    kind: money\n    text:\n      fr: \"Ce que",
     "    kind: money",
     "attendu : l'une des valeurs", "expected one of"),
    ("    see: [end]", "    see: [fin]", "    see:", "aucune section de règles d'identifiant 'fin'",
     "no rules section with id 'fin'"),
    ("players: {min: 2, max: 2}", "players: {min: 2, max: 2}\n\tbest: 2", "\tbest",
     "tabulation utilisée pour l'indentation ; YAML demande des espaces",
     "tab used for indentation; YAML needs spaces"),
    ("names: {fr: \"duel\", en: \"duel\"}", "names: {fr: \"duel\"}", "names:",
     "il manque le texte en", "missing the en text"),
    ("names: {fr: \"duel\", en: \"duel\"}", "names: {fr: \"duel\", en: \"duel\"}\nnames: {fr: x, en: y}",
     "names: {fr: x",
     "clé en double (déjà à la ligne", "duplicate key (first at line"),
]
TABLE_MISTAKES = [
    ("\n  phases:", "\n  phases: []\n  old_phases:", "il faut au moins une phase", "at least one phase is needed"),
    ("\n  counters:", "\n  counters: 3\n  old_counters:", "attendu : une table identifiant de compteur → définition",
     "expected a mapping of counter id → definition"),
]


@pytest.fixture(scope="module")
def starting(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The game.yaml that ``games new`` writes (a working user game)."""
    home = tmp_path_factory.mktemp("home")
    done = run_cli("games", "new", "duel", cwd=ROOT, env={"COMPANION_HOME": str(home)})  # in this process
    assert done.returncode == 0, done.stderr
    return (home / "data" / "games" / "duel" / "game.yaml").read_text(encoding="utf-8")


def game_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "duel" / "game.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("mistake", MISTAKES, ids=[m[1][:24] for m in MISTAKES])
def test_a_mistake_in_a_game_file_is_named_in_the_users_language(tmp_path: Path, monkeypatch, starting: str,
                                                                 lang: str, mistake: tuple) -> None:
    old, new, named, fr, en = mistake
    assert old in starting
    text = starting.replace(old, new, 1)
    line = next(i for i, x in enumerate(text.splitlines(), 1) if x.startswith(named))
    path = game_file(tmp_path, text)
    monkeypatch.setattr(i18n, "_lang", lang)
    with pytest.raises(DataError) as caught:
        read_game(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:{line}:"), message
    assert (fr if lang == "fr" else en) in message, message
    assert (en if lang == "fr" else fr) not in message, message


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("mistake", TABLE_MISTAKES, ids=[m[2][:24] for m in TABLE_MISTAKES])
def test_a_mistake_in_the_table_section_is_named_in_the_users_language(tmp_path: Path, monkeypatch,
                                                                       starting: str, lang: str,
                                                                       mistake: tuple) -> None:
    old, new, fr, en = mistake
    assert old in starting
    path = game_file(tmp_path, starting.replace(old, new, 1))
    monkeypatch.setattr(i18n, "_lang", lang)
    info, doc = read_game(path)
    with pytest.raises(TableDataError) as caught:
        parse_table(doc, str(path), info.effects)
    message = str(caught.value)
    assert message.startswith(f"{path}:"), message
    assert (fr if lang == "fr" else en) in message, message


def test_the_console_names_a_broken_user_game_in_french_then_in_english(tmp_path: Path, starting: str) -> None:
    """The same home, started in French then in English: the card index keeps the reasons of one
    language, and the other language reads the files again instead of showing them."""
    home = tmp_path / "home"
    path = game_file(home / "data" / "games", starting.replace("players: {min: 2, max: 2}",
                                                               "players: {min: 3, max: 2}", 1))
    env = {"COMPANION_HOME": str(home), "COMPANION_CACHE": None}  # this home's own card index
    warm_index(home)  # from the session's: only the broken game is built, in each language
    for lang, cause in (("fr", "min (3) est plus grand que max (2)"), ("en", "min (3) is more than max (2)"),
                        ("fr", "min (3) est plus grand que max (2)")):
        # Each start in this process (tests.cli_run), as a new program: nothing kept in memory between them.
        done = run_cli("--lang", lang, "console", "--reader", "sim", "--count", "0", cwd=ROOT, env=env)
        assert "Traceback" not in done.stderr, done.stderr
        assert f"{path}:12: players.min: {cause}" in done.stderr, (lang, done.stderr)
