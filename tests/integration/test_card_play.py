"""Scan to play, the domain part: card effects as data (validated with file and line), the
``play``, ``acquire`` and ``defeat`` words of the five games, refusals that change nothing, one
journal event per card that undo reverses whole, and the proposal for a card laid."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.cards import catalog
from companion.cards.effects import effects_of
from companion.cards.library import CardLibrary
from companion.table.cardplay import LastLaid, choices_needed, proposal_text, propose, with_choice
from companion.table.commands import ParseError, Parser
from companion.table.data import cardmap_dir
from companion.table.engine import Game
from companion.table.journal import Journal
from tests.cards_index import warm_index
from tests.cli_run import run_cli

ROOT = Path(__file__).resolve().parents[2]

USER_CARDS = {
    "rise": """cards:
  - id: garde-du-pont
    name: "Garde du pont"
    type: creature
    cost: {coins: 3}
    text: "Une unité de test."
""",
    "astral": """cards:
  - id: eclaireur
    name: "Éclaireur"
    type: sbire
    cost: {energy: 2}
    text: "Un sbire de test."
  - id: onde
    name: "Onde"
    type: pouvoir
    text: "Un pouvoir de test."
    effects:
      play: {pay: {energy: 1}, gain: {stars: 1}}
""",
}


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> CardLibrary:
    """The shipped cards of Ascension and Res Arcana, plus users' own Rise and ASTRAL cards."""
    overlay = tmp_path_factory.mktemp("overlay")
    for game, text in USER_CARDS.items():
        (overlay / f"{game}.yaml").write_text(text, encoding="utf-8")
    built = catalog.build(cardmap_dir(), overlay=overlay, with_sources=False)
    assert built.errors == {}, built.errors
    return CardLibrary(catalog=built)


@pytest.fixture
def journal(tmp_path: Path):
    j = Journal(tmp_path / "games.sqlite3")
    yield j
    j.close()


def start(journal: Journal, library, game: str, players: list[str], seed: int = 1) -> tuple[Game, Parser]:
    g = Game.new(journal, game, players, seed=seed)
    return g, Parser(g.data, [s["name"] for s in g.state["seats"]], library=library)


def ok(game: Game, parser: Parser, line: str) -> list[str]:
    result = game.apply(parser.parse(line))
    assert result.ok, (line, result.reason_text("en"))
    return result.lines("fr")


def refused(game: Game, parser: Parser, line: str) -> str:
    before = copy.deepcopy(game.state)
    events = len(game.events())
    result = game.apply(parser.parse(line))
    assert not result.ok, line
    assert game.state == before and len(game.events()) == events  # nothing half-applied
    return result.reason_text("fr")


def undo_restores(game: Game, parser: Parser, line: str) -> list[str]:
    """Apply one card line, check it is one event naming the card, undo it, check the state is
    exactly the one before, redo it; returns what was said."""
    before = copy.deepcopy(game.state)
    events = len(game.events())
    said = ok(game, parser, line)
    after = copy.deepcopy(game.state)
    new = game.events()[events:]
    assert len(new) == 1 and new[0].type in ("play", "acquire", "defeat")
    assert new[0].payload["card"].count(":") == 1  # the card's reference, not a sentence
    assert game.apply(parser.parse("undo")).ok
    assert game.state == before
    assert game.apply(parser.parse("redo")).ok
    assert game.state == after
    return said


# -- the data --------------------------------------------------------------------------------


def test_every_base_card_has_its_effects(library: CardLibrary) -> None:
    for card in library.cards("ascension"):
        eff = effects_of(card)
        if card.extra["type"] == "monster":
            assert eff["defeat"]["pay"] == {"power": card.extra["cost"]["power"]}, card.id
            assert eff["defeat"]["gain"]["honor"] == card.extra["points"], card.id
        elif card.extra["type"] in ("hero", "construct"):
            assert eff["acquire"]["pay"] == {"runes": card.extra["cost"]["runes"]}, card.id
            assert "play" in eff, card.id
        else:
            assert "play" in eff, card.id
    for card in library.cards("res-arcana"):
        eff = effects_of(card)
        kind = card.extra["type"]
        if kind == "artifact":
            assert eff["play"].get("pay", {}) == card.extra["cost"], card.id
            assert eff["play"].get("vp", 0) == card.extra["points"], card.id
        elif kind in ("monument", "place-of-power"):
            assert eff["acquire"]["pay"] == card.extra["cost"], card.id
            assert eff["acquire"].get("vp", 0) == card.extra["points"], card.id
        else:
            assert eff == {}, card.id  # mages and magic items are chosen at set-up, never paid for


