"""What a reader reports. Plain data, made in reader threads and consumed in the main flow."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

from companion.textsafe import printable

Kind = Literal["laid", "lifted", "unreadable", "reader-lost", "reader-ready"]


@dataclass(frozen=True)
class TagEvent:
    kind: Kind
    reader: str  # the reader's path, e.g. "udp:127.0.0.1:54321" or "sim"
    seat: int | None = None  # the seat the reader is bound to, when it is bound to one
    uid: str = ""  # upper-case hex, "" when not known
    ndef: bytes | None = None  # raw NDEF message; None when the tag holds no NDEF at all
    detail: str = ""  # reason of an unreadable tag or a lost reader
    at: float = field(default_factory=time.monotonic)  # when the reader saw it

    def __post_init__(self) -> None:
        # The detail often quotes what a tag or a wire sent: never let it act on a terminal.
        if self.detail and not self.detail.isprintable():
            object.__setattr__(self, "detail", printable(self.detail, limit=300))
