"""Numbers given on the command line are checked before anything runs: a plain ``int`` took
``rules --limit 0`` for "no result", ``--limit -2`` for every result but the last two, and
``speak --rate -3`` was played at another rate without a word. A number refused is told in the
user's language, ``--lang`` before the command included."""

from __future__ import annotations

import pytest

from companion import cli
from companion.commands.args import whole_number


@pytest.mark.parametrize("argv,said", [
    (["rules", "--game", "vtes", "sang", "--limit", "0"],
     "argument --limit: « 0 » : il faut un nombre entier, 1 ou plus."),
    (["--lang", "en", "rules", "--game", "vtes", "sang", "--limit", "-2"],
     "argument --limit: “-2”: a whole number, 1 or more, is needed."),
    (["cards", "search", "blood", "--limit", "abc"],
     "argument --limit: « abc » : il faut un nombre entier, 1 ou plus."),
    (["speak", "--rate", "-3", "vtes:100194"],
     "argument --rate: « -3 » : il faut un nombre entier de 80 à 450."),
    (["--lang=en", "speak", "--pitch", "101", "vtes:100194"],
     "argument --pitch: “101”: a whole number from 0 to 100 is needed."),
    (["speak", "--volume", "201", "vtes:100194"],
     "argument --volume: « 201 » : il faut un nombre entier de 0 à 200."),
    (["tag", "enroll", "--start", "0", "--game", "vtes"],
     "argument --start: « 0 » : il faut un nombre entier, 1 ou plus."),
])
def test_a_number_out_of_range_is_refused_in_the_users_words(capsys, argv: list[str], said: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.rstrip().endswith(said), err
    assert "Traceback" not in err


@pytest.mark.parametrize("value,low,high", [("1", 1, None), ("80", 80, 450), ("450", 80, 450), ("0", 0, 100)])
def test_the_edges_of_a_range_are_taken(value: str, low: int, high: int | None) -> None:
    assert whole_number(low, high)(value) == int(value)


def test_a_language_after_the_command_is_the_commands_own() -> None:
    assert cli._lang_asked(["--lang", "en", "speak", "x"]) == "en"
    assert cli._lang_asked(["--lang=en", "speak"]) == "en"
    assert cli._lang_asked(["speak", "--lang", "en", "x"]) is None  # speak's own --lang: the words around the card
    assert cli._lang_asked(["-v", "--lang", "de", "table"]) is None  # argparse refuses it, in its own words
