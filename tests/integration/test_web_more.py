"""The phone server, continued (issue 23): what each socket is sent, names at the door, a card
shown to the table, a flooder that reconnects. Real parts: the server in its thread, the core
Runtime over a real journal, aiohttp's client as the phones."""

from __future__ import annotations

import json
from pathlib import Path

import aiohttp
import pytest

from companion.play.runtime import Runtime
from companion.web.server import PhoneServer
from tests.web_helpers import run, served_table

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def table(tmp_path: Path, card_library):
    yield from served_table(tmp_path, library=card_library)


async def next_of(ws: aiohttp.ClientWebSocketResponse, kind: str, timeout: float = 10) -> dict:
    while True:
        msg = json.loads((await ws.receive(timeout=timeout)).data)
        if msg["type"] == kind:
            return msg


def test_a_state_carries_only_the_seats_own_actions_and_only_when_they_change(table) -> None:
    runtime, server = table
    seats = server.invitations()["seats"]
    ann, bob = seats[0]["token"], seats[1]["token"]

    async def go() -> tuple[list[dict], list[dict], dict]:
        async with aiohttp.ClientSession() as http:
            wa = await http.ws_connect(f"{server.url}/ws?token={ann}")
            wb = await http.ws_connect(f"{server.url}/ws?token={bob}")
            hello = await next_of(wa, "hello")
            await next_of(wb, "hello")
            got_a, got_b = [], []
            for ws, command in ((wa, "pool -1"), (wa, "pool -1"), (wb, "next"), (wb, "next"), (wb, "next"),
                                (wb, "next"), (wa, "pool +1")):
                await ws.send_str(json.dumps({"type": "command", "command": command}))
                states, reply = [], None
                while reply is None:  # the sender's reply; its state may come before or after
                    msg = json.loads((await ws.receive(timeout=10)).data)
                    if msg["type"] == "reply":
                        reply = msg
                    elif msg["type"] == "state":
                        states.append(msg)
                if not reply["ok"]:
                    continue
                if not states:
                    states.append(await next_of(ws, "state"))
                other = wb if ws is wa else wa
                (got_a if ws is wa else got_b).append(states[0])
                (got_b if ws is wa else got_a).append(await next_of(other, "state"))
            return got_a, got_b, hello

    got_a, got_b, hello = run(go())
    assert hello["table"]["actions"]["1"]  # the whole list at once, when the phone (re)joins
    for got, seat in ((got_a, "1"), (got_b, "2")):
        last = None
        for msg in got:
            actions = msg["table"].get("actions")
            if actions is not None:
                assert set(actions) == {seat}  # never another seat's list
                assert actions[seat] != last  # sent again only when it changed
                last = actions[seat]
        assert any("actions" not in msg["table"] for msg in got)  # a pool change leaves them as they were
    # What a phone keeps (its last list) is what the table says now: the turn passed, and its
    # list changed with it.
    final = server.public_table()["actions"]
    for got, seat, start in ((got_a, "1", hello["table"]["actions"]["1"]), (got_b, "2", None)):
        kept = next((m["table"]["actions"][seat] for m in reversed(got) if "actions" in m["table"]), start)
        assert kept == final[seat]
    assert any("actions" in m["table"] for m in got_a + got_b)


