"""MQTT over TLS between the tables and the hub's own Mosquitto: with a certificate the broker
listens with TLS for the room (its plain listener only on loopback, for the hub), the enrolment is
``mqtts://…?pin=SHA256`` and a table connects only to the certificate of that fingerprint, so a
self-signed certificate works without installing anything and a table's password is never sent to
an impostor. The certificates are made by a throwaway CA (trustme); 127.0.0.2 stands for the
room's network (still loopback: nothing leaves the machine)."""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import subprocess
import sys
import threading
import urllib.request

import aiomqtt
import pytest

from companion.play.session import Session
from companion.venue import tlspin
from companion.venue.broker import Broker
from companion.venue.event import EventStore
from companion.venue.hub import Hub
from companion.venue.link import TableLink, VenueAddress
from companion.venue.runner import HubThread
from tests.venue.helpers import EVENT, ROOT, EventsBroker, module_events, needs_mosquitto, run, running, wait_for

trustme = pytest.importorskip("trustme")

pytestmark = [needs_mosquitto, pytest.mark.timeout(180)]

ROOM = "127.0.0.2"  # the address the tables reach the hub at (the LAN's stand-in)
NAMES = ["Ann", "Bob", "Cy", "Dee"]


def _cert(tmp_path, name: str = "hub") -> tuple[str, str]:
    # a name no table resolves: the pin, not the host name, is what a table checks
    ca = trustme.CA()
    cert = ca.issue_cert("venue-hub.invalid")
    cert_file, key_file = tmp_path / f"{name}-cert.pem", tmp_path / f"{name}-key.pem"
    cert.cert_chain_pems[0].write_to_path(cert_file)
    cert.private_key_pem.write_to_path(key_file)
    return str(cert_file), str(key_file)


@pytest.fixture(scope="module")
def module_tls_broker(module_folder):
    """The module's TLS Mosquitto; each test that asks for ``tls_broker`` has an event of its own on it."""
    folder = module_folder
    with running(EventsBroker(folder / "broker", module_events(), tables=4, host=ROOM, tls=_cert(folder))) as b:
        yield b


@pytest.fixture
def tls_broker(module_tls_broker):
    return module_tls_broker.next_event()


@pytest.fixture
def own_tls_broker(tmp_path):
    """A TLS Mosquitto for this test alone (it is stopped and taken over)."""
    with running(Broker(tmp_path / "broker", EVENT, tables=4, host=ROOM, tls=_cert(tmp_path))) as b:
        yield b


@pytest.fixture
def hub(tmp_path, tls_broker):
    store = EventStore(tmp_path / "event.sqlite3", tls_broker.event, "vtes")
    h = HubThread(Hub(store, "127.0.0.1", tls_broker.local_port, tls_broker.credentials.hub,
                      seat_iterations=200)).start()
    wait_for(lambda: h.hub.connected, what="the hub connected on its loopback listener")
    try:
        yield h
    finally:
        h.stop()
        store.close()


def _link(tmp_path, url: str, n: int, said: list[str], **kw) -> TableLink:
    session = Session(journal_path=tmp_path / f"table{n}" / "games.sqlite3")
    return TableLink(session, VenueAddress.parse(url), say=said.append, **kw).start()


def test_the_enrolment_is_mqtts_with_the_certificates_pin(tls_broker):
    url = tls_broker.table_url(2, ROOM)
    a = VenueAddress.parse(url)
    assert url.startswith(f"mqtts://table-2:{tls_broker.credentials.tables[2]}@{ROOM}:{tls_broker.port}/")
    assert a.tls and a.pin == tlspin.file_fingerprint(tls_broker.tls[0]) and len(a.pin) == 64
    assert VenueAddress.parse(a.url()) == a
    # the pin as `openssl x509 -fingerprint -sha256` writes it is the same pin
    colons = ":".join(a.pin[i:i + 2] for i in range(0, 64, 2)).upper()
    assert VenueAddress.parse(url.replace(a.pin, colons)).pin == a.pin