@pytest.mark.parametrize(("old", "new", "where", "says"), [
    ("      play: {gain: {runes: 2}}\n      acquire: {pay: {runes: 3}}",
     "      play: {gain: {rune: 2}}\n      acquire: {pay: {runes: 3}}",
     "cards[3].effects.play.gain.rune", "unknown resource"),
    ("      acquire: {pay: {runes: 3}}", "      acquire: {pay: {runes: trois}}",
     "cards[3].effects.acquire.pay.runes", "whole number"),
    ("      play: {gain: {runes: 2}}\n      acquire: {pay: {runes: 3}}",
     "      play: {gain: {runes: 2}}\n      buy: {pay: {runes: 3}}",
     "cards[3].effects.buy", "unknown field"),
])
def test_bad_effects_name_file_line_and_field(tmp_path: Path, monkeypatch, old: str, new: str, where: str,
                                              says: str) -> None:
    from companion import i18n

    monkeypatch.setattr(i18n, "_lang", "en")  # the causes as written below
    target = tmp_path / "cardmap"
    shutil.copytree(cardmap_dir(), target)
    path = target / "ascension" / "cards.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    # The line of the first changed line: where the mistake is.
    changed = next(n for o, n in zip(old.splitlines(), new.splitlines(), strict=True) if o != n)
    line = path.read_text(encoding="utf-8").splitlines().index(changed) + 1
    built = catalog.build(target, overlay=tmp_path / "none", with_sources=False)
    (message,) = built.errors["ascension"]
    assert message.startswith(f"cardmap/ascension/cards.yaml:{line}: {where}"), message
    assert says in message


def test_res_arcana_exclusion_is_checked(tmp_path: Path) -> None:
    target = tmp_path / "cardmap"
    shutil.copytree(cardmap_dir(), target)
    path = target / "res-arcana" / "cards.yaml"
    text = path.read_text(encoding="utf-8")
    old = "gain: {any: 6}, but: [or]"
    assert old in text
    path.write_text(text.replace(old, "gain: {any: 6}, but: [plomb]", 1), encoding="utf-8")
    line = next(i for i, x in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "plomb" in x)
    (message,) = catalog.build(target, overlay=tmp_path / "none", with_sources=False).errors["res-arcana"]
    assert f"cards.yaml:{line}: " in message and ".effects.acquire.but[0]" in message and "'plomb'" in message


# -- Ascension -------------------------------------------------------------------------------


