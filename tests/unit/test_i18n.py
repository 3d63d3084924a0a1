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


def test_the_table_kept_in_the_cache_serves_only_the_same_text(tmp_path, monkeypatch) -> None:
    # Every start reads messages.yaml: the parsed table is kept in the cache folder with the
    # digest of its text, and used again only for that very text (an upgrade parses it again).
    from companion import i18n

    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path))
    text = "a.key:\n  fr: Bonjour\n  en: Hello\n"
    assert i18n._kept_table(text) is None
    i18n._keep_table(text, {"a.key": {"fr": "Bonjour", "en": "Hello"}})
    assert i18n._kept_table(text) == {"a.key": {"fr": "Bonjour", "en": "Hello"}}
    assert i18n._kept_table(text.replace("Hello", "Hi")) is None
    (tmp_path / "messages.marshal").write_bytes(b"broken")
    assert i18n._kept_table(text) is None
