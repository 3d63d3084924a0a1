"""The HTTP routes: the page and its files, and the public API (``/api/...``).

A route reads its caller through ``PhoneServer.reader``/``writer`` (a token in the
``Authorization: Bearer`` header, never in the URL), reads a body whole and hostile-proof
(``wire.parse``), and hands any change to the table's one worker thread.
"""

from __future__ import annotations

import asyncio
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web

from companion.i18n import t
from companion.web import wire

STATIC = resources.files("companion.web").joinpath("static")
LANGS = ("fr", "en")
BODY_TIMEOUT = 10.0  # seconds to send a body of at most 16 KiB: more is a slow attack
STATIC_TYPES = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}


class Routes:
    def __init__(self, server: Any) -> None:  # the PhoneServer (it imports this module)
        self.server = server
        self.runtime = server.runtime

    def table(self) -> list[web.RouteDef]:
        return [
            web.get("/", self.home),
            web.get("/phone", self.page),
            web.get("/join", self.page),
            web.get("/favicon.ico", self.favicon),
            web.get("/static/{name}", self.static),
            web.get("/font/{style}.ttf", self.font),
            web.get("/api/table", self.get_table),
            web.get("/api/me", self.get_me),
            web.get("/api/rules", self.get_rules),
            web.get("/api/words", self.get_words),
            web.post("/api/command", self.post_command),
            web.post("/api/action", self.post_action),
            web.post("/api/reveal", self.post_reveal),
            web.post("/api/nfc", self.post_nfc),
            web.post("/api/join", self.post_join),
            web.get("/api/join/{id}", self.get_join),
        ]

    # -- pages ----------------------------------------------------------------------------------

    async def home(self, request: web.Request) -> web.Response:
        raise web.HTTPFound("/phone")

    async def page(self, request: web.Request) -> web.Response:
        return web.Response(text=STATIC.joinpath("index.html").read_text(encoding="utf-8"),
                            content_type="text/html", charset="utf-8")

    async def favicon(self, request: web.Request) -> web.Response:
        icon = STATIC.joinpath("icon.svg").read_text(encoding="utf-8")
        return web.Response(text=icon, content_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        kind = STATIC_TYPES.get(Path(name).suffix) if len(name) <= 64 else None
        if kind is None or "/" in name or name.startswith("."):
            raise web.HTTPNotFound()
        item = STATIC.joinpath(name)
        if not item.is_file():
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

    async def get_table(self, request: web.Request) -> web.Response:
        self.server.reader(request)
        return web.json_response(self.server.public_table(), dumps=wire.dumps)

    async def get_words(self, request: web.Request) -> web.Response:
        """The page's own words (keys ``phone.*`` of the translation table), in both languages."""
        from companion.i18n import _table

        words = {lang: {k[len("phone."):]: t(k, lang) for k in _table() if k.startswith("phone.")} for lang in LANGS}
        return web.json_response(words, dumps=wire.dumps, headers={"Cache-Control": "max-age=3600"})

    async def get_me(self, request: web.Request) -> web.Response:
        role, seat = self.server.reader(request)
        return web.json_response(self.server.hello(role, seat), dumps=wire.dumps)

    async def get_rules(self, request: web.Request) -> web.Response:
        self.server.reader(request)
        query = wire.clean(request.query.get("q", "")[:200])
        lang = request.query.get("lang", "fr") if request.query.get("lang") in LANGS else "fr"
        loop = asyncio.get_running_loop()
        hits = await loop.run_in_executor(None, self._rules, query, lang)
        return web.json_response({"query": query, "hits": hits}, dumps=wire.dumps)

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

    async def body(self, request: web.Request) -> dict[str, Any]:
        try:
            async with asyncio.timeout(BODY_TIMEOUT):
                raw = await request.read()
        except TimeoutError:
            raise self.server.error(408, "phones.api.too_slow") from None
        try:
            return wire.parse(raw)
        except wire.Unreadable:
            raise self.server.error(400, "phones.api.bad_json") from None

    async def post_command(self, request: web.Request) -> web.Response:
        return await self._seat_call(request, self.server.do_command)

    async def post_action(self, request: web.Request) -> web.Response:
        """``{"id": "bleed", "answers": {"target": "2", "amount": 3}}``: one of the seat's actions."""
        return await self._seat_call(request, self.server.do_action)

    async def _seat_call(self, request: web.Request, do: Any) -> web.Response:
        """A change asked by a seat's phone: its token checked, its body read, the answer in its language."""
        seat = self.server.writer(request)
        body = await self.body(request)
        lang = body.get("lang") if body.get("lang") in LANGS else "fr"
        reply = await do(seat, body, lang)
        return web.json_response(reply, status=reply.pop("status", 200), dumps=wire.dumps)

    async def post_reveal(self, request: web.Request) -> web.Response:
        seat = self.server.writer(request)
        body = await self.body(request)
        number = body.get("id")
        if not isinstance(number, int) or isinstance(number, bool):
            raise self.server.error(400, "phones.api.no_card")
        ok = await self.server.on_table(self.runtime.reveal, seat, number)
        return web.json_response({"ok": ok}, status=200 if ok else 404)

    async def post_nfc(self, request: web.Request) -> web.Response:
        """A card the phone read itself (Web NFC): private to that seat, as its reader's would be."""
        seat = self.server.writer(request)
        body = await self.body(request)
        ref = body.get("ref")
        if not isinstance(ref, str) or not ref.strip() or len(ref) > 200:
            raise self.server.error(400, "phones.api.no_card")
        card = await self.server.on_table(self._nfc, seat, ref.strip())
        return web.json_response({"ok": card is not None, "card": card}, status=200 if card else 404,
                                 dumps=wire.dumps)

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
        if not self.server.join_tries.allow(request.remote or "?"):
            raise self.server.error(429, "phones.api.slow_down")
        body = await self.body(request)
        code = str(body.get("code", "")).strip().upper().replace(" ", "")
        joined = self.server.keys.join(code, request.remote or "?")
        if joined is None:
            raise self.server.error(403, "phones.api.bad_code")
        if "pending" in joined:  # the code was used: a second device waits for the host
            if self.server.on_pending is not None:
                self.server.on_pending(self.server.keys.pending[joined["pending"]])
            return web.json_response({**joined, "lines": [t("phones.api.ask_host")]}, status=202)
        return web.json_response(joined)

    async def get_join(self, request: web.Request) -> web.Response:
        """A device waiting for the host: 202 while it waits, its token once approved, 403 refused."""
        wait = self.server.keys.waiting(request.match_info["id"][:32])
        if wait is None:
            raise web.HTTPNotFound()
        if wait.answer == "waiting":
            return web.json_response({"seat": wait.seat, "pending": wait.id}, status=202)
        if wait.answer == "denied" or wait.token is None:
            raise self.server.error(403, "phones.api.host_refused")
        return web.json_response({"seat": wait.seat, "token": wait.token})
