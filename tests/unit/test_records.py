"""Card references in NDEF messages: the three record kinds, round trips, and hostile payloads."""

from __future__ import annotations

import ndef
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.tags import records


def message(*recs: ndef.Record) -> bytes:
    return b"".join(ndef.message_encoder(list(recs)))


def test_text_record_as_phone_apps_write_it() -> None:
    decoded = records.decode(message(ndef.TextRecord("vtes:100845", "fr")))
    assert decoded.refs == ("vtes:100845",)
    assert decoded.error == ""
    assert decoded.records == ("Text[fr] 'vtes:100845'",)


def test_text_record_with_spaces_around_the_reference() -> None:
    assert records.decode(message(ndef.TextRecord("  res-arcana:athanor\n"))).refs == ("res-arcana:athanor",)


def test_uri_records() -> None:
    assert records.decode(message(ndef.UriRecord("tablecompanion:vtes:100845"))).refs == ("vtes:100845",)
    assert records.decode(message(ndef.UriRecord("https://example.org/card/vtes:101144"))).refs == ("vtes:101144",)
    assert records.decode(message(ndef.UriRecord("https://example.org/vtes:101144"))).refs == ()


def test_external_record_wins_over_text() -> None:
    data = message(ndef.TextRecord("vtes:100845"), ndef.Record(records.EXTERNAL_TYPE, "", b"vtes:101144"))
    assert records.decode(data).refs == ("vtes:101144", "vtes:100845")


@pytest.mark.parametrize("kind", ["text", "uri", "external"])
@pytest.mark.parametrize("ref", ["vtes:100845", "res-arcana:athanor", "astral:a_1.b-2"])
def test_encode_decode_round_trip(kind: str, ref: str) -> None:
    data = records.encode_ref(ref, kind)
    assert records.decode(data).refs == (ref,)
    assert len(data) < 60  # fits easily in the 142 bytes of an NTAG213


def test_encode_refuses_what_is_not_a_reference() -> None:
    for bad in ("", "vtes", "Vtes:1", "vtes:", "vtes:1 2", "../etc:passwd"):
        with pytest.raises(ValueError):
            records.encode_ref(bad)
    with pytest.raises(ValueError):
        records.encode_ref("vtes:1", kind="morse")


def test_no_message_empty_message_and_no_reference() -> None:
    assert records.decode(None) == records.Decoded(refs=())
    assert records.decode(b"").error
    other = records.decode(message(ndef.TextRecord("hello world")))
    assert other.refs == () and other.error == "" and other.records


def test_malformed_and_oversized_messages_are_errors_not_exceptions() -> None:
    cut = message(ndef.TextRecord("vtes:100845"))[:-4]
    assert "malformed" in records.decode(cut).error
    assert records.decode(b"\xff" * 20).error
    assert "too long" in records.decode(b"\xd1" * (records.MAX_NDEF + 1)).error


def test_hostile_text_payloads() -> None:
    # Text records whose status byte lies about the language length, or whose text is not UTF-8.
    for payload in (b"\x3fen", b"\x02", b"\x02en\xff\xfe\xfd", b"\x82en\x00\xd8"):
        data = message(ndef.Record("urn:nfc:wkt:T", "", payload))
        decoded = records.decode(data)
        assert decoded.refs == ()


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300))
def test_decode_never_raises_on_random_bytes(data: bytes) -> None:
    decoded = records.decode(data)
    assert isinstance(decoded.refs, tuple)
    for ref in decoded.refs:
        assert records.parse_ref(ref) is not None


_record_types = st.sampled_from(
    ["urn:nfc:wkt:T", "urn:nfc:wkt:U", records.EXTERNAL_TYPE, "urn:nfc:ext:x.org:y", "text/plain", "unknown"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_record_types, st.binary(max_size=80)), min_size=1, max_size=4))
def test_decode_never_raises_on_well_framed_hostile_records(recs: list[tuple[str, bytes]]) -> None:
    # Valid NDEF framing around arbitrary payloads reaches the record decoders themselves.
    try:
        data = message(*(ndef.Record(t, "", p) for t, p in recs))
    except ndef.EncodeError:
        return
    decoded = records.decode(data)
    for ref in decoded.refs:
        assert records.parse_ref(ref) is not None
