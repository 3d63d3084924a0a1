"""The phone server through real parts: the server on a loopback port in its own thread, the core
Runtime with a real journal, and aiohttp's own client as the phones (HTTP and WebSocket)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from companion.play.runtime import Runtime
from companion.readers.events import TagEvent
from companion.table.journal import Journal
from companion.tags.records import encode_ref
from companion.web.server import PhoneServer
from tests.web_helpers import run, served_table, tokens

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def table(tmp_path: Path, card_library):
    yield from served_table(tmp_path, library=card_library)


SEEN: dict[int, list[str]] = {}  # every message each socket received, to look for leaks


async def next_of(ws: aiohttp.ClientWebSocketResponse, kind: str, timeout: float | None = 10,
                  skim: bool = False) -> dict:
    """The next message of type ``kind`` (``timeout=None``: the caller's own limit bounds the wait).
    ``skim``: a message that starts as the server writes another type is skipped unparsed (the 20
    phones get 80,000 messages and check their replies); anything else is parsed, and must be JSON."""
    other = '{"type": "'
    mine = f'{other}{kind}"'
    while True:
        raw = (await ws.receive(timeout=timeout)).data
        SEEN.setdefault(id(ws), []).append(raw)
        if skim and isinstance(raw, str) and raw.startswith(other) and not raw.startswith(mine):
            continue
        msg = json.loads(raw)
        if msg["type"] == kind:
            return msg


def test_serve_prints_its_invitation_first(table) -> None:
    _, server = table
    inv = server.invitations()
    assert inv["url"].startswith("http://127.0.0.1:") and [s["name"] for s in inv["seats"]] == ["Ann", "Bob"]
    assert all(len(s["token"]) == 32 and s["join"].endswith("#c=" + s["code"]) for s in inv["seats"])
    assert inv["game"] == server.runtime.session.game.id  # what --resume needs
    assert len({s["token"] for s in inv["seats"]} | {inv["spectator"]}) == 3


def test_only_a_seat_token_writes_and_only_for_its_seat(table) -> None:
    runtime, server = table
    ann, bob, spectator = tokens(server)
    url = server.url

    async def go() -> list[int]:
        codes = []
        async with aiohttp.ClientSession() as http:
            for headers in ({}, {"Authorization": "Bearer " + "0" * 32}, {"Authorization": "Bearer " + spectator}):
                async with http.post(url + "/api/command", json={"command": "pool 1 -5"}, headers=headers) as r:
                    codes.append(r.status)
            async with http.post(url + "/api/command", json={"command": "pool 2 -5"},
                                 headers={"Authorization": "Bearer " + ann}) as r:
                codes.append(r.status)  # Ann's phone cannot touch Bob's pool
            async with http.post(url + "/api/command", json={"command": "pool -2"},
                                 headers={"Authorization": "Bearer " + ann}) as r:
                codes.append(r.status)
                body = await r.json()
                assert body["ok"] and "28" in " ".join(body["lines"])
            async with http.post(url + "/api/command", data="x" * 100_000,
                                 headers={"Authorization": "Bearer " + ann}) as r:
                codes.append(r.status)
            async with http.get(url + "/api/table") as r:
                codes.append(r.status)
            async with http.get(url + "/api/table", headers={"Authorization": "Bearer " + spectator}) as r:
                codes.append(r.status)
                assert (await r.json())["seats"][0]["counters"]["pool"] == 28
        return codes

    assert run(go()) == [401, 403, 403, 403, 200, 413, 401, 200]
    seats = runtime.session.game.to_json()["seats"]
    assert [s["counters"]["pool"] for s in seats] == [28, 30]  # only the one allowed change
    journal = Journal(runtime.session.journal_path)
    try:
        events = journal.game(runtime.session.game.id).events
    finally:
        journal.close()
    assert events >= 2


def test_websocket_origin_is_checked_and_a_forged_token_is_refused(table) -> None:
    _, server = table
    ann, _, _ = tokens(server)

    async def go() -> list[int]:
        codes = []
        async with aiohttp.ClientSession() as http:
            for path, headers in ((f"/ws?token={ann}", {"Origin": "http://evil.example"}),
                                  ("/ws?token=" + "f" * 32, {}), ("/ws", {})):
                try:
                    async with http.ws_connect(server.url + path, headers=headers):
                        codes.append(101)
                except aiohttp.WSServerHandshakeError as exc:
                    codes.append(exc.status)
        return codes

    assert run(go()) == [403, 403, 401]


def test_a_private_card_reaches_its_seat_only_and_reconnection_gets_the_state(table) -> None:
    runtime, server = table
    ann, bob, spectator = tokens(server)

    async def go() -> None:
        async with aiohttp.ClientSession() as http:
            wa = await http.ws_connect(f"{server.url}/ws?token={ann}")
            wb = await http.ws_connect(f"{server.url}/ws?token={bob}")
            ws = await http.ws_connect(f"{server.url}/ws?token={spectator}")
            hello = await next_of(wa, "hello")
            assert hello["seat"] == 1 and hello["name"] == "Ann" and hello["cards"] == []
            await next_of(wb, "hello")
            await next_of(ws, "hello")
            assert runtime.phones.has_phone(1)
            scan = runtime.scans.resolve(TagEvent("laid", reader="sim", uid="04A1",
                                                  ndef=encode_ref("vtes:100845"), seat=1))
            await asyncio.get_running_loop().run_in_executor(None, runtime.lay, scan)
            card = await next_of(wa, "card")
            assert card["card"]["ref"] == "vtes:100845" and card["card"]["text"]
            for other in (wb, ws):  # the others hear that Ann read a card, and nothing of it
                read = await next_of(other, "read")
                assert read["lines"]["fr"] == ["Ann a lu une carte."]
            # everything the others got is free of the card
            await wb.send_str(json.dumps({"type": "command", "command": "pool -1"}))
            reply = await next_of(wb, "reply")
            assert reply["ok"]
            # Ann's phone drops and comes back: the current state and its cards at once
            await wa.close()
            wa = await http.ws_connect(f"{server.url}/ws?token={ann}")
            again = await next_of(wa, "hello")
            assert again["table"]["seats"][1]["counters"]["pool"] == 29
            assert [c["ref"] for c in again["cards"]] == ["vtes:100845"]
            # ... and the table's recent log, every language of each line, never the card
            logged = [line for entry in again["log"] for line in entry["lines"]["fr"]]
            assert "Ann a lu une carte." in logged and any("Bob" in line for line in logged)
            assert "100845" not in json.dumps(again["log"]) and scan.card.name not in json.dumps(again["log"])
            # the spectator can never write, even through the socket
            await ws.send_str(json.dumps({"type": "command", "command": "pool 1 -5"}))
            async with http.get(server.url + "/api/table", headers={"Authorization": "Bearer " + bob}) as r:
                text = await r.text()
            assert "100845" not in text and scan.card.name not in text
            # Bob cannot reveal Ann's card; Ann can
            number = again["cards"][0]["id"]
            async with http.post(server.url + "/api/reveal", json={"id": number},
                                 headers={"Authorization": "Bearer " + bob}) as r:
                assert r.status == 404
            async with http.post(server.url + "/api/reveal", json={"id": number},
                                 headers={"Authorization": "Bearer " + ann}) as r:
                assert r.status == 200
            shown = await next_of(wb, "revealed")
            assert shown["card"]["ref"] == "vtes:100845"
            # Ann's phone reads a card itself (Web NFC): hers only, too
            async with http.post(server.url + "/api/nfc", json={"ref": "vtes:100845"},
                                 headers={"Authorization": "Bearer " + ann}) as r:
                assert r.status == 200 and (await r.json())["card"]["text"]
            assert (await next_of(wa, "card"))["card"]["ref"] == "vtes:100845"
            await next_of(ws, "read")
            async with http.post(server.url + "/api/nfc", json={"ref": "vtes:100845"},
                                 headers={"Authorization": "Bearer " + spectator}) as r:
                assert r.status == 403
            # nothing the spectator received before the reveal named the card
            before = SEEN[id(ws)][: next(i for i, m in enumerate(SEEN[id(ws)]) if '"revealed"' in m)]
            assert before and not any("100845" in m or scan.card.name in m for m in before)
            for w in (wa, wb, ws):
                await w.close()

    run(go())
    assert runtime.session.game.to_json()["seats"][0]["counters"]["pool"] == 30


def test_a_revoked_phone_is_cut_off_and_its_token_dead(table) -> None:
    runtime, server = table
    ann, _, _ = tokens(server)

    async def go() -> None:
        async with aiohttp.ClientSession() as http:
            wa = await http.ws_connect(f"{server.url}/ws?token={ann}")
            await next_of(wa, "hello")
            fresh = server.revoke(1)
            assert fresh is not None and fresh.token != ann
            msg = await wa.receive(timeout=10)
            while msg.type == aiohttp.WSMsgType.TEXT:
                msg = await wa.receive(timeout=10)
            assert wa.close_code == 4403
            async with http.post(server.url + "/api/command", json={"command": "pool -1"},
                                 headers={"Authorization": "Bearer " + ann}) as r:
                assert r.status == 403
            async with http.post(server.url + "/api/join", json={"code": fresh.code}) as r:
                joined = (await r.json())["token"]
            async with http.get(server.url + "/api/table", headers={"Authorization": "Bearer " + joined}) as r:
                assert r.status == 200 and joined != ann

    run(go())
    assert not runtime.phones.has_phone(1)


@pytest.fixture
def ram_path(tmp_path: Path) -> Iterator[Path]:
    """A folder in memory (/dev/shm) where the machine has one, else ``tmp_path``: a journal there
    commits with the same SQLite code and fsync calls (synchronous=FULL), without a disk's cost
    for each of 2,000 commits (a quarter of the test's CPU, in the kernel)."""
    ram = Path("/dev/shm")
    if not (ram.is_dir() and os.access(ram, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="companion-web-", dir=ram))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
def test_twenty_phones_lose_nothing_and_keep_the_order(ram_path: Path, card_library) -> None:
    """20 phones (10 per seat), 2000 changes over loopback: every one durable, in the order each
    phone sent them, and the replayed journal agrees."""
    tmp_path = ram_path
    runtime = Runtime(library=card_library, journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
    server = PhoneServer(runtime, port=0, rate=1e6, burst=1e6)  # ten phones share a seat here
    server.start()
    per_phone = 100
    try:
        inv = server.invitations()

        async def phone(http: aiohttp.ClientSession, token: str, seq: int) -> list[int]:
            ws = await http.ws_connect(f"{server.url}/ws?token={token}")
            await next_of(ws, "hello")
            seen = []
            for i in range(per_phone):
                await ws.send_str(json.dumps({"type": "command", "command": "pool +1",
                                              "tag": i}))
                reply = await next_of(ws, "reply", timeout=None, skim=True)  # run()'s limit bounds the test
                assert reply["ok"] and reply["tag"] == i, reply
                seen.append(reply["revision"])
            await ws.close()
            SEEN.pop(id(ws), None)  # ~4,000 messages of this phone, read by no other test: not kept for the session
            return seen

        async def go() -> list[list[int]]:
            async with aiohttp.ClientSession() as http:
                return await asyncio.gather(*(phone(http, inv["seats"][n % 2]["token"], n) for n in range(20)))

        revisions = run(go())
    finally:
        server.stop()
    for seen in revisions:
        assert seen == sorted(seen) and len(set(seen)) == per_phone  # each phone's changes in its order
    assert len({r for seen in revisions for r in seen}) == 20 * per_phone  # none lost, none merged
    seats = runtime.session.game.to_json()["seats"]
    assert [s["counters"]["pool"] for s in seats] == [30 + 10 * per_phone] * 2
    game_id = runtime.session.game.id
    runtime.close()
    journal = Journal(tmp_path / "games.sqlite3")
    try:
        from companion.table.engine import Game

        replayed = Game.open(journal, game_id).to_json()["seats"]
    finally:
        journal.close()
    assert [s["counters"]["pool"] for s in replayed] == [30 + 10 * per_phone] * 2


def test_a_phone_that_floods_is_slowed_down_and_changes_nothing_more(tmp_path: Path, card_library) -> None:
    runtime = Runtime(library=card_library, journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
    server = PhoneServer(runtime, port=0, rate=0.001, burst=3)
    server.start()
    ann = server.invitations()["seats"][0]["token"]

    async def go() -> list[int]:
        async with aiohttp.ClientSession() as http:
            codes = []
            for _ in range(5):
                async with http.post(server.url + "/api/command", json={"command": "pool -1"},
                                     headers={"Authorization": "Bearer " + ann}) as r:
                    codes.append(r.status)
            return codes

    try:
        assert run(go()) == [200, 200, 200, 429, 429]
        assert runtime.session.game.to_json()["seats"][0]["counters"]["pool"] == 27
    finally:
        server.stop()
        runtime.close()


def test_bench_phones_reports_its_figures() -> None:
    from companion.benchmarks.phones import bench_phones

    out = bench_phones(changes=10, phones=3)
    assert out["changes"] == 10 and out["phones"] == 3
    assert 0 < out["p50_ms"] <= out["p95_ms"] <= out["max_ms"] and isinstance(out["ok"], bool)


def test_serve_as_users_start_it_and_phones_survive_a_crash(tmp_path: Path) -> None:
    """``python -m companion serve --json``: the invitation first (with the game id --resume
    needs), a phone's change in the journal; then kill -9 and ``serve --resume ID``: the same
    phones' tokens act again with no new code (only their digests were kept, beside the journal);
    a clean stop on SIGTERM. Before: --resume drew new tokens and every phone was locked out."""
    import hashlib
    import signal
    import subprocess
    import sys
    import urllib.request

    journal = tmp_path / "games.sqlite3"

    def serve(*args: str) -> tuple[subprocess.Popen, dict]:
        proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", *args, "--port", "0", "--json",
                                 "--journal", str(journal)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return proc, json.loads(proc.stdout.readline())

    def post(url: str, path: str, body: dict, token: str | None = None) -> dict:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        request = urllib.request.Request(url + path, method="POST", data=json.dumps(body).encode(), headers=headers)
        with urllib.request.urlopen(request, timeout=30) as r:
            return json.loads(r.read())

    proc, invitation = serve("--game", "vtes", "--players", "Ann,Bob", "--seed", "3")
    try:
        assert set(invitation) >= {"url", "game", "seats", "spectator"} and invitation["url"].startswith("http://127.0.0.1:")
        assert isinstance(invitation["game"], int)
        seat = invitation["seats"][1]
        assert (seat["seat"], seat["name"]) == (2, "Bob") and seat["join"].endswith("#c=" + seat["code"])
        assert post(invitation["url"], "/api/command", {"command": "pool -4"}, seat["token"])["ok"]
        ann_phone = post(invitation["url"], "/api/join", {"code": invitation["seats"][0]["code"]})["token"]
        assert post(invitation["url"], "/api/command", {"command": "pool -1"}, ann_phone)["ok"]
        proc.send_signal(signal.SIGKILL)  # a crash: nothing said goodbye
        proc.wait(timeout=30)
        kept = (tmp_path / "games.sqlite3.phones.json").read_text()
        assert ann_phone not in kept and hashlib.sha256(ann_phone.encode()).hexdigest() in kept

        proc, again = serve("--resume", str(invitation["game"]))
        assert again["game"] == invitation["game"] and again["seats"][1]["token"] is None
        assert post(again["url"], "/api/command", {"command": "pool -1"}, seat["token"])["ok"]
        assert post(again["url"], "/api/command", {"command": "pool -1"}, ann_phone)["ok"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader = Journal(journal)
    try:
        from companion.table.engine import Game

        game_id = reader.games()[0].id
        pools = [s["counters"]["pool"] for s in Game.open(reader, game_id).to_json()["seats"]]
        assert pools == [28, 25]
    finally:
        reader.close()


def test_rules_search_answers_a_phone_in_its_language(table) -> None:
    _, server = table
    _, bob, _ = tokens(server)

    async def go() -> dict:
        async with aiohttp.ClientSession() as http:
            async with http.get(server.url + "/api/rules", params={"q": "proie", "lang": "en"},
                                headers={"Authorization": "Bearer " + bob}) as r:
                return await r.json()

    hits = run(go())["hits"]
    assert hits and hits[0]["title"] == "Prey" and hits[0]["text"]


def test_a_phone_that_vanishes_mid_message_never_disturbs_the_table(table) -> None:
    import base64
    import os
    import socket
    from urllib.parse import urlsplit

    runtime, server = table
    ann, bob, _ = tokens(server)
    where = urlsplit(server.url)
    for _ in range(3):  # a handshake, then half a frame, then nothing: the phone left the Wi-Fi
        raw = socket.create_connection((where.hostname, where.port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        raw.sendall((f"GET /ws?token={ann} HTTP/1.1\r\nHost: {where.netloc}\r\nUpgrade: websocket\r\n"
                     f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        assert raw.recv(4096).startswith(b"HTTP/1.1 101")
        raw.sendall(b"\x81\xfe\x10\x00\x01\x02")  # a masked text frame of 4096 bytes, cut after its header
        raw.close()

    async def go() -> dict:
        async with aiohttp.ClientSession() as http:
            wb = await http.ws_connect(f"{server.url}/ws?token={bob}")
            await next_of(wb, "hello")
            await wb.send_str(json.dumps({"type": "command", "command": "pool -2"}))
            state = await next_of(wb, "state")  # pushed to every phone before the sender's own reply
            reply = await next_of(wb, "reply")
            await wb.close()
            return {"reply": reply, "state": state}

    got = run(go())
    assert got["reply"]["ok"] and got["state"]["table"]["seats"][1]["counters"]["pool"] == 28
    assert runtime.session.game.to_json()["seats"][1]["counters"]["pool"] == 28


def test_a_new_game_draws_new_tokens_and_the_old_ones_are_dead(table) -> None:
    runtime, server = table
    ann, _, _ = tokens(server)
    runtime.phones.attach(1)
    assert runtime.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=2).ok
    assert server.who(ann) == ("nobody", None) and not runtime.phones.has_phone(1)
    assert [s["name"] for s in server.invitations()["seats"]] == ["Ann", "Bob", "Cy"]


def test_undo_from_a_phone_takes_back_that_seats_own_change_and_says_who(table) -> None:
    """Before: Bob's undo took back Ann's change, and the log did not say who undid."""
    runtime, server = table
    ann, bob, _ = tokens(server)

    async def go() -> dict:
        async with aiohttp.ClientSession() as http:
            async def say(token: str, command: str) -> dict:
                async with http.post(server.url + "/api/command", json={"command": command},
                                     headers={"Authorization": "Bearer " + token}) as r:
                    return await r.json()

            out = {"ann": await say(ann, "pool -3"), "bob_undo": await say(bob, "undo")}
            out["bob"] = await say(bob, "pool -1")
            out["ann2"] = await say(ann, "pool -2")
            out["table_before"] = runtime.session.game.to_json()["seats"]
            out["bob_undo2"] = await say(bob, "undo")  # Bob's pool -1, though Ann's came later
            async with http.get(server.url + "/api/table", headers={"Authorization": "Bearer " + bob}) as r:
                out["state"] = await r.json()
            out["bob_redo"] = await say(bob, "redo")
            return out

    got = run(go())
    assert not got["bob_undo"]["ok"]  # nothing of Bob's to take back: Ann's change stays
    assert got["bob_undo2"]["ok"] and "Bob annule sa dernière action." in got["bob_undo2"]["lines"]
    assert got["state"]["seats"][0]["counters"]["pool"] == 25 and got["state"]["seats"][1]["counters"]["pool"] == 30
    assert got["state"]["undo"] == {"1": [2, 0], "2": [0, 1]}  # what each seat's buttons may do
    assert got["bob_redo"]["ok"]
    seats = runtime.session.game.to_json()["seats"]
    assert [s["counters"]["pool"] for s in seats] == [25, 29]
    assert runtime.session.undo().ok  # the table's own undo is the last change, whoever made it
    assert [s["counters"]["pool"] for s in runtime.session.game.to_json()["seats"]] == [25, 30]
    game_id = runtime.session.game.id
    from companion.table.engine import Game

    reopened = Game.open(Journal(runtime.session.journal_path), game_id)  # authors are in the journal
    assert reopened.undoable_by(1) == (0, 1) and reopened.undoable_by(0) == (2, 0)
    reopened.journal.close()


def test_a_code_joins_once_and_a_second_phone_waits_for_the_host_at_serves_terminal(tmp_path: Path) -> None:
    """``serve`` as users start it: a code gives its seat to the first phone only; a second phone
    with the same code waits until the host types ``a K`` in serve's terminal; ``p`` lists the
    phones per seat; ``r N.M`` takes one phone back. Before: a code joined any number of times,
    silently, and serve had no way to see or revoke a phone."""
    import queue
    import signal
    import subprocess
    import sys
    import threading
    import urllib.error
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--game", "vtes", "--players", "Ann,Bob",
                             "--port", "0", "--journal", str(tmp_path / "games.sqlite3")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()

    def until(word: str) -> list[str]:
        seen = []
        while True:
            seen.append(lines.get(timeout=30))
            if word in seen[-1]:
                return seen

    def call(url: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, method="GET" if body is None else "POST", data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    def key(line: str) -> None:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    try:
        head = until("Touches")
        text = "".join(head)
        url = next(w for w in text.split() if w.startswith("http://127.0.0.1:")).rstrip("/")
        assert "ne marchent que sur cette machine" in text and "▀" in text  # the loopback hint, the QR codes
        code = text.split("Code : ")[1][:6]
        base = url.split("/phone")[0]
        status, first = call(base + "/api/join", {"code": code})
        assert status == 200 and first["seat"] == 1
        status, second = call(base + "/api/join", {"code": code})
        assert status == 202 and "token" not in second
        waiting = until("Demande")[-1]
        number = waiting.split("Demande ")[1].split(" ")[0]
        assert call(base + "/api/join/" + second["pending"])[0] == 202  # still waiting
        key(f"a {number}")
        until("acceptée")
        status, approved = call(base + "/api/join/" + second["pending"])
        assert status == 200 and approved["seat"] == 1 and approved["token"] != first["token"]
        assert call(base + "/api/command", {"command": "pool -1"}, approved["token"])[0] == 200
        key("p")
        listing = "".join(until("Place 2"))
        assert "Place 1 (Ann) : 2 téléphones" in listing and "1.2" in listing
        key("r 1.2")
        until("retiré")
        assert call(base + "/api/command", {"command": "pool -1"}, approved["token"])[0] == 403
        assert call(base + "/api/command", {"command": "pool -1"}, first["token"])[0] == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_phone_behind_gets_the_newest_state_once_and_every_log_line_in_order(table) -> None:
    """A state is a snapshot: one still waiting for a phone's writer is replaced by the newest,
    sent after the log lines queued before it; log lines are events, every one sent, in order.
    The server's loop is held while the table changes five times, as a busy loop or a slow Wi-Fi
    holds a phone's writer. Before: five states, each encoded and sent to every phone."""
    import threading

    runtime, server = table
    ann, _, _ = tokens(server)

    async def go() -> tuple[list[dict], list[list[str]]]:
        async with aiohttp.ClientSession() as http:
            ws = await http.ws_connect(f"{server.url}/ws?token={ann}")
            await next_of(ws, "hello")
            entered, gate = threading.Event(), threading.Event()

            def hold() -> None:
                entered.set()
                gate.wait(30)

            assert server.loop is not None
            server.loop.call_soon_threadsafe(hold)
            assert await asyncio.to_thread(entered.wait, 30)
            said = []
            try:
                for amount in range(1, 6):
                    result = runtime.session.apply(f"pool 1 -{amount}", source="key")
                    assert result.ok
                    said.append(result.lines("fr"))
            finally:
                gate.set()
            got: list[dict] = []
            while sum(m["type"] == "log" for m in got) < 5:
                raw = (await ws.receive(timeout=10)).data
                SEEN.setdefault(id(ws), []).append(raw)
                got.append(json.loads(raw))
            await ws.close()
            return got, said

    got, said = run(go())
    assert [m["type"] for m in got] == ["log"] * 4 + ["state", "log"]
    assert [m["lines"]["fr"] for m in got if m["type"] == "log"] == said
    state = next(m for m in got if m["type"] == "state")
    assert state["table"]["revision"] == runtime.session.revision
    assert state["table"]["seats"][0]["counters"]["pool"] == 30 - 15
