"""The live sockets: each phone's feed of the table, and what a phone sends on its socket.

Each connected phone has its own queue and writer task, so a phone that stalls or vanishes never
holds up the table or another phone: past ``QUEUE_LIMIT`` pending messages it is cut off, and
when it comes back it gets the current state at once. A state is a snapshot, so a phone never
waits for one that a newer state already replaces: the unsent older one is dropped and the newest
goes last in its queue (a slow phone or a busy Wi-Fi gets fewer, never staler, states); every
other message (a log line, a reply, a card) is an event and is always sent, in order. A writer
never dies of what it is given: every text is valid UTF-8 (``wire.dumps``), and a message that
still cannot be sent is dropped for that phone alone. Every message a socket sends counts against
its rate, junk and spectators' included; a socket that keeps flooding past its burst is closed.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from companion.i18n import t
from companion.web import wire
from companion.web.access import Budget, Budgets

log = logging.getLogger(__name__)

LOG_KEPT = 50  # log messages a phone gets when it joins or comes back
QUEUE_LIMIT = 2000  # messages waiting for one phone before it is cut off (it reconnects)
MAX_MESSAGE = 16 * 1024
STRIKES = 50  # messages refused for their rate before the socket is closed
CLOSE_TIMEOUT = 2.0  # seconds a closing socket is given to answer the close
LANGS = ("fr", "en")


class _Slot:
    """Where the newest state goes in a phone's queue; dead once a newer state took a later place."""

    __slots__ = ("live",)

    def __init__(self) -> None:
        self.live = True


@dataclass(eq=False)
class Client:
    ws: web.WebSocketResponse
    seat: int | None  # None: a spectator
    budget: Budget  # remembered per address and token: reconnecting does not refill it
    device: str = ""  # the digest of its token: the host may revoke this phone alone
    queue: asyncio.Queue = field(default_factory=asyncio.Queue)  # texts, and _Slots for the state
    actions: Any = None  # the seat's action list last sent on this socket (sent again only when it changes)
    slot: _Slot | None = None  # the state waiting in the queue, if one does
    pending: int = 0  # messages waiting to be sent (a dead slot is not one)


class Feeds:
    """Every open socket, the recent public log a phone gets when it (re)joins, and the table's
    newest state (encoded when a writer sends it, once per state for all the phones)."""

    def __init__(self) -> None:
        self.clients: set[Client] = set()
        self.log: deque[dict[str, Any]] = deque(maxlen=LOG_KEPT)
        self._table: dict[str, Any] | None = None  # the newest state, without the action lists
        self._menu: dict[str, Any] = {}  # its action lists, per seat
        self._texts: dict[int | None, str] = {}  # the newest state encoded: plain (None), with a seat's list

    def send(self, client: Client, message: dict[str, Any] | str) -> None:
        """One message to one phone, after those before it; a text must be ``wire.dumps``'s."""
        text = message if isinstance(message, str) else wire.dumps(message)
        if self._full(client):
            return
        client.pending += 1
        client.queue.put_nowait(text)

    def _full(self, client: Client) -> bool:
        if client.pending < QUEUE_LIMIT:
            return False
        self.clients.discard(client)
        asyncio.ensure_future(client.ws.close())
        return True

    def send_state(self, client: Client) -> None:
        """The newest state to this phone, last in its queue: an older one still waiting is dropped."""
        if client.slot is not None:
            client.slot.live = False  # replaced: the writer skips it
            client.pending -= 1
        if self._full(client):
            return
        client.slot = _Slot()
        client.pending += 1
        client.queue.put_nowait(client.slot)

    def broadcast(self, message: dict[str, Any], keep: bool = False) -> None:
        if keep:
            self.log.append(message)
        text = wire.dumps(message)
        for client in list(self.clients):
            self.send(client, text)

    def broadcast_state(self, table: dict[str, Any] | None) -> None:
        """The table's state to every socket. What a socket gets is decided when its writer sends
        it (``state_text``), from the newest state then."""
        self._table = None if table is None else {k: v for k, v in table.items() if k != "actions"}
        self._menu = (table or {}).get("actions") or {}
        self._texts = {}
        for client in list(self.clients):
            self.send_state(client)

    def newer_than(self, table: dict[str, Any] | None) -> bool:
        """Whether the newest state broadcast is a later revision than ``table``."""
        if self._table is None or table is None:
            return False
        return int(self._table.get("revision") or 0) > int(table.get("revision") or 0)

    def state_text(self, client: Client) -> str:
        """The newest state for this socket, with only what changed of the action lists: a seat's
        socket gets its own seat's list, and only when it differs from the one it last got (the
        lists doubled every message, and the phones' latency with it); a spectator gets none.
        Each text is encoded once per state, whatever the number of phones."""
        base = self._table
        mine = self._menu.get(str(client.seat)) if client.seat is not None and base is not None else None
        key = None if mine is None or mine == client.actions else client.seat
        if key is not None:
            client.actions = mine
        text = self._texts.get(key)
        if text is None:
            table = base if key is None or base is None else {**base, "actions": {str(key): mine}}
            text = self._texts[key] = wire.dumps({"type": "state", "table": table})
        return text

    def to_seat(self, seat: int, message: dict[str, Any]) -> None:
        for client in list(self.clients):
            if client.seat == seat:
                self.send(client, message)

    def cut_off(self, seat: int, device: str | None = None) -> None:
        for client in list(self.clients):
            if client.seat == seat and (device is None or client.device == device):
                self.clients.discard(client)
                asyncio.ensure_future(client.ws.close(code=4403, message=b"revoked"))

    async def write(self, client: Client) -> None:
        """One phone's writer: sends its queue in order until the phone goes away. Every text in
        the queue is ``wire.dumps``'s (valid UTF-8 already); a slot is the newest state."""
        while True:
            item = await client.queue.get()
            if isinstance(item, _Slot):
                if not item.live:
                    continue  # a newer state took a later place
                client.slot = None
                text = self.state_text(client)
            else:
                text = item
            client.pending -= 1
            try:
                await client.ws.send_str(text)
            except (ConnectionError, RuntimeError, asyncio.CancelledError):
                return  # the phone went away: it gets the whole state again when it comes back
            except Exception as exc:  # never a dead feed in silence: drop this one message only
                log.warning("phones: a message not sent to a phone (%s)", type(exc).__name__)