def test_a_whole_ascension_turn(journal: Journal, library: CardLibrary) -> None:
    g, p = start(journal, library, "ascension", ["Ann", "Bob"], seed=2)
    me = g.state["active"]
    name = g.state["seats"][me]["name"]
    said = undo_restores(g, p, "play apprenti")
    assert said[0] == f"{name} joue Apprenti : +1 rune (1)."
    ok(g, p, "jouer apprentice")  # English name
    ok(g, p, "play aprenti")  # a typo
    said = undo_restores(g, p, "acquire mystic")
    assert said[0] == f"{name} acquiert Mystique : -3 runes (0)."
    assert "runes" in refused(g, p, "acquire mystique") and "0" in refused(g, p, "acquire mystique")
    ok(g, p, "play milicien")
    ok(g, p, "play militia")
    pool = g.state["shared"]["pool"]
    said = undo_restores(g, p, "defeat fanatique")
    assert said[0] == f"{name} vainc Fanatique : -2 puissance (0), +1 honneur (1)."
    assert g.state["shared"]["pool"] == pool - 1  # honor comes from the pool
    assert "puissance" in refused(g, p, "vaincre cultist")
    # Energize: Leotan's Familiar gives 2 honor once this turn's energy reaches 1.
    ok(g, p, "play leotans familiar")
    assert g.state["seats"][me]["counters"]["honor"] == 1
    ok(g, p, "play eclat d'energie")
    said = undo_restores(g, p, "play leotan's familiar")
    assert g.state["seats"][me]["counters"]["honor"] == 3 and any("Énergisé" in x for x in said)
    # Per energy: Leotan, Herald of the Stars gives 4 + 1 per energy of this turn.
    ok(g, p, "play leotan le heraut des etoiles")
    assert g.state["seats"][me]["counters"]["honor"] == 3 + 4 + 1
    # Another card pays for this one: "free" after the name (Monastic Tutor, Righteous Templar).
    runes = g.state["seats"][me]["counters"]["runes"]
    said = undo_restores(g, p, "acquire soldat lourd gratuit")
    assert g.state["seats"][me]["counters"]["runes"] == runes and "Soldat Lourd : gratuit" in " ".join(said)
    assert "honneur" in undo_restores(g, p, "defeat lagoon troll free")[0]
    # A card with a condition says what is left to do by hand.
    said = ok(g, p, "play beacon shaman")
    assert said[-1].startswith("À faire à la main : Si la carte révélée est un Trésor")
    # Not a card of this game, not a card at all, not the turn of that seat, not the phase.
    with pytest.raises(ParseError):
        p.parse("play zzyzx qwerty plonk")
    other = 1 - me
    assert "ce n'est pas le tour" in refused(g, p, f"play {other + 1} apprenti")
    ok(g, p, "next")
    assert "phase Jouer" in refused(g, p, "play apprenti")
    # Replay gives the same state: the events hold what was paid and gained.
    assert Game.open(journal, g.id).state == g.state


def test_the_honor_pool_runs_out(journal: Journal, library: CardLibrary) -> None:
    g, p = start(journal, library, "ascension", ["Ann", "Bob"])
    me = g.state["active"]
    ok(g, p, f"honor {me + 1} +58")
    for _ in range(4):
        ok(g, p, "play soldat lourd")
    said = ok(g, p, "defeat lagoon troll")
    assert g.state["shared"]["pool"] == 0 and g.state["shared"]["extra"] == 0
    assert g.state["last_round"]
    ok(g, p, "defeat fanatique")
    assert g.state["shared"]["extra"] == 1  # beyond the pool, counted apart
    assert said


# -- Res Arcana ------------------------------------------------------------------------------


def test_res_arcana_place_and_acquire(journal: Journal, library: CardLibrary) -> None:
    g, p = start(journal, library, "res-arcana", ["Ann", "Bob"], seed=2)
    me = g.state["active"]
    who = str(me + 1)
    ok(g, p, f"essence {who} mort +2")
    ok(g, p, f"essence {who} or +6")
    assert "phase d'actions" in refused(g, p, "play arbre de vie mort mort")
    ok(g, p, "next")
    # "any" essences: asked when the player could pay several ways, given after the name.
    assert "choisissez 2 essences à payer parmi Mort, Sérénité, Vie, Vigueur et Or" in refused(
        g, p, "play arbre de vie")
    said = undo_restores(g, p, "play arbre de vie mort mort")
    assert said[0].endswith("joue Arbre de Vie : -1 Vie (0), -2 Mort (1).")
    assert "déjà en jeu" in refused(g, p, "play tree of life mort mort")
    c = g.state["seats"][me]["counters"]
    assert "il faut 1 Vie" in refused(g, p, "play anneau de midas")  # Vie 0 left
    assert c["or"] == 7
    # Obelisk: 4 gold, then 6 essences of your choice but gold.
    assert "choisissez 6 essences à gagner" in refused(g, p, "acquire obelisque")
    assert "Or n'est pas permis" in refused(g, p, "acquire obelisque or mort mort mort vie vie")
    assert "choix en trop" in refused(g, p, "acquire obelisque 3 mort 3 vie serenite")
    undo_restores(g, p, "acquire obelisque 3 mort 3 vie")
    assert (c := g.state["seats"][me]["counters"])["or"] == 3 and c["mort"] == 4 and c["vie"] == 3
    assert g.rules.points(g.state, me) == 1 + (1 if g.state["tile"] == me else 0)
    ok(g, p, "end")
    assert "déjà à" in refused(g, p, "acquire obelisk")
    # A cost lowered by another component (Artificier: 1 essence less; Harnais du Dragon: 3).
    now = g.state["active"]
    ok(g, p, f"essence {now + 1} vigueur =5")
    assert "il faut 6 Vigueur" in refused(g, p, "play dragon de feu")
    said = undo_restores(g, p, "play dragon de feu -1 vigueur")
    assert said[0].endswith("joue Dragon de Feu : -5 Vigueur (0).") and "1 Vigueur de moins" in said[1]
    ok(g, p, "end")
    # Places of power: one card with two faces; the other face is taken too.
    now = g.state["active"]
    ok(g, p, f"essence {now + 1} mort =9")
    undo_restores(g, p, "acquire catacombes de la mort")
    assert g.state["seats"][now]["counters"]["mort"] == 0
    ok(g, p, "end")
    ok(g, p, f"essence {g.state['active'] + 1} vigueur =8")
    ok(g, p, f"essence {g.state['active'] + 1} mort =4")
    assert "Puits Sacrificiel est déjà à" in refused(g, p, "acquire puits sacrificiel")


