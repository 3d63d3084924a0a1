"""``python -m companion serve``: the table with no window, the players' phones as its screens.

Runs a game (``--game``/``--players`` or ``--resume``), the readers (``--reader PATH@SEAT``), and the
phone server; with ``--json`` the first line printed is the invitation (URL, the game's id, one
join link, code and token per seat, the spectator link). Binds to 127.0.0.1 unless ``--lan`` (this
machine's LAN address) or ``--host`` says otherwise: phones on the Wi-Fi need ``--lan``. HTTPS with
``--cert``/``--key``. The terminal then takes the host's keys (``terminal``: the phones, approvals,
revocations). Runs until Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import queue
import signal
import ssl
import sys
import threading
from typing import Any

from companion import registry
from companion.i18n import language, t


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", help=f"the game: {registry.help_list()}")
    p.add_argument("--players", help='player names in table order, e.g. "Ann,Bob"')
    p.add_argument("--seed", type=int, help="seed of the random draws")
    p.add_argument("--first", metavar="NAME", help="the first player the table chose (default: drawn at random)")
    p.add_argument("--resume", type=int, metavar="ID", help="go on with a saved game")
    p.add_argument("--journal", help="SQLite journal (default: the user data directory's games.sqlite3)")
    p.add_argument("--host", help="address to listen on (default 127.0.0.1; with --lan, this machine's LAN address)")
    p.add_argument("--lan", action="store_true", help="let phones on the same network join (listens on the LAN)")
    p.add_argument("--port", type=int, default=8765, help="port (0: any free one); default 8765")
    p.add_argument("--reader", action="extend", nargs="+", default=[], metavar="PATH[@SEAT]",
                   help="reader path, @SEAT binds it to a seat (its cards are private once that seat has a phone)")
    p.add_argument("--json", action="store_true", help="print the invitation as one JSON line first")
    p.add_argument("--cert", help="TLS certificate (PEM) to serve HTTPS (Web NFC on Android needs a trusted one)")
    p.add_argument("--key", help="the certificate's private key (PEM)")
    p.add_argument("--no-qr", action="store_true", help="do not draw the QR codes in the terminal")
    p.add_argument("--speak", action="store_true", help="speak on this machine's loudspeaker too")


def run(args: argparse.Namespace) -> int:
    from companion.play.runtime import Runtime
    from companion.web.invite import lan_address
    from companion.web.server import PhoneServer
    from companion.web.terminal import HostTerminal

    lang = language()
    runtime = Runtime(journal_path=args.journal, lang=lang, speak=args.speak)
    laid: queue.Queue[Any] = queue.Queue()
    runtime.scans.deliver = laid.put  # reader threads only queue; cards are laid on this thread
    # From the start: whoever reads the invitation may stop the server at once (systemd, a script),
    # and the game must then be closed cleanly, not killed.
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    if hasattr(signal, "SIGHUP"):  # the terminal closed: the same clean end
        signal.signal(signal.SIGHUP, lambda *_: stop.set())
    try:
        if args.reader:
            try:
                runtime.scans.open(args.reader)
            except ValueError as exc:
                print(t("error.bad_reader", path=str(exc)), file=sys.stderr)
                return 2
        threading.Thread(target=runtime.load_cards, daemon=True, name="cards").start()
        session = runtime.session
        if args.resume is not None:
            result = session.resume(args.resume, source="key")
        elif args.game:
            names = [n.strip() for n in (args.players or "").split(",") if n.strip()]
            result = session.new_game(args.game, names, seed=args.seed, source="key", first=args.first)
        else:
            print(t("phones.need_game"), file=sys.stderr)
            return 2
        if not result.ok:
            print(t("console.table_error", error=result.reason_text(lang)), file=sys.stderr)
            return 2
        # --lan listens on this machine's LAN address only, never on every interface at once.
        host = args.host or (lan_address() if args.lan else "127.0.0.1")
        public = lan_address() if host in ("0.0.0.0", "::") else host
        context = None
        if args.cert or args.key:
            try:
                context = tls_context(args.cert, args.key)
            except (OSError, ValueError, ssl.SSLError) as exc:
                print(t("phones.bad_cert", error=str(exc)), file=sys.stderr)
                return 2
        server = PhoneServer(runtime, host=host, port=args.port, public_host=public, ssl_context=context)
        try:
            server.start()
        except OSError as exc:
            print(t("phones.cannot_listen", host=host, port=args.port, error=str(exc)), file=sys.stderr)
            return 2
        terminal = HostTerminal(server, qr=not args.no_qr and not args.json)
        if args.json:
            print(json.dumps(server.invitations(), ensure_ascii=False), flush=True)
        else:
            if args.lan:
                print(t("phones.lan_address", address=public), flush=True)
            terminal.invitations(lan_hint=public.startswith("127.") or public in ("::1", "localhost"))
        terminal.listen()
        try:
            while not stop.is_set():
                try:
                    runtime.lay(laid.get(timeout=0.2))
                except queue.Empty:
                    continue
        except KeyboardInterrupt:
            pass
        server.stop()
        game = session.game
        print(t("talk.bye_game", id=game.id) if game is not None else t("console.bye"), file=sys.stderr)
        return 0
    finally:
        runtime.close()


def tls_context(cert: str | None, key: str | None) -> ssl.SSLContext:
    """A server TLS context from a certificate and its key (both needed)."""
    if not cert or not key:
        raise ValueError("--cert and --key go together")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context