class Sockets:
    """``GET /ws``: a phone's (or a spectator's) live socket."""

    def __init__(self, server: Any) -> None:  # the PhoneServer (it imports this module)
        self.server = server
        self.feeds = server.feeds
        self.budgets = Budgets(server.rate, server.burst)

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        server = self.server
        if not server.origin_ok(request.headers.get("Origin")):
            raise server.error(403, "phones.api.bad_origin")
        role, seat, device = server.identify(request, query=True)
        # No compression (a phone's messages are a few bytes; inflating costs the loop), and a
        # short close handshake: a flooder being shown the door is not waited for.
        ws = web.WebSocketResponse(heartbeat=20, max_msg_size=MAX_MESSAGE, compress=False, timeout=CLOSE_TIMEOUT)
        await ws.prepare(request)
        client = Client(ws, seat, self.budgets.of(request.remote or "", device), device)
        self.feeds.clients.add(client)
        if seat is not None:
            server.runtime.phones.attach(seat)  # from now on its reader's cards are its own
        writer = asyncio.create_task(self.feeds.write(client))
        try:
            # The current state at once, taken in the table's thread so no change slips in between.
            first = await server.on_table(server.hello, role, seat)
            if seat is not None and first.get("table"):
                client.actions = (first["table"].get("actions") or {}).get(str(seat))
            self.feeds.send(client, wire.dumps({"type": "hello", **first}))
            # A change that came while the hello was being taken may have been queued before it:
            # the newest state goes after the hello, never an older table last.
            if self.feeds.newer_than(first.get("table")):
                self.feeds.send_state(client)
            async for msg in ws:
                budget = client.budget
                if not budget.bucket.take() or (seat is not None and not server.bucket_of(seat).take()):
                    budget.strikes += 1
                    if budget.strikes >= STRIKES:  # still flooding after being told: gone
                        self.feeds.clients.discard(client)
                        await ws.close(code=WSCloseCode.POLICY_VIOLATION, message=b"too many messages")
                        if request.transport is not None:
                            request.transport.abort()  # its remaining junk is never read
                        break
                    if msg.type == WSMsgType.TEXT and seat is not None:
                        self.feeds.send(client, {"type": "reply", "ok": False, "lines": [t("phones.api.slow_down")]})
                    continue
                if msg.type == WSMsgType.TEXT:
                    await self.message(client, msg.data)
        finally:
            self.feeds.clients.discard(client)
            writer.cancel()
        return ws

    async def message(self, client: Client, data: str) -> None:
        if client.seat is None:
            return  # a spectator only listens (its messages were counted all the same)
        try:
            body = wire.parse(data)
        except wire.Unreadable:
            self.feeds.send(client, {"type": "reply", "ok": False, "lines": [t("phones.api.bad_json")]})
            return
        tag = body.get("tag") if isinstance(body.get("tag"), (int, str)) else None
        lang = body.get("lang") if body.get("lang") in LANGS else "fr"
        action = self.server.socket_actions.get(str(body.get("type")))
        if action is None:
            return
        reply = await action(client.seat, body, lang)
        reply.pop("status", None)
        self.feeds.send(client, {"type": "reply", "tag": tag, **reply})


Action = Callable[[int, dict[str, Any], str], Any]
