"""The phone server against a hostile guest on the same Wi-Fi (issue 23, item 5): the server on a
loopback port, the core Runtime with a real journal, raw sockets and aiohttp's client as the
attacker, and an honest phone that must still be served."""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import os
import socket
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
import pytest

from companion.play.runtime import Runtime
from companion.web.server import PhoneServer
from tests.web_helpers import run as _run
from tests.web_helpers import served_table, tokens

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def table(tmp_path: Path):
    yield from served_table(tmp_path, cards=False)


async def next_of(ws: aiohttp.ClientWebSocketResponse, kind: str, timeout: float = 10) -> dict:
    while True:
        msg = await ws.receive(timeout=timeout)
        assert msg.type == aiohttp.WSMsgType.TEXT, msg
        body = json.loads(msg.data)
        if body["type"] == kind:
            return body


def raw_request(server: PhoneServer, head: bytes, body: bytes = b"") -> int:
    """One request written byte for byte (headers a polite client would never send); its status."""
    where = urlsplit(server.url)
    with socket.create_connection((where.hostname, where.port), timeout=20) as s:
        s.sendall(head + b"\r\n" + body)
        answer = b""
        while b"\r\n" not in answer:
            chunk = s.recv(4096)
            if not chunk:
                break
            answer += chunk
    return int(answer.split(b" ", 2)[1])


def post(server: PhoneServer, path: str, body: bytes, token: str | None = None) -> int:
    where = urlsplit(server.url)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=20)
    try:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        conn.request("POST", path, body=body, headers=headers)
        return conn.getresponse().status
    finally:
        conn.close()


def test_a_lone_surrogate_is_refused_and_never_stops_another_phones_feed(table) -> None:
    """Before: 500, then every phone's writer died and a new phone's hello never came."""
    runtime, server = table
    ann, bob, spectator = tokens(server)
    surrogate = b'{"command": "\\ud800"}'
    assert post(server, "/api/command", surrogate, ann) == 400

    async def go() -> dict:
        async with aiohttp.ClientSession() as http_:
            wa = await http_.ws_connect(f"{server.url}/ws?token={ann}")
            wb = await http_.ws_connect(f"{server.url}/ws?token={bob}")
            await next_of(wa, "hello")
            await next_of(wb, "hello")
            await wa.send_str(surrogate.decode())
            refused = await next_of(wa, "reply")
            await wa.send_str(json.dumps({"type": "command", "command": "pool -1", "tag": 1}))
            state = await next_of(wb, "state")  # Bob's feed goes on
            ok = await next_of(wa, "reply")
            late = await http_.ws_connect(f"{server.url}/ws?token={spectator}")
            hello = await next_of(late, "hello")  # a phone that comes now gets its hello at once
            for ws in (wa, wb, late):
                await ws.close()
            return {"refused": refused, "state": state, "ok": ok, "hello": hello}

    got = run(go())
    assert not got["refused"]["ok"] and got["ok"]["ok"]
    assert got["state"]["table"]["seats"][0]["counters"]["pool"] == 29
    assert got["hello"]["table"]["seats"][0]["counters"]["pool"] == 29
    assert runtime.session.game.to_json()["seats"][0]["counters"]["pool"] == 29


def test_every_text_for_a_socket_is_valid_utf8() -> None:
    """The last guard: whatever a line holds (a name from a non-UTF-8 terminal), the text a writer
    sends encodes."""
    from companion.web import wire

    text = wire.dumps({"type": "log", "lines": {"fr": ["Ann\udcff a lu \ud800"]}})
    assert text.encode("utf-8") and "\ufffd" in text


