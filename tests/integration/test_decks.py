"""Deck lists: the four common VTES formats through krcg's parser give the same counts; rules of
the other games from their game.yaml; an unreadable line is named with its number."""

import json
import subprocess
from pathlib import Path

import pytest

from companion.cards.decks import DeckReport, _apply_rules, check
from companion.cards.library import CardLibrary
from companion.cards.model import Card
from tests.cli_run import run_cli

DECKS = Path(__file__).parents[1] / "fixtures" / "decks"


@pytest.fixture(scope="module")
def library(card_library) -> CardLibrary:
    return card_library  # the session's (conftest.py)


@pytest.mark.parametrize("name", ["vtes-twd.txt", "vtes-jol.txt", "vtes-lackey.txt", "vtes-vdb.txt"])
def test_vtes_formats_give_the_same_counts(library: CardLibrary, name: str) -> None:
    report = check("vtes", (DECKS / name).read_text(encoding="utf-8"), library)
    assert report.unreadable == []
    assert report.counts["crypt"] == 12
    assert report.counts["library"] == 40
    assert report.counts["groups"] == [1, 2]
    assert report.legal, report.problems
    names = {c.name: n for c, n in report.cards}
    assert names["Govern the Unaligned"] == 14 and names["Anson (G1)"] == 4


def test_vtes_illegal_deck(library: CardLibrary) -> None:
    report = check("vtes", (DECKS / "vtes-illegal.txt").read_text(encoding="utf-8"), library)
    assert report.counts["crypt"] == 6
    assert any("crypte : 6" in p for p in report.problems)
    assert any("bibliothèque" in p for p in report.problems)
    assert any("Dramatic Upheaval" in p and "bannie" in p for p in report.problems)
    assert [(line, text) for line, text, _ in report.unreadable] == [(8, "4x Glorbnax the Unknown")]


def test_group_rule(library: CardLibrary) -> None:
    text = (DECKS / "vtes-jol.txt").read_text(encoding="utf-8").replace("4x Alexandra", "4x Christopher Houghton")
    report = check("vtes", text, library)
    assert report.counts["groups"] == [1, 3]
    assert any("groupes 1, 3" in p for p in report.problems)


def test_deck_command_exit_status_and_line(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess:
        return run_cli("deck", "check", *args)  # in this process: its output and status only

    ok = run("--game", "vtes", str(DECKS / "vtes-twd.txt"), "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["counts"]["library"] == 40
    bad = run("--game", "vtes", str(DECKS / "vtes-illegal.txt"))
    assert bad.returncode == 2
    assert "vtes-illegal.txt:8:" in bad.stderr and "Glorbnax" in bad.stderr
    binary = tmp_path / "deck.txt"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    broken = run("--game", "vtes", str(binary))
    assert broken.returncode == 2 and "UTF-8" in broken.stderr


def _card(game: str, cid: str, kind: str, **extra) -> Card:
    return Card(game=game, id=cid, name=cid.title(), types=(kind,), extra={"type": kind, **extra})


def test_astral_structure_rules() -> None:
    rules = {"max_cards": 40, "duplicates": False, "duplicates_keyword": "multiples",
             "composition": {"navigateur": {"exactly": 1}, "environnement": {"exactly": 1},
                             "sbire": {"min": 15}, "pouvoir": {"min": 15}, "cosmique": {"exactly": 4},
                             "speciale": {"min": 0, "max": 4}}}
    cards = [(_card("astral", "nav", "navigateur"), 1), (_card("astral", "env", "environnement"), 1)]
    cards += [(_card("astral", f"s{i}", "sbire"), 1) for i in range(15)]
    cards += [(_card("astral", f"p{i}", "pouvoir"), 1) for i in range(14)]
    cards += [(_card("astral", "p14", "pouvoir", multiples=2), 2)]
    cards += [(_card("astral", f"c{i}", "cosmique"), 1) for i in range(4)]
    report = DeckReport("astral", cards=cards)
    report.counts = {"total": sum(n for _, n in cards)}
    for c, n in cards:
        report.counts[c.extra["type"]] = report.counts.get(c.extra["type"], 0) + n
    _apply_rules(report, rules)
    assert report.counts["total"] == 37 and report.problems == []
    cards.append((_card("astral", "s0", "sbire"), 1))  # a second copy without Multiples
    cards.append((_card("astral", "nav2", "navigateur"), 1))
    report2 = DeckReport("astral", cards=[(c, n) for c, n in cards])
    report2.counts = {"total": 40, "navigateur": 2, "environnement": 1, "sbire": 16, "pouvoir": 16, "cosmique": 4}
    report2.cards = [*cards[:-2], (_card("astral", "s0", "sbire"), 2), cards[-1]]
    _apply_rules(report2, rules)
    assert any("navigateur : 2" in p for p in report2.problems)
    assert any("S0 : 2 exemplaires" in p for p in report2.problems)


def test_rise_size_and_res_arcana_artifacts() -> None:
    report = DeckReport("rise", counts={"total": 48})
    _apply_rules(report, {"deck_size": 50})
    assert report.problems == ["48 cartes, le paquet doit en compter 50"]
    report = DeckReport("res-arcana", counts={"total": 8, "artifact": 7, "mage": 1})
    _apply_rules(report, {"artifacts": 8})
    assert report.problems == ["7 artefacts, il en faut 8"]
