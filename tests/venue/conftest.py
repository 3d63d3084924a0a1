"""What every venue test shares (the broker and the waits are in helpers.py).

The tables and hubs run in the test's own process try the broker again sooner than in a room,
and look at the round clock more often: a broker restarted by a test is found in a fraction of a
second instead of up to five, a clock mark is said within a tenth of a second of being reached.
What they do is the same; only the pauses are shorter. Child processes (``python -m companion``)
keep the product's pauses."""

from __future__ import annotations

import pytest

from companion.venue import hub, link


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(link, "RETRY", (0.05, 0.5))
    monkeypatch.setattr(hub, "RETRY", (0.05, 0.5))
    monkeypatch.setattr(link, "TICK", 0.1)
