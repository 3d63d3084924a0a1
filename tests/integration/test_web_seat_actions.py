"""A phone is a whole seat (issue 23, item 1): every action of the seat's list, the same list the
table screen's seat menus show (table.present), from the phone, with its questions answered and
checked; the proposal of a card the seat read on its phone; a card shown to the table in every
phone's log; refusals only to the phone that caused them. Through the real server and client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from companion.play.runtime import Runtime
from companion.readers.events import TagEvent
from companion.table.present import seat_actions
from companion.tags.resolve import Scan
from companion.web.server import PhoneServer
from tests.web_helpers import run

pytestmark = pytest.mark.timeout(120)


def serve(tmp_path: Path, game: str, library: Any) -> tuple[Runtime, PhoneServer]:
    """A table of ``game`` served on loopback, its cards from the session's library (read once)."""
    runtime = Runtime(library=library, journal_path=tmp_path / f"{game}.sqlite3", lang="fr", speak=False)
    runtime.load_cards()
    assert runtime.session.new_game(game, ["Ann", "Bob"], seed=1, first="Ann").ok
    server = PhoneServer(runtime, port=0)
    server.start()
    return runtime, server


async def call(http: aiohttp.ClientSession, server: PhoneServer, token: str, path: str, body: dict) -> dict:
    async with http.post(server.url + path, json=body, headers={"Authorization": "Bearer " + token}) as r:
        return await r.json()


def test_the_phone_offers_the_table_screens_seat_actions_in_every_game(tmp_path: Path, card_library) -> None:
    for game in ("vtes", "ascension", "res-arcana", "rise", "astral"):
        runtime, server = serve(tmp_path, game, card_library)
        try:
            table = server.public_table()
            g = runtime.session.game
            for seat in (1, 2):
                listed = [a.id for a in seat_actions(g.rules, g.state, seat - 1, "fr")]
                assert [a["id"] for a in table["actions"][str(seat)]] == listed, game
        finally:
            server.stop()
            runtime.close()


def test_rise_restoration_and_res_arcana_pass_from_the_phone(tmp_path: Path, card_library) -> None:
    """Before: Rise stopped at Restoration ("restore 2" could not be sent) and Res Arcana had no pass."""
    runtime, server = serve(tmp_path, "rise", card_library)
    tokens = {s["seat"]: s["token"] for s in server.invitations()["seats"]}

    async def rise() -> tuple[int, list[dict]]:
        async with aiohttp.ClientSession() as http:
            replies = []
            for _ in range(20):  # each player's phone takes its own turn to Restoration
                table = server.public_table()
                seat = table["active_seat"]
                if any(a["id"] == "restore2" for a in table["actions"][str(seat)]):
                    break
                replies.append(await call(http, server, tokens[seat], "/api/command", {"command": "next"}))
                assert replies[-1]["ok"], replies[-1]
            urgent = [a for a in server.public_table()["actions"][str(seat)] if a["urgent"]]
            assert urgent[0]["id"] == "restore2"
            replies.append(await call(http, server, tokens[seat], "/api/action", {"id": "restore2", "answers": {}}))
            return seat, replies

    try:
        seat, replies = run(rise())
        assert replies[-1]["ok"], replies[-1]
        assert runtime.session.game.state["seats"][seat - 1].get("restored")
    finally:
        server.stop()
        runtime.close()

    runtime, server = serve(tmp_path, "res-arcana", card_library)
    ann, bob = (s["token"] for s in server.invitations()["seats"])

    async def arcana() -> tuple[dict, dict]:
        async with aiohttp.ClientSession() as http:
            for _ in range(5):
                if any(a["id"] == "pass" for a in server.public_table()["actions"]["1"]):
                    break
                await call(http, server, ann, "/api/command", {"command": "next"})
            early = await call(http, server, bob, "/api/action", {"id": "pass", "answers": {}})
            return early, await call(http, server, ann, "/api/action", {"id": "pass", "answers": {}})

    try:
        early, passed = run(arcana())
        assert not early["ok"]  # not offered to Bob now: refused, with why
        assert passed["ok"], passed
        assert runtime.session.game.state["seats"][0].get("passed")
    finally:
        server.stop()
        runtime.close()


