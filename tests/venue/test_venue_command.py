"""``python -m companion venue``: the hub as an organiser starts it, its own Mosquitto, its
enrolment line, and a resume after kill -9 (the event in SQLite, the broker taken over)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request

from companion.play.session import Session
from companion.venue.link import TableLink, VenueAddress
from tests.venue.helpers import ROOT, needs_mosquitto, wait_for

pytestmark = needs_mosquitto


def _start(folder, *extra: str) -> tuple[subprocess.Popen, dict]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), COMPANION_LANG="fr")
    proc = subprocess.Popen([sys.executable, "-m", "companion", "venue", "--event", "Soirée test", "--json",
                             "--port", "0", "--mqtt-port", "0", "--folder", str(folder), "--tables", "3", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    assert line, proc.stderr.read()
    return proc, json.loads(line)


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def test_the_hub_enrols_tables_and_resumes_after_kill_9(tmp_path):
    players = tmp_path / "players.txt"
    players.write_text("\n".join(f"Joueur {i}, 10000{i}" for i in range(1, 11)), encoding="utf-8")
    folder = tmp_path / "event"
    proc, info = _start(folder, "--players", str(players))
    link = None
    try:
        assert [t["table"] for t in info["tables"]] == [1, 2, 3]
        assert info["tables"][0]["qr"].startswith("data:image/svg+xml")
        assert (folder / "broker" / "acl").exists() and (folder / "broker" / "passwd").exists()
        token = info["board"].split("token=")[1]
        base = info["public"].rsplit("/", 1)[0]
        assert len(_get(f"{base}/api/organiser?token={token}")["players"]) == 10
        address = VenueAddress.parse(info["tables"][1]["url"], 2)
        session = Session(journal_path=tmp_path / "t2" / "games.sqlite3")
        link = TableLink(session, address).start()
        assert session.new_game("vtes", ["A", "B", "C", "D", "E"], seed=1).ok
        assert session.apply("pool 1 -4").ok
        wait_for(lambda: link.outbox.pending() == [], what="acknowledged by the hub")
        # kill -9 the hub; the table plays on; the broker it started keeps queueing
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert session.apply("pool 2 -1").ok and session.apply("next").ok
        proc, info2 = _start(folder)
        assert info2["broker"] == info["broker"] and info2["tables"][1]["url"] == info["tables"][1]["url"]
        base = info2["public"].rsplit("/", 1)[0]
        wait_for(lambda: link.outbox.pending() == [], timeout=60, what="caught up with the new hub")
        view = _get(f"{base}/api/organiser?token={token}")
        assert len(view["players"]) == 10  # the event resumed: same registrations, same token
        table2 = next(t for t in view["tables"] if t["table"] == 2)
        assert table2["acked"] == link.outbox.last_seq()
        assert table2["state"]["state"]["seats"][1]["counters"]["pool"] == 29
        link.stop()
        link = None
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
        pid = int((folder / "broker" / "mosquitto.pid").read_text())
        wait_for(lambda: not os.path.exists(f"/proc/{pid}") or
                 open(f"/proc/{pid}/stat").read().split(")")[-1].split()[0] == "Z", what="the broker stopped")
    finally:
        if link is not None:
            link.stop(drain=0)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        pidfile = folder / "broker" / "mosquitto.pid"
        if pidfile.exists():
            try:
                os.kill(int(pidfile.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_without_mosquitto_it_says_what_to_install(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), COMPANION_LANG="fr", PATH=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "companion", "venue", "--event", "x", "--folder",
                           str(tmp_path / "e")], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2
    assert "sudo apt-get install -y mosquitto" in done.stderr
