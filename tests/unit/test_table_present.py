"""What a table shows, from each game's rules and game.yaml (companion/table/present.py), and
where it goes (companion/ui/table_layout.py): plain data, no window. The seat actions are
played through their command lines on a real journal, as the Table screen sends them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from companion.registry import ids as game_ids
from companion.table.commands import Parser
from companion.table.data import load_table
from companion.table.engine import Game
from companion.table.journal import Journal
from companion.table.present import fill, table_view
from companion.ui.table_layout import (
    ANGLES,
    SIDES,
    default_sides,
    pack_rows,
    plan_panel,
    plan_strip,
    plan_table,
    table_frames,
    valid_sides,
)

ROOT = Path(__file__).resolve().parents[2]
GAMES = game_ids()


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "games.sqlite3") as j:
        yield j


def new(journal, game: str, players: list[str], seed: int = 3) -> Game:
    return Game.new(journal, game, players, seed=seed)


def run(game: Game, line: str):
    parser = Parser(game.data, [s["name"] for s in game.state["seats"]], source="touch")
    return game.apply(parser.parse(line))


def action(game: Game, seat: int, action_id: str):
    view = table_view(game, "fr")
    found = [a for a in view.seats[seat].actions if a.id == action_id]
    assert found, f"{action_id} not offered to seat {seat + 1}: {[a.id for a in view.seats[seat].actions]}"
    return found[0]


def test_fill_templates():
    assert fill("bleed {target} {amount}", 0, {"target": "3", "amount": 2}) == "bleed 3 2"
    assert fill("lifeloss {seat} {amount} {essences}", 1, {"amount": 2, "essences": ["or", "mort"]}) == \
        "lifeloss 2 2 or mort"
    assert fill("lifeloss {seat} {amount} {essences}", 1, {"amount": 1, "essences": []}) == "lifeloss 2 1"


@pytest.mark.parametrize("game_id", GAMES)
def test_every_game_says_its_main_number_first(journal, game_id):
    data = load_table(game_id)
    game = new(journal, game_id, ["Ann", "Bob"] if data.seats_min <= 2 else ["Ann", "Bob", "Cy"])
    view = table_view(game, "fr")
    for seat in view.seats:
        assert seat.counters[0].main and seat.main is seat.counters[0]
        mains = [c.cid for c in seat.counters if c.main]
        assert mains == data.present["main"]
        assert all(not c.main for c in seat.counters[len(mains):])
    assert view.turn and view.phase and view.turn_mark == "active"
    assert sum(s.active for s in view.seats) == 1


def test_vtes_marks_and_actions_from_the_rules(journal):
    game = new(journal, "vtes", ["Ann", "Bob", "Cy"], seed=5)
    view = table_view(game, "fr")
    marks = dict(view.seats[0].marks)
    assert marks["prey"] == "proie : Bob" and marks["predator"] == "prédateur : Cy"
    assert ("", "Cercle : Ann → Bob → Cy → Ann") in view.info
    # Ann plays: she may bleed; the bleed asks whom and how much, then sends one line.
    bleed = action(game, 0, "bleed")
    assert bleed.ask == ("target", "amount")
    assert [w for _, w in game.rules.choices(game.state, 0, "target", "fr")] == ["Bob", "Cy"]
    lines = bleed.command_lines({"target": "2", "amount": 3})
    assert lines == ["bleed 2 3"]
    assert run(game, lines[0]).ok
    assert game.state["seats"][1]["counters"]["pool"] == 27 and game.state["edge"] == 0
    assert "edge" not in [a.id for a in table_view(game).seats[0].actions]  # she holds it now
    # A tracked vampire's blood, by touch.
    assert run(game, action(game, 0, "vampire").command_lines({"text": "Lucita", "amount": 6})[0]).ok
    blood = action(game, 0, "blood_lose")
    assert game.rules.choices(game.state, 0, "vampire", "fr") == [("Lucita", "Lucita 6/6")]
    assert run(game, blood.command_lines({"vampire": "Lucita", "amount": 2})[0]).ok
    assert game.state["seats"][0]["vampires"]["Lucita"]["blood"] == 4
    # Oust asks to confirm, then the ring closes.
    oust = action(game, 2, "oust")
    assert oust.ask == ("confirm",)
    assert run(game, oust.command_lines({"confirm": True})[0]).ok
    assert game.state["seats"][2]["out"] and not table_view(game).seats[2].actions


def test_vtes_transfer_and_withdraw_when_the_rules_allow(journal):
    game = new(journal, "vtes", ["Ann", "Bob"], seed=1)
    active = game.state["active"]
    ids = [a.id for a in table_view(game).seats[active].actions]
    assert "withdraw" in ids and "transfer" not in ids  # untap: withdrawal, not transfers
    for _ in range(3):
        assert run(game, "next").ok  # → influence
    transfer = action(game, active, "transfer")
    for line in transfer.command_lines({"amount": 1}):
        assert run(game, line).ok
    assert game.state["seats"][active]["counters"]["pool"] == 29


def test_res_arcana_life_loss_pass_and_components(journal):
    game = new(journal, "res-arcana", ["Ann", "Bob"], seed=3)
    first = game.state["active"]
    put = action(game, first, "put")
    assert [v for v, _ in game.rules.choices(game.state, first, "essence", "fr")] == \
        ["mort", "serenite", "vie", "vigueur", "or"]
    assert run(game, put.command_lines({"component": "Athanor", "essence": "or", "amount": 1})[0]).ok
    assert game.rules.choices(game.state, first, "component", "fr") == [("Athanor", "Athanor")]
    assert "take" in [a.id for a in table_view(game).seats[first].actions]  # collect: take it back
    life = action(game, first, "lifeloss")
    line = life.command_lines({"amount": 2, "essences": ["or", "mort"]})[0]
    assert line == f"lifeloss {first + 1} 2 or mort"
    assert run(game, line).ok
    assert run(game, "next").ok  # → actions
    assert run(game, action(game, first, "pass").command_lines()[0]).ok
    assert game.state["seats"][first]["passed"]
    assert dict(table_view(game).seats[first].marks)["passed"] == "a passé"


def test_rise_restoration_is_urgent_and_astral_actions(journal):
    rise = new(journal, "rise", ["Ann", "Bob"], seed=3)
    assert [a.id for a in table_view(rise).actions] == ["toss"]
    while rise.rules.phase_id(rise.state) != "restoration":
        assert run(rise, "end" if rise.rules.phase_id(rise.state) == "end" else "next").ok
    who = rise.state["active"]
    urgent = [a.id for a in table_view(rise).seats[who].actions if a.urgent]
    assert urgent == ["restore2", "restore1"]
    astral = new(journal, "astral", ["Ann", "Bob"], seed=3)
    assert run(astral, "next").ok
    who = astral.state["active"]
    summon = action(astral, who, "summon")
    assert run(astral, summon.command_lines({"amount": 0})[0]).ok
    assert "actions 1/2" in dict(table_view(astral).seats[who].marks)[""]


def test_front_end_never_names_a_game():
    """The Table screen renders data: no game id appears in its code (issue 10, item 2)."""
    for path in ("companion/ui/screens/table.py", "companion/ui/screens/table_popups.py",
                 "companion/ui/screens/card_overlay.py", "companion/ui/table_layout.py",
                 "companion/ui/table_report.py", "companion/ui/widgets/counter.py",
                 "companion/ui/widgets/seat_panel.py", "companion/ui/widgets/placed.py"):
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        assert not strings & set(GAMES), (path, strings & set(GAMES))


@pytest.mark.parametrize("count", range(1, 7))
@pytest.mark.parametrize("size", [(800, 480), (1024, 600), (1280, 800), (480, 800)])
def test_frames_tile_the_screen_without_overlap(count, size):
    width, height = size
    sides = default_sides(count)
    frames, centre = table_frames(width, height, sides, (300, 130), 170)
    assert [f.seat for f in frames] == list(range(count))
    boxes = [f.box for f in frames] + [centre]
    for k, a in enumerate(boxes):
        assert a[0] >= -0.01 and a[1] >= -0.01 and a[0] + a[2] <= width + 0.01 and a[1] + a[3] <= height + 0.01
        for b in boxes[k + 1:]:
            w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
            h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
            assert w <= 0.01 or h <= 0.01, (a, b)
    for f in frames:
        assert f.angle == ANGLES[f.side]
        assert (f.w, f.h) == ((f.box[2], f.box[3]) if f.angle in (0, 180) else (f.box[3], f.box[2]))


@pytest.mark.parametrize("width", [100, 200, 320, 480, 800])
def test_the_strip_keeps_its_buttons_apart_inside_it_and_under_its_words(width):
    widths, touch, gap = [70.0, 70.0, 70.0, 90.0, 80.0, 100.0], 62.0, 5.0
    box = (10.0, 20.0, float(width), 500.0)
    rows = pack_rows(widths, width, touch, gap)
    assert [i for row in rows for i in row] == list(range(len(widths)))  # each once, in order
    strip = plan_strip(box, widths, 26.0, touch, gap)
    for k, a in enumerate(strip.items):
        assert a[2] >= touch and a[3] == touch  # a touch target
        assert box[0] <= a[0] and a[0] + a[2] <= box[0] + box[2] + 0.01
        for b in strip.items[k + 1:]:
            assert min(a[0] + a[2], b[0] + b[2]) <= max(a[0], b[0]) + 0.01 or \
                min(a[1] + a[3], b[1] + b[3]) <= max(a[1], b[1]) + 0.01, (a, b)
    top = max(a[1] + a[3] for a in strip.items)
    assert min(strip.message[1], strip.phase[1], strip.turn[1]) >= top


@pytest.mark.parametrize("count", range(1, 7))
def test_every_seat_gets_the_same_number_size(count):
    sides = default_sides(count)
    table = plan_table(800, 480, sides, [70.0] * 5, 80.0, touch=62.0, gap=5.0, wanted=170.0,
                       plan_for=lambda f: plan_panel(f.w, f.h, mains=1, chips=2, digits=2, touch=62.0, mm=5.2,
                                                     head=24.0, small=16.0))
    assert len(table.frames) == len(table.plans) == count
    assert len({p.main_font for p in table.plans}) == 1 and table.plans[0].main_font > 16.0
    assert len(pack_rows([70.0] * 5, table.strip[2], 62.0, 5.0)) <= 4


def test_sides_chosen_or_default():
    assert default_sides(4) == ["bottom", "right", "top", "left"]
    assert valid_sides(["top", "bottom"], 2) == ["top", "bottom"]
    assert valid_sides(["top", "nowhere"], 2) == default_sides(2)
    assert valid_sides(None, 3) == default_sides(3)
    assert set(SIDES) == set(ANGLES)


def test_panel_plan_keeps_touch_targets_and_the_number_first():
    # A VTES seat of five at 800x480: - and + beside a pool of 9.6 mm digits at least.
    plan = plan_panel(340, 156, mains=1, chips=2, digits=2, touch=63, mm=5.19, head=23, small=17)
    assert plan.steppers and plan.main_font * 0.7 >= 9.6 * 5.19
    boxes = [plan.mains[0]["minus"], plan.mains[0]["value"], plan.mains[0]["plus"], *plan.chips, plan.menu]
    for b in boxes:
        assert min(b[2], b[3]) >= 63 - 0.5 and b[0] >= 0 and b[1] >= 0 and b[0] + b[2] <= 340 and b[1] + b[3] <= 156
    # Too narrow for - and + beside two digits: the number alone, a tap opens its pad.
    plan = plan_panel(200, 156, mains=1, chips=1, digits=2, touch=63, mm=5.19, head=23, small=17)
    assert not plan.steppers and "minus" not in plan.mains[0] and plan.mains[0]["value"][2] >= 63
