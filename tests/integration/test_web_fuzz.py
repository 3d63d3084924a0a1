"""Fuzzing the phone server's API and socket (issue 23, item 5): whatever a guest sends (bodies of
any JSON shape, lone surrogates, bytes that are not text, tokens of any letters), the answer is a
clear 4xx or a 200, never a 500, and an honest phone is served afterwards."""

from __future__ import annotations

import asyncio
import http.client
import json
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.play.runtime import Runtime
from companion.web.server import PhoneServer

pytestmark = pytest.mark.timeout(300)

ANY_CHAR = st.characters(codec=None, exclude_categories=())  # lone surrogates included
TEXT = st.text(ANY_CHAR, max_size=40)
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4), max_leaves=16)
COMMANDS = st.sampled_from(["pool -1", "pool +1", "next", "undo", "redo", "bleed 2", "ok", "", " "]) | TEXT
BODIES = st.one_of(
    JSONISH.map(json.dumps),  # ensure_ascii: a lone surrogate travels as legal "\ud800"
    st.builds(lambda c, extra: json.dumps({"command": c, "lang": extra, "id": extra, "ref": c, "code": c}),
              COMMANDS, JSONISH),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    st.integers(1, 3000).map(lambda n: "[" * n),
)
PATHS = st.sampled_from(["/api/command", "/api/join", "/api/reveal", "/api/nfc"])
TOKENS = st.one_of(st.just("seat"), st.just("spectator"), st.text(st.characters(max_codepoint=255,
                                                                                exclude_characters="\r\n"),
                                                                   max_size=40))
ANSWERS = {200, 400, 401, 403, 404, 409, 413, 429}


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory):
    path: Path = tmp_path_factory.mktemp("fuzz") / "games.sqlite3"
    runtime = Runtime(journal_path=path, lang="fr", speak=False)
    runtime.load_cards()
    assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
    server = PhoneServer(runtime, port=0, rate=1e6, burst=1e6)  # the fuzz reaches the parsers, not the limit
    server.start()
    yield runtime, server
    server.stop()
    runtime.close()


def _tokens(server: PhoneServer) -> tuple[str, str]:
    inv = server.invitations()
    return inv["seats"][0]["token"], inv["spectator"].split("#t=")[1]


def _request(server: PhoneServer, method: str, path: str, body: bytes | None, token: str | None) -> int:
    where = urlsplit(server.url)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    try:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = "Bearer " + token
        conn.request(method, path, body=body, headers=headers)
        answer = conn.getresponse()
        answer.read()
        return answer.status
    finally:
        conn.close()


def _honest(server: PhoneServer) -> None:
    _, spectator = _tokens(server)
    assert _request(server, "GET", "/api/table", None, spectator) == 200


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(path=PATHS, body=BODIES, who=TOKENS)
def test_the_api_answers_any_body_with_a_clear_status(table, path: str, body: str, who: str) -> None:
    _, server = table
    seat, spectator = _tokens(server)
    token = {"seat": seat, "spectator": spectator}.get(who, who)
    status = _request(server, "POST", path, body.encode("utf-8", "surrogatepass"), token or None)
    assert status in ANSWERS, (path, body[:80], status)
    _honest(server)


FRAMES = st.lists(st.one_of(BODIES, st.builds(lambda c, tag: json.dumps({"type": "command", "command": c, "tag": tag}),
                                              COMMANDS, JSONISH),
                            st.binary(max_size=64)), min_size=1, max_size=8)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(frames=FRAMES)
def test_the_socket_survives_any_frames_and_keeps_every_feed(table, frames: list) -> None:
    _, server = table
    seat, spectator = _tokens(server)

    async def go() -> None:
        async with aiohttp.ClientSession() as http_:
            fuzzer = await http_.ws_connect(f"{server.url}/ws?token={seat}")
            watcher = await http_.ws_connect(f"{server.url}/ws?token={spectator}")
            for frame in frames:
                if isinstance(frame, bytes):
                    await fuzzer.send_bytes(frame)
                else:  # a lone surrogate cannot be sent as text by a client library: as its escape
                    await fuzzer.send_str(frame.encode("utf-8", "backslashreplace").decode("utf-8"))
            await fuzzer.send_str(json.dumps({"type": "command", "command": "pool +1", "tag": "honest"}))
            while True:  # the fuzzer's own socket answers its honest line
                msg = await fuzzer.receive(timeout=30)
                assert msg.type == aiohttp.WSMsgType.TEXT, msg
                body = json.loads(msg.data)
                if body.get("type") == "reply" and body.get("tag") == "honest":
                    assert body["ok"], body
                    break
            while True:  # and the watcher's feed carries the change
                msg = await watcher.receive(timeout=30)
                assert msg.type == aiohttp.WSMsgType.TEXT, msg
                if json.loads(msg.data)["type"] == "state":
                    break
            await fuzzer.close()
            await watcher.close()

    asyncio.run(asyncio.wait_for(go(), 90))