def test_res_arcana_component_points_count_at_the_victory_check(journal: Journal, library: CardLibrary) -> None:
    g, p = start(journal, library, "res-arcana", ["Ann", "Bob"], seed=2)
    me = g.state["active"]
    ok(g, p, f"essence {me + 1} or +20")
    ok(g, p, f"vp {me + 1} +4")
    ok(g, p, "next")
    for monument in ("grande pyramide", "colosse", "oracle"):
        ok(g, p, f"acquire {monument}")
        ok(g, p, "end")
        ok(g, p, "end")
    assert g.rules.points(g.state, me) >= 4 + 3 + 2 + 2
    ok(g, p, "pass")
    said = ok(g, p, "pass") + ok(g, p, "next")
    assert g.state["over"] and g.state["winner"] == [me], said


# -- VTES (krcg's pool costs), Rise and ASTRAL (users' cards) -------------------------------


def test_vtes_pool_costs_and_vampires(journal: Journal, card_library: CardLibrary) -> None:
    lib = card_library  # krcg's cards, from the session's card index (conftest.py)
    g, p = start(journal, lib, "vtes", ["Ann", "Bob"], seed=2)
    me = g.state["active"]
    assert "carte de maître" in refused(g, p, "play pentex subversion")  # a master: in the master phase
    ok(g, p, "next")
    said = undo_restores(g, p, "play pentex subversion")
    assert "-2 réserve (28)" in said[0]
    said = undo_restores(g, p, "play anson")  # its blood paid from the pool it was moved from
    assert g.state["seats"][me]["vampires"] == {"Anson": {"capacity": 8, "blood": 8}}
    assert any("réserve -8" in x for x in said), said
    said = ok(g, p, "play govern the unaligned")
    assert said[-1] == "À faire à la main : coût en sang (1) : à payer par le vampire"
    ok(g, p, f"pool {me + 1} =1")
    assert "il faut 2 réserve" in refused(g, p, "play pentex subversion")


def test_rise_and_astral_user_cards(journal: Journal, library: CardLibrary) -> None:
    g, p = start(journal, library, "rise", ["Ann", "Bob"])
    me = g.state["active"]
    ok(g, p, f"coins {me + 1} =2")
    assert "il faut 3 pièces" in refused(g, p, "play garde du pont")
    ok(g, p, f"coins {me + 1} +2")
    undo_restores(g, p, "play garde du pont")
    assert g.state["seats"][me]["counters"]["coins"] == 1

    g, p = start(journal, library, "astral", ["Ann", "Bob"])
    me = g.state["active"]
    ok(g, p, f"max {me + 1} =3")
    ok(g, p, f"energy {me + 1} =3")
    undo_restores(g, p, "play eclaireur")  # a minion: one of the turn's main actions
    assert g.state["seats"][me]["counters"]["energy"] == 1 and g.state["seats"][me]["actions"]["sbire"] == 1
    undo_restores(g, p, "play onde")
    assert g.state["seats"][me]["counters"]["stars"] == 1
    assert "actions" in refused(g, p, "play eclaireur")  # the third main action is refused


