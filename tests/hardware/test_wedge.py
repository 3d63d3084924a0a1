"""Keyboard-wedge readers: a UID typed by a reader is told from a person typing, from synthetic
key streams with realistic timing; and the reader thread over evdev events and a character pipe."""

from __future__ import annotations

import os
import queue
import struct
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.readers.events import TagEvent
from companion.readers.wedge import MAX_GAP, Scanned, Typed, WedgeReader, WedgeRecogniser, uid_from_typed

pytestmark = pytest.mark.timeout(30)

UID = "04A224B2C35E80"


def stream(text: str, gap: float, start: float = 100.0) -> list[tuple[str, float]]:
    return [(key, start + i * gap) for i, key in enumerate(text)]


def run(events: list[tuple[str, float]], recogniser: WedgeRecogniser | None = None) -> list[Typed | Scanned]:
    recogniser = recogniser or WedgeRecogniser()
    out: list[Typed | Scanned] = []
    for key, at in events:
        out += recogniser.feed(key, at)
    last = events[-1][1] if events else 0.0
    return out + recogniser.flush(last + 1.0)


def typed(out: list[Typed | Scanned]) -> str:
    return "".join(o.key for o in out if isinstance(o, Typed))


def test_a_reader_typing_fast_is_a_scan() -> None:
    for gap in (0.001, 0.008, 0.025):  # readers seen in the wild type a key every 1 to 25 ms
        assert run(stream(UID.lower() + "\n", gap)) == [Scanned(UID, UID.lower())]
    assert run(stream("DEADBEEF\r", 0.004)) == [Scanned("DEADBEEF", "DEADBEEF")]
    assert run(stream("0012345678\n", 0.004)) == [Scanned("00BC614E", "0012345678")]  # decimal
    assert run(stream("04A224B2C35E80AABBCC\n", 0.004))[0] == Scanned("04A224B2C35E80AABBCC", "04A224B2C35E80AABBCC")


def test_a_person_typing_the_same_keys_is_not_a_scan() -> None:
    for gap in (0.06, 0.15, 0.4):
        out = run(stream(UID + "\n", gap))
        assert not any(isinstance(o, Scanned) for o in out)
        assert typed(out) == UID + "\n"  # every key given back, in order


def test_fast_but_not_a_uid_is_given_back() -> None:
    for text in ("04A224B2C35E\n", "hello\n", "0123456789ABCDEF0123456789\n", "9999999999\n"):
        out = run(stream(text, 0.004))
        assert not any(isinstance(o, Scanned) for o in out), text
        assert typed(out) == text


def test_a_slow_enter_or_a_pause_inside_breaks_a_scan() -> None:
    events = stream(UID, 0.005) + [("\n", 100.0 + 13 * 0.005 + 0.2)]
    assert typed(run(events)) == UID + "\n"
    events = stream(UID[:7], 0.005) + stream(UID[7:] + "\n", 0.005, start=101.0)
    assert not any(isinstance(o, Scanned) for o in run(events))


def test_a_person_then_a_scan_then_a_person() -> None:
    events = stream("ab", 0.2) + stream(UID + "\n", 0.005, start=101.0) + stream("c\n", 0.2, start=102.0)
    out = run(events)
    assert [o for o in out if isinstance(o, Scanned)] == [Scanned(UID, UID)]
    assert typed(out) == "abc\n"
    assert out.index(Typed("b")) < out.index(Scanned(UID, UID)) < out.index(Typed("c"))


def test_held_keys_come_back_on_flush() -> None:
    recogniser = WedgeRecogniser()
    assert recogniser.feed("4", 10.0) == []  # could be the start of a scan
    assert recogniser.flush(10.0 + MAX_GAP / 2) == []
    assert recogniser.flush(10.0 + MAX_GAP * 2) == [Typed("4")]
    assert uid_from_typed("99999999999") is None and uid_from_typed("4294967296") is None


@given(st.lists(st.tuples(st.sampled_from(list("0123456789abcdefABCDEFxyz \n")),
                          st.floats(min_value=0.0, max_value=0.5)), max_size=60))
