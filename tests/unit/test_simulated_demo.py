"""The simulated reader's demo (``sim:GAME:ID,...``, what ``make run`` lays) and a card typed
while it runs: the typed card is read at once, never queued behind the demo's remaining cards
(each left on the reader for ``interval`` seconds: a name typed during the demo of ``make run``
was answered after the whole demo, or never when the typed lines ended first)."""

import queue

from companion.readers.simulator import SimulatedReader, fake_uid

WAIT = 20.0  # bounded waits only; the demo's pace below is far longer, so order is what is checked


def _laid(events: queue.Queue) -> str:
    while True:
        event = events.get(timeout=WAIT)
        if event.kind == "laid":
            return event.uid


def test_a_card_typed_during_the_demo_is_read_before_the_rest_of_the_demo() -> None:
    reader = SimulatedReader("sim:vtes:1,vtes:2,vtes:3", interval=3600)
    events: queue.Queue = queue.Queue()
    reader.start(events.put)
    try:
        assert _laid(events) == fake_uid("vtes:1")  # the demo's first card at once
        reader.lay("vtes:42")
        assert _laid(events) == fake_uid("vtes:42")
    finally:
        reader.stop()


def test_the_demo_goes_on_after_a_typed_card() -> None:
    reader = SimulatedReader("sim:vtes:1,vtes:2", interval=0)
    events: queue.Queue = queue.Queue()
    reader.start(events.put)
    try:
        seen = [_laid(events), _laid(events)]
        assert seen == [fake_uid("vtes:1"), fake_uid("vtes:2")]
        reader.lay("vtes:42")
        assert _laid(events) == fake_uid("vtes:42")
    finally:
        reader.stop()
