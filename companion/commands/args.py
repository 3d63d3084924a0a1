"""Kinds of command-line values the commands share, checked by argparse before a command runs."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` (to ``high``), anything else refused with a
    sentence in the user's language. A plain ``int`` took ``--limit 0`` for "no result" and
    ``--limit -2`` for every result but the last two, and a voice's rate of -3 was played at
    another rate without a word."""

    def number(text: str) -> int:
        from companion.i18n import t

        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            if high is None:
                raise argparse.ArgumentTypeError(t("cli.number_from", value=text, low=low))
            raise argparse.ArgumentTypeError(t("cli.number_between", value=text, low=low, high=high))
        return value

    return number