def test_a_table_joins_over_tls_plays_and_its_result_is_validated(tmp_path, tls_broker, hub):
    for name in NAMES:
        hub.hub.store.register(name)
    round_no, _ = hub.call(hub.hub.seat_round)
    said: list[str] = []
    link = _link(tmp_path, tls_broker.table_url(1, ROOM), 1, said, auto_start=True)
    try:
        wait_for(lambda: link.session.game is not None, what="the table started its seated game over TLS")
        assert link.connected and link.refused is None
        for line in ["oust 2", "oust 3", "oust 4"]:
            assert link.session.apply(line).ok
        assert link.confirm_result("test")["vp"] == [4.0, 0.0, 0.0, 0.0]
        wait_for(lambda: [r["status"] for r in hub.hub.store.results(round_no)] == ["validated"],
                 what="the result validated by the hub")
        wait_for(lambda: any("Résultat du tour 1 validé" in x for x in said), what="the table told")
    finally:
        link.stop()


def test_a_wrong_pin_refuses_to_connect_and_says_why(tmp_path, tls_broker, hub):
    other = tlspin.file_fingerprint(_cert(tmp_path, "impostor")[0])
    url = tls_broker.table_url(3, ROOM).split("?pin=")[0] + f"?pin={other}"
    said: list[str] = []
    link = _link(tmp_path, url, 3, said)
    try:
        wait_for(lambda: link.refused is not None, what="the table refused the certificate")
        assert link.connections == 0 and not link.connected
        assert said == [f"Le serveur du tournoi {ROOM} ne présente pas le certificat attendu : cette table ne s'y "
                        "connecte pas et son mot de passe n'est pas envoyé. Vérifiez l'adresse donnée par "
                        "l'organisateur."]
        assert link.refused == said[0]
        assert 3 not in hub.hub.store.tables()  # the hub never heard of it
    finally:
        link.stop()


def test_without_the_pin_a_self_signed_certificate_is_refused(tmp_path, tls_broker, hub):
    url = tls_broker.table_url(4, ROOM).split("?pin=")[0]  # mqtts without a pin: the system's CAs only
    said: list[str] = []
    link = _link(tmp_path, url, 4, said)
    try:
        wait_for(lambda: link.refused is not None, what="the untrusted certificate refused")
        assert link.connections == 0 and "certificat" in link.refused
        assert 4 not in hub.hub.store.tables()
    finally:
        link.stop()


def test_plain_mqtt_from_the_room_gets_nothing(tls_broker):
    password = tls_broker.credentials.tables[1]

    async def plain(host: str, port: int) -> None:
        async with aiomqtt.Client(host, port, username="table-1", password=password, timeout=5):
            pass

    # MQTT in clear on the TLS listener: the broker closes the connection without a CONNACK. Read on
    # a bare socket until it closes (an MQTT client only notices when its own timeout runs out).
    answer = _plain_connect(ROOM, tls_broker.port, password)
    assert not answer.startswith(b"\x20"), answer  # 0x20: a CONNACK
    with pytest.raises(aiomqtt.MqttError):  # the hub's plain listener is not on the room's address
        run(plain(ROOM, tls_broker.local_port))
    with pytest.raises(aiomqtt.MqttError):  # TLS without trusting the certificate: refused
        run(_tls_client(ROOM, tls_broker.port, password, ssl.create_default_context()))


def _plain_connect(host: str, port: int, password: str) -> bytes:
    """Send an MQTT 3.1.1 CONNECT for table-1 in clear and return every byte the server sends
    back before it closes the connection."""
    import socket

    def text(value: str) -> bytes:
        data = value.encode()
        return len(data).to_bytes(2, "big") + data

    body = text("MQTT") + bytes([4, 0xC2]) + (60).to_bytes(2, "big") + text("") + text("table-1") + text(password)
    packet = bytes([0x10, len(body)]) + body  # the body is under 128 bytes: one length byte
    answer = b""
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(packet)
        try:
            while chunk := sock.recv(4096):
                answer += chunk
        except ConnectionResetError:
            pass  # the broker's way of closing on this listener
    return answer