# -- the proposal for a card laid, and the card last laid -----------------------------------


def test_propose_for_a_laid_card(journal: Journal, library: CardLibrary) -> None:
    g, p = start(journal, library, "ascension", ["Ann", "Bob"])
    mystic = library.get("ascension:mystique")
    intent = propose(g, mystic)
    assert intent is not None and intent.verb == "acquire" and intent.source == "scan"
    # who pays, said in the question
    assert proposal_text(g, intent, "fr") == "Bob, Mystique : acquérir pour 3 runes ?"
    assert proposal_text(g, intent, "en") == "Bob, Mystic: acquire for 3 runes?"
    events = len(g.events())
    check = g.check(intent)  # what confirming would do, said with the proposal, recording nothing
    assert not check.ok and "il faut 3 runes" in check.reason_text("fr") and len(g.events()) == events
    assert not g.apply(intent).ok  # no runes yet: refused, nothing changed
    for _ in range(3):
        ok(g, p, "play apprenti")
    assert g.check(propose(g, mystic)).ok and g.state["seats"][g.state["active"]]["counters"]["runes"] == 3
    assert g.apply(propose(g, mystic)).ok
    # A card the seat took is one it plays next.
    again = propose(g, mystic)
    assert again.verb == "play" and proposal_text(g, again, "fr") == "Bob, Mystique : jouer (+2 runes) ?"
    troll = propose(g, library.get("ascension:lagoon-troll"))
    assert proposal_text(g, troll, "fr") == "Bob, Lagoon Troll : vaincre pour 3 puissance (+2 honneur) ?"
    # A mage is only read: nothing to propose.
    assert propose(g, library.get("res-arcana:alchimiste")) is None
    lib_ra = library
    g2, _ = start(journal, lib_ra, "res-arcana", ["Ann", "Bob"])
    assert propose(g2, library.get("res-arcana:alchimiste")) is None
    assert propose(g2, library.get("res-arcana:bibliotheque")).verb == "acquire"
    # A choice the front end asks for (touch, keypad, phone), then gives back.
    tree = propose(g2, library.get("res-arcana:arbre-de-vie"))
    assert tree.verb == "play" and choices_needed(tree) == {
        "pay": 2, "gain": 0, "allowed": ["mort", "serenite", "vie", "vigueur", "or"]}
    assert choices_needed(propose(g2, library.get("res-arcana:obelisque")))["allowed"] == [
        "mort", "serenite", "vie", "vigueur"]
    me = g2.state["active"]
    words = Parser(g2.data, ["Ann", "Bob"])
    assert g2.apply(words.parse("next")).ok
    assert "choisissez 2 essences" in g2.apply(tree).reason_text("fr")
    assert g2.apply(words.parse(f"essence {me + 1} mort +1")).ok
    assert g2.apply(with_choice(tree, ["mort", "mort"])).ok
    assert g2.state["seats"][me]["counters"]["mort"] == 0 and g2.state["seats"][me]["counters"]["vie"] == 0


def test_the_card_last_laid_is_the_default(journal: Journal, library: CardLibrary) -> None:
    g = Game.new(journal, "ascension", ["Ann", "Bob"], seed=1)
    me = g.state["active"]
    laid = LastLaid(active=lambda: g.state["active"])
    p = Parser(g.data, ["Ann", "Bob"], library=library, laid=laid)
    with pytest.raises(ParseError) as err:
        p.parse("play")  # nothing laid yet
    assert "quelle carte" in err.value.text("fr")
    laid.record("ascension:apprenti")  # the table's reader
    assert p.parse("play").args["card"] == "ascension:apprenti"
    assert p.parse(f"play {me + 1}").args["card"] == "ascension:apprenti"  # the active seat
    with pytest.raises(ParseError):
        p.parse(f"play {2 - me}")  # nothing laid on the other seat's reader
    laid.record("ascension:mystique", seat=1 - me)
    intent = p.parse(f"acquire {2 - me}")
    assert intent.args["card"] == "ascension:mystique" and intent.seat == 1 - me
    assert "ce n'est pas le tour" in g.apply(intent).reason_text("fr")
    bare = Parser(g.data, ["Ann", "Bob"])
    with pytest.raises(ParseError) as err:
        bare.parse("play apprenti")  # no card library given: the parser never loads one
    assert err.value.key == "table.parse.no_library"
    from companion.table.data import load_table

    with pytest.raises(ParseError) as err:
        Parser(load_table("vtes"), ["Ann", "Bob"]).parse("vampire 1 anson")  # nor for a vampire's capacity
    assert err.value.key == "table.parse.vampire_unknown"