def test_vtes_bleed_from_the_phone_checks_its_answers_and_refusals_stay_with_their_phone(
        tmp_path: Path, card_library
) -> None:
    runtime, server = serve(tmp_path, "vtes", card_library)
    ann, bob = (s["token"] for s in server.invitations()["seats"])

    async def go() -> dict:
        async with aiohttp.ClientSession() as http:
            wa = await http.ws_connect(f"{server.url}/ws?token={ann}")
            wb = await http.ws_connect(f"{server.url}/ws?token={bob}")
            out: dict = {"bob_log": [], "ann_log": []}
            for ws in (wa, wb):
                while json.loads((await ws.receive(timeout=10)).data)["type"] != "hello":
                    pass
            out["self"] = await call(http, server, ann, "/api/action", {"id": "bleed", "answers": {"target": "1",
                                                                                                  "amount": 2}})
            out["bob_next"] = await call(http, server, bob, "/api/command", {"command": "next"})  # not his turn
            out["bleed"] = await call(http, server, ann, "/api/action", {"id": "bleed", "answers": {"target": "2",
                                                                                                   "amount": 3}})
            for ws, key in ((wa, "ann_log"), (wb, "bob_log")):
                while True:
                    msg = json.loads((await ws.receive(timeout=10)).data)
                    if msg["type"] == "log":
                        out[key].append(msg)
                        if any("saigne" in line for line in msg["lines"]["fr"]):
                            break
            await wa.close()
            await wb.close()
            return out

    try:
        got = run(go())
        assert not got["self"]["ok"]  # Ann cannot bleed herself: not among the choices offered
        assert not got["bob_next"]["ok"] and "tour d'Ann" in " ".join(got["bob_next"]["lines"])  # why it waits
        assert got["bleed"]["ok"]
        assert runtime.session.game.to_json()["seats"][1]["counters"]["pool"] == 27
        for key in ("ann_log", "bob_log"):  # nobody's log holds another phone's refusal
            assert all(m["ok"] for m in got[key]) and got[key][-1]["by"] == 1
    finally:
        server.stop()
        runtime.close()


def test_a_card_read_on_a_seats_phone_is_proposed_there_and_shown_to_every_phone(tmp_path: Path, card_library) -> None:
    """Before: the proposal of a card read appeared on no phone and 'ok' was unknown there; a card
    shown to the table vanished from the phone and nobody saw it."""
    runtime, server = serve(tmp_path, "res-arcana", card_library)
    ann, bob = (s["token"] for s in server.invitations()["seats"])
    card = next(c for c in runtime.library.cards("res-arcana") if "artifact" in " ".join(c.types).lower())

    async def go() -> dict:
        async with aiohttp.ClientSession() as http:
            for _ in range(5):
                if any(a["id"] == "pass" for a in server.public_table()["actions"]["1"]):
                    break
                await call(http, server, ann, "/api/command", {"command": "next"})
            wa = await http.ws_connect(f"{server.url}/ws?token={ann}")
            wb = await http.ws_connect(f"{server.url}/ws?token={bob}")
            out: dict = {}

            async def until(ws, kind: str) -> dict:
                while True:
                    msg = json.loads((await ws.receive(timeout=10)).data)
                    if msg["type"] == kind:
                        return msg

            await until(wa, "hello")
            await until(wb, "hello")
            runtime.lay(Scan(TagEvent("laid", reader="r1", uid="04a1", seat=1), "card", card=card, ref=card.ref))
            private = await until(wa, "card")
            out["proposal"] = await until(wa, "proposal")
            out["ok"] = await call(http, server, ann, "/api/command", {"command": "ok gold gold gold gold gold"})
            out["reveal"] = await call(http, server, ann, "/api/reveal", {"id": private["card"]["id"]})
            out["bob_revealed"] = await until(wb, "revealed")
            while True:
                log = await until(wb, "log")
                if "montre" in " ".join(log["lines"]["fr"]):
                    out["bob_log"] = log
                    break
            await wa.close()
            await wb.close()
            return out

    try:
        got = run(go())
        question = " ".join(got["proposal"]["proposal"]["lines"]["fr"])
        assert card.name in question and got["proposal"]["proposal"]["seat"] == 1
        assert got["ok"]["lines"], got["ok"]
        assert got["reveal"]["ok"] and got["bob_revealed"]["card"]["name"] == card.name
        assert got["bob_log"]["lines"]["fr"] == [f"Ann montre : {card.name}"]
    finally:
        server.stop()
        runtime.close()