@settings(max_examples=300, deadline=None)
def test_fuzz_no_key_is_lost_and_people_never_scan(keys: list[tuple[str, float]]) -> None:
    at = 0.0
    events = []
    for key, gap in keys:
        at += gap
        events.append((key, at))
    out = run(events)
    rebuilt = "".join(o.key if isinstance(o, Typed) else o.typed + "\n" for o in out)
    assert rebuilt == "".join(k for k, _ in events).replace("\r", "\n")
    slow = [(k, i * 0.05) for i, (k, _) in enumerate(events)]  # same keys, at a person's pace
    assert not any(isinstance(o, Scanned) for o in run(slow)) if slow else True


# --- the reader thread ------------------------------------------------------------------------------
class Sink(queue.Queue):
    def __call__(self, event: TagEvent) -> None:
        self.put(event)

    def kinds(self, n: int, timeout: float = 3.0) -> list[TagEvent]:
        return [self.get(timeout=timeout) for _ in range(n)]


KEYCODES = {"0": 11, "4": 5, "A": 30, "2": 3, "B": 48, "C": 46, "3": 4, "5": 6, "E": 18, "8": 9, "\n": 28}


def evdev(text: str, start: float, gap: float) -> bytes:
    """What /dev/input/eventN gives for ``text`` typed with ``gap`` between keys (press + release)."""
    data = b""
    for i, key in enumerate(text):
        t = start + i * gap
        sec, usec = int(t), int(round((t - int(t)) * 1e6))
        data += struct.pack("llHHi", sec, usec, 4, 4, 0x70000)  # EV_MSC scan code, ignored
        data += struct.pack("llHHi", sec, usec, 1, KEYCODES[key], 1)
        data += struct.pack("llHHi", sec, usec + 500, 1, KEYCODES[key], 0)
        data += struct.pack("llHHi", sec, usec + 500, 0, 0, 0)  # EV_SYN
    return data


def test_reader_over_an_input_device_uses_the_kernels_timestamps() -> None:
    read_end, write_end = os.pipe()
    reader = WedgeReader(f"wedge:evdev:/proc/self/fd/{read_end}", seat=3)
    sink = Sink()
    reader.start(sink)
    try:
        assert sink.get(timeout=3).kind == "reader-ready"
        now = time.time()
        # Written all at once, late: only the kernel's timestamps say how fast it was typed.
        os.write(write_end, evdev("42\n", now - 5, 0.3) + evdev(UID + "\n", now - 2, 0.004))
        laid = sink.get(timeout=3)
        assert (laid.kind, laid.uid, laid.seat, laid.ndef) == ("laid", UID, 3, None)
        os.write(write_end, evdev(UID + "\n", now - 1, 0.004))  # the same card scanned again
        assert [(e.kind, e.uid) for e in sink.kinds(2)] == [("lifted", UID), ("laid", UID)]
        time.sleep(0.2)
        assert reader.typed == ["4", "2", "\n"]
    finally:
        reader.stop()
        os.close(write_end)
        os.close(read_end)


def test_reader_over_a_character_stream_and_its_end() -> None:
    read_end, write_end = os.pipe()
    reader = WedgeReader(f"wedge:text:/proc/self/fd/{read_end}")
    sink = Sink()
    reader.start(sink)
    try:
        assert sink.get(timeout=3).kind == "reader-ready"
        os.write(write_end, b"deadbeef\n")
        assert sink.get(timeout=3).uid == "DEADBEEF"
        os.close(write_end)  # the stream ends: the reader stops quietly, nothing is reported lost
        reader._thread.join(3)
        assert not reader._thread.is_alive() and sink.empty()
    finally:
        reader.stop()
        os.close(read_end)


def test_a_missing_device_is_reported_and_retried() -> None:
    reader = WedgeReader("wedge:/dev/input/by-id/no-such-reader-event-kbd")
    sink = Sink()
    reader.start(sink)
    try:
        lost = sink.get(timeout=3)
        assert lost.kind == "reader-lost" and "No such file" in lost.detail
        time.sleep(0.5)
        assert sink.empty() and reader._thread.is_alive()  # retried quietly
    finally:
        reader.stop()
