"""The phone server: one aiohttp application in its own thread and asyncio loop, beside the Kivy
loop or the console, talking to the core (companion.play) only. This module holds its life
(start, stop, the listening socket and its guards) and the core's news; who may come in is
``access``, the HTTP routes ``routes``, the live sockets ``sockets``, and what a seat may do is
the core's ``play.seat_policy``.

Every change goes through the one Session (and so the one journal) of the process, applied by
one worker thread in the order the phones sent them; observers fire in that thread and hop to the
loop with ``call_soon_threadsafe``.

Who may do what: a seat token (128 random bits) acts for its seat only, in that game only (a new
game draws new tokens); the spectator token only reads. A seat's private cards go to the sockets
of that seat only, and are never logged (the access log is off).

Against a hostile guest on the Wi-Fi: a connection must send its request's headers within
``HEADER_TIMEOUT`` (and a kept-alive one is closed after as long idle); connections are capped
per address and in total below the open-file limit (``access.Gate``); a path longer than
``MAX_PATH`` is not found; an unexpected error is one log line and a 500, never a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from companion.i18n import t
from companion.play.runtime import Runtime
from companion.play.seat_policy import (
    VENUE_ACTIONS,
    action_menu,
    proposal_json,
    seat_action,
    seat_command,
    seat_proposal,
    undo_counts,
)
from companion.web import wire
from companion.web.access import (
    BACKLOG,
    BURST,
    RATE,
    BadToken,
    Bucket,
    Gate,
    JoinTries,
    origin_allowed,
)
from companion.web.routes import Routes
from companion.web.sockets import Feeds, Sockets
from companion.web.tokens import Seat, SeatKeys

log = logging.getLogger(__name__)

MAX_REQUEST = 16 * 1024  # bytes: a command line, a code, a card reference
MAX_PATH = 512  # characters of a request's path and query: ours are short
HEADER_TIMEOUT = 10.0  # seconds to send a request's headers (slowloris), and to stay idle between requests
LANGS = ("fr", "en")

__all__ = ["PhoneServer", "Seat", "public_table"]


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
    # Joined to a venue: the venue's actions after the game's (a judge call, the result's word).
    actions = action_menu(session, _venue(runtime))
    return {**game.to_json(), "id": game.id, "revision": session.revision, "phones": runtime.phones.seats,
            "names": names, "undo": undo_counts(session), "actions": actions}


def _venue(runtime: Runtime) -> Any:
    """The venue link the CLI's ``--venue`` extension put on the runtime (companion.venue.join),
    if the table is joined to one; the web knows it only by its ``call_judge``."""
    link = getattr(runtime, "venue", None)
    return link if callable(getattr(link, "call_judge", None)) else None


class PhoneServer:
    def __init__(self, runtime: Runtime, host: str = "127.0.0.1", port: int = 0,
                 public_host: str | None = None, rate: float = RATE, burst: float = BURST,
                 ssl_context: ssl.SSLContext | None = None, header_timeout: float = HEADER_TIMEOUT,
                 gate: Gate | None = None) -> None:
        self.runtime = runtime
        self.rate, self.burst = rate, burst  # messages per token and socket: per second, and at once
        self.host = host
        self.port = port
        self.public_host = public_host or host  # the address phones type (the LAN one)
        self.ssl_context = ssl_context
        self.header_timeout = header_timeout
        self.gate = gate or Gate()
        journal = getattr(runtime.session, "journal_path", None)
        self.keys = SeatKeys(Path(f"{journal}.phones.json") if journal else None)
        self.on_pending: Callable[[Any], None] | None = None  # the host is told a device waits
        self.game_id: int | None = None
        self.feeds = Feeds()
        self.join_tries = JoinTries()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.socket_actions: dict[str, Callable[..., Any]] = {"command": self.do_command, "action": self.do_action}
        self._table = ThreadPoolExecutor(max_workers=1, thread_name_prefix="phones-table")
        self._buckets: dict[int, Bucket] = {}
        self._http_buckets: dict[int, Bucket] = {}
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stopping: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        self._unsubscribe: list[Callable[[], None]] = []
        self._renew_tokens()

    @property
    def clients(self) -> set[Any]:
        return self.feeds.clients

    # -- tokens -------------------------------------------------------------------------------

    @property
    def seats(self) -> dict[int, Seat]:
        return self.keys.seats

    @property
    def spectator(self) -> str:
        return self.keys.spectator

    def _renew_tokens(self) -> None:
        """A game on the table: its seats' keys, kept from an earlier run of it or new."""
        game = self.runtime.session.game
        with self._lock:
            self.game_id = None if game is None else game.id
            self.feeds.log.clear()  # a new game starts a new log
            self._buckets.clear()
            self.keys.open(self.game_id, len(self.runtime.session.seat_names))

    def who(self, token: str | None) -> tuple[str, int | None]:
        """("seat", n), ("spectator", None) or ("nobody", None); ``BadToken`` for a token that is
        not 32 hex digits."""
        if not token:
            return "nobody", None
        role, seat, _ = self.keys.who(token)
        return role, seat

    def revoke(self, seat: int) -> Seat | None:
        """The table takes a seat back from its phones: a new invitation token and code, every
        device of the seat cut off, the seat's cards public again (its private cards forgotten)."""
        fresh = self.keys.revoke_seat(seat)
        if fresh is None:
            return None
        self._buckets.pop(seat, None)
        self.runtime.phones.detach(seat)
        self._hop(self.feeds.cut_off, seat)
        return fresh

    def revoke_device(self, seat: int, number: int) -> bool:
        """The host takes back one phone of a seat (``number``: 1-based, as ``phones()`` lists them)."""
        devices = self.keys.devices(seat)
        if not 1 <= number <= len(devices):
            return False
        hashed = devices[number - 1].hashed
        if not self.keys.revoke_device(seat, hashed):
            return False
        self._hop(self.feeds.cut_off, seat, hashed)
        return True

    def phones(self) -> list[dict[str, Any]]:
        """Per seat, the phones that joined (and how many are connected now), for the host."""
        names = self.runtime.session.seat_names
        online: dict[str, int] = {}
        for client in list(self.feeds.clients):
            online[client.device] = online.get(client.device, 0) + 1
        return [{"seat": n, "name": names[n - 1] if n <= len(names) else "",
                 "devices": [{"label": d.label, "since": d.since, "online": online.get(d.hashed, 0)}
                             for d in self.keys.devices(n)],
                 "invitation_online": sum(online.get(d, 0) for d, dev in seat.devices.items()
                                          if dev.label == "invitation")}
                for n, seat in sorted(self.keys.seats.items())]

    def waiting(self) -> list[Any]:
        """Devices waiting for the host's approval to join a seat that already has a phone."""
        return self.keys.waiting_list()

    def answer(self, pending_id: str, approve: bool) -> bool:
        return self.keys.answer(pending_id, approve) is not None

    def seat_of_code(self, code: str) -> Seat | None:
        return self.keys.seat_of_code(code)

    @property
    def scheme(self) -> str:
        return "https" if self.ssl_context is not None else "http"

    @property
    def url(self) -> str:
        host = self.public_host
        return f"{self.scheme}://{'[' + host + ']' if ':' in host else host}:{self.port}"

    def served_origins(self) -> set[str]:
        """The origins of the pages this server serves: its public address, and loopback when it
        listens there. Never what a request's Host header claims."""
        hosts = {self.public_host.lower(), self.host.lower()}
        if self.host in ("127.0.0.1", "::1", "localhost"):
            hosts |= {"127.0.0.1", "localhost", "::1"}
        return {f"{self.scheme}://{h}:{self.port}" for h in hosts if h not in ("0.0.0.0", "::")}

    def origin_ok(self, origin: str | None) -> bool:
        return origin_allowed(origin, self.served_origins())

    def join_url(self, code: str) -> str:
        # The code rides in the fragment (browsers never send it in a request line or a Referer)
        # and joins once: a photo of the QR code taken later only asks the host.
        return f"{self.url}/phone#c={code}"

    def spectator_url(self) -> str:
        return f"{self.url}/phone#t={self.spectator}"

    def invitations(self) -> dict[str, Any]:
        """What ``serve --json`` prints first and the window's invitation shows: per seat its join
        link and code, and its invitation token for the host's own scripts (null after a
        restart: only its digest was kept)."""
        names = self.runtime.session.seat_names
        with self.keys.lock:
            seats = [{"seat": s.seat, "name": names[s.seat - 1] if s.seat <= len(names) else "",
                      "token": s.token, "code": s.code, "join": self.join_url(s.code)}
                     for s in self.seats.values()]
        return {"url": self.url, "game": self.game_id, "seats": seats,
                "spectator": self.spectator_url(), "join": f"{self.url}/join"}

    # -- callers --------------------------------------------------------------------------------

    def error(self, status: int, key: str) -> web.HTTPException:
        return _error(status, key)

    def token_of(self, request: web.Request, query: bool = False) -> str | None:
        """The caller's token: the ``Authorization: Bearer`` header; the URL's ``?token=`` only for
        the WebSocket (a browser cannot set a socket's headers)."""
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            return auth[7:].strip()
        return request.query.get("token") if query else None

    def identify(self, request: web.Request, query: bool = False) -> tuple[str, int | None, str]:
        """(role, seat, the device's digest) of the caller; 400, 401 or 403 otherwise."""
        token = self.token_of(request, query)
        if not token:
            raise _error(401, "phones.api.no_token")
        try:
            role, seat, device = self.keys.who(token)
        except BadToken:
            raise _error(400, "phones.api.bad_token") from None
        if role == "nobody":
            raise _error(403, "phones.api.bad_token")
        return role, seat, device

    def reader(self, request: web.Request, query: bool = False) -> tuple[str, int | None]:
        role, seat, _ = self.identify(request, query)
        return role, seat

    def writer(self, request: web.Request) -> int:
        role, seat = self.reader(request)
        if role != "seat" or seat is None:
            raise _error(403, "phones.api.read_only")
        if not self.bucket_of(seat).take():
            raise _error(429, "phones.api.slow_down")
        return seat

    def bucket_of(self, seat: int) -> Bucket:
        bucket = self._buckets.get(seat)
        if bucket is None:
            bucket = self._buckets[seat] = Bucket(self.rate, self.burst)
        return bucket

    def public_table(self) -> dict[str, Any] | None:
        return public_table(self.runtime)

    def hello(self, role: str, seat: int | None) -> dict[str, Any]:
        names = self.runtime.session.seat_names
        out: dict[str, Any] = {"role": role, "seat": seat, "table": public_table(self.runtime)}
        if seat is not None:
            out["name"] = names[seat - 1] if seat <= len(names) else ""
            out["cards"] = self.runtime.phones.cards(seat)
            out["proposal"] = proposal_json(self.runtime.session,
                                            seat_proposal(self.runtime.session, self.runtime.phones, seat))
        out["log"] = list(self.feeds.log)
        return out

    async def on_table(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn`` in the table's one worker thread: changes keep the order they came in."""
        return await asyncio.get_running_loop().run_in_executor(self._table, fn, *args)

    async def do_command(self, seat: int, body: dict[str, Any], lang: str) -> dict[str, Any]:
        command = body.get("command")
        if not isinstance(command, str) or not command.strip() or len(command) > 500:
            return {"ok": False, "lines": [t("phones.api.no_command", lang)], "status": 400}
        return await self.on_table(self.command, seat, command, lang)

    async def do_action(self, seat: int, body: dict[str, Any], lang: str) -> dict[str, Any]:
        """One of the seat's actions (the list the table screen's seat menu shows), with its answers."""
        if body.get("id") in VENUE_ACTIONS:  # the venue's: a judge call, the result confirmed or contested
            return await self.on_table(self.runtime.venue_action, seat, body.get("id"), lang, "phone")
        return await self.on_table(seat_action, self.runtime.session, seat, body.get("id"), body.get("answers"), lang)

    def command(self, seat: int, command: str, lang: str = "fr") -> dict[str, Any]:
        """A command line from seat ``seat``'s phone, acting as that seat (in the table's thread)."""
        return seat_command(self.runtime.session, seat, command, lang, phones=self.runtime.phones)

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
            phones.subscribe("proposal", self._on_seat_proposal),
            session.subscribe("proposal", self._on_table_proposal),
            # A result that starts or stops waiting (asked by a word, confirmed), a venue joined or
            # left: the seats' action lists change without a change of the game.
            self.runtime.venue_news.subscribe("result", lambda _body: self._on_venue()),
            self.runtime.venue_news.subscribe("joined", lambda _link: self._on_venue()),
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
        loop.set_exception_handler(_one_line)
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
        loop = asyncio.get_running_loop()
        runner = web.AppRunner(self.app(), access_log=None, keepalive_timeout=self.header_timeout)
        await runner.setup()
        manager = runner.server
        assert manager is not None
        gate, idle = self.gate, self.header_timeout

        def guarded() -> RequestHandler:
            return _Guarded(gate, manager, loop=loop, keepalive_timeout=idle, access_log=None, max_headers=64,
                            logger=_QUIET)

        listening = await loop.create_server(guarded, self.host, self.port, ssl=self.ssl_context,
                                             reuse_address=True, backlog=BACKLOG)
        sockets = listening.sockets or []
        if sockets:
            self.port = sockets[0].getsockname()[1]
        self._ready.set()
        try:
            await self._stopping.wait()
        finally:
            listening.close()
            for client in list(self.feeds.clients):
                await client.ws.close()
            await runner.cleanup()

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_REQUEST, middlewares=[_guard, _headers])
        app.add_routes(Routes(self).table())
        app.add_routes([web.get("/ws", Sockets(self).handle)])
        return app

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
                self._hop(self.feeds.cut_off, seat)
        # Taken now, in the thread that made the change: the revision and the state match.
        self._hop(self.feeds.broadcast_state, public_table(self.runtime))

    def _on_venue(self) -> None:
        self._hop(self.feeds.broadcast_state, public_table(self.runtime))

    def _on_result(self, result: Any) -> None:
        if not result.ok:
            return  # a refusal is for the one who asked: its reply says it, nobody else's log
        intent = getattr(result, "intent", None)
        by = (getattr(intent, "args", None) or {}).get("by")
        self._hop(self.feeds.broadcast, {"type": "log", "ok": True, "by": by + 1 if isinstance(by, int) else None,
                                         "lines": {lang: result.lines(lang) for lang in LANGS}}, True)

    def _on_seat_proposal(self, seat: int, proposal: Any) -> None:
        self._hop(self.feeds.to_seat, seat, {"type": "proposal",
                                             "proposal": proposal_json(self.runtime.session, proposal)})

    def _on_table_proposal(self, proposal: Any) -> None:
        # The table's proposal for a seat that has a phone: that phone may confirm it too.
        for seat in self.runtime.phones.seats:
            mine = proposal is not None and proposal.seat == seat - 1
            if mine or self.runtime.phones.proposal(seat) is None:
                self._hop(self.feeds.to_seat, seat, {"type": "proposal", "proposal":
                                                     proposal_json(self.runtime.session, proposal if mine else None)})

    def _on_private(self, seat: int, card: dict[str, Any]) -> None:
        self._hop(self.feeds.to_seat, seat, {"type": "card", "card": card})

    def _on_read(self, seat: int) -> None:
        name = self.runtime.seat_name(seat)
        self._hop(self.feeds.broadcast, {"type": "read", "seat": seat,
                                         "lines": {lang: [t("phones.read_card", lang, name=name)] for lang in LANGS}},
                  True)

    def _on_revealed(self, seat: int, card: dict[str, Any]) -> None:
        # The card and a line of the log for every phone: the seat showed it to the whole table.
        name = self.runtime.seat_name(seat)
        seen = card.get("shown") or {}
        shown = {lang: (seen.get(lang) or {}).get("name") or card.get("name") or card.get("ref", "") for lang in LANGS}
        self._hop(self.feeds.broadcast, {"type": "revealed", "seat": seat, "card": card})
        self._hop(self.feeds.broadcast, {"type": "log", "ok": True,
                                         "lines": {lang: [t("phones.revealed", lang, name=name, card=shown[lang])]
                                                   for lang in LANGS}}, True)