def test_deep_json_bad_tokens_and_long_paths_are_refused_cleanly(table, caplog) -> None:
    """Before: 500 and a RecursionError; 500 for a non-ASCII token; 500 for a long static path."""
    _, server = table
    ann, _, spectator = tokens(server)
    assert post(server, "/api/command", b"[" * 5000 + b"]" * 5000, ann) == 400
    assert post(server, "/api/command", b'{"command": ' + b"[" * 5000 + b"]" * 5000 + b"}", ann) == 400
    assert post(server, "/api/join", b"{" * 3000, None) == 400
    host = urlsplit(server.url).netloc.encode()
    for token in ("Ann é".encode(), "é".encode("latin-1"), b"g" * 32, b"\xff" * 32):
        head = b"GET /api/table HTTP/1.1\r\nHost: " + host + b"\r\nAuthorization: Bearer " + token + b"\r\n"
        assert raw_request(server, head) == 400, token
    for path in (b"/static/" + b"a" * 5000 + b".js", b"/api/table/" + b"x" * 5000, b"/" + b"%2e" * 2000):
        assert raw_request(server, b"GET " + path + b" HTTP/1.1\r\nHost: " + host + b"\r\n") == 404
    assert raw_request(server, b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: " + host + b"\r\n") == 400
    assert raw_request(server, b"NOT HTTP AT ALL\r\n") == 400
    # the token travels in a header on HTTP; ?token= is for the socket only
    head = b"GET /api/table?token=" + spectator.encode() + b" HTTP/1.1\r\nHost: " + host + b"\r\n"
    assert raw_request(server, head) == 401
    head = b"GET /favicon.ico HTTP/1.1\r\nHost: " + host + b"\r\n"
    assert raw_request(server, head) == 200
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in caplog.records)  # one line each


def test_the_socket_origin_is_one_the_server_serves_scheme_included(table) -> None:
    """Before: the Origin was compared with the Host header the attacker chose (DNS rebinding)."""
    _, server = table
    ann, _, _ = tokens(server)
    where = urlsplit(server.url)

    def handshake(host: str, origin: str | None, token: str = ann) -> int:
        key = base64.b64encode(os.urandom(16)).decode()
        head = (f"GET /ws?token={token} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n")
        if origin is not None:
            head += f"Origin: {origin}\r\n"
        return raw_request(server, head.encode())

    port = where.port
    assert handshake(f"evil.example:{port}", f"http://evil.example:{port}") == 403  # rebinding
    assert handshake(where.netloc, f"https://127.0.0.1:{port}") == 403  # another scheme
    assert handshake(where.netloc, f"http://127.0.0.1:{port + 1}") == 403
    assert handshake(where.netloc, "null") == 403
    assert handshake(where.netloc, f"http://127.0.0.1:{port}") == 101
    assert handshake(where.netloc, None) == 101  # a script, proven by its token
    assert handshake(where.netloc, None, "é" * 4) == 400


def test_junk_and_spectator_messages_count_against_the_rate(tmp_path: Path) -> None:
    """Before: a spectator or junk frames were never counted: a flood slowed every phone."""
    runtime = Runtime(journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
    server = PhoneServer(runtime, port=0, rate=0.001, burst=5)
    server.start()
    ann, bob, spectator = tokens(server)

    async def flood(token: str, frames: list) -> int | None:
        async with aiohttp.ClientSession() as http_:
            ws = await http_.ws_connect(f"{server.url}/ws?token={token}")
            await next_of(ws, "hello")
            try:
                for frame in frames * 200:
                    if isinstance(frame, bytes):
                        await ws.send_bytes(frame)
                    else:
                        await ws.send_str(frame)
                while True:  # drain until the server closes it
                    msg = await ws.receive(timeout=20)
                    if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING):
                        break
            except (ConnectionError, aiohttp.ClientError):
                pass
            return ws.close_code

    try:
        assert run(flood(spectator, ["hello?", '{"type": "command", "command": "pool -1"}'])) == 1008
        assert run(flood(ann, [b"\x00" * 10, "not json"])) == 1008
        assert runtime.session.game.to_json()["seats"][0]["counters"]["pool"] == 30  # nothing changed

        async def honest() -> dict:  # Bob, who sent nothing, is served
            async with aiohttp.ClientSession() as http_:
                ws = await http_.ws_connect(f"{server.url}/ws?token={bob}")
                await next_of(ws, "hello")
                await ws.send_str(json.dumps({"type": "command", "command": "pool -2", "tag": "b"}))
                reply = await next_of(ws, "reply")
                await ws.close()
                return reply

        assert run(honest())["ok"]
    finally:
        server.stop()
        runtime.close()


