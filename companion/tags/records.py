"""Card references inside NDEF messages. Tag contents are untrusted: decoding never raises.

Accepted, in this order of preference:
- the project's own external type ``tablecompanion.org:card`` whose payload is ``game:id``;
- an NFC Forum Text record holding ``game:id`` (what phone apps such as NFC Tools write);
- a URI record ``tablecompanion:game:id`` (or ``https://…/card/game:id``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from companion.cards.model import parse_ref
from companion.textsafe import printable

if TYPE_CHECKING:
    import ndef

# ndef is imported by the functions that read or write a tag (a reader has imported it by then):
# the window imports this module before its first frame, which ndef's import slowed by a sixtieth.

EXTERNAL_TYPE = "urn:nfc:ext:tablecompanion.org:card"
URI_SCHEME = "tablecompanion:"
MAX_NDEF = 8192  # an NTAG216 holds 868 bytes; anything much larger is not a card of ours


@dataclass(frozen=True)
class Decoded:
    refs: tuple[str, ...]
    error: str = ""  # why the message could not be read, when it could not
    records: tuple[str, ...] = ()  # a short description of each record, for `tag read`


def encode_ref(ref: str, kind: str = "text") -> bytes:
    if parse_ref(ref) is None:
        raise ValueError(f"not a card reference: {ref!r} (expected game:id)")
    import ndef

    if kind == "text":
        record = ndef.TextRecord(ref, "en")
    elif kind == "uri":
        record = ndef.UriRecord(URI_SCHEME + ref)
    elif kind == "external":
        record = ndef.Record(EXTERNAL_TYPE, "", ref.encode("ascii"))
    else:
        raise ValueError(f"unknown record kind {kind!r}")
    return b"".join(ndef.message_encoder([record]))


def _ref_of(record: ndef.Record) -> str | None:
    import ndef

    text: str | None = None
    if record.type == EXTERNAL_TYPE:
        text = bytes(record.data).decode("ascii", "replace")
    elif isinstance(record, ndef.TextRecord):
        text = record.text
    elif isinstance(record, ndef.UriRecord):
        uri = record.iri
        if uri.startswith(URI_SCHEME):
            text = uri[len(URI_SCHEME):]
        elif "/card/" in uri:
            text = uri.rsplit("/card/", 1)[1]
    if text is None:
        return None
    parts = parse_ref(text)
    return f"{parts[0]}:{parts[1]}" if parts else None


def decode(data: bytes | None) -> Decoded:
    if not data:
        return Decoded(refs=(), error="" if data is None else "empty NDEF message")
    if len(data) > MAX_NDEF:
        return Decoded(refs=(), error=f"NDEF message too long ({len(data)} bytes)")
    import ndef

    try:
        records = list(ndef.message_decoder(data, errors="strict"))
    except Exception as exc:  # ndef.DecodeError and anything a hostile payload provokes
        return Decoded(refs=(), error=printable(f"malformed NDEF: {exc}", limit=200))
    refs = []
    # The project's own record wins over a Text or URI record on the same tag.
    for record in sorted(records, key=lambda r: r.type != EXTERNAL_TYPE):
        try:
            ref = _ref_of(record)
        except Exception:
            ref = None
        if ref:
            refs.append(ref)
    return Decoded(refs=tuple(dict.fromkeys(refs)), records=tuple(_describe(r) for r in records))


def _describe(record: ndef.Record) -> str:
    # Every part of a record (its type, a Text record's language code, its text) is the tag's
    # choice: what is described is made printable, so `tag read` and the console cannot be
    # made to retitle or clear a terminal.
    try:
        return printable(_describe_unsafe(record), limit=300)
    except Exception:  # a record that decoded but will not print: still never an error
        return "record (undescribable)"


def _describe_unsafe(record: ndef.Record) -> str:
    import ndef

    if isinstance(record, ndef.TextRecord):
        return f"Text[{printable(record.language, limit=40)}] {record.text!r}"
    if isinstance(record, ndef.UriRecord):
        return f"URI {record.iri!r}"
    return f"{record.type} ({len(bytes(record.data))} bytes)"