def test_table_command_plays_cards_from_a_script(tmp_path: Path) -> None:
    script = tmp_path / "turn.txt"
    script.write_text("play apprenti\nplay apprenti\nplay apprenti\nacquire mystic\nplay milicien\n"
                      "play milicien\ndefeat cultist\nundo\nstatus\n", encoding="utf-8")
    run = run_cli("table", "--game", "ascension", "--players", "Ann,Bob", "--seed", "2", "--script", str(script),
                  "--journal", str(tmp_path / "j.sqlite3"), "--json", "--strict", cwd=ROOT)
    assert run.returncode == 0, run.stderr
    final = json.loads(run.stdout)
    seat = final["active_seat"] - 1
    assert final["seats"][seat]["counters"]["power"] == 2 and final["seats"][seat]["counters"]["honor"] == 0
    assert final["honor_pool"] == 60
    assert "acquiert Mystique : -3 runes (0)." in run.stderr


# -- properties: any card action then undo gives back the exact state before ---------------

CARD_WORDS = {
    "ascension": (["apprenti", "milicien", "eclat d'energie", "mystique", "soldat lourd", "leotans familiar",
                   "leotan le heraut des etoiles", "runic honiskrot", "ogo demontrap", "oziah", "beacon shaman"],
                  ["play", "acquire", "defeat"],
                  ["fanatique", "lagoon troll", "raging ursine", "deviant fiend", "serpent siren", "herald of doom"]),
    "res-arcana": (["arbre de vie", "anneau de midas", "athanor", "eclat elementaire", "dragon de feu", "crypte",
                    "obelisque", "bibliotheque", "colosse", "catacombes de la mort", "mine des nains"],
                   ["play", "acquire"], []),
    "vtes": (["anson", "aneke", "pentex subversion", "govern the unaligned", "dreams of the sphinx",
              "villein", "minion tap", "vessel", "blood doll", "zillah's valley"], ["play"], []),
    "rise": (["garde du pont"], ["play"], []),
    "astral": (["eclaireur", "onde"], ["play"], []),
}


EXTRA_LINES = {
    "ascension": ["runes +3", "power +4", "energy +2"],
    "res-arcana": ["pass", "essence 1 or +3", "essence 2 mort +4", "vie 1 +2"],
    "vtes": ["pool 1 -5", "pool 2 =3", "oust 3"],
    "rise": ["coins 1 +3", "coins 2 +2"],
    "astral": ["max 1 +3", "energy 1 +2", "max 2 +2", "energy 2 +2"],
}


