"""``python -m companion venue``: the organiser's hub.

    venue --event NAME [--game G] [--broker mqtt(s)://hub:PASSWORD@HOST:PORT[?pin=SHA256]] [--port P] [--lan] [--json]
          [--cert PEM --key PEM]
    venue --simulate N --rounds R [--json]

Without ``--broker`` it runs its own Mosquitto (config, password and ACL files in the event's
folder), or takes over the one a killed hub left running. The event lives in the folder's SQLite
file, so a hub started again after kill -9 resumes it. With ``--json`` the first line printed
gives the boards' URLs, the broker's URL and each table's enrolment. With ``--cert``/``--key`` the
boards are served over HTTPS (their notices over wss) and the hub's Mosquitto listens with TLS
for the room (its plain listener only on loopback, for the hub): each enrolment is
``mqtts://…?pin=SHA256``, the certificate's fingerprint, so a table trusts exactly that
certificate, self-signed included, and no token, password nor result crosses the room in clear.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import socket
import ssl
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from companion import registry
from companion.i18n import t


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--event", help="the event's name (its folder and topics)")
    p.add_argument("--game", default=registry.ids()[0],
                   help=f"the game: {registry.help_list()} (a VEKN tournament when its data says so, else a "
                        "league night); default: the first")
    p.add_argument("--broker", metavar="URL", help="use this MQTT broker (mqtt://hub:PASSWORD@HOST:PORT, "
                                                   "or mqtts://…?pin=SHA256) instead of starting Mosquitto")
    p.add_argument("--mqtt-port", type=int, default=0, help="port of the hub's own Mosquitto (default: 1884, "
                                                            "or the one it had)")
    p.add_argument("--port", type=int, default=8780, help="port of the boards (0: any free one); default 8780")
    p.add_argument("--lan", action="store_true", help="let tables and screens on the network join")
    p.add_argument("--tables", type=int, default=20, help="how many tables to enrol (default 20)")
    p.add_argument("--players", metavar="FILE", help="register the players of this file (a name per line, "
                                                     "optionally ', VEKN number')")
    p.add_argument("--folder", help="the event's folder (default: the user data directory's venue/NAME)")
    p.add_argument("--json", action="store_true", help="print the enrolment as one JSON line first")
    p.add_argument("--cert", help="TLS certificate (PEM): the boards over HTTPS and the tables' MQTT over TLS "
                                  "(mqtts://, the certificate's fingerprint in each enrolment), so no token, "
                                  "password nor result crosses the network in clear")
    p.add_argument("--key", help="the certificate's private key (PEM)")
    # The seating search's length (default: the hub's own, or a simulation's): shorter in the
    # benches and tests that do not judge the seating.
    p.add_argument("--seat-iterations", type=int, help=argparse.SUPPRESS)
    p.add_argument("--simulate", type=int, metavar="N", help="play a whole event locally: N tables of 5")
    p.add_argument("--rounds", type=int, default=2,
                   help="the games each player plays before the final (default 2); with 6, 7 or 11 players "
                        "(staggered rounds) the hub plans more rounds than that, each player sitting some out; "
                        "with --simulate: the rounds before the final")


def lan_address() -> str:
    """This machine's address on the LAN (the route a packet would take; nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("0.0.0.0", port))
            return True
        except OSError:
            return False


def run(args: argparse.Namespace) -> int:
    if args.simulate:
        from companion.venue.simulate import main as simulate

        return simulate(args.simulate, args.rounds, as_json=args.json, seat_iterations=args.seat_iterations)
    if not args.event:
        print(t("venue.need_event"), file=sys.stderr)
        return 2
    return asyncio.run(_serve(args))


