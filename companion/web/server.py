"""The phone server: one aiohttp application in its own thread and asyncio loop, beside the Kivy
loop or the console, talking to the core (companion.play) only.

Every change goes through the one Session (and so the one journal) of the process, applied by
one worker thread in the order the phones sent them; observers fire in that thread and hop to the
loop with ``call_soon_threadsafe``. Each connected phone has its own queue and writer, so a phone
that stalls or vanishes never holds up the table or the other phones: past ``QUEUE_LIMIT``
pending messages it is cut off, and when it comes back it gets the current state at once.

Who may do what: a seat token (128 random bits) acts for its seat only, in that game only (a new
game draws new tokens); the spectator token only reads. A seat's private cards go to the sockets
of that seat only, and are never logged (the access log is off: tokens travel in it otherwise).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from companion.i18n import t
from companion.play.runtime import Runtime

log = logging.getLogger(__name__)

MAX_REQUEST = 16 * 1024  # bytes: a command line, a code, a card reference
LOG_KEPT = 50  # log messages a phone gets when it joins or comes back
QUEUE_LIMIT = 2000  # messages waiting for one phone before it is cut off (it reconnects)
RATE = 40.0  # writes per second per token, sustained
BURST = 200.0  # writes allowed at once per token
JOIN_TRIES = 10  # short codes tried per minute per address (6 letters: guessing is hopeless)
CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud and typed on a phone
LANGS = ("fr", "en")
STATIC = resources.files("companion.web").joinpath("static")


@dataclass
class Seat:
    seat: int  # 1-based
    token: str
    code: str


@dataclass(eq=False)
class Client:
    ws: web.WebSocketResponse
    seat: int | None  # None: a spectator
    queue: asyncio.Queue = field(default_factory=asyncio.Queue)


class Bucket:
    """A token bucket: RATE writes a second, BURST at once."""

    def __init__(self, rate: float = RATE, burst: float = BURST) -> None:
        self.rate, self.burst, self.level, self.stamp = rate, burst, burst, time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level < 1:
            return False
        self.level -= 1
        return True


def public_table(runtime: Runtime) -> dict[str, Any] | None:
    """The public state, the shape of ``table --json`` (without the journal's path on the disk)."""
    session = runtime.session
    game = session.game
    if game is None:
        return None
    data = game.data
    names = {  # what the phones show, in both languages: the page picks its own
        "game": {lang: data.name(lang) for lang in LANGS},
        "counters": {c.id: {lang: c.names.get(lang) or c.names.get("fr") or c.id for lang in LANGS}
                     for c in data.counters.values() if not c.hidden},
        "phases": {p.id: {lang: p.name(lang) for lang in LANGS} for p in data.phases},
    }
    return {**game.to_json(), "id": game.id, "revision": session.revision, "phones": runtime.phones.seats,
            "names": names}


class PhoneServer:
    def __init__(self, runtime: Runtime, host: str = "127.0.0.1", port: int = 0,
                 public_host: str | None = None, rate: float = RATE, burst: float = BURST) -> None:
        self.runtime = runtime
        self.rate, self.burst = rate, burst  # writes per token: per second, and at once
        self.host = host
        self.port = port
        self.public_host = public_host or host  # the address phones type (the LAN one when bound to 0.0.0.0)
        self.seats: dict[int, Seat] = {}
        self.spectator = secrets.token_hex(16)
        self.game_id: int | None = None
        self.clients: set[Client] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self._table = ThreadPoolExecutor(max_workers=1, thread_name_prefix="phones-table")
        self._buckets: dict[str, Bucket] = {}
        self._join_tries: dict[str, list[float]] = {}
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stopping: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        self._unsubscribe: list[Callable[[], None]] = []
        # The table's recent log (public lines, every language), for a phone that joins or comes back.
        self._log: deque[dict[str, Any]] = deque(maxlen=LOG_KEPT)
        self._renew_tokens()

    # -- tokens -------------------------------------------------------------------------------

    def _renew_tokens(self) -> None:
        """A new game (or the first one): every seat gets a new token and code."""
        game = self.runtime.session.game
        with self._lock:
            self.game_id = None if game is None else game.id
            self._log.clear()  # a new game starts a new log
            used: set[str] = set()
            self.seats = {}
            for n in range(1, len(self.runtime.session.seat_names) + 1):
                code = _code(used)
                used.add(code)
                self.seats[n] = Seat(n, secrets.token_hex(16), code)

    def who(self, token: str | None) -> tuple[str, int | None]:
        """("seat", n), ("spectator", None) or ("nobody", None), compared in constant time."""
        if not token:
            return "nobody", None
        with self._lock:
            for seat in self.seats.values():
                if hmac.compare_digest(seat.token, token):
                    return "seat", seat.seat
        if hmac.compare_digest(self.spectator, token):
            return "spectator", None
        return "nobody", None

    def revoke(self, seat: int) -> Seat | None:
        """The table takes a seat back from its phone: a new token and code, the old phone cut off,
        the seat's cards public again (private cards kept so far are forgotten)."""
        with self._lock:
            if seat not in self.seats:
                return None
            used = {s.code for s in self.seats.values()}
            self.seats[seat] = Seat(seat, secrets.token_hex(16), _code(used))
            fresh = self.seats[seat]
        self.runtime.phones.detach(seat)
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self._cut_off, seat)
        return fresh

    @property
    def url(self) -> str:
        host = self.public_host
        return f"http://{'[' + host + ']' if ':' in host else host}:{self.port}"

    def join_url(self, token: str) -> str:
        # The token rides in the fragment: browsers never send it in a request line or a Referer.
        return f"{self.url}/phone#t={token}"

    def invitations(self) -> dict[str, Any]:
        """What ``serve --json`` prints first and the window's invitation shows."""
        names = self.runtime.session.seat_names
        with self._lock:
            seats = [{"seat": s.seat, "name": names[s.seat - 1] if s.seat <= len(names) else "",
                      "token": s.token, "code": s.code, "join": self.join_url(s.token)}
                     for s in self.seats.values()]
        return {"url": self.url, "seats": seats, "spectator": self.join_url(self.spectator),
                "join": f"{self.url}/join"}

    # -- life -----------------------------------------------------------------------------------

    def start(self, timeout: float = 10.0) -> None:
        """Serve in a thread of its own; returns once the port is open (OSError if it cannot be)."""
        session = self.runtime.session
        phones = self.runtime.phones
        self._unsubscribe = [
            session.subscribe("state", self._on_state),
            session.subscribe("result", self._on_result),
            phones.subscribe("private", self._on_private),
            phones.subscribe("read", self._on_read),
            phones.subscribe("revealed", self._on_revealed),
        ]
        self._thread = threading.Thread(target=self._run, name="phones-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise OSError("the phone server did not start")
        if self._error is not None:
            raise OSError(str(self._error)) from self._error

    def stop(self, timeout: float = 5.0) -> None:
        for undo in self._unsubscribe:
            undo()
        self._unsubscribe = []
        if self.loop is not None and self._stopping is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._stopping.set)  # a second stop does nothing more
        if self._thread is not None:
            self._thread.join(timeout)
        self._table.shutdown(wait=True)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self.loop = loop
        try:
            loop.run_until_complete(self._serve())
        except BaseException as exc:  # reported to start(), never a dead thread in silence
            self._error = exc
            self._ready.set()
        finally:
            loop.close()

    async def _serve(self) -> None:
        self._stopping = asyncio.Event()
        app = self.app()
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        await site.start()
        sockets = getattr(site._server, "sockets", None) or []
        if sockets:
            self.port = sockets[0].getsockname()[1]
        self._ready.set()
        try:
            await self._stopping.wait()
        finally:
            for client in list(self.clients):
                await client.ws.close()
            await runner.cleanup()

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_REQUEST, middlewares=[_headers])
        app.add_routes([
            web.get("/", self.home),
            web.get("/phone", self.page),
            web.get("/join", self.page),
            web.get("/static/{name}", self.static),
            web.get("/font/{style}.ttf", self.font),
            web.get("/api/table", self.get_table),
            web.get("/api/me", self.get_me),
            web.get("/api/rules", self.get_rules),
            web.get("/api/words", self.get_words),
            web.post("/api/command", self.post_command),
            web.post("/api/reveal", self.post_reveal),
            web.post("/api/nfc", self.post_nfc),
            web.post("/api/join", self.post_join),
            web.get("/ws", self.websocket),
        ])
        return app

    # -- pages ----------------------------------------------------------------------------------

    async def home(self, request: web.Request) -> web.Response:
        raise web.HTTPFound("/phone")

    async def page(self, request: web.Request) -> web.Response:
        return web.Response(text=STATIC.joinpath("index.html").read_text(encoding="utf-8"),
                            content_type="text/html", charset="utf-8")

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        types = {".js": "text/javascript", ".css": "text/css"}
        kind = types.get(Path(name).suffix)
        item = STATIC.joinpath(name)
        if kind is None or "/" in name or name.startswith(".") or not item.is_file():
            raise web.HTTPNotFound()
        return web.Response(text=item.read_text(encoding="utf-8"), content_type=kind, charset="utf-8")

    async def font(self, request: web.Request) -> web.StreamResponse:
        style = request.match_info["style"]
        try:
            from fontpkg_atkinson_hyperlegible import ROOT
        except ImportError:
            raise web.HTTPNotFound() from None
        if style not in ("Regular", "Bold"):
            raise web.HTTPNotFound()
        path = Path(ROOT) / "files" / f"AtkinsonHyperlegible-{style}.ttf"
        if not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Content-Type": "font/ttf", "Cache-Control": "max-age=86400"})

    # -- reading --------------------------------------------------------------------------------

    def _token(self, request: web.Request) -> str | None:
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            return auth[7:].strip()
        return request.query.get("token")

    def _reader(self, request: web.Request) -> tuple[str, int | None]:
        token = self._token(request)
        if not token:
            raise _error(401, "phones.api.no_token")
        role, seat = self.who(token)
        if role == "nobody":
            raise _error(403, "phones.api.bad_token")
        return role, seat

    def _writer(self, request: web.Request) -> int:
        role, seat = self._reader(request)
        if role != "seat" or seat is None:
            raise _error(403, "phones.api.read_only")
        if not self._bucket(self._token(request) or "").take():
            raise _error(429, "phones.api.slow_down")
        return seat

    def _bucket(self, token: str) -> Bucket:
        bucket = self._buckets.get(token)
        if bucket is None:
            bucket = self._buckets[token] = Bucket(self.rate, self.burst)
        return bucket

    async def get_table(self, request: web.Request) -> web.Response:
        self._reader(request)
        return web.json_response(public_table(self.runtime), dumps=_dumps)

    async def get_words(self, request: web.Request) -> web.Response:
        """The page's own words (keys ``phone.*`` of the translation table), in both languages."""
        from companion.i18n import _table

        words = {lang: {k[len("phone."):]: t(k, lang) for k in _table() if k.startswith("phone.")} for lang in LANGS}
        return web.json_response(words, dumps=_dumps, headers={"Cache-Control": "max-age=3600"})

    async def get_me(self, request: web.Request) -> web.Response:
        role, seat = self._reader(request)
        return web.json_response(self._hello(role, seat), dumps=_dumps)

    async def get_rules(self, request: web.Request) -> web.Response:
        self._reader(request)
        query = request.query.get("q", "")[:200]
        lang = request.query.get("lang", "fr") if request.query.get("lang") in LANGS else "fr"
        loop = asyncio.get_running_loop()
        hits = await loop.run_in_executor(None, self._rules, query, lang)
        return web.json_response({"query": query, "hits": hits}, dumps=_dumps)

    def _rules(self, query: str, lang: str) -> list[dict[str, str]]:
        from companion.cards.gamedata import GlossaryEntry
        from companion.cards.rules import search_rules

        game = self.runtime.session.game
        info = self.runtime.library.game(game.data.id) if game is not None and query.strip() else None
        if info is None:
            return []
        out = []
        for hit in search_rules(info, query, limit=8):
            item = hit.item
            title = item.name(lang) if isinstance(item, GlossaryEntry) else (item.title.get(lang) or item.title["fr"])
            out.append({"title": title, "text": item.text.get(lang) or item.text["fr"]})
        return out

    # -- writing --------------------------------------------------------------------------------

    async def _body(self, request: web.Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            raise _error(400, "phones.api.bad_json") from None
        if not isinstance(body, dict):
            raise _error(400, "phones.api.bad_json")
        return body

    async def post_command(self, request: web.Request) -> web.Response:
        seat = self._writer(request)
        body = await self._body(request)
        command = body.get("command")
        if not isinstance(command, str) or not command.strip() or len(command) > 500:
            raise _error(400, "phones.api.no_command")
        lang = body.get("lang") if body.get("lang") in LANGS else "fr"
        reply = await self._on_table(self.command, seat, command, lang)
        return web.json_response(reply, status=reply.pop("status", 200), dumps=_dumps)

    def command(self, seat: int, command: str, lang: str = "fr") -> dict[str, Any]:
        """A command line from seat ``seat``'s phone, acting as that seat (in the table's thread)."""
        session = self.runtime.session
        if session.game is None:
            return {"ok": False, "lines": [t("ui.no_game", lang)], "status": 409}
        try:
            intent = session.parser("phone").parse(command)
        except Exception:
            intent = None  # the session words the refusal itself, below
        if intent is not None:
            own = seat - 1
            if intent.verb == "counter" and intent.seat is None:
                intent.seat = own  # "pool -2" on Ann's phone is Ann's pool
            elif intent.seat is not None and intent.seat != own:
                return {"ok": False, "lines": [t("phones.api.not_your_seat", lang)], "status": 403}
            elif intent.verb not in ("undo", "redo", "counter") and not self._turn_of(seat):
                return {"ok": False, "lines": [t("phones.api.not_your_turn", lang)], "status": 403}
            result = session.apply(intent, source="phone")
        else:
            result = session.apply(command, source="phone")
        return {"ok": result.ok, "lines": result.lines(lang), "revision": session.revision}

    def _turn_of(self, seat: int) -> bool:
        state = public_table(self.runtime)
        return bool(state) and state.get("active_seat") == seat

    async def post_reveal(self, request: web.Request) -> web.Response:
        seat = self._writer(request)
        body = await self._body(request)
        number = body.get("id")
        if not isinstance(number, int):
            raise _error(400, "phones.api.no_card")
        ok = await self._on_table(self.runtime.reveal, seat, number)
        return web.json_response({"ok": ok}, status=200 if ok else 404)

    async def post_nfc(self, request: web.Request) -> web.Response:
        """A card the phone read itself (Web NFC): private to that seat, as its reader's would be."""
        seat = self._writer(request)
        body = await self._body(request)
        ref = body.get("ref")
        if not isinstance(ref, str) or not ref.strip() or len(ref) > 200:
            raise _error(400, "phones.api.no_card")
        card = await self._on_table(self._nfc, seat, ref.strip())
        return web.json_response({"ok": card is not None, "card": card}, status=200 if card else 404, dumps=_dumps)

    def _nfc(self, seat: int, ref: str) -> dict[str, Any] | None:
        from companion.readers.events import TagEvent
        from companion.tags.resolve import Scan

        card = self.runtime.library.get(ref)
        if card is None:
            return None
        self.runtime.phones.attach(seat)
        scan = Scan(TagEvent("laid", reader="phone", uid="", seat=seat), "card", card=card, ref=ref)
        return self.runtime.read_privately(seat, scan)

    async def post_join(self, request: web.Request) -> web.Response:
        address = request.remote or "?"
        now = time.monotonic()
        tries = [s for s in self._join_tries.get(address, []) if now - s < 60]
        if len(tries) >= JOIN_TRIES:
            raise _error(429, "phones.api.slow_down")
        self._join_tries[address] = [*tries, now]
        body = await self._body(request)
        code = str(body.get("code", "")).strip().upper().replace(" ", "")
        with self._lock:
            seat = next((s for s in self.seats.values() if code and hmac.compare_digest(s.code, code)), None)
        if seat is None:
            raise _error(403, "phones.api.bad_code")
        return web.json_response({"seat": seat.seat, "token": seat.token})

    async def _on_table(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn`` in the table's one worker thread: changes keep the order they came in."""
        return await asyncio.get_running_loop().run_in_executor(self._table, fn, *args)

    # -- the WebSocket --------------------------------------------------------------------------

    async def websocket(self, request: web.Request) -> web.WebSocketResponse:
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != request.host:
            raise _error(403, "phones.api.bad_origin")
        role, seat = self._reader(request)
        ws = web.WebSocketResponse(heartbeat=20, max_msg_size=MAX_REQUEST)
        await ws.prepare(request)
        client = Client(ws, seat)
        self.clients.add(client)
        if seat is not None:
            self.runtime.phones.attach(seat)  # from now on its reader's cards are its own
        writer = asyncio.create_task(self._write(client))
        # The current state at once, taken in the table's thread so no change slips in between.
        first = await self._on_table(self._hello, role, seat)
        client.queue.put_nowait(json.dumps({"type": "hello", **first}, ensure_ascii=False))
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                await self._ws_message(client, msg.data)
        finally:
            self.clients.discard(client)
            writer.cancel()
        return ws

    async def _ws_message(self, client: Client, data: str) -> None:
        try:
            body = json.loads(data)
        except ValueError:
            return
        if not isinstance(body, dict) or client.seat is None:
            return  # a spectator only listens
        token = self.seats.get(client.seat)
        if token is None or not self._bucket(token.token).take():
            self._send(client, {"type": "reply", "tag": body.get("tag"), "ok": False,
                                "lines": [t("phones.api.slow_down")]})
            return
        if body.get("type") == "command" and isinstance(body.get("command"), str):
            lang = body.get("lang") if body.get("lang") in LANGS else "fr"
            reply = await self._on_table(self.command, client.seat, body["command"][:500], lang)
            reply.pop("status", None)
            self._send(client, {"type": "reply", "tag": body.get("tag"), **reply})

    def _hello(self, role: str, seat: int | None) -> dict[str, Any]:
        names = self.runtime.session.seat_names
        out: dict[str, Any] = {"role": role, "seat": seat, "table": public_table(self.runtime)}
        if seat is not None:
            out["name"] = names[seat - 1] if seat <= len(names) else ""
            out["cards"] = self.runtime.phones.cards(seat)
        with self._lock:
            out["log"] = list(self._log)
        return out

    async def _write(self, client: Client) -> None:
        try:
            while True:
                text = await client.queue.get()
                await client.ws.send_str(text)
        except (ConnectionError, RuntimeError, asyncio.CancelledError):
            pass  # the phone went away: it gets the whole state again when it comes back

    def _send(self, client: Client, message: dict[str, Any] | str) -> None:
        text = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False)
        if client.queue.qsize() >= QUEUE_LIMIT:
            self.clients.discard(client)
            asyncio.ensure_future(client.ws.close())
            return
        client.queue.put_nowait(text)

    def _broadcast(self, message: dict[str, Any]) -> None:
        if message.get("type") in ("log", "read"):
            with self._lock:
                self._log.append(message)
        text = json.dumps(message, ensure_ascii=False)
        for client in list(self.clients):
            self._send(client, text)

    def _to_seat(self, seat: int, message: dict[str, Any]) -> None:
        for client in list(self.clients):
            if client.seat == seat:
                self._send(client, message)

    def _cut_off(self, seat: int) -> None:
        for client in list(self.clients):
            if client.seat == seat:
                self.clients.discard(client)
                asyncio.ensure_future(client.ws.close(code=4403, message=b"revoked"))

    # -- the core's news (in the thread that changed the table) ---------------------------------

    def _hop(self, fn: Callable[..., None], *args: Any) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(fn, *args)
            except RuntimeError:
                pass  # the loop is closing with the server

    def _on_state(self) -> None:
        game = self.runtime.session.game
        if (None if game is None else game.id) != self.game_id:
            old = set(self.seats)
            self._renew_tokens()  # tokens are for one game only
            for seat in old:
                self.runtime.phones.detach(seat)  # the new game's phones join again, with the new codes
                self._hop(self._cut_off, seat)
        # Taken now, in the thread that made the change: the revision and the state match.
        self._hop(self._broadcast, {"type": "state", "table": public_table(self.runtime)})

    def _on_result(self, result: Any) -> None:
        self._hop(self._broadcast, {"type": "log", "ok": result.ok,
                                    "lines": {lang: result.lines(lang) for lang in LANGS}})

    def _on_private(self, seat: int, card: dict[str, Any]) -> None:
        self._hop(self._to_seat, seat, {"type": "card", "card": card})

    def _on_read(self, seat: int) -> None:
        name = self.runtime.seat_name(seat)
        self._hop(self._broadcast, {"type": "read", "seat": seat,
                                    "lines": {lang: [t("phones.read_card", lang, name=name)] for lang in LANGS}})

    def _on_revealed(self, seat: int, card: dict[str, Any]) -> None:
        self._hop(self._broadcast, {"type": "revealed", "seat": seat, "card": card})


@web.middleware
async def _headers(request: web.Request, handler: Callable[..., Any]) -> web.StreamResponse:
    response = await handler(request)
    # Nothing from anywhere else: no CDN, no frame, no referrer carrying a URL.
    response.headers.setdefault("Content-Security-Policy",
                                "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
                                "frame-ancestors 'none'; base-uri 'none'")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Cache-Control", "no-store")
    return response


def _error(status: int, key: str) -> web.HTTPException:
    kinds = {400: web.HTTPBadRequest, 401: web.HTTPUnauthorized, 403: web.HTTPForbidden,
             404: web.HTTPNotFound, 409: web.HTTPConflict, 429: web.HTTPTooManyRequests}
    body = json.dumps({"ok": False, "error": key, "lines": [t(key)]}, ensure_ascii=False)
    return kinds[status](text=body, content_type="application/json")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _code(used: set[str]) -> str:
    while True:
        code = "".join(secrets.choice(CODE_LETTERS) for _ in range(6))
        if code not in used:
            return code