def test_a_name_with_a_lone_surrogate_is_refused_in_words_and_the_journal_goes_on(tmp_path: Path, card_library) -> None:
    runtime = Runtime(library=card_library, journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    try:
        result = runtime.session.new_game("vtes", ["Ann", "Bo\ud800b"], seed=1)
        assert not result.ok
        said = " ".join(result.lines("fr"))
        assert "illisible" in said and "Bo?b" in said
        assert "unreadable" in " ".join(result.lines("en"))
        assert runtime.session.game is None  # nothing was started, nothing written
        assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok  # the journal goes on
    finally:
        runtime.close()


def test_a_flooder_that_reconnects_finds_its_budget_spent_and_an_honest_phone_keeps_its_feed(
        tmp_path: Path, card_library
) -> None:
    runtime = Runtime(library=card_library, journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
    server = PhoneServer(runtime, port=0, rate=1, burst=20)
    server.start()
    inv = server.invitations()
    ann, spectator = inv["seats"][0]["token"], inv["spectator"].split("#t=")[1]

    async def closed_within(http: aiohttp.ClientSession, messages: int) -> bool:
        """A socket with the spectator token sends junk; True if the server closes it in time."""
        ws = await http.ws_connect(f"{server.url}/ws?token={spectator}")
        await next_of(ws, "hello")
        try:
            for _ in range(messages):
                await ws.send_str("junk")
        except (ConnectionError, RuntimeError):
            return True
        while True:
            try:
                msg = await ws.receive(timeout=5)
            except TimeoutError:
                await ws.close()
                return False
            if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                return True

    async def go() -> tuple[bool, bool, dict, dict]:
        async with aiohttp.ClientSession() as http:
            wa = await http.ws_connect(f"{server.url}/ws?token={ann}")  # the honest phone, same address
            await next_of(wa, "hello")
            first = await closed_within(http, 200)  # burst 20 + 50 strikes: shown the door
            # Back at once: 40 messages are fewer than a fresh burst and its strikes, but its
            # budget was kept for its address and token.
            again = await closed_within(http, 40)
            await wa.send_str(json.dumps({"type": "command", "command": "pool -1"}))
            got: dict[str, dict] = {}
            while len(got) < 2:  # its reply and the new state, in either order
                msg = json.loads((await wa.receive(timeout=10)).data)
                if msg["type"] in ("reply", "state"):
                    got[msg["type"]] = msg
            return first, again, got["reply"], got["state"]

    try:
        first, again, reply, state = run(go())
        assert first and again
        assert reply["ok"] and state["table"]["seats"][0]["counters"]["pool"] == 29
    finally:
        server.stop()
        runtime.close()


def test_the_remembered_budgets_are_bounded() -> None:
    from companion.web.access import Budgets

    budgets = Budgets(rate=1, burst=2, kept=3)
    spent = budgets.of("10.0.0.1", "a")
    spent.strikes = 7
    for n in range(10):
        budgets.of(f"10.0.0.{n + 2}", "b")
    assert len(budgets) == 3  # a guest making up addresses cannot fill the memory
    assert budgets.of("10.0.0.1", "a").strikes == 0  # the oldest was forgotten
    assert budgets.of("10.0.0.11", "b") is budgets.of("10.0.0.11", "b")


def test_a_judge_is_called_from_a_phone_only_when_the_table_is_joined_to_a_venue(tmp_path: Path, card_library) -> None:
    """The console's ``juge`` as a seat action: offered only with a venue link, and the call goes
    into the link's outbox for the hub (here with no broker: a table plays on offline, the outbox
    on the disk keeps the call until the hub acknowledges it)."""
    from companion.venue.link import TableLink, VenueAddress

    runtime = Runtime(library=card_library, journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
    server = PhoneServer(runtime, port=0)
    server.start()
    ann = server.invitations()["seats"][0]["token"]

    async def judge() -> tuple[int, dict]:
        async with aiohttp.ClientSession() as http:
            async with http.post(server.url + "/api/action", json={"id": "judge"},
                                 headers={"Authorization": "Bearer " + ann}) as r:
                return r.status, await r.json()

    link = None
    try:
        assert all(a["id"] != "judge" for a in server.public_table()["actions"]["1"])
        status, _ = run(judge())
        assert status == 409  # no venue: nobody to call
        link = TableLink(runtime.session, VenueAddress.parse("mqtt://table-3:pw@127.0.0.1:9/night", 3),
                         outbox_path=tmp_path / "outbox.sqlite3").start()
        runtime.venue = link  # as companion.venue.join's extension does for --venue
        offered = [a for a in server.public_table()["actions"]["1"] if a["id"] == "judge"]
        assert offered and offered[0]["words"]["fr"] == "Appeler un juge"
        status, reply = run(judge())
        assert status == 200 and reply["ok"] and "table 3" in " ".join(reply["lines"])
        calls = [body for _seq, kind, body in link.outbox.pending() if kind == "judge"]
        assert len(calls) == 1 and calls[0]["seat"] == 1 and "Ann" in calls[0]["why"]
    finally:
        if link is not None:
            link.stop(timeout=2, drain=0)
        server.stop()
        runtime.close()
