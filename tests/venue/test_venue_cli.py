"""A table joins the venue from the command line: ``console --venue URL --table N``, the path a
table's player takes; its journal, a judge call and its result reach the hub."""

from __future__ import annotations

import os
import subprocess
import sys

from companion.table.journal import Journal
from companion.venue.event import EventStore
from companion.venue.hub import Hub
from companion.venue.link import VenueAddress
from companion.venue.runner import HubThread
from tests.venue.helpers import ROOT, needs_mosquitto, wait_for

pytestmark = needs_mosquitto


def test_console_joins_the_venue_and_its_words_reach_the_hub(tmp_path, broker):
    store = EventStore(tmp_path / "event.sqlite3", broker.event, "vtes")
    hub = HubThread(Hub(store, "127.0.0.1", broker.port, broker.credentials.hub)).start()
    try:
        url = VenueAddress("127.0.0.1", broker.port, broker.event, 4, broker.credentials.tables[4]).url()
        journal = tmp_path / "games.sqlite3"
        script = "pool 1 -3\njuge une règle à vérifier\nrésultat\nrésultat ok\n"
        env = dict(os.environ, PYTHONPATH=str(ROOT), COMPANION_LANG="fr")
        done = subprocess.run([sys.executable, "-m", "companion", "console", "--reader", "sim", "--game", "vtes",
                               "--players", "Ann,Bob,Cy,Dee,Eve", "--seed", "2", "--journal", str(journal),
                               "--venue", url, "--table", "4"], input=script, capture_output=True, text=True,
                              env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "Un juge est appelé à la table 4." in done.stdout
        assert "Résultat proposé : Ann 0, Bob 0, Cy 0, Dee 0, Eve 0." in done.stdout
        with Journal(journal) as j:
            game = j.games()[0]
            ids = [e.id for e in j.events(game.id)]
        wait_for(lambda: [e["body"]["event"]["id"] for e in store.entries(4, "journal")] == ids,
                 what="the hub has the table's journal")
        assert "Résultat envoyé à l'organisateur." in done.stdout
        wait_for(lambda: len(store.entries(4, "result")) == 1, what="the result reached the hub")
        # no round was seated: the hub keeps the result and says why it cannot count it
        assert store.results()[0]["reason"] == "venue.check.round"
        calls = store.judge_calls()
        assert [c["table"] for c in calls] == [4]
        assert calls[0]["why"] == "une règle à vérifier" and calls[0]["log"]  # with the table's last lines
        bad = subprocess.run([sys.executable, "-m", "companion", "console", "--venue", "http://nowhere",
                              "--table", "1"], capture_output=True, text=True, env=env, timeout=60)
        assert bad.returncode == 2 and "Adresse de tournoi illisible" in bad.stderr
    finally:
        hub.stop()
        store.close()


def test_serve_joins_the_venue_too(tmp_path, broker):
    import signal

    store = EventStore(tmp_path / "event.sqlite3", broker.event, "vtes")
    hub = HubThread(Hub(store, "127.0.0.1", broker.port, broker.credentials.hub)).start()
    proc = None
    try:
        url = VenueAddress("127.0.0.1", broker.port, broker.event, 5, broker.credentials.tables[5]).url()
        env = dict(os.environ, PYTHONPATH=str(ROOT), COMPANION_LANG="fr")
        proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--game", "vtes", "--players",
                                 "Ann,Bob,Cy,Dee", "--seed", "1", "--journal", str(tmp_path / "g.sqlite3"),
                                 "--port", "0", "--json", "--venue", url, "--table", "5"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        assert proc.stdout.readline().startswith("{")  # the phones' invitation, as without a venue
        wait_for(lambda: (store.tables().get(5) or {}).get("online") is True and store.tables()[5]["state"],
                 what="the served table online, its state in")
        state = store.tables()[5]["state"]["state"]
        assert [s["name"] for s in state["seats"]] == ["Ann", "Bob", "Cy", "Dee"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        wait_for(lambda: store.tables()[5]["online"] is False, what="it said it left")
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        hub.stop()
        store.close()