async def _serve(args: argparse.Namespace) -> int:
    from companion import paths
    from companion.venue import board, tlspin, topics
    from companion.venue.broker import Broker, BrokerFailed, BrokerMissing
    from companion.venue.event import EventStore
    from companion.venue.hub import Hub

    context = None
    if args.cert or args.key:
        try:
            context = board.tls_context(args.cert, args.key)
        except (OSError, ValueError, ssl.SSLError) as exc:
            print(t("phones.bad_cert", error=str(exc)), file=sys.stderr)
            return 2
    folder = Path(args.folder) if args.folder else paths.data_dir() / "venue" / topics.event_slug(args.event)
    store = EventStore(folder / "event.sqlite3", args.event, args.game)
    store.put("rounds", max(2, args.rounds))  # the staggered plan's games per player (VEKN rules 3.1.2)
    if args.players:
        for line in Path(args.players).read_text(encoding="utf-8").splitlines():
            name, _, vekn = line.partition(",")
            if name.strip():
                store.register(name.strip(), vekn.strip())
    host = "0.0.0.0" if args.lan else "127.0.0.1"
    public = lan_address() if args.lan else "127.0.0.1"
    broker = None
    mqtt_tls = False  # the hub's own broker: in clear on loopback
    mqtt_pin: str | None = None
    enrolment: list[dict[str, Any]] = []
    if args.broker:
        parts = urlsplit(args.broker)
        mqtt_tls = parts.scheme in ("mqtts", "ssl")
        try:
            pins = parse_qs(parts.query).get("pin")
            mqtt_pin = tlspin.normalise(pins[0]) if pins else None
            if not parts.hostname or (mqtt_pin and not mqtt_tls):
                raise ValueError(args.broker)
        except ValueError:
            print(t("venue.bad_url", url=args.broker), file=sys.stderr)
            return 2
        mqtt_host, mqtt_port = parts.hostname, parts.port or (8883 if mqtt_tls else 1883)
        user, password = unquote(parts.username or "hub"), unquote(parts.password or "")
        broker_url = f"{'mqtts' if mqtt_tls else 'mqtt'}://{mqtt_host}:{mqtt_port}"
        if mqtt_pin:
            try:  # a wrong pin is the organiser's to fix now, not a hub that silently never connects
                await tlspin.context_for(mqtt_host, mqtt_port, mqtt_pin)
            except tlspin.PinMismatch:
                print(t("venue.tls.hub_wrong_pin", host=mqtt_host), file=sys.stderr)
                return 2
            except (OSError, TimeoutError):
                pass  # not up yet: the hub tries again until it is
    else:
        port = args.mqtt_port or int(store.get("mqtt_port", 0)) or (1884 if _free(1884) else 0)
        tls = (args.cert, args.key) if context else None
        try:
            broker = Broker(folder / "broker", args.event, max(args.tables, 1), port=port, host=host, tls=tls)
            broker.start_or_adopt()
        except BrokerMissing as exc:
            print(t("venue.no_mosquitto", hint=str(exc)), file=sys.stderr)
            return 2
        except (BrokerFailed, OSError) as exc:
            print(t("venue.broker_failed", error=str(exc)), file=sys.stderr)
            return 2
        store.put("mqtt_port", broker.port)
        # the hub talks to its own broker on loopback (in clear: that traffic never leaves this machine)
        mqtt_host, mqtt_port, user, password = "127.0.0.1", broker.local_port, "hub", broker.credentials.hub
        broker_url = broker.url(public)
        for n, secret in sorted(broker.credentials.tables.items()):
            url = broker.table_url(n, public)
            enrolment.append({"table": n, "user": topics.table_user(n), "password": secret, "url": url,
                              "command": f"python -m companion run --venue {url} --table {n}", "qr": _qr(url)})
    searched = {} if args.seat_iterations is None else {"seat_iterations": args.seat_iterations}  # else the hub's
    hub = Hub(store, mqtt_host, mqtt_port, password, user=user, **searched, tls=mqtt_tls, pin=mqtt_pin)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    started: asyncio.Future[int] = loop.create_future()
    web_task = asyncio.create_task(board.serve(hub, host, args.port, started, ssl_context=context))
    try:
        try:
            board_port = await started
        except OSError as exc:
            print(t("phones.cannot_listen", host=host, port=args.port, error=str(exc)), file=sys.stderr)
            return 2
        hub_task = asyncio.create_task(hub.run())
        base = f"{'https' if context else 'http'}://{public}:{board_port}"
        info = {"event": args.event, "game": store.game, "board": f"{base}/organiser?token={store.token}",
                "public": f"{base}/tv", "broker": broker_url, "folder": str(folder), "tables": enrolment}
        if args.json:
            print(json.dumps(info, ensure_ascii=False), flush=True)
        else:
            print(t("venue.serving", event=args.event, board=info["board"], public=info["public"], broker=broker_url),
                  flush=True)
            for e in enrolment:
                print(t("venue.table_enrolment", table=e["table"], url=e["command"]), flush=True)
        await stop.wait()
        hub.stop()
        await asyncio.wait_for(hub_task, 15)
        return 0
    finally:
        web_task.cancel()
        try:
            await web_task
        except (asyncio.CancelledError, Exception):
            pass
        if broker is not None:
            broker.stop()
        store.close()


def _qr(url: str) -> str:
    """The enrolment as a QR code (an SVG data URI, made by segno) a table's camera can read."""
    import segno

    return segno.make(url, error="m").svg_data_uri(scale=4)