class _Guarded(RequestHandler):
    """aiohttp's connection handler, counted at the door: past the caps, closed at once."""

    def __init__(self, gate: Gate, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._gate = gate
        self._address: str | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if peer else "?"
        if not self._gate.admit(address):
            transport.abort()
            return
        self._address = address
        super().connection_made(transport)

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._address is None:
            return  # refused at the door: aiohttp never knew it
        self._gate.leave(self._address)
        self._address = None
        super().connection_lost(exc)


@web.middleware
async def _guard(request: web.Request, handler: Callable[..., Any]) -> web.StreamResponse:
    if len(request.raw_path) > MAX_PATH:
        raise web.HTTPNotFound()
    try:
        return await handler(request)
    except (web.HTTPException, asyncio.CancelledError, ConnectionError):
        raise
    except Exception as exc:  # one line in the log, never a traceback per request
        log.warning("phones: %s %s failed (%s: %s)", request.method, request.path[:80], type(exc).__name__,
                    str(exc)[:120])
        raise _error(500, "phones.api.failed") from None


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


class _OneLine(logging.LoggerAdapter):
    """aiohttp's connection logger, one line per error: a malformed request line from a guest is
    worth a line, not a traceback (a flood of them once wrote 139 MB a minute)."""

    def log(self, level: int, msg: object, *args: Any, **kwargs: Any) -> None:
        exc = kwargs.pop("exc_info", None)
        kwargs.pop("stack_info", None)
        if exc is True:
            import sys

            exc = sys.exc_info()[1]
        text = str(msg) % args if args else str(msg)
        if isinstance(exc, BaseException):
            text = f"{text} ({type(exc).__name__}: {str(exc)[:120]})"
        self.logger.log(min(level, logging.WARNING), "phones: %s", text[:300].replace("\n", " "), **kwargs)


_QUIET = _OneLine(log, {})


_SAID: dict[str, list[float]] = {}  # the loop's messages: when each was last said, how many since


def _one_line(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's own errors (a failed accept, a transport gone wrong): one line, once a minute
    for each kind of message, with the count of those not repeated."""
    import time

    message = str(context.get("message", "error"))[:120]
    exc = context.get("exception")
    said = _SAID.setdefault(message, [0.0, 0])
    now = time.monotonic()
    if now - said[0] < 60:
        said[1] += 1
        return
    again = f", {said[1]} more since last said" if said[1] else ""
    said[0], said[1] = now, 0
    log.warning("phones: %s%s%s", message, f" ({type(exc).__name__}: {str(exc)[:120]})" if exc else "", again)


def _error(status: int, key: str) -> web.HTTPException:
    kinds = {400: web.HTTPBadRequest, 401: web.HTTPUnauthorized, 403: web.HTTPForbidden,
             404: web.HTTPNotFound, 408: web.HTTPRequestTimeout, 409: web.HTTPConflict,
             429: web.HTTPTooManyRequests, 500: web.HTTPInternalServerError}
    body = wire.dumps({"ok": False, "error": key, "lines": [t(key)]})
    return kinds[status](text=body, content_type="application/json")