@pytest.mark.slow
def test_slowloris_with_few_open_files_leaves_an_honest_phone_served(tmp_path: Path) -> None:
    """``serve`` as users start it, its open-file limit lowered to 256, under 300 half-open
    connections (headers never finished): the server stays within its files, an honest phone on
    another address is served meanwhile, the half-open ones are closed, and the log has one-line
    warnings, no tracebacks. Before: every honest request timed out and tracebacks filled the log."""
    import resource
    import subprocess
    import sys

    def few_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--game", "vtes", "--players", "Ann,Bob",
                             "--port", "0", "--json", "--journal", str(tmp_path / "games.sqlite3")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=few_files)
    attackers: list[socket.socket] = []
    try:
        invitation = json.loads(proc.stdout.readline())
        where = urlsplit(invitation["url"])
        ann = invitation["seats"][0]["token"]
        for _ in range(300):
            try:
                s = socket.create_connection((where.hostname, where.port), timeout=5)
                s.sendall(b"GET /api/table HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # and never the end
                attackers.append(s)
            except OSError:
                pass
        # An honest phone from another address of this machine (127.0.0.2 is loopback too).
        conn = http.client.HTTPConnection(where.hostname, where.port, timeout=30, source_address=("127.0.0.2", 0))
        conn.request("POST", "/api/command", body=json.dumps({"command": "pool -3"}),
                     headers={"Authorization": "Bearer " + ann, "Content-Type": "application/json"})
        answer = conn.getresponse()
        assert answer.status == 200 and json.loads(answer.read())["ok"]
        conn.close()
        # The half-open connections are closed by the server once their headers are late.
        closed = 0
        for s in attackers:
            s.settimeout(60)
            try:
                while s.recv(4096):
                    pass  # an answer (408, 400) may come first; then the end
                closed += 1
            except ConnectionError:
                closed += 1
            except TimeoutError:
                pass
        assert closed == len(attackers)
    finally:
        for s in attackers:
            s.close()
        proc.terminate()
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    assert proc.returncode == 0
    assert "Traceback" not in err and len(err.splitlines()) < 10, err[-2000:]
    print(err)


def test_connections_past_the_caps_are_closed_at_once_and_counted_back(tmp_path: Path) -> None:
    """The caps themselves: per address and in total; a connection that leaves frees its place."""
    from companion.web.access import Gate, total_cap

    runtime = Runtime(journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
    gate = Gate(per_address=2, total=3)
    server = PhoneServer(runtime, port=0, gate=gate)
    server.start()
    where = urlsplit(server.url)
    held: list[socket.socket] = []

    def connect(source: str) -> bool:
        """Whether the server keeps this connection open (a refused one is closed at once)."""
        s = socket.create_connection((where.hostname, where.port), timeout=5, source_address=(source, 0))
        s.settimeout(1.0)
        try:
            closed = s.recv(1) == b""
        except TimeoutError:
            closed = False
        except ConnectionError:
            closed = True
        held.append(s)
        return not closed

    try:
        assert [connect("127.0.0.1") for _ in range(3)] == [True, True, False]  # two per address
        assert [connect("127.0.0.3"), connect("127.0.0.4")] == [True, False]  # three in all
        held[0].close()
        for _ in range(50):
            if gate.count < 3:
                break
            asyncio.run(asyncio.sleep(0.05))
        assert gate.count == 2 and connect("127.0.0.4")  # its place is free again
        import resource

        assert 8 <= total_cap() < resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    finally:
        for s in held:
            s.close()
        server.stop()
        runtime.close()


def run(coro):
    return _run(coro, 120)
