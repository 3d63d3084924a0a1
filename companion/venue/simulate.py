"""``venue --simulate N --rounds R``: a whole event played on this machine, for a demo, the tests
and the bench. A real Mosquitto, the real hub, and N real tables (a Session each, its own journal,
its TableLink), seated by the game's tournament, playing random but legal games (the tournament's
``play_some``), confirming their results; then the final of the top. With ``--json`` the last
line is the final standings.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion import registry
from companion.i18n import t
from companion.play.session import Session
from companion.venue import scoring
from companion.venue.broker import Broker, BrokerFailed, BrokerMissing
from companion.venue.event import EventStore
from companion.venue.hub import Hub
from companion.venue.link import TableLink, VenueAddress
from companion.venue.runner import HubThread

EVENT = "simulation"


def _tournament_game() -> str:
    """The game the simulation plays: a tournament (the first game that has its own)."""
    return next((g for g in registry.ids() if scoring.tournament(g) is not None), registry.ids()[0])


def wait(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.05)


def play_some(session: Session, rng: random.Random, moves: int) -> None:
    """A few legal changes, the game's tournament's own (its ``play_some``); a game with none
    only passes turns."""
    game = session.game
    if game is None:
        return
    tour = scoring.tournament(game.data.id)
    apply = lambda line: session.apply(line, source="script")  # noqa: E731
    if tour is not None and hasattr(tour, "play_some"):
        tour.play_some(apply, lambda: game.state, rng, moves)
        return
    for _ in range(moves):
        if game.state.get("over"):
            return
        apply("next")


SEAT_ITERATIONS = 2000  # the seating search of a simulated event: shorter than a real one's (the hub's)


class Simulation:
    """The pieces of a simulated venue, for the command, the tests and the bench."""

    def __init__(self, tables: int, folder: Path, seed: int | None = None, seat_iterations: int = SEAT_ITERATIONS,
                 players: int | None = None) -> None:
        self.folder = folder
        self.rng = random.Random(seed)
        self.broker = Broker(folder / "broker", EVENT, tables)
        self.store = EventStore(folder / "event.sqlite3", EVENT, _tournament_game())
        count = players if players is not None else 5 * tables
        for i in range(1, count + 1):
            self.store.register(f"Joueur {i:02d}", f"{1000000 + i}")
        self.hub: HubThread | None = None
        self.seat_iterations = seat_iterations
        self.links: dict[int, TableLink] = {}

    def start(self) -> Simulation:
        self.broker.start()
        self.hub = HubThread(Hub(self.store, "127.0.0.1", self.broker.port, self.broker.credentials.hub,
                                 seat_iterations=self.seat_iterations)).start()
        wait(lambda: self.hub is not None and self.hub.hub.connected, 30, "the hub connected")
        return self

    def table(self, n: int) -> TableLink:
        if n not in self.links:
            session = Session(journal_path=self.folder / f"table-{n}" / "games.sqlite3")
            address = VenueAddress("127.0.0.1", self.broker.port, EVENT, n, self.broker.credentials.tables[n])
            self.links[n] = TableLink(session, address, auto_start=True).start()
        return self.links[n]

    def play_round(self, final: bool = False, moves: int = 12) -> int:
        assert self.hub is not None
        round_no, _ = self.hub.call(self.hub.hub.seat_round, final)
        seated = self.store.seating(round_no)
        self.hub.call(self.hub.hub.start_clock, 120)
        links = [self.table(n) for n in range(1, len(seated) + 1)]
        for link, players in zip(links, seated, strict=True):
            wait(lambda link=link, players=players: link.session.game is not None
                 and link.session.seat_names == players and link.seating is not None
                 and link.seating.get("round") == round_no, 60, "a table started its seated game")
        for link in links:
            play_some(link.session, self.rng, moves)
            link.confirm_result("simulation", time_called=not link.session.game.state.get("over"))
        wait(lambda: len([r for r in self.store.results(round_no) if r["status"] == "validated"]) == len(seated),
             120, "every result validated")
        self.hub.call(self.hub.hub.stop_clock)
        return round_no

    def summary(self) -> dict[str, Any]:
        ranked = self.store.standings()
        finals = self.store.counted(final=True)
        final: list[str] = []
        if finals:
            r = finals[-1]
            order = sorted(range(len(r["players"])), key=lambda i: -r["vp"][i])
            final = [r["players"][i] for i in order]
        rounds = [r for r in self.store.rounds() if not r["final"]]
        return {"tables": len(self.store.seating(rounds[0]["round"])) if rounds else 0, "rounds": len(rounds),
                "players": [s.to_json() for s in ranked], "final": final}

    def stop(self) -> None:
        for link in self.links.values():
            link.stop(drain=1.0)
            link.session.close()
        if self.hub is not None:
            self.hub.stop()
        self.broker.stop()
        self.store.close()


def main(tables: int, rounds: int, as_json: bool = False, seed: int | None = None,
         seat_iterations: int | None = None) -> int:
    """``venue --simulate``; ``seat_iterations``: None for a simulation's own (SEAT_ITERATIONS)."""
    iterations = SEAT_ITERATIONS if seat_iterations is None else seat_iterations
    with tempfile.TemporaryDirectory(prefix="venue-sim-") as tmp:
        try:
            sim = Simulation(tables, Path(tmp), seed=seed, seat_iterations=iterations).start()
        except BrokerMissing as exc:
            print(t("venue.no_mosquitto", hint=str(exc)), file=sys.stderr)
            return 2
        except BrokerFailed as exc:
            print(t("venue.broker_failed", error=str(exc)), file=sys.stderr)
            return 2
        try:
            for _ in range(rounds):
                number = sim.play_round()
                if not as_json:
                    print(t("venue.sim.round", round=number, tables=tables), flush=True)
            sim.play_round(final=True)
            summary = sim.summary()
        finally:
            sim.stop()
    if as_json:
        print(json.dumps(summary, ensure_ascii=False), flush=True)
    else:
        for i, p in enumerate(summary["players"], 1):
            print(f"{i:3d}. {p['name']}  GW {p['gw']}  VP {p['vp']:g}  TP {p['tp']:g}")
        print(t("venue.sim.final", names=", ".join(summary["final"])))
    return 0
