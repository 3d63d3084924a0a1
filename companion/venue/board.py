"""The venue's boards over aiohttp: the organiser's page (every table's live state, presence,
pending results, judge calls, the clock, standings, printable seating; actions need the
organiser's token) and the public page for a TV (seating, clock, standings; read only).

Both pages read JSON views and are pushed a short notice over a WebSocket at each change, then
fetch the view again: a board that falls behind only misses intermediate states.
"""

from __future__ import annotations

import asyncio
import hmac
import html
import json
import logging
import re
import ssl
from importlib import resources
from typing import Any

from aiohttp import WSMsgType, web

from companion.i18n import language, t
from companion.venue.hub import Hub

log = logging.getLogger(__name__)

MAX_BODY = 64 * 1024
HUB_KEY = web.AppKey("hub", Hub)


def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def _authorised(request: web.Request) -> bool:
    hub = request.app[HUB_KEY]
    given = request.headers.get("X-Token") or request.query.get("token") or ""
    return hmac.compare_digest(given.encode("utf-8", "replace"), hub.store.token.encode())


_PLACEHOLDER = re.compile(r"\{\{([a-z0-9_.]+)\}\}")


def _page(name: str) -> web.Response:
    """A page with its words in the hub's language (``{{venue.board.x}}`` filled from i18n)."""
    text = _static(name).replace("{{lang}}", language())
    text = _PLACEHOLDER.sub(lambda m: html.escape(t(m.group(1))), text)
    return web.Response(text=text, content_type="text/html", charset="utf-8",
                        headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
                                 "Content-Security-Policy": "default-src 'self'; style-src 'self'; "
                                                            "script-src 'self'; connect-src 'self'"})


async def tv(request: web.Request) -> web.Response:
    return _page("tv.html")


async def organiser(request: web.Request) -> web.Response:
    return _page("organiser.html")


