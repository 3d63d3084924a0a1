"""``python -m companion [--lang L] COMMAND``: the command's own parser is built, not every
command's. Taking the language's value ("en" of ``--lang en table``) for the command built the
parser of every command, importing each one's module (the phone server's ssl, the venue's
asyncio): a quarter of a second of CPU more at each start in English."""

from __future__ import annotations

import pytest

from companion import cli


@pytest.mark.parametrize("argv,only", [
    (["--lang", "en", "table", "--list"], "table"),
    (["-v", "--lang", "fr", "console"], "console"),
    (["--lang=en", "games"], "games"),
    (["cards", "search", "en"], "cards"),
    ([], "run"),  # no command: the window
    # No command: the help lists the commands, which needs none of their modules; nor does
    # argparse naming the commands there are, for a word that is none.
    (["--lang", "en"], ""),
    (["--help"], ""),
    (["flibber"], ""),
])
def test_only_the_commands_parser_is_built(monkeypatch, argv: list[str], only: str | None) -> None:
    built = []

    def build_parser(only: str | None = None):
        built.append(only)
        raise SystemExit(0)  # what is asked of the parser is not the question here

    monkeypatch.setattr(cli, "build_parser", build_parser)
    with pytest.raises(SystemExit):
        cli.main(argv)
    assert built == [only]


def test_the_help_without_a_command_lists_every_command_with_its_help(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    assert done.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())  # argparse wraps the lines to the terminal
    for name, help_text in cli.COMMANDS.items():
        assert f"{name} {help_text}" in shown, name
