"""``serve``'s terminal, the host's screen when there is no window: the invitations (a link, a code
and a QR code per seat), then one-letter keys typed as lines:

    p        the phones joined, per seat (and the devices waiting for an answer)
    a K      accept waiting device K;   n K   refuse it
    r N      take seat N back from all its phones (a new code);   r N.M   its phone M only

Lines come from a thread reading standard input; the server's news (a device waiting) is printed
from the server's thread. Each printed line is whole (``print`` with flush), so they never mix.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import IO, Any

from companion.i18n import t
from companion.web.invite import qr_terminal


class HostTerminal:
    def __init__(self, server: Any, out: IO[str] | None = None, qr: bool = True) -> None:
        self.server = server
        self.out = out or sys.stdout
        self.qr = qr
        self._numbers: dict[int, str] = {}  # the short numbers the host types, to pending ids
        self._next = 1
        self._lock = threading.Lock()
        server.on_pending = self.waiting

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def invitations(self, lan_hint: bool) -> None:
        invitation = self.server.invitations()
        self.say(t("phones.serving", url=invitation["url"]))
        if lan_hint:
            self.say(t("phones.loopback_only"))
        for seat in invitation["seats"]:
            self.say(f"  {seat['seat']} {seat['name']}: {seat['join']}  ({t('phones.code', code=seat['code'])})")
            if self.qr:
                self.out.write(qr_terminal(seat["join"]))
        self.say(f"  {t('phones.spectator', url=invitation['spectator'])}")
        self.say(t("phones.keys_help"))

    # -- the server's news ------------------------------------------------------------------

    def waiting(self, pending: Any) -> None:
        with self._lock:
            number = self._next
            self._next += 1
            self._numbers[number] = pending.id
        name = self.server.runtime.seat_name(pending.seat)
        self.say(t("phones.device_waiting", n=number, seat=pending.seat, name=name, address=pending.address))

    # -- the host's keys --------------------------------------------------------------------

    def listen(self, stream: IO[str] | None = None) -> threading.Thread:
        thread = threading.Thread(target=self._read, args=(stream or sys.stdin,), name="serve-keys", daemon=True)
        thread.start()
        return thread

    def _read(self, stream: IO[str]) -> None:
        try:
            for line in stream:
                self.key(line)
        except (OSError, ValueError):
            pass  # no terminal (a service): nothing to read

    def key(self, line: str) -> None:
        words = line.strip().split()
        if not words:
            return
        key, arg = words[0].lower(), (words[1] if len(words) > 1 else "")
        if key == "p":
            self.list_phones()
        elif key in ("a", "n"):
            pending = self._numbers.pop(int(arg), None) if arg.isdigit() else None
            if pending is None or not self.server.answer(pending, approve=key == "a"):
                self.say(t("phones.no_such_waiting", n=arg))
            else:
                self.say(t("phones.accepted" if key == "a" else "phones.refused", n=arg))
        elif key == "r":
            seat, _, device = arg.partition(".")
            if not seat.isdigit():
                self.say(t("phones.keys_help"))
            elif device:
                ok = device.isdigit() and self.server.revoke_device(int(seat), int(device))
                self.say(t("phones.revoked_device", seat=seat, n=device) if ok else t("phones.no_such_phone", n=arg))
            else:
                fresh = self.server.revoke(int(seat))
                if fresh is None:
                    self.say(t("phones.no_such_phone", n=arg))
                else:
                    self.say(t("phones.revoked_seat", seat=seat, code=fresh.code))
        else:
            self.say(t("phones.keys_help"))

    def list_phones(self) -> None:
        for seat in self.server.phones():
            self.say(t("phones.seat_phones", seat=seat["seat"], name=seat["name"], count=len(seat["devices"])))
            for number, device in enumerate(seat["devices"], 1):
                since = time.strftime("%H:%M", time.localtime(device["since"]))
                state = t("phones.online") if device["online"] else t("phones.offline")
                self.say(f"    {seat['seat']}.{number}  {device['label']}  {since}  {state}")
        with self._lock:
            numbers = dict(self._numbers)
        waiting = {p.id: p for p in self.server.waiting()}
        for number, pending_id in numbers.items():
            pending = waiting.get(pending_id)
            if pending is not None:
                self.say(t("phones.device_waiting", n=number, seat=pending.seat,
                           name=self.server.runtime.seat_name(pending.seat), address=pending.address))
