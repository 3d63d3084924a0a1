"""The seats' keys: which devices may act for which seat, how a device joins, and what is kept
of them with the game so that phones survive a crash and ``--resume``.

- Each seat has an invitation token (the host's: ``serve --json`` prints it, the window's QR code
  does not carry it) and a join code. A code joins once: the first device that gives it gets a
  token of its own; any later device for that seat waits for the host's approval (the table
  screen or ``serve``'s terminal), so a code seen or heard across the table is worth nothing.
- Every device has its own token (32 hex digits); only their SHA-256 is kept, in memory and in a
  file beside the journal (``<journal>.phones.json``, mode 0600), per game: a restart of the same
  game knows every phone again, and nothing in the file lets anyone act.
- Revoking a device cuts it alone off; revoking a seat cuts all its devices and draws a new code.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.web.access import check_token, digest, new_code, new_token

log = logging.getLogger(__name__)

PENDING_KEPT = 20  # devices waiting for the host at once (more: the oldest is dropped)
PENDING_TTL = 600.0  # seconds a device may wait for the host's answer


@dataclass
class Device:
    hashed: str
    label: str  # "invitation", or the address it joined from
    since: float  # wall-clock time it joined (shown to the host)


@dataclass
class Seat:
    seat: int  # 1-based
    token: str | None  # the invitation token, in plain only until a restart
    code: str
    code_used: bool = False
    devices: dict[str, Device] = field(default_factory=dict)  # by digest

    @property
    def hashed(self) -> str:
        return next(iter(self.devices), "")


@dataclass
class Pending:
    id: str
    seat: int
    address: str
    since: float
    answer: str = "waiting"  # waiting, approved, denied
    token: str | None = None  # given once, to the device that waited


class SeatKeys:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.game_id: int | None = None
        self.seats: dict[int, Seat] = {}
        self.spectator = new_token()  # read-only, so kept in plain: it shows only the public table
        self.pending: dict[str, Pending] = {}
        self.lock = threading.RLock()

    # -- a game's keys ----------------------------------------------------------------------

    def open(self, game_id: int | None, seat_count: int) -> None:
        """The keys of game ``game_id``: the ones kept with it if it was served before (its phones
        come back with no new code), fresh ones otherwise."""
        with self.lock:
            self.game_id = game_id
            self.pending.clear()
            kept = self._load().get(str(game_id), {}) if game_id is not None else {}
            used: set[str] = set()
            self.seats = {}
            for n in range(1, seat_count + 1):
                code = new_code(used)
                used.add(code)
                old = kept.get("seats", {}).get(str(n))
                if isinstance(old, dict) and isinstance(old.get("devices"), list):
                    devices = {d["hash"]: Device(d["hash"], str(d.get("label", "")), float(d.get("since", 0)))
                               for d in old["devices"] if isinstance(d, dict) and isinstance(d.get("hash"), str)}
                    self.seats[n] = Seat(n, None, code, code_used=bool(devices) and bool(old.get("code_used")),
                                         devices=devices)
                else:
                    token = new_token()
                    self.seats[n] = Seat(n, token, code, devices={digest(token): Device(digest(token), "invitation",
                                                                                         time.time())})
            if isinstance(kept.get("spectator"), str) and len(kept["spectator"]) == 32:
                self.spectator = kept["spectator"]
            else:
                self.spectator = new_token()
            self._save()

    def who(self, token: str) -> tuple[str, int | None, str]:
        """("seat", n, digest), ("spectator", None, ""), ("nobody", None, ""); ``BadToken`` if malformed."""
        check_token(token)
        hashed = digest(token)
        with self.lock:
            for seat in self.seats.values():
                if hashed in seat.devices:
                    return "seat", seat.seat, hashed
        if secrets.compare_digest(self.spectator, token):
            return "spectator", None, ""
        return "nobody", None, ""

    # -- joining ----------------------------------------------------------------------------

    def seat_of_code(self, code: str) -> Seat | None:
        if not code or len(code) > 16:
            return None
        with self.lock:
            return next((s for s in self.seats.values()
                         if secrets.compare_digest(s.code.encode(), code.encode("utf-8", "replace"))), None)

    def join(self, code: str, address: str) -> dict[str, Any] | None:
        """A device gives a code: its own token if the code was never used, else a pending id the
        host must approve. None: no such code."""
        with self.lock:
            seat = self.seat_of_code(code)
            if seat is None:
                return None
            if not seat.code_used:
                seat.code_used = True
                token = self._add_device(seat, address)
                return {"seat": seat.seat, "token": token}
            self._forget_old_pending()
            wait = Pending(secrets.token_hex(8), seat.seat, address, time.time())
            self.pending[wait.id] = wait
            while len(self.pending) > PENDING_KEPT:
                self.pending.pop(next(iter(self.pending)))
            return {"seat": seat.seat, "pending": wait.id}

    def waiting(self, pending_id: str) -> Pending | None:
        with self.lock:
            self._forget_old_pending()
            wait = self.pending.get(pending_id)
            if wait is not None and wait.answer != "waiting":
                self.pending.pop(pending_id, None)  # its answer is given once
            return wait

    def answer(self, pending_id: str, approve: bool) -> Pending | None:
        """The host approves (a token for that device) or refuses a device waiting for a seat."""
        with self.lock:
            wait = self.pending.get(pending_id)
            if wait is None or wait.answer != "waiting" or wait.seat not in self.seats:
                return None
            if approve:
                wait.token = self._add_device(self.seats[wait.seat], wait.address)
                wait.answer = "approved"
            else:
                wait.answer = "denied"
            return wait

    def waiting_list(self) -> list[Pending]:
        with self.lock:
            self._forget_old_pending()
            return [p for p in self.pending.values() if p.answer == "waiting"]

    def _forget_old_pending(self) -> None:
        now = time.time()
        for key in [k for k, p in self.pending.items() if now - p.since > PENDING_TTL]:
            self.pending.pop(key, None)

    def _add_device(self, seat: Seat, label: str) -> str:
        token = new_token()
        hashed = digest(token)
        seat.devices[hashed] = Device(hashed, label, time.time())
        self._save()
        return token

    # -- taking back ------------------------------------------------------------------------

    def revoke_seat(self, n: int) -> Seat | None:
        """Every device of seat ``n`` cut off; a new invitation token and a new code."""
        with self.lock:
            if n not in self.seats:
                return None
            used = {s.code for s in self.seats.values()}
            token = new_token()
            self.seats[n] = Seat(n, token, new_code(used),
                                 devices={digest(token): Device(digest(token), "invitation", time.time())})
            self._save()
            return self.seats[n]

    def revoke_device(self, n: int, hashed: str) -> bool:
        with self.lock:
            seat = self.seats.get(n)
            if seat is None or hashed not in seat.devices:
                return False
            del seat.devices[hashed]
            self._save()
            return True

    def devices(self, n: int) -> list[Device]:
        with self.lock:
            seat = self.seats.get(n)
            return [d for d in seat.devices.values() if d.label != "invitation"] if seat else []

    # -- kept with the game -----------------------------------------------------------------

    def _load(self) -> dict[str, Any]:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:  # a damaged file: the phones join again, nothing else lost
            log.warning("phones: %s unreadable (%s); the seats get new keys", self.path, type(exc).__name__)
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self) -> None:
        if self.path is None or self.game_id is None:
            return
        data = self._load()
        data[str(self.game_id)] = {
            "spectator": self.spectator,
            "seats": {str(s.seat): {"code_used": s.code_used,
                                    "devices": [{"hash": d.hashed, "label": d.label, "since": d.since}
                                                for d in s.devices.values()]}
                      for s in self.seats.values()},
        }
        while len(data) > 200:  # the keys of old games are worth nothing: keep the recent ones
            data.pop(next(iter(data)))
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)
        except OSError as exc:  # a read-only disk: phones work, they only will not survive a restart
            log.warning("phones: cannot keep the seats' keys in %s (%s)", self.path, exc.strerror or exc)
