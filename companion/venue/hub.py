"""The organiser's hub: the event's store, its MQTT client, the organiser's actions.

The hub reads every table's entries (QoS 1, persistent session: what tables sent while the hub
was down waits in the broker), keeps each once by (table, seq) and acknowledges the highest
contiguous seq per table on a retained topic; it keeps each table's latest state and presence
for the boards; it publishes the seating of each table, the round clock (start + duration) and
each table's result status as retained messages, so a table joining late, or after a restart,
gets them at once. Like the tables, it reconnects by itself.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from companion.i18n import t
from companion.venue import scoring, seating, tlspin, topics
from companion.venue.event import EventStore
from companion.venue.inflight import while_connected

log = logging.getLogger(__name__)

SESSION_EXPIRY = 7 * 24 * 3600  # the broker keeps the hub's queue a week
RETRY = (0.2, 5.0)  # the pause before trying the broker again: the first, doubled up to the last (tests shorten it)
TIMEOUT = 10.0  # seconds a call to the broker may wait for its answer while the connection is up


class Hub:
    def __init__(self, store: EventStore, host: str, port: int, password: str, user: str = "hub",
                 seat_iterations: int = 20000, clock: Callable[[], float] = time.time, tls: bool = False,
                 pin: str | None = None) -> None:
        self.store = store
        self.event = store.name
        self.host, self.port, self.user, self.password = host, port, user, password
        # a broker the hub does not run, over TLS: with a pin, only that certificate is trusted
        self.tls, self.pin = tls, pin
        self.refused: str | None = None  # the broker's certificate was not the pinned one
        self.seat_iterations = seat_iterations
        self.clock = clock
        self.connected = False
        self.listeners: set[asyncio.Queue[dict[str, Any]]] = set()
        self._dirty: set[str] = set()
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = False
        # Each table's latest state and presence, in memory for the boards (also in the store, for a
        # restart): a board's view then parses nothing.
        self.live: dict[int, dict[str, Any]] = store.tables()
        self.received = 0  # entries received, duplicates included (for the bench and the tests)
        self.duplicates = 0

    # -- the organiser's actions (call them on the hub's loop, or through ``call``) ----------

    def seat_round(self, final: bool = False) -> tuple[int, list[str]]:
        """Seat the next round (the game's tournament seating, or a league night's; pins kept) or
        the final (the top in seed order); publish each table's seating. Returns the round and
        notes on pins."""
        notes: list[str] = []
        tour = scoring.tournament(self.store.game)
        if final:
            # ties left at the top are drawn once, kept in the event: the seeds stand on a restart
            self.store.put("toss", {})
            if tour is not None:
                self.store.put("toss", scoring.toss_for_final(self.store.standings(), game=self.store.game))
            tables = [scoring.finalists(self.store.standings(), self.store.game)]
        else:
            active = [p for p in self.store.players(active_only=True)]
            names = [p["name"] for p in active]
            if tour is not None:
                previous = [self.store.seating(r["round"]) for r in self.store.rounds() if not r["final"]]
                pins = {p["name"]: p["pinned"] for p in active if p["pinned"]}
                if tour.staggered(len(names)):
                    tables = self._staggered(previous, names, tour)
                    notes = seating.apply_pins(tables, pins)
                    seated = {p for table in tables for p in table}
                    notes += [t("venue.seating.sits_out", name=n)
                              for n in sorted(set(names) - seated, key=scoring.natural)]
                else:
                    tables, notes = seating.seat_round(tour, previous, names, pins, self.seat_iterations)
            else:
                from companion.table.data import load_table

                data = load_table(self.store.game)
                tables, out = league_tables(names, {p["name"]: p["pinned"] for p in active if p["pinned"]},
                                            data.seats_min, data.seats_max)
                notes = [t("venue.seating.sits_out", name=name) for name in out]
        number = self.store.add_round(tables, final=final)
        for n in range(1, len(tables) + 1):
            self._mark(topics.hub_topic(self.event, "seating", n))
        self._notify({"type": "round", "round": number})
        return number, notes

    def _staggered(self, previous: list[list[list[str]]], names: list[str], tour: Any) -> list[list[str]]:
        """The next round of the event's staggered plan; a new plan when there is none, when the
        players changed (a drop, a late arrival) or when the last one is fully seated (a new cycle:
        everyone plays as many games again). The plan is kept in the event, so a restarted hub
        goes on with it."""
        plan = self.store.get("stagger")
        done = len(previous) - plan["start"] if plan else 0
        if not plan or sorted(plan["players"]) != sorted(names) or done >= len(plan["rounds"]):
            games = int(self.store.get("rounds", 2) or 2)
            plan = {"players": sorted(names), "start": len(previous),
                    "rounds": tour.plan_staggered(previous, names, games, self.seat_iterations)}
            self.store.put("stagger", plan)
            done = 0
        return [list(table) for table in plan["rounds"][done]]

    def start_clock(self, minutes: float, round_no: int | None = None) -> None:
        current = self.store.current_round()
        if current is None:
            return
        number = round_no or current["round"]
        self.store.set_clock(number, self.clock(), float(minutes) * 60, "running")
        self._mark(topics.hub_topic(self.event, "clock"))
        self._notify({"type": "clock"})

    def stop_clock(self) -> None:
        current = self.store.current_round()
        if current is None:
            return
        self.store.set_clock(current["round"], current["started"], current["duration"], "over")
        self._mark(topics.hub_topic(self.event, "clock"))
        self._notify({"type": "clock"})

    def override(self, round_no: int, table_no: int, body: dict[str, Any], reason: str) -> str | None:
        problem = self.store.override(round_no, table_no, body, reason)
        if problem is None:
            self._mark(topics.hub_topic(self.event, "result", table_no))
            self._notify({"type": "result", "table": table_no})
        return problem

    def judge_done(self, call_id: int) -> bool:
        done = self.store.judge_done(call_id)
        self._notify({"type": "judge"})
        return done

    # -- what the boards read ---------------------------------------------------------------

    def clock_message(self) -> dict[str, Any] | None:
        current = self.store.current_round()
        if current is None or current["started"] is None:
            return None
        return {"round": current["round"], "start": current["started"], "duration": current["duration"],
                "state": current["state"], "final": current["final"]}

    def public_view(self) -> dict[str, Any]:
        current = self.store.current_round()
        round_no = current["round"] if current else None
        return {"event": self.event, "game": self.store.game, "round": round_no,
                "final": bool(current and current["final"]), "clock": self.clock_message(), "now": self.clock(),
                "seating": self.store.seating(round_no) if round_no else [],
                "standings": _ranked(self.store.standings())}

    def organiser_view(self) -> dict[str, Any]:
        view = self.public_view()
        round_no = view["round"]
        tables = self.live
        results = {r["table"]: _worded(r) for r in self.store.results(round_no)} if round_no else {}
        view.update(
            players=self.store.players(),
            tables=[{"table": n, "online": t["online"], "updated": t["updated"], "state": _slim(t["state"]),
                     "acked": self.store.acked(n), "result": results.get(n)} for n, t in sorted(tables.items())],
            results=[_worded(r) for r in self.store.results(round_no)] if round_no else [],
            judge_calls=self.store.judge_calls(),
            rounds=self.store.rounds(),
        )
        return view

    # -- MQTT ---------------------------------------------------------------------------------

    def _mark(self, topic: str) -> None:
        self._dirty.add(topic)
        self._poke()

    def _poke(self) -> None:
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    def _notify(self, message: dict[str, Any]) -> None:
        """Tell the boards (safe from any thread: the queues live on the hub's loop)."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if self._loop is not None and running is not self._loop:
            self._loop.call_soon_threadsafe(self._notify_now, message)
        else:
            self._notify_now(message)

    def _notify_now(self, message: dict[str, Any]) -> None:
        for q in list(self.listeners):
            if q.qsize() < 1000:  # a board that stopped reading is not fed forever
                q.put_nowait(message)

    def stop(self) -> None:
        self._stopping = True
        self._poke()

    def _retained(self, topic: str) -> dict[str, Any] | None:
        """What a retained hub topic holds now, from the store."""
        p = topics.hub_topic(self.event, "")
        what = topic[len(p):].split("/")
        if what[0] == "clock":
            return self.clock_message()
        n = int(what[1])
        if what[0] == "ack":
            return {"seq": self.store.acked(n)}
        if what[0] == "seating":
            current = self.store.current_round()
            tables = self.store.seating(current["round"]) if current else []
            if not current or n > len(tables):
                return None
            return {"round": current["round"], "table": n, "players": tables[n - 1], "game": self.store.game,
                    "final": current["final"]}
        if what[0] == "result":
            rows = [r for r in self.store.results() if r["table"] == n]
            if not rows:
                return None
            last = rows[-1]
            return {"round": last["round"], "status": "validated" if last["status"] == "override" else last["status"],
                    "reason": last["reason"] if last["status"] == "refused" else ""}
        return None

    def _all_retained(self) -> set[str]:
        out = {topics.hub_topic(self.event, "clock")}
        current = self.store.current_round()
        count = len(self.store.seating(current["round"])) if current else 0
        for n in set(range(1, count + 1)) | set(self.live):
            out |= {topics.hub_topic(self.event, w, n) for w in ("ack", "seating", "result")}
        return out

    async def run(self, ready: asyncio.Event | None = None) -> None:
        """Connect, serve, reconnect, until ``stop``."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        pause = RETRY[0]
        while not self._stopping:
            try:
                await self._serve(ready)
                pause = RETRY[0]
            except aiomqtt.MqttError as exc:
                log.info("venue hub: broker not reachable (%s)", exc)
            except tlspin.PinMismatch:
                self.refused = t("venue.tls.hub_wrong_pin", host=self.host)
                log.warning("venue hub: %s", self.refused)
            except (OSError, TimeoutError) as exc:
                log.info("venue hub: broker not reachable over TLS (%s)", exc)
            self.connected = False
            self._notify({"type": "broker", "connected": False})
            if self._stopping:
                break
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), pause)
            except TimeoutError:
                pass
            pause = min(pause * 2, RETRY[1])

    async def _serve(self, ready: asyncio.Event | None) -> None:
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = SESSION_EXPIRY
        context = await tlspin.context_for(self.host, self.port, self.pin) if self.tls else None
        client = aiomqtt.Client(self.host, self.port, username=self.user, password=self.password,
                                identifier=f"tc-{topics.event_slug(self.event)}-hub",
                                protocol=aiomqtt.ProtocolVersion.V5, clean_start=False, properties=props,
                                keepalive=10, timeout=TIMEOUT, tls_context=context)
        async with client:
            self.connected = True
            # the reader first: it ends with the connection, and every call to the broker with it
            reader = asyncio.create_task(self._read(client))
            # a lost connection ends the wait below at once (not a reader cancelled on the way out)
            reader.add_done_callback(lambda task: task.cancelled() or self._poke())
            try:
                base = f"{topics.prefix(self.event)}/table/+/"
                await while_connected(client.subscribe([(base + "entry", 1), (base + "state", 1),
                                                        (base + "presence", 1)]), reader)
                self._dirty |= self._all_retained()
                self._notify({"type": "broker", "connected": True})
                if ready is not None:
                    ready.set()
                while not self._stopping:
                    await self._flush(client, reader)
                    if reader.done():
                        reader.result()
                        return
                    assert self._wake is not None
                    self._wake.clear()
                    try:
                        await asyncio.wait_for(self._wake.wait(), 1.0)
                    except TimeoutError:
                        pass
            finally:
                reader.cancel()

    async def _flush(self, client: aiomqtt.Client, reader: asyncio.Task[None]) -> None:
        while self._dirty:
            topic = self._dirty.pop()
            body = self._retained(topic)
            payload = b"" if body is None else json.dumps(body, ensure_ascii=False).encode()
            try:
                # given up with the connection: published again on the next one (all retained topics are)
                await while_connected(client.publish(topic, payload, qos=1, retain=True), reader)
            except aiomqtt.MqttError:
                self._dirty.add(topic)
                raise

    async def _read(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            try:
                self.handle(str(message.topic), message.payload)
            except Exception:  # one bad message never stops the hub
                log.exception("venue hub: message on %s", message.topic)

    def handle(self, topic: str, payload: Any) -> None:
        where = topics.parse_table_topic(self.event, topic)
        if where is None:
            return
        table_no, what = where
        try:
            data = json.loads(payload) if payload else None
        except (ValueError, TypeError):
            return
        if not isinstance(data, dict):
            return
        if what == "entry":
            self._entry(table_no, data)
        elif what == "state":
            if data.get("table") == table_no:
                self.store.set_table_state(table_no, state=data)
                self._live(table_no).update(state=data, updated=time.time())
                self._notify({"type": "table", "table": table_no, "ts": data.get("ts"), "seq": data.get("seq")})
        elif what == "presence":
            self.store.set_table_state(table_no, online=bool(data.get("online")))
            self._live(table_no).update(online=bool(data.get("online")), updated=time.time())
            self._notify({"type": "presence", "table": table_no, "online": bool(data.get("online"))})

    def _live(self, table_no: int) -> dict[str, Any]:
        return self.live.setdefault(table_no, {"state": None, "online": False, "updated": 0.0})

    def _entry(self, table_no: int, data: dict[str, Any]) -> None:
        seq, kind, body = data.get("seq"), data.get("kind"), data.get("body")
        # The topic says which table sent it (the broker's ACL vouches for that); the body cannot.
        if data.get("table") != table_no or not isinstance(seq, int) or seq < 1 or \
                kind not in ("journal", "result", "judge") or not isinstance(body, dict):
            return
        self.received += 1
        if self.store.apply_entry(table_no, seq, kind, body):
            if kind == "result":
                self._mark(topics.hub_topic(self.event, "result", table_no))
                self._notify({"type": "result", "table": table_no})
            elif kind == "judge":
                self._notify({"type": "judge", "table": table_no})
        else:
            self.duplicates += 1
        self._mark(topics.hub_topic(self.event, "ack", table_no))


def _ranked(standings: list[scoring.Standing]) -> list[dict[str, Any]]:
    # the games played: with staggered rounds, mid-cycle, not everyone has played as many
    return [dict(s.to_json(), rank=r, games=s.games) for s, r in zip(standings, scoring.ranks(standings), strict=True)]


def _slim(message: dict[str, Any] | None) -> dict[str, Any] | None:
    """What the organiser's board shows of a table's state message: whose turn, the phase, each
    seat's counters (the full state and the journal lines stay on the hub for judge calls)."""
    if not message or not isinstance(message.get("state"), dict):
        return message
    st = message["state"]
    seats = [{"name": x.get("name"), "counters": x.get("counters"), "out": x.get("out")}
             for x in st.get("seats", []) if isinstance(x, dict)]
    return {k: message.get(k) for k in ("table", "ts", "round", "game", "seq", "clock_left")} | {
        "state": {"active": st.get("active"), "phase": st.get("phase_name") or st.get("phase"), "over": st.get("over"),
                  "winner": st.get("winner"), "seats": seats}}


def _worded(result: dict[str, Any]) -> dict[str, Any]:
    """A result with its status and reason in the organiser's language, for the board."""
    reason = str(result.get("reason") or "")
    return dict(result, status_text=t(f"venue.status.{result['status']}"),
                reason_text=t(reason) if reason.startswith("venue.") else reason)


def league_tables(names: list[str], pinned: dict[str, int], low: int = 2,
                  high: int = 5) -> tuple[list[list[str]], list[str]]:
    """A league night: tables of 4 (or the game's most, if fewer), the rest spread over them while
    the game allows, else sitting this round out; shuffled. Returns the tables and who sits out."""
    import random

    names = list(names)
    random.shuffle(names)
    size = max(low, min(4, high))
    count = max(1, len(names) // size)
    tables = [names[i * size:(i + 1) * size] for i in range(count)]
    rest = names[count * size:]
    out: list[str] = []
    for i, name in enumerate(rest):
        table = tables[i % count]
        (table if len(table) < high else out).append(name)
    tables = [t for t in tables if len(t) >= low]
    seating.apply_pins(tables, pinned)
    return tables, out