@pytest.mark.parametrize("game_id", sorted(CARD_WORDS))
def test_card_actions_then_undo_restore_the_exact_state(game_id: str, library: CardLibrary, card_library: CardLibrary,
                                                         tmp_path_factory: pytest.TempPathFactory) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    names, verbs, monsters = CARD_WORDS[game_id]
    essences = ["mort", "vie", "or", "serenite", "vigueur"]
    card_line = st.one_of(
        st.tuples(st.sampled_from(verbs), st.sampled_from(names + monsters),
                  st.lists(st.sampled_from(essences), max_size=7)).map(lambda x: " ".join([x[0], x[1], *x[2]])),
        st.sampled_from(["next", "end", "undo", "redo"] + EXTRA_LINES[game_id]),
    )
    lib = card_library if game_id == "vtes" else library  # krcg's cards, from the session's card index

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                     HealthCheck.function_scoped_fixture])
    @given(lines=st.lists(card_line, min_size=5, max_size=40), seed=st.integers(0, 1000))
    def run(lines: list[str], seed: int) -> None:
        j = Journal(tmp_path_factory.mktemp("props") / "j.sqlite3")
        try:
            players = ["Ann", "Bob"] if game_id in ("rise", "astral") else ["Ann", "Bob", "Cy"]
            g = Game.new(j, game_id, players, seed=seed)
            p = Parser(g.data, players, library=lib)
            for line in lines:
                try:
                    intent = p.parse(line)
                except ParseError:
                    continue
                before = copy.deepcopy(g.state)
                result = g.apply(intent)
                if not result.ok:
                    assert g.state == before, line
                    continue
                if intent.verb in ("play", "acquire", "defeat"):
                    after = copy.deepcopy(g.state)
                    assert g.apply(p.parse("undo")).ok
                    assert g.state == before, line
                    assert g.apply(p.parse("redo")).ok
                    assert g.state == after, line
                if game_id == "ascension":
                    s = g.state
                    honors = sum(x["counters"]["honor"] for x in s["seats"])
                    assert s["shared"]["pool"] + honors == s["honor_start"] + s["shared"]["extra"]
                for seat in g.state["seats"]:
                    assert all(v is None or v >= 0 for v in seat["counters"].values())
            assert Game.open(j, g.id).state == g.state
        finally:
            j.close()

    run()


def test_a_whole_ascension_turn_by_laying_cards(journal: Journal, library: CardLibrary) -> None:
    """Each card laid gives one proposal; confirming it is one event; reading a card changes nothing."""
    g = Game.new(journal, "ascension", ["Ann", "Bob"], seed=5)
    me = g.state["active"]
    asked = []
    for ref in ("apprenti", "apprenti", "apprenti", "mystique", "milicien", "milicien", "fanatique",
                "mystique"):
        intent = propose(g, library.get(f"ascension:{ref}"))
        asked.append(proposal_text(g, intent, "fr"))
        events = len(g.events())
        assert g.apply(intent).ok, asked[-1]
        assert len(g.events()) == events + 1 and g.events()[-1].payload["card"] == f"ascension:{ref}"
    assert asked[3] == "Ann, Mystique : acquérir pour 3 runes ?"
    assert asked[6] == "Ann, Fanatique : vaincre pour 2 puissance (+1 honneur) ?"
    assert asked[7] == "Ann, Mystique : jouer (+2 runes) ?"  # acquired this turn, so now played
    c = g.state["seats"][me]["counters"]
    assert (c["runes"], c["power"], c["honor"]) == (2, 0, 1)
    before = copy.deepcopy(g.state)
    propose(g, library.get("ascension:herald-of-doom"))  # laid to read it: no confirmation, no change
    assert g.state == before


def test_a_card_added_with_cards_add_is_played_from_a_script(tmp_path: Path) -> None:

    # A card added in this home: its own card index.
    env: dict[str, str | None] = {"COMPANION_HOME": str(tmp_path / "home"), "COMPANION_CACHE": None}
    warm_index(tmp_path / "home")  # from the session's: only the game of the card added is rebuilt

    def run(*args: str) -> subprocess.CompletedProcess:
        return run_cli(*args, cwd=ROOT, env=env)  # in this process (tests.cli_run): output and status

    added = run("cards", "add", "--game", "astral", "--name", "Sentinelle d'Orion", "--type", "sbire",
                "--cost", "2", "--text", "Un sbire de test.", "--json")
    assert added.returncode == 0, added.stderr
    script = tmp_path / "turn.txt"
    script.write_text("max =2\nenergy =2\nplay sentinelle d orion\nplay sentinele dorion\n", encoding="utf-8")
    played = run("table", "--game", "astral", "--players", "Ann,Bob", "--seed", "1", "--script", str(script),
                 "--journal", str(tmp_path / "j.sqlite3"), "--json")
    assert played.returncode == 0, played.stderr
    final = json.loads(played.stdout)
    seat = final["active_seat"] - 1
    assert final["seats"][seat]["counters"]["energy"] == 0
    assert "joue Sentinelle d'Orion : -2 Energy (0)." in played.stderr
    assert "il faut 2 Energy" in played.stderr  # the second one cannot be paid: refused, said why