async def _tls_client(host: str, port: int, password: str, context: ssl.SSLContext) -> None:
    async with aiomqtt.Client(host, port, username="table-1", password=password, timeout=5, tls_context=context):
        await asyncio.sleep(0)


def test_the_venue_command_runs_its_mosquitto_over_tls(tmp_path):
    cert_file, key_file = _cert(tmp_path)
    (tmp_path / "players.txt").write_text("\n".join(NAMES) + "\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT), COMPANION_LANG="fr")
    proc = subprocess.Popen([sys.executable, "-m", "companion", "venue", "--event", "Soirée TLS", "--json",
                             "--port", "0", "--mqtt-port", "0", "--folder", str(tmp_path / "event"), "--tables", "2",
                             "--cert", cert_file, "--key", key_file],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        info = json.loads(line)
        pin = tlspin.file_fingerprint(cert_file)
        assert info["broker"].startswith("mqtts://")
        url = info["tables"][0]["url"]
        assert url.startswith("mqtts://table-1:") and url.endswith(f"?pin={pin}")
        assert info["tables"][0]["command"] == f"python -m companion run --venue {url} --table 1"
        conf = (tmp_path / "event" / "broker" / "mosquitto.conf").read_text(encoding="utf-8")
        assert f"certfile {os.path.abspath(cert_file)}" in conf
        script = "pool 1 -3\njuge vérifier une carte\nrésultat ok\n"
        done = subprocess.run([sys.executable, "-m", "companion", "console", "--reader", "sim", "--game", "vtes",
                               "--players", ",".join(NAMES), "--seed", "2", "--journal", str(tmp_path / "g.sqlite3"),
                               "--venue", url, "--table", "1"], input=script, capture_output=True, text=True,
                              env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "Résultat envoyé à l'organisateur." in done.stdout
        trusted = ssl.create_default_context()
        trusted.check_hostname = False
        trusted.verify_mode = ssl.CERT_NONE  # the board's own certificate is tested in test_venue_tls.py
        base = info["public"].rsplit("/", 1)[0]
        token = info["board"].split("token=")[1]

        def organiser() -> dict:
            with urllib.request.urlopen(f"{base}/api/organiser?token={token}", timeout=30, context=trusted) as r:
                return json.loads(r.read())

        wait_for(lambda: [c["table"] for c in organiser()["judge_calls"]] == [1], what="the judge call over TLS",
                 every=0.25)  # each look is an HTTPS request to the hub
        wait_for(lambda: organiser()["tables"][0]["acked"] >= 3, what="the table's entries acknowledged", every=0.25)
        # table 2 given a pin that is not the hub's: the console says so and plays on, offline
        wrong = info["tables"][1]["url"].replace(pin, tlspin.file_fingerprint(_cert(tmp_path, "other")[0]))
        console = subprocess.Popen([sys.executable, "-m", "companion", "console", "--reader", "sim", "--game", "vtes",
                                    "--players", ",".join(NAMES), "--journal", str(tmp_path / "g2.sqlite3"),
                                    "--venue", wrong, "--table", "2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True, env=env)
        out: list[str] = []
        reader = threading.Thread(target=lambda: out.extend(iter(console.stdout.readline, "")), daemon=True)
        reader.start()
        try:
            wait_for(lambda: any("ne présente pas le certificat attendu" in x for x in out), timeout=60,
                     what=lambda: f"the refusal said: {out}")
            console.stdin.write("pool 1 -2\n")
            console.stdin.close()
            assert console.wait(timeout=60) == 0
        finally:
            if console.poll() is None:
                console.kill()
                console.wait()
        assert 2 not in {t["table"] for t in organiser()["tables"]}  # nothing of table 2 reached the hub
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_joining_from_the_window_with_a_wrong_pin_says_why_and_stays_unjoined(tmp_path, tls_broker):
    from companion.play.runtime import Runtime
    from companion.venue.join import join
    from companion.venue.link import Refused

    other = tlspin.file_fingerprint(_cert(tmp_path, "impostor")[0])
    url = tls_broker.table_url(2, ROOM).split("?pin=")[0] + f"?pin={other}"
    runtime = Runtime(journal_path=tmp_path / "games.sqlite3", lang="fr")
    try:
        with pytest.raises(Refused, match="ne présente pas le certificat attendu"):
            join(runtime, url, wait=20)
        assert getattr(runtime, "venue", None) is None
    finally:
        runtime.close()


def test_a_hub_started_again_takes_over_its_tls_broker_and_its_loopback_port(tmp_path, own_tls_broker):
    tls_broker = own_tls_broker
    again = Broker(tls_broker.folder, EVENT, tables=4, port=tls_broker.port, host=ROOM, tls=tls_broker.tls)
    assert again.adopt() and again.local_port == tls_broker.local_port  # the hub finds its listener
    # started again without a certificate: the TLS broker is stopped, not taken over in clear
    plain = Broker(tls_broker.folder, EVENT, tables=4, port=tls_broker.port, host=ROOM)
    assert plain.start_or_adopt() is False
    try:
        assert plain.running and not tls_broker.running
        assert "certfile" not in plain.config_path.read_text(encoding="utf-8")
    finally:
        plain.stop()


def test_a_self_signed_certificate_works_with_its_pin(tmp_path):
    ca = trustme.CA()  # its own certificate is self-signed: what `openssl req -x509` makes for a store
    cert_file, key_file = tmp_path / "self-cert.pem", tmp_path / "self-key.pem"
    ca.cert_pem.write_to_path(cert_file)
    ca.private_key_pem.write_to_path(key_file)
    b = Broker(tmp_path / "broker", EVENT, tables=1, host=ROOM, tls=(str(cert_file), str(key_file)))
    b.start()
    said: list[str] = []
    link = _link(tmp_path, b.table_url(1, ROOM), 1, said)
    try:
        wait_for(lambda: link.connected or link.refused is not None, what="the table's answer")
        assert link.connected and said == []
    finally:
        link.stop(drain=0)
        b.stop()


def test_a_hub_on_a_broker_it_does_not_run_connects_over_tls_with_the_pin(tmp_path, tls_broker):
    other = tlspin.file_fingerprint(_cert(tmp_path, "other")[0])
    stores = [EventStore(tmp_path / f"e{i}.sqlite3", tls_broker.event, "vtes") for i in (1, 2)]
    good = HubThread(Hub(stores[0], ROOM, tls_broker.port, tls_broker.credentials.hub, tls=True,
                         pin=tls_broker.pin)).start()
    bad = HubThread(Hub(stores[1], ROOM, tls_broker.port, tls_broker.credentials.hub, tls=True, pin=other)).start()
    try:
        wait_for(lambda: good.hub.connected, what="the hub connected over TLS with the pin")
        assert bad.hub.connected is False and bad.hub.refused is not None
    finally:
        good.stop()
        bad.stop()
        for store in stores:
            store.close()
    env = dict(os.environ, PYTHONPATH=str(ROOT), COMPANION_LANG="fr")
    url = f"mqtts://hub:{tls_broker.credentials.hub}@{ROOM}:{tls_broker.port}?pin={other}"
    done = subprocess.run([sys.executable, "-m", "companion", "venue", "--event", tls_broker.event, "--broker", url,
                           "--port", "0", "--folder", str(tmp_path / "event")],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"Le serveur MQTT {ROOM} ne présente pas le certificat attendu" in done.stderr
