"""Tags are hostile input (issue 15, item 4): a record type or a Text record's language code
holding terminal escapes must reach no terminal, log line, voice or label as they are."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.readers.events import TagEvent
from companion.tags import records
from companion.tags.resolve import Resolver
from companion.textsafe import is_printable, printable
from tests.cli_run import run_cli
from tests.emulators.ntag21x import Ntag21x

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]
UID = "04A1B2C3D4E5F7"

RETITLE = b"\x1b]0;pwned\x07"
CLEAR = b"\x1b[2J\x1b[H"


def well_known(type_: bytes, payload: bytes = b"") -> bytes:
    # MB ME SR, TNF 1 (NFC Forum well-known type)
    return bytes([0xD1, len(type_), len(payload)]) + type_ + payload


def text_with_language(lang: bytes, text: bytes) -> bytes:
    return well_known(b"T", bytes([len(lang)]) + lang + text)


HOSTILE = {
    "record type": well_known(b"T" + RETITLE),
    "external type": bytes([0xD4, len(CLEAR), 1]) + CLEAR + b"x",
    "language code": text_with_language(CLEAR, b"vtes:100845"),
    "bidi override in text": text_with_language(b"en", "\u202eevil".encode()),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_decoded_records_are_printable(name: str) -> None:
    decoded = records.decode(HOSTILE[name])
    assert decoded.records
    for line in (*decoded.records, decoded.error):
        assert "\x1b" not in line and "\x07" not in line and "\u202e" not in line
        assert is_printable(line)
    # The escape is shown, not hidden: a person sees that something odd was there.
    assert "\\x1b" in "".join(decoded.records) or "\\u202e" in "".join(decoded.records)


def test_a_text_record_with_an_escaped_language_still_names_its_card() -> None:
    assert records.decode(HOSTILE["language code"]).refs == ("vtes:100845",)


def test_details_of_events_and_scans_are_printable() -> None:
    event = TagEvent(kind="unreadable", reader="sim", uid="04", detail="bad \x1b[2J tag\x9b")
    assert event.detail == "bad \\x1b[2J tag\\x9b"

    class NoCards:
        def get(self, ref: str) -> None:
            return None

    scan = Resolver(NoCards()).resolve(TagEvent(kind="laid", reader="sim", uid="04", ndef=b"\xd1\x01\xff\x1b[2J"))
    assert scan.status == "unknown" and is_printable(scan.detail)


def test_printable_keeps_ordinary_text_and_caps_length() -> None:
    assert printable("Évincer l'Ancien — 3 sang, 表") == "Évincer l'Ancien — 3 sang, 表"
    assert printable("a\tb\nc") == "a b\\x0ac"
    assert printable("a\nb", keep_newlines=True) == "a\nb"
    assert len(printable("x" * 10_000, limit=100)) == 100


def test_printable_spaces_pass_and_hidden_characters_are_caught_among_them() -> None:
    # French no-break spaces are not "printable" for str.isprintable, yet kept as they are; an
    # escape or a bidi override next to them is still shown as its code, a tab still a space.
    french = "Règle\u202f: coût\u00a03\u3000!\nfin"
    assert printable(french, keep_newlines=True) == french and is_printable(french)
    assert printable(french) == french.replace("\n", "\\x0a")
    assert printable("a\u00a0\x1b[2J\u202eb\u2028c\tz") == "a\u00a0\\x1b[2J\\u202eb\\u2028c z"
    assert not is_printable("a\u00a0\u200bb") and not is_printable("a\u202f\tb")
    assert printable("é\u00a0" * 2000, limit=10) == "é\u00a0" * 4 + "é…"


@pytest.fixture(scope="module")
def emu():
    emu = Ntag21x().start()
    yield emu
    emu.stop()


@pytest.mark.parametrize("name", ["record type", "language code"])
def test_tag_read_prints_no_escape(emu: Ntag21x, name: str) -> None:
    emu.lay(UID, ndef_message_bytes=HOSTILE[name])
    # In this process (tests.cli_run): every character the command writes, before any encoding.
    done = run_cli("tag", "read", "--reader", emu.path, "--timeout", "5", cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x1b" not in done.stderr
    assert "\x07" not in done.stdout
    assert "\\x1b" in done.stdout
