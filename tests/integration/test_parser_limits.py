"""Command words with numbers a game never needs (issue 15, item 5): Unicode digits such as
``²`` (left of 1 on a French keyboard) and numbers of thousands of digits are refused with a
message; the console companion goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.table.commands import MAX_NUMBER, ParseError, Parser
from companion.table.data import load_table
from tests.cli_run import run_cli

HUGE = "9" * 5000


@pytest.fixture(scope="module")
def parser() -> Parser:
    return Parser(load_table("vtes"), ["Ann", "Bob", "Cy"], crypt_card=lambda name: None)


@pytest.mark.parametrize("line, key", [
    ("undo ²", "table.parse.number"),
    ("redo ³", "table.parse.number"),
    ("oust ²", "table.parse.digits"),
    ("pool ² +1", "table.parse.digits"),
    ("pool 1 +²", "table.parse.unexpected"),
    ("pool 1 =" + HUGE, "table.parse.too_big"),
    ("pool 1 -" + HUGE, "table.parse.too_big"),
    ("undo " + HUGE, "table.parse.too_big"),
    ("oust " + HUGE, "table.parse.too_big"),
    ("dice " + HUGE, "table.parse.too_big"),
    ("dice 3d" + HUGE, "table.parse.too_big"),
    ("vampire 1 Theo " + HUGE, "table.parse.too_big"),
    ("bleed " + HUGE, "table.parse.too_big"),
])
def test_refused_with_a_message(parser: Parser, line: str, key: str) -> None:
    with pytest.raises(ParseError) as caught:
        parser.parse(line)
    assert caught.value.key == key
    assert len(caught.value.text("fr")) < 200  # the word quoted back is shortened


def test_limits_are_sane(parser: Parser) -> None:
    assert parser.parse(f"pool 1 ={MAX_NUMBER}").args["amount"] == MAX_NUMBER
    assert parser.parse("pool 1 +0007").args["amount"] == 7


def test_console_companion_goes_on(tmp_path: Path) -> None:
    lines = f"undo ²\noust ²\npool 1 ={HUGE}\npool 1 -3\n"
    run = run_cli("--lang", "en", "console", "--game", "vtes", "--players", "Ann,Bob,Cy", "--seed", "3",
                  "--journal", str(tmp_path / "j.sqlite3"), stdin=lines)  # in this process: output and status
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert "number too large" in run.stdout and "digits 0 to 9" in run.stdout
    assert "27" in run.stdout  # the line after them was played
