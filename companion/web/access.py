"""Who may come in, and how much: seat tokens and join codes, the rate of each client, the number
of connections per address and in all, and the origins a page may open a socket from.

The server is on a shared Wi-Fi: every byte is hostile until proven otherwise. A token is 32 hex
digits and nothing else (anything else is a bad request, not a comparison); tokens are compared
in constant time through their SHA-256, the only form kept once the game is saved.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import resource
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

RATE = 40.0  # messages per second per token or socket, sustained
BURST = 200.0  # messages allowed at once
JOIN_TRIES = 10  # short codes tried per minute per address (6 letters: guessing is hopeless)
CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud and typed on a phone
TOKEN = re.compile(r"[0-9a-f]{32}")
PER_ADDRESS = 64  # open connections from one address: a phone needs two or three
FILES_KEPT = 64  # open files left to the journal, the readers, the logs, whatever the limit
TOTAL_MAX = 1000
BUDGETS_KEPT = 4096  # sockets' budgets remembered (address, token): a few hundred bytes each
BACKLOG = 16  # connections accepted at once by the loop: refused ones hold a file for a moment too


class BadToken(ValueError):
    """A token that is not 32 hex digits: a malformed request, not an unknown seat."""


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def new_token() -> str:
    return secrets.token_hex(16)


def new_code(used: set[str]) -> str:
    while True:
        code = "".join(secrets.choice(CODE_LETTERS) for _ in range(6))
        if code not in used:
            return code


def check_token(token: str) -> str:
    """The token if it is 32 lowercase hex digits; ``BadToken`` otherwise."""
    if not TOKEN.fullmatch(token):
        raise BadToken(token[:8])
    return token


def same(token: str, hashed: str) -> bool:
    return hmac.compare_digest(digest(token), hashed)


@dataclass
class Seat:
    seat: int  # 1-based
    token: str | None  # None once only its digest is known (after a restart)
    code: str
    hashed: str = ""

    def __post_init__(self) -> None:
        if self.token is not None and not self.hashed:
            self.hashed = digest(self.token)


class Bucket:
    """A token bucket: ``rate`` messages a second, ``burst`` at once."""

    def __init__(self, rate: float = RATE, burst: float = BURST) -> None:
        self.rate, self.burst, self.level, self.stamp = rate, burst, burst, time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level < 1:
            return False
        self.level -= 1
        return True


class Budgets:
    """Each socket's rate budget and strikes, remembered per address and token for the sockets that
    come after it: a flooder that reconnects finds its empty bucket and its strikes, not a fresh
    burst. Bounded (least recently used forgotten first), so a guest making up keys cannot fill
    the memory; keyed by the token too, so an honest phone behind the same address (a venue's
    NAT, a flooder on the same phone) keeps its own budget."""

    def __init__(self, rate: float = RATE, burst: float = BURST, kept: int = BUDGETS_KEPT) -> None:
        self.rate, self.burst, self.kept = rate, burst, kept
        self._kept: OrderedDict[tuple[str, str], Budget] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, address: str, device: str) -> Budget:
        key = (address, device)
        with self._lock:
            budget = self._kept.pop(key, None) or Budget(Bucket(self.rate, self.burst))
            self._kept[key] = budget  # the most recent last
            while len(self._kept) > self.kept:
                self._kept.popitem(last=False)
            return budget

    def __len__(self) -> int:
        return len(self._kept)


@dataclass
class Budget:
    bucket: Bucket
    strikes: int = 0


class JoinTries:
    """Join codes tried per address and minute: a guesser is slowed to ten a minute."""

    def __init__(self, per_minute: int = JOIN_TRIES) -> None:
        self.per_minute = per_minute
        self._tries: dict[str, list[float]] = {}

    def allow(self, address: str) -> bool:
        now = time.monotonic()
        if len(self._tries) > 10_000:  # a flood of addresses: forget the old ones, not the memory
            self._tries = {a: s for a, s in self._tries.items() if s and now - s[-1] < 60}
        tries = [s for s in self._tries.get(address, []) if now - s < 60]
        if len(tries) >= self.per_minute:
            self._tries[address] = tries
            return False
        self._tries[address] = [*tries, now]
        return True


def total_cap() -> int:
    """Connections served at once: below the process's open-file limit, so that accepting one
    more never fails (asyncio logs a traceback per failed accept) and the journal can still open."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return TOTAL_MAX
    return max(8, min(TOTAL_MAX, soft - max(FILES_KEPT, soft // 8) - 4 * BACKLOG))


class Gate:
    """Open connections counted per address and in all; past a cap a connection is closed at
    once, and said in one log line a minute, never a traceback each."""

    def __init__(self, per_address: int = PER_ADDRESS, total: int | None = None) -> None:
        self.per_address = per_address
        self.total = total_cap() if total is None else total
        self.open: dict[str, int] = {}
        self.count = 0
        self.refused = 0
        self._said = 0.0
        self._lock = threading.Lock()

    def admit(self, address: str) -> bool:
        with self._lock:
            if self.count >= self.total or self.open.get(address, 0) >= self.per_address:
                self.refused += 1
                now = time.monotonic()
                if now - self._said > 60:
                    self._said = now
                    log.warning("phones: connection refused (%d open, %d from %s; %d refused so far)",
                                self.count, self.open.get(address, 0), address, self.refused)
                return False
            self.open[address] = self.open.get(address, 0) + 1
            self.count += 1
            return True

    def leave(self, address: str) -> None:
        with self._lock:
            left = self.open.get(address, 0) - 1
            if left > 0:
                self.open[address] = left
            else:
                self.open.pop(address, None)
            self.count = max(0, self.count - 1)


def origin_allowed(origin: str | None, served: set[str]) -> bool:
    """A socket opened by a page of ours: its Origin (scheme, host and port) is one of the
    addresses this server serves, never the Host header a rebinding attacker chose. No Origin
    at all is a script, not a browser page: its token is what it proves."""
    if origin is None:
        return True
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    port = port or (443 if parts.scheme == "https" else 80)
    host = parts.hostname.lower()
    return f"{parts.scheme}://{host}:{port}" in served
