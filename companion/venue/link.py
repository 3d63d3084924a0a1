"""The table side of a venue: one ``TableLink`` per table, beside its Session.

- every accepted change of the game is copied from the journal into the outbox (``Outbox``) and
  sent as a QoS 1 entry tagged (table, seq) until the hub acknowledges it;
- the table's latest state is a retained message, its presence a retained message with a Last
  Will saying ``offline`` when the table vanishes (kill -9, Wi-Fi gone);
- the hub's round clock (start time + duration) is kept and counted down here, and said at 10
  minutes, 5 minutes and time, even with the hub or the broker gone;
- aiomqtt does not reconnect: the loop here does, with a growing pause; the table plays on
  meanwhile and its outbox catches up when the broker is back.

It runs its own asyncio loop in one thread; the Session's observers only queue work for it.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import ssl
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

import yaml

from companion import registry
from companion.i18n import language, t
from companion.play.observers import Observers
from companion.venue import scoring, tlspin, topics
from companion.venue.inflight import while_connected
from companion.venue.outbox import Outbox

if TYPE_CHECKING:
    # aiomqtt (with paho and http) is imported when a table joins a venue, not when the window
    # starts: a table that never joins one keeps its modules out of its memory.
    import aiomqtt

log = logging.getLogger(__name__)

RESEND_AFTER = 5.0  # seconds an entry waits for the hub's ack before it is sent again
KEEPALIVE = 5  # seconds: the broker says a vanished table is offline within 1.5 of these
LOG_LINES = 6  # the last journal lines a judge sees with a call
# The pause before trying the broker again: the first, then doubled up to the last. The tests
# shorten these (and the clock's tick) to spend less time waiting; what happens is the same.
RETRY = (0.2, 5.0)
TICK = 0.5  # seconds between two looks at the round clock
TIMEOUT = 10.0  # seconds a call to the broker may wait for its answer while the connection is up


@functools.cache
def words() -> dict[str, Any]:
    return yaml.safe_load(resources.files(__package__).joinpath("words.yaml").read_text(encoding="utf-8"))


def _plain(text: object) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", str(text).casefold()) if not unicodedata.combining(c))


@dataclass(frozen=True)
class VenueAddress:
    """Where a table joins: ``mqtt://table-N:PASSWORD@HOST:PORT/EVENT`` (the hub's enrolment), or
    over TLS ``mqtts://…/EVENT?pin=SHA256``: the pin is the hub's certificate's fingerprint, the
    one certificate the table then trusts (without a pin: the system's CAs and the host name)."""

    host: str
    port: int
    event: str
    table: int
    password: str
    tls: bool = False
    pin: str | None = None

    @classmethod
    def parse(cls, url: str, table: int | None = None) -> VenueAddress:
        parts = urlsplit(url if "://" in url else f"mqtt://{url}")
        if parts.scheme not in ("mqtt", "tcp", "mqtts", "ssl") or not parts.hostname:
            raise ValueError(url)
        tls = parts.scheme in ("mqtts", "ssl")
        pins = parse_qs(parts.query).get("pin")
        pin = tlspin.normalise(pins[0]) if pins else None  # ValueError: not a SHA-256
        if pin and not tls:
            raise ValueError(url)  # a pin on a plain address would protect nothing
        event = unquote(parts.path.strip("/"))
        user = unquote(parts.username or "")
        number = table
        if number is None and user.startswith("table-") and user[6:].isdigit():
            number = int(user[6:])
        if number is None or number < 1 or not event:
            raise ValueError(url)
        if user and user != topics.table_user(number):
            raise ValueError(url)  # the enrolment of another table
        return cls(parts.hostname, parts.port or (8883 if tls else 1883), event, int(number),
                   unquote(parts.password or ""), tls, pin)

    def url(self) -> str:
        url = (f"{'mqtts' if self.tls else 'mqtt'}://{topics.table_user(self.table)}:{self.password}"
               f"@{self.host}:{self.port}/{self.event}")
        return f"{url}?pin={self.pin}" if self.pin else url


class Refused(ConnectionError):
    """The hub's certificate is not the one this table was given (or not trusted): the table does
    not connect, its password is not sent. ``str()`` is the message for the players."""


class TableLink:
    def __init__(self, session: Any, address: VenueAddress, say: Callable[[str], None] | None = None,
                 outbox_path: str | Path | None = None, clock: Callable[[], float] = time.time,
                 auto_start: bool = False) -> None:
        self.session = session
        self.address = address
        self.event = address.event
        self.table = address.table
        self.say = say or (lambda text: None)
        self.clock = clock
        self.auto_start = auto_start  # start the seated game when the hub seats this table
        path = outbox_path or Path(session.journal_path).with_name(
            f"venue-{topics.event_slug(address.event)}-table-{address.table}.sqlite3")
        self.outbox = Outbox(path)
        self.connected = False
        self.refused: str | None = None  # why the hub's certificate was refused (then it stops trying)
        self.round_clock: dict[str, Any] | None = self.outbox.get("clock")
        self.seating: dict[str, Any] | None = self.outbox.get("seating")
        self.hub_result: dict[str, Any] | None = self.outbox.get("hub_result")
        self._said: set[tuple[int, int]] = set(tuple(x) for x in self.outbox.get("clock_said", []))
        self._copied: dict[int, int] = {}
        self._snapshot: dict[str, Any] | None = None
        # Held while a change's entries are copied and its state made, and while a flush reads the
        # state and the outbox's last seq: a flush in between sent the state before the change
        # numbered as if it held the change's entries.
        self._state_lock = threading.Lock()
        self._snapshot_sent: str | None = None
        self._sent_at: dict[int, float] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._unsubscribe_result: Callable[[], None] | None = None
        self._say_after = False  # a result began to wait: said after the game's own answer
        self.connections = 0  # how many times the link (re)connected: for tests and the log
        # The result waiting for the players' word (the game ended, or they asked for it): its body
        # each time it changes, None once confirmed or contested. Called in the changing thread.
        self.observers = Observers("result")
        # How this table's front end confirms (a message key said after the proposal): the console's
        # words by default; the window and the keys say Enter (set by companion.venue.join.attach).
        self.hint: Callable[[], str] = lambda: "venue.result.hint.console"
        # When the players asked for the result before the game's end: (game, revision). The next
        # change of the game ends the question (they played on), as "Plus tard" does.
        self._asked: tuple[int, int] | None = None
        self._settled: set[str] = set(self.outbox.get("settled", []))  # confirmed or contested
        self._pending: str | None = None

    # -- the session's side (any thread) -------------------------------------------------------

    def start(self) -> TableLink:
        self._unsubscribe = self.session.subscribe("state", self._on_state)
        self._unsubscribe_result = self.session.subscribe("result", self._on_result)
        with self.session._lock:
            self._on_state()
        self._on_result(None)  # a result left pending before a restart: said now
        if self.auto_start and self.seating is not None and self.session.game is None:
            self._start_seated(self.seating)  # started again after a crash: back to the seated game
        self._thread = threading.Thread(target=self._run, name=f"venue-table-{self.table}", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0, drain: float = 3.0) -> None:
        """Leave the venue; with the broker there, first give the outbox ``drain`` seconds to be
        acknowledged (what is left is sent at the next start: the outbox is on the disk)."""
        if self._unsubscribe:
            self._unsubscribe()
        if self._unsubscribe_result:
            self._unsubscribe_result()
        deadline = time.monotonic() + drain
        while self.connected and self.outbox.pending(1) and time.monotonic() < deadline:
            self._poke()
            time.sleep(0.05)
        self._stop.set()
        self._poke()
        if self._thread is not None:
            self._thread.join(timeout)
        self.outbox.close()

    def _on_state(self) -> None:
        """Called by the Session in the thread that changed the game, the change already durable
        in the journal: copy the new events to the outbox, remember the state to publish."""
        game = self.session.game
        if game is None:
            return
        try:
            with self._state_lock:
                self._copy_events(game)
                self._snapshot = self._state_message(game)
            self._check_pending(later=True)
        except Exception:  # the venue must never stop the table
            log.exception("venue: could not queue the table's change")
        self._poke()

    def _copy_events(self, game: Any) -> None:
        last = self._copied.get(game.id)
        if last is None:
            last = self.outbox.get(f"copied:{game.id}", 0)
        newest = last
        for ev in game.journal.iter_events(game.id, after=last):  # the new ones only: long games stay fast
            if ev.id <= last:
                continue
            self.outbox.add("journal", {"game_id": game.id, "game": game.data.id, "event": ev.to_json(),
                                        "round": self._round()}, journal_id=ev.id)
            newest = ev.id
        if newest != last:
            self._copied[game.id] = newest
            self.outbox.put(f"copied:{game.id}", newest)

    def _state_message(self, game: Any) -> dict[str, Any]:
        from companion.table.export import event_line

        events = game.events()[-LOG_LINES:]
        start = events[0].ts if events else 0.0
        lines = [event_line(game.data, ev, start, language()) for ev in events]
        state = game.to_json()
        phase = next((p for p in game.data.phases if p.id == state.get("phase")), None)
        # The phase in the table's language, for the organiser's board and the judge
        state["phase_name"] = phase.name(language()) if phase is not None else None
        return {"table": self.table, "ts": self.clock(), "round": self._round(), "game_id": game.id,
                "game": game.data.id, "state": state, "log": lines, "seq": self.outbox.last_seq()}

    def _round(self) -> int | None:
        return (self.seating or {}).get("round")

    def _poke(self) -> None:
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None:
            try:
                loop.call_soon_threadsafe(wake.set)
            except RuntimeError:
                pass  # the loop has ended

    # -- what the players do through the venue ------------------------------------------------

    def time_called(self) -> bool:
        c = self.round_clock
        return bool(c and c.get("state") == "running" and self.clock() >= c["start"] + c["duration"])

    def proposal(self, time_called: bool | None = None) -> dict[str, Any] | None:
        """The result the tracked game proposes for this table's round, or None without a game.
        ``time_called``: the judge called time (default: the round clock says so)."""
        game = self.session.game
        if game is None:
            return None
        if time_called is None:
            time_called = self.time_called()
        body = scoring.propose(game.data.id, game.state, game.events(), time_called)
        body.update(round=self._round(), game_id=game.id, game=game.data.id)
        return body

    def confirm_result(self, by: str = "table", time_called: bool | None = None) -> dict[str, Any] | None:
        """The players agree with the proposal: it goes to the hub (through the outbox)."""
        body = self.proposal(time_called)
        if body is None:
            return None
        self._settle(body)
        body["by"] = by
        body["ts"] = self.clock()
        self.outbox.add("result", body)
        self._poke()
        self._check_pending()
        return body

    def contest_result(self, seat: int | None = None, by: str = "table") -> dict[str, Any] | None:
        """The players do not agree with the proposal: the organiser is called to the table (a
        judge call that carries the proposal, on the board with the table's phase and last lines);
        the organiser corrects it (an override with a reason) or the players fix the game."""
        body = self.proposal()
        if body is None:
            return None
        self._settle(body)
        self.call_judge(seat, why=t("venue.result.contest_why", "fr", result=self.summary(body, "fr")),
                        result=dict(body, by=by))
        self._check_pending()
        return body

    def ask_result(self) -> dict[str, Any] | None:
        """The players ask for the result before the game's end (time called, an agreement): it
        waits for their word as at the end, until confirmed or contested."""
        body = self.proposal()
        if body is None:
            return None
        self._asked = (body["game_id"], self.session.revision)
        self._settled.discard(_key(body))  # asked again after a contest: it may be confirmed now
        self._pending = None
        self._check_pending(say=False)
        return body

    def later(self) -> None:
        """Not now ("Plus tard", Escape): a result asked for before the game's end stops waiting
        (Enter types a value again); at the end it keeps waiting, only out of sight."""
        if self._asked is not None:
            self._asked = None
            self._check_pending()

    def pending_result(self) -> dict[str, Any] | None:
        """The proposal waiting for the players' word: the game is over (or they asked for its
        result), and this very proposal was neither confirmed nor contested."""
        game = self.session.game
        # Looked at after every change of the game: the proposal (which reads the journal for the
        # oust order) only once the game is over or the players asked.
        if game is None or not (game.state.get("over") or self._asked == (game.id, self.session.revision)):
            return None
        body = self.proposal()
        if body is None:
            return None
        return None if _key(body) in self._settled else body

    def _settle(self, body: dict[str, Any]) -> None:
        self._settled.add(_key(body))
        self.outbox.put("settled", sorted(self._settled)[-50:])

    def _check_pending(self, say: bool = True, later: bool = False) -> None:
        """Say and tell the front ends when a result starts to wait (the game's end) or stops;
        ``later``: said after the answer of the change that ended the game ("Partie terminée")."""
        body = self.pending_result()
        key = None if body is None else _key(body)
        if key == self._pending:
            return
        self._pending = key
        if body is not None and say:
            if later:
                self._say_after = True
            else:
                self.say(self.result_text())
        self.observers.emit("result", body)

    def _on_result(self, _result: Any) -> None:
        """The Session's answer to a change, said by then: the result that began to wait follows."""
        if not self._say_after:
            return
        self._say_after = False
        try:
            if self.pending_result() is not None:
                self.say(self.result_text())
        except Exception:  # the venue must never stop the table
            log.exception("venue: could not say the result")

    def call_judge(self, seat: int | None = None, why: str = "", result: dict[str, Any] | None = None) -> None:
        game = self.session.game
        body: dict[str, Any] = {"round": self._round(), "ts": self.clock(), "seat": seat, "why": why[:200]}
        if result is not None:
            body["result"] = result  # a contested result: what the table proposed
        if game is not None:
            snap = self._state_message(game)
            body.update(phase=snap["state"].get("phase_name") or snap["state"].get("phase"),
                        active=snap["state"].get("active"), log=snap["log"])
        self.outbox.add("judge", body)
        self._poke()

    def judge(self, seat: int | None = None, why: str = "") -> None:
        """The players call a judge (the console's word, the window's button and key): sent, said."""
        self.call_judge(seat, why)
        self.say(t("venue.judge.called", table=self.table))

    def summary(self, body: dict[str, Any], lang: str | None = None) -> str:
        """A proposal in a few words: each player's VP and the game win, or the winners."""
        if "vp" in body:
            scores = ", ".join(f"{n} {_num(v)}" for n, v in zip(body["players"], body["vp"], strict=False))
            return t("venue.result.summary", lang, scores=scores, win=self.win_text(body, lang))
        return t("venue.result.winner", lang, winners=", ".join(body["winners"]) or "—")

    def win_text(self, body: dict[str, Any], lang: str | None = None) -> str:
        winner = scoring.game_winner(body.get("game", ""), [float(v) for v in body.get("vp", [])])
        if winner is None:
            return t("venue.result.no_win", lang)
        return t("venue.result.win", lang, name=body["players"][winner])

    def result_view(self, lang: str | None = None) -> dict[str, Any] | None:
        """The pending result as a screen shows it: a title, a row per player, the game win."""
        body = self.pending_result()
        if body is None:
            return None
        if "vp" in body:
            rows = [t("venue.result.vp_row", lang, name=n, vp=_num(v))
                    for n, v in zip(body["players"], body["vp"], strict=False)]
            win = self.win_text(body, lang)
        else:
            rows = list(body["players"])
            win = t("venue.result.winner", lang, winners=", ".join(body["winners"]) or "—")
        return {"title": t("venue.result.title", lang, table=self.table), "rows": rows, "win": win,
                "body": body}

    def result_text(self, lang: str | None = None, hint: str | None = None) -> str:
        """The proposal as said: the VP and the game win (or the winners), then how to send it."""
        body = self.proposal()
        if body is None:
            return t("venue.result.no_game", lang)
        if "vp" in body:
            parts = [f"{n} {_num(v)}" for n, v in zip(body["players"], body["vp"], strict=False)]
            text = f"{t('venue.result.scores', lang, scores=', '.join(parts))} {self.win_text(body, lang)}"
        else:
            text = t("venue.result.league", lang, winners=", ".join(body["winners"]) or "—")
        return f"{text} {t(hint or self.hint(), lang)}"

    def handle_words(self, text: str) -> bool:
        """A line typed at the table: ``résultat`` (said), ``résultat ok`` (confirmed), ``juge``."""
        try:
            return self._words(text)
        except Exception:  # the venue must never stop the table's console
            log.exception("venue: the words %r", text)
            return False

    def _words(self, text: str) -> bool:
        parts = [_plain(w) for w in text.split()]
        if not parts:
            return False
        w = words()
        if parts[0] in {_plain(x) for x in w["judge"]}:
            self.judge(why=" ".join(text.split()[1:]))
            return True
        if parts[0] in {_plain(x) for x in w["result"]}:
            answer = parts[1] if len(parts) > 1 else ""
            if answer in {_plain(x) for x in w["confirm"]}:
                self.say(t("venue.result.sent") if self.confirm_result("console") else t("venue.result.no_game"))
            elif answer in {_plain(x) for x in w["contest"]}:
                done = self.contest_result(by="console")
                self.say(t("venue.result.contested", table=self.table) if done else t("venue.result.no_game"))
            else:
                self.ask_result()
                self.say(self.result_text())
            return True
        return False

    # -- the clock --------------------------------------------------------------------------

    def clock_tick(self) -> list[str]:
        """Say what the round clock has reached since the last tick (10 min, 5 min, time)."""
        c = self.round_clock
        if not c or c.get("state") != "running":
            return []
        left = c["start"] + c["duration"] - self.clock()
        said = []
        for mark in words()["clock_warnings"]:
            key = (int(c["round"]), int(mark))
            if left <= mark and key not in self._said:
                self._said.add(key)
                # A mark long passed when the clock arrived (a table joining late) is not said.
                if left > mark - 60:
                    text = t("venue.clock.time") if mark == 0 else t("venue.clock.left", minutes=mark // 60)
                    said.append(text)
                    self.say(text)
        if said:
            self.outbox.put("clock_said", sorted(self._said))
        return said

    def seconds_left(self) -> float | None:
        c = self.round_clock
        if not c:
            return None
        return max(0.0, c["start"] + c["duration"] - self.clock())

    # -- the network side (the link's own thread) --------------------------------------------

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        import aiomqtt

        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        ticker = asyncio.create_task(self._ticker())
        pause = RETRY[0]
        try:
            while not self._stop.is_set():
                before = self.connections
                try:
                    await self._connected()
                except Refused as exc:
                    self.refused = str(exc)
                    log.warning("venue: table %s: %s", self.table, exc)
                    self.say(self.refused)
                    break  # a wrong certificate does not become right by trying again
                except aiomqtt.MqttError as exc:
                    log.info("venue: table %s not connected (%s)", self.table, exc)
                except Exception:
                    log.exception("venue: table %s link failed", self.table)
                self.connected = False
                if self._stop.is_set():
                    break
                if self.connections > before:
                    pause = RETRY[0]  # it was connected: a cut, not a broker that is gone, so try again soon
                await self._sleep(pause)
                pause = min(pause * 2, RETRY[1])
        finally:
            ticker.cancel()

    async def _sleep(self, seconds: float) -> None:
        assert self._wake is not None
        self._wake.clear()
        try:
            await asyncio.wait_for(self._wake.wait(), seconds)
        except TimeoutError:
            pass

    async def _ticker(self) -> None:
        while True:
            try:
                self.clock_tick()
            except Exception:
                log.exception("venue: clock")
            await asyncio.sleep(TICK)

    async def _tls_context(self) -> ssl.SSLContext | None:
        """The TLS context of this connection, None in clear (the pin checked first: tlspin)."""
        import aiomqtt

        a = self.address
        if not a.tls:
            return None
        try:
            return await tlspin.context_for(a.host, a.port, a.pin)
        except tlspin.PinMismatch as exc:
            raise Refused(t("venue.tls.wrong_pin", host=a.host)) from exc
        except (OSError, TimeoutError) as exc:
            raise aiomqtt.MqttError(f"TLS probe: {exc}") from exc

    def _client(self, context: ssl.SSLContext | None = None) -> aiomqtt.Client:
        import aiomqtt

        a = self.address
        presence = topics.table_topic(a.event, a.table, "presence")
        return aiomqtt.Client(a.host, a.port, username=topics.table_user(a.table), password=a.password,
                              identifier=f"tc-{topics.event_slug(a.event)}-table-{a.table}",
                              protocol=aiomqtt.ProtocolVersion.V5, keepalive=KEEPALIVE, timeout=TIMEOUT,
                              will=aiomqtt.Will(presence, json.dumps({"online": False}), qos=1, retain=True),
                              tls_context=context)

    async def _connected(self) -> None:
        import aiomqtt

        context = await self._tls_context()
        try:
            await self._session(context)
        except aiomqtt.MqttError as exc:
            if context is not None and "CERTIFICATE_VERIFY_FAILED" in str(exc):
                raise Refused(t("venue.tls.untrusted", host=self.address.host)) from exc
            raise

    async def _session(self, context: ssl.SSLContext | None) -> None:
        a = self.address
        async with self._client(context) as client:
            self.connected = True
            self.connections += 1
            self._sent_at.clear()  # a new connection: everything unacknowledged goes again
            self._snapshot_sent = None
            # the reader first: it ends with the connection, and every call to the broker with it
            reader = asyncio.create_task(self._read(client))
            # a lost connection ends the wait below at once (not a reader cancelled on the way out)
            reader.add_done_callback(lambda task: task.cancelled() or self._poke())
            try:
                await while_connected(client.subscribe([(topics.hub_topic(a.event, "ack", a.table), 1),
                                                        (topics.hub_topic(a.event, "clock"), 1),
                                                        (topics.hub_topic(a.event, "seating", a.table), 1),
                                                        (topics.hub_topic(a.event, "result", a.table), 1)]), reader)
                await while_connected(client.publish(topics.table_topic(a.event, a.table, "presence"),
                                                     json.dumps({"online": True, "ts": self.clock()}), qos=1,
                                                     retain=True), reader)
                while not self._stop.is_set():
                    await self._flush(client, reader)
                    if reader.done():
                        reader.result()  # raises what ended it
                        return
                    await self._sleep(1.0)
                # leaving on purpose: say so (the Last Will is for vanishing)
                await while_connected(client.publish(topics.table_topic(a.event, a.table, "presence"),
                                                     json.dumps({"online": False, "ts": self.clock()}), qos=1,
                                                     retain=True), reader)
            finally:
                reader.cancel()

    async def _flush(self, client: aiomqtt.Client, reader: asyncio.Task[None]) -> None:
        a = self.address
        with self._state_lock:
            snap, seq = self._snapshot, self.outbox.last_seq()
        if snap is not None:
            snap = dict(snap, seq=seq, clock_left=self.seconds_left())
            text = json.dumps(snap, ensure_ascii=False, default=str)
            if text != self._snapshot_sent:
                # given up with the connection: the next one sends the state again
                await while_connected(client.publish(topics.table_topic(a.event, a.table, "state"), text, qos=1,
                                                     retain=True), reader)
                self._snapshot_sent = text
        now = time.monotonic()
        for seq, kind, body in self.outbox.pending():
            sent = self._sent_at.get(seq)
            if sent is not None and now - sent < RESEND_AFTER:
                continue
            entry = {"table": a.table, "seq": seq, "kind": kind, "body": body}
            # given up with the connection: still in the outbox, sent again on the next one
            await while_connected(client.publish(topics.table_topic(a.event, a.table, "entry"),
                                                 json.dumps(entry, ensure_ascii=False, default=str), qos=1), reader)
            self._sent_at[seq] = now

    async def _read(self, client: aiomqtt.Client) -> None:
        a = self.address
        async for message in client.messages:
            try:
                data = json.loads(message.payload)
            except (ValueError, TypeError):
                continue
            if not isinstance(data, dict):
                continue
            topic = str(message.topic)
            if topic == topics.hub_topic(a.event, "ack", a.table):
                seq = data.get("seq")
                if isinstance(seq, int):
                    self.outbox.ack(seq)
                    self._sent_at = {s: v for s, v in self._sent_at.items() if s > seq}
            elif topic == topics.hub_topic(a.event, "clock"):
                self._new_clock(data)
            elif topic == topics.hub_topic(a.event, "seating", a.table):
                self._new_seating(data)
            elif topic == topics.hub_topic(a.event, "result", a.table):
                self._hub_result(data)

    def _new_clock(self, data: dict[str, Any]) -> None:
        if not all(isinstance(data.get(k), int | float) for k in ("round", "start", "duration")):
            return
        old = self.round_clock
        self.round_clock = data
        self.outbox.put("clock", data)
        if old is None or old.get("round") != data.get("round") or old.get("start") != data.get("start"):
            if data.get("state") == "running":
                minutes = int(data["duration"] // 60)
                self.say(t("venue.clock.started", round=data["round"], minutes=minutes))

    def _new_seating(self, data: dict[str, Any]) -> None:
        players = data.get("players")
        if not isinstance(players, list) or not isinstance(data.get("round"), int):
            return
        old = self.seating
        self.seating = data
        self.outbox.put("seating", data)
        if old != data:
            self.say(t("venue.seated", table=self.table, round=data["round"], players=", ".join(map(str, players))))
            if self.auto_start:
                self._start_seated(data)

    def _start_seated(self, data: dict[str, Any]) -> None:
        players = [str(p) for p in data["players"]]
        game = self.session.game
        if game is not None and [s["name"] for s in game.state["seats"]] == players:
            return  # already playing this table's game
        # A table started again (a crash, a power cut) goes on with the seated game it had.
        for row in self.session.saved_games():
            if row.players == players and row.status == "playing" and \
                    self.outbox.get(f"round_of:{row.id}") == data["round"]:
                if self.session.resume(row.id, source="script").ok:
                    return
        result = self.session.new_game(str(data.get("game") or registry.ids()[0]), players, source="script")
        if result.ok and self.session.game is not None:
            self.outbox.put(f"round_of:{self.session.game.id}", data["round"])

    def _hub_result(self, data: dict[str, Any]) -> None:
        if data == self.hub_result:
            return
        self.hub_result = data
        self.outbox.put("hub_result", data)
        if data.get("status") == "validated":
            self.say(t("venue.result.validated", round=data.get("round")))
        elif data.get("status") == "refused":
            self.say(t("venue.result.refused", round=data.get("round"), reason=t(str(data.get("reason")))))


def _key(body: dict[str, Any]) -> str:
    """What makes two proposals the same result: the game, its players, their VP or winners."""
    return json.dumps([body.get("game_id"), body.get("players"), body.get("vp"), body.get("winners")])


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v).replace(".", ",")
