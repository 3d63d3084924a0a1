"""A user's own game (a shipped game's folder copied under a new id into ``<data dir>/games/``)
served to phones: the real phone server on a loopback port, the core Runtime with a real
journal, aiohttp's own client as the seats' phones. Issue 21: a copied game plays with ``serve``."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from pathlib import Path

import aiohttp
import pytest

from companion import registry
from companion.play.runtime import Runtime
from companion.table.journal import Journal
from companion.web.server import PhoneServer
from tests.cards_index import warm_index

pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parents[2]


def user_game(home: Path, source: str, new_id: str) -> Path:
    """Copy a shipped game's folder into the home's games with a new id, as a game group would."""
    folder = home / "data" / "games" / new_id
    shutil.copytree(ROOT / "cardmap" / source, folder)
    text = (folder / "game.yaml").read_text(encoding="utf-8")
    text, n = re.subn(rf"(?m)^id: {source}$", f"id: {new_id}", text)
    assert n == 1
    (folder / "game.yaml").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    home = tmp_path / "home"
    user_game(home, "ascension", "duel-test")
    monkeypatch.setenv("COMPANION_HOME", str(home))
    monkeypatch.delenv("COMPANION_CARDMAP", raising=False)
    monkeypatch.delenv("COMPANION_CACHE", raising=False)  # this home's games make its own card index
    warm_index(home)  # from the session's: only this home's own game is built
    registry.forget()
    runtime = Runtime(journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    runtime.load_cards()
    assert "duel-test" in runtime.library.games and registry.is_user_game("duel-test")
    started = runtime.session.new_game("duel-test", ["Ann", "Bob"], seed=1, first="Ann")
    assert started.ok, started.text()
    server = PhoneServer(runtime, port=0)
    server.start()
    yield runtime, server
    server.stop()
    runtime.close()
    registry.forget()


async def next_of(ws: aiohttp.ClientWebSocketResponse, kind: str) -> dict:
    while True:
        msg = json.loads((await ws.receive(timeout=20)).data)
        if msg["type"] == kind:
            return msg


def test_a_copied_game_is_played_from_the_seats_phones(served) -> None:
    runtime, server = served
    inv = server.invitations()
    assert inv["game"] == runtime.session.game.id and [s["name"] for s in inv["seats"]] == ["Ann", "Bob"]
    token = {s["seat"]: s["token"] for s in inv["seats"]}
    spectator = inv["spectator"].split("#t=")[1]

    async def go() -> tuple[dict, dict, dict]:
        async with aiohttp.ClientSession() as http:
            ann = await http.ws_connect(f"{server.url}/ws?token={token[1]}")
            bob = await http.ws_connect(f"{server.url}/ws?token={token[2]}")
            hello = await next_of(ann, "hello")
            await next_of(bob, "hello")
            table = hello["table"]
            # The phone shows the copy's own words: its counters and phases, by their names.
            assert table["game"] == "duel-test" and table["active_seat"] == 1
            assert table["names"]["counters"]["runes"]["fr"] == "runes"
            assert table["phase"] == "play" and table["names"]["phases"]["discard"]["fr"] == "Défausse"
            # Ann's phone: four runes (its own counter word), then honor through its seat's menu.
            await ann.send_str(json.dumps({"type": "command", "command": "runes +4"}))
            reply = await next_of(ann, "reply")
            assert reply["ok"], reply
            async with http.post(server.url + "/api/action", json={"id": "honor", "answers": {"amount": "3"}},
                                 headers={"Authorization": "Bearer " + token[1]}) as r:
                assert r.status == 200 and (await r.json())["ok"]
            # Bob's phone cannot move Ann's runes.
            async with http.post(server.url + "/api/command", json={"command": "runes 1 +9"},
                                 headers={"Authorization": "Bearer " + token[2]}) as r:
                assert r.status == 403
            # Ann's phone goes to the next phase; Bob's phone hears of it.
            async with http.post(server.url + "/api/command", json={"command": "next"},
                                 headers={"Authorization": "Bearer " + token[1]}) as r:
                assert r.status == 200 and (await r.json())["ok"]
            seen = await next_of(bob, "state")
            while seen["table"]["phase"] != "discard":
                seen = await next_of(bob, "state")
            async with http.get(server.url + "/api/table", headers={"Authorization": "Bearer " + spectator}) as r:
                public = await r.json()
            for w in (ann, bob):
                await w.close()
            return hello, seen["table"], public

    _, pushed, public = asyncio.run(asyncio.wait_for(go(), 120))
    state = runtime.session.game.to_json()
    assert state["game"] == "duel-test" and state["phase"] == "discard" and state["active_seat"] == 1
    ann, bob = state["seats"]
    assert ann["counters"]["runes"] == 4 and ann["counters"]["honor"] == 3
    assert bob["counters"]["runes"] == 0 and bob["counters"]["honor"] == 0
    # The generic rules: Ascension's shared honor pool belongs to its code, not to a copied folder.
    assert state["shared"]["pool"] == 0
    assert pushed["seats"] == public["seats"] == state["seats"]
    with Journal(runtime.session.journal_path) as journal:  # the journal holds the game, by its id
        assert journal.game(runtime.session.game.id).events >= 3
