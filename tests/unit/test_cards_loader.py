"""The card library's loader: valid data loads; every broken file names its file, line and field."""

import shutil
from pathlib import Path

import pytest

from companion.cards import catalog
from companion.cards.yamlload import DataError

FIXTURE = Path(__file__).parents[1] / "fixtures" / "cardmap"


@pytest.fixture(autouse=True)
def english(monkeypatch) -> None:
    """The causes below are read in English (the French ones: tests/integration/test_game_data_errors_lang.py)."""
    from companion import i18n

    monkeypatch.setattr(i18n, "_lang", "en")


@pytest.fixture
def cardmap(tmp_path: Path) -> Path:
    target = tmp_path / "cardmap"
    shutil.copytree(FIXTURE, target)
    return target


def build(cardmap: Path) -> catalog.Catalog:
    return catalog.build(cardmap, overlay=cardmap / "no-overlay", with_sources=False)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def only_error(result: catalog.Catalog, game: str = "res-arcana") -> str:
    assert game not in result.games, "a broken game must be disabled"
    (message,) = result.errors[game]
    return message


def test_valid_fixture_loads(cardmap: Path) -> None:
    result = build(cardmap)
    assert result.errors == {}
    card = result.cards["res-arcana"]["dragon-de-feu"]
    assert card.ref == "res-arcana:dragon-de-feu"
    assert card.names == {"fr": "Dragon de feu", "en": "Fire Dragon"}
    assert card.cost == "6 Vigueur"
    assert card.extra["powers"][0]["cost"] == {"vigueur": 1}
    assert result.cards["res-arcana"]["alchimiste"].extra["collect"] == [{"or": 1}]


def test_tab_indentation_names_the_line(cardmap: Path) -> None:
    edit(cardmap / "res-arcana" / "cards.yaml", "    name: \"Alchimiste\"", "\tname: \"Alchimiste\"")
    message = only_error(build(cardmap))
    assert message.startswith("cardmap/res-arcana/cards.yaml:14:"), message
    assert "tab" in message


def test_wrong_type_names_line_and_field(cardmap: Path) -> None:
    edit(cardmap / "res-arcana" / "cards.yaml", "    points: 1", "    points: beaucoup")
    message = only_error(build(cardmap))
    assert message.startswith("cardmap/res-arcana/cards.yaml:8: cards[0].points:"), message
    assert "whole number" in message


def test_unknown_keyword(cardmap: Path) -> None:
    edit(cardmap / "res-arcana" / "cards.yaml", "keywords: [dragon, incliner]", "keywords: [dragon, volant]")
    message = only_error(build(cardmap))
    assert message.startswith("cardmap/res-arcana/cards.yaml:9: cards[0].keywords[1]:"), message
    assert "unknown keyword 'volant'" in message


def test_duplicate_ids(cardmap: Path) -> None:
    edit(cardmap / "res-arcana" / "cards.yaml", "id: alchimiste", "id: dragon-de-feu")
    message = only_error(build(cardmap))
    assert message.startswith("cardmap/res-arcana/cards.yaml:13: cards[1].id:"), message
    assert "duplicate id 'dragon-de-feu'" in message


def test_duplicate_key_in_a_mapping(cardmap: Path) -> None:
    edit(cardmap / "res-arcana" / "cards.yaml", "    points: 1\n", "    points: 1\n    points: 2\n")
    message = only_error(build(cardmap))
    assert message.startswith("cardmap/res-arcana/cards.yaml:9: cards[0].points:"), message
    assert "duplicate key (first at line 8)" in message


def test_unknown_field_and_unknown_type(cardmap: Path) -> None:
    edit(cardmap / "res-arcana" / "cards.yaml", "    type: mage", "    type: sorcier")
    message = only_error(build(cardmap))
    assert message.startswith("cardmap/res-arcana/cards.yaml:15: cards[1].type:"), message
    assert "unknown card type 'sorcier'" in message and "artifact, mage" in message


def test_broken_game_yaml_disables_only_that_game(cardmap: Path) -> None:
    shutil.copytree(cardmap / "res-arcana", cardmap / "rise")
    edit(cardmap / "rise" / "game.yaml", "id: res-arcana", "id: rise")
    edit(cardmap / "rise" / "game.yaml", "players: {min: 2, max: 4}", "players: {min: 2, max: [4]}")
    edit(cardmap / "rise" / "cards.yaml", "collect: [{or: 1}]", "")
    result = build(cardmap)
    assert "res-arcana" in result.games and "rise" not in result.games
    (message,) = result.errors["rise"]
    assert message.startswith("cardmap/rise/game.yaml:4: players.max:"), message


def test_yaml_syntax_error(cardmap: Path) -> None:
    edit(cardmap / "res-arcana" / "cards.yaml", "cost: {vigueur: 6}", "cost: {vigueur: 6")
    message = only_error(build(cardmap))
    assert message.startswith("cardmap/res-arcana/cards.yaml:"), message
    assert "YAML syntax" in message


def test_validate_command_reports_file_and_line(cardmap: Path, capsys: pytest.CaptureFixture) -> None:
    from companion.cli import main

    assert main(["cards", "validate", str(cardmap)]) == 0
    edit(cardmap / "res-arcana" / "cards.yaml", "    points: 1", "    points: -1")
    assert main(["cards", "validate", str(cardmap)]) == 1
    out = capsys.readouterr().out
    assert "cardmap/res-arcana/cards.yaml:8: cards[0].points" in out or "cards.yaml:8: cards[0].points" in out


def test_data_error_is_readable() -> None:
    err = DataError("cardmap/x/cards.yaml", 3, "cards[0].cost", "expected a mapping")
    assert str(err) == "cardmap/x/cards.yaml:3: cards[0].cost: expected a mapping"


def test_progress_is_told_of_each_game(cardmap: Path) -> None:
    shutil.copytree(cardmap / "res-arcana", cardmap / "rise")
    edit(cardmap / "rise" / "game.yaml", "id: res-arcana", "id: rise")
    edit(cardmap / "rise" / "cards.yaml", "collect: [{or: 1}]", "")
    heard: list[tuple[int, int, str]] = []
    catalog.build(cardmap, overlay=cardmap / "no-overlay", with_sources=False,
                  progress=lambda done, total, game: heard.append((done, total, game)))
    assert heard == [(0, 2, "res-arcana"), (1, 2, "rise")]


def test_a_read_file_keeps_none_of_its_yaml_nodes() -> None:
    """The values read stay; the parser's nodes and their marks go (they once stayed for the
    life of the process, every scalar of every file: 40 MB after a card index rebuild)."""
    import gc

    import yaml

    from companion.cards.yamlload import load_text

    def nodes() -> int:
        # type(), not isinstance(): a dead weak proxy in the heap (Kivy's widgets leave some when
        # a window test ran before in this process) raises ReferenceError when asked its class.
        return sum(1 for o in gc.get_objects() if issubclass(type(o), yaml.Node))

    before = nodes()
    text = "cards:\n" + "".join(f"  - id: c{i}\n    name: Card {i}\n    cost: {i}\n" for i in range(200))
    data = load_text(text, "cards.yaml")
    assert data["cards"][199] == {"id": "c199", "name": "Card 199", "cost": 199}
    assert nodes() - before == 0