async def asset(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in ("board.js", "board.css"):
        raise web.HTTPNotFound()
    kind = "application/javascript" if name.endswith(".js") else "text/css"
    return web.Response(text=_static(name), content_type=kind, charset="utf-8")


def _json(data: Any, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=lambda d: json.dumps(d, ensure_ascii=False, default=str))


async def public_view(request: web.Request) -> web.Response:
    return _json(request.app[HUB_KEY].public_view())


async def organiser_view(request: web.Request) -> web.Response:
    if not _authorised(request):
        return _json({"error": t("venue.board.token")}, 403)
    return _json(dict(request.app[HUB_KEY].organiser_view(), token_ok=True))


async def action(request: web.Request) -> web.Response:
    if not _authorised(request):
        return _json({"error": t("venue.board.token")}, 403)
    try:
        data = await request.json(loads=json.loads)
    except (ValueError, UnicodeDecodeError):
        return _json({"error": t("venue.board.bad_request")}, 400)
    if not isinstance(data, dict):
        return _json({"error": t("venue.board.bad_request")}, 400)
    hub: Hub = request.app[HUB_KEY]
    try:
        answer = await _act(hub, data)
    except (KeyError, TypeError, ValueError) as exc:
        key = str(exc.args[0]) if exc.args and str(exc.args[0]).startswith("venue.") else "venue.board.bad_request"
        return _json({"error": t(key)}, 400)
    return _json(answer)


async def _act(hub: Hub, data: dict[str, Any]) -> dict[str, Any]:
    what = data.get("action")
    store = hub.store
    if what == "register":
        ok = store.register(_text(data["name"]), _text(data.get("vekn", "")))
        hub._notify({"type": "players"})
        return {"ok": ok, "message": t("venue.board.registered" if ok else "venue.board.already",
                                      name=_text(data["name"]))}
    if what == "pin":
        table = data.get("table")
        ok = store.pin(_text(data["name"]), int(table) if table not in (None, "") else None)
        hub._notify({"type": "players"})
        return {"ok": ok}
    if what == "drop":
        ok = store.drop(_text(data["name"]), bool(data.get("dropped", True)))
        hub._notify({"type": "players"})
        return {"ok": ok}
    if what in ("seat", "final"):
        # krcg's annealing takes seconds for 60 players: off the loop, so the boards stay live.
        number, notes = await asyncio.get_running_loop().run_in_executor(None, hub.seat_round, what == "final")
        return {"ok": True, "round": number, "notes": notes}
    if what == "clock":
        hub.start_clock(float(data.get("minutes", 120)))
        return {"ok": True}
    if what == "stop_clock":
        hub.stop_clock()
        return {"ok": True}
    if what == "override":
        vp = data.get("vp")
        body: dict[str, Any] = {"players": [_text(p) for p in data["players"]]}
        if vp is not None:
            body["vp"] = [float(v) for v in vp]
        if data.get("winners") is not None:
            body["winners"] = [_text(p) for p in data["winners"]]
        problem = hub.override(int(data["round"]), int(data["table"]), body, _text(data.get("reason", "")))
        return {"ok": problem is None, "message": t(problem) if problem else t("venue.board.overridden")}
    if what == "judge_done":
        return {"ok": hub.judge_done(int(data["id"]))}
    raise ValueError("venue.board.bad_request")


def _text(value: Any) -> str:
    if not isinstance(value, str | int | float):
        raise TypeError("venue.board.bad_request")
    return str(value).encode("utf-8", "replace").decode("utf-8")[:200]


async def socket(request: web.Request) -> web.WebSocketResponse:
    hub: Hub = request.app[HUB_KEY]
    organiser = _authorised(request)
    ws = web.WebSocketResponse(heartbeat=20, max_msg_size=4096)
    await ws.prepare(request)
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    hub.listeners.add(queue)
    reader = asyncio.create_task(_drain(ws))
    try:
        await ws.send_json({"type": "hello", "organiser": organiser})
        while not ws.closed and not reader.done():
            getter = asyncio.create_task(queue.get())
            done, _ = await asyncio.wait({getter, reader}, return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                getter.cancel()
                break
            message = getter.result()
            if not organiser and message.get("type") in ("judge", "presence", "players"):
                continue  # the public page shows none of these
            await ws.send_json(message)
    except (ConnectionResetError, RuntimeError):
        pass
    finally:
        hub.listeners.discard(queue)
        reader.cancel()
    return ws


async def _drain(ws: web.WebSocketResponse) -> None:
    async for msg in ws:  # the boards send nothing; whatever comes is read and dropped
        if msg.type in (WSMsgType.ERROR, WSMsgType.CLOSE):
            break


async def export(request: web.Request) -> web.Response:
    """The event's exports for the organiser: standings.csv, and archon.zip (the Archon files)."""
    from companion.venue.export import archon_zip, standings_csv

    if not _authorised(request):
        return _json({"error": t("venue.board.token")}, 403)
    name = request.match_info["name"]
    store = request.app[HUB_KEY].store
    headers = {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}
    if name == "standings.csv":
        return web.Response(text=standings_csv(store), content_type="text/csv", charset="utf-8", headers=headers)
    if name == "archon.zip":
        return web.Response(body=archon_zip(store), content_type="application/zip", headers=headers)
    raise web.HTTPNotFound()


def make_app(hub: Hub) -> web.Application:
    app = web.Application(client_max_size=MAX_BODY)
    app[HUB_KEY] = hub
    app.add_routes([web.get("/", tv), web.get("/tv", tv), web.get("/organiser", organiser),
                    web.get("/static/{name}", asset), web.get("/api/public", public_view),
                    web.get("/api/organiser", organiser_view), web.post("/api/action", action),
                    web.get("/export/{name}", export), web.get("/ws", socket)])
    return app


def tls_context(cert: str | None, key: str | None) -> ssl.SSLContext:
    """A server TLS context from a certificate and its key (both needed), as ``serve --cert`` makes
    it (the front ends share no code: the venue keeps its own few lines)."""
    if not cert or not key:
        raise ValueError("--cert and --key go together")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context


async def serve(hub: Hub, host: str, port: int, started: asyncio.Future[int] | None = None,
                ssl_context: ssl.SSLContext | None = None) -> None:
    """Serve the boards until cancelled (over HTTPS with ``ssl_context``); ``started`` gets the port
    (useful with port 0)."""
    runner = web.AppRunner(make_app(hub), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port, ssl_context=ssl_context)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        if started is not None and not started.done():
            started.set_exception(exc)
            return
        raise
    real = site._server.sockets[0].getsockname()[1] if site._server and site._server.sockets else port  # type: ignore[union-attr]
    if started is not None and not started.done():
        started.set_result(real)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
