"""The translation table and the program's other YAML data: no key written twice (PyYAML would
silently keep the last one), and every message in French and English."""

from pathlib import Path

import pytest

import companion
from companion.cards.yamlload import load_file

PACKAGE = Path(companion.__file__).parent
DATA = sorted(PACKAGE.rglob("*.yaml"))


@pytest.mark.parametrize("path", DATA, ids=[str(p.relative_to(PACKAGE)) for p in DATA])
def test_no_key_twice(path: Path) -> None:
    load_file(path)  # raises DataError naming the line of a duplicate key


def test_every_message_in_both_languages() -> None:
    messages = load_file(PACKAGE / "i18n" / "messages.yaml")
    missing = [key for key, entry in messages.items() if not (entry.get("fr") and entry.get("en"))]
    assert missing == []
