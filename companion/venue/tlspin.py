"""The certificate pin of a venue: the SHA-256 of the hub's certificate (DER), given to each table
in its enrolment (``mqtts://…?pin=…``), so a table trusts that one certificate, self-signed or
not, without anything installed on it, and sends its password to nothing else."""

from __future__ import annotations

import asyncio
import hashlib
import re
import ssl
from pathlib import Path

_PEM = re.compile(r"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----", re.S)


def fingerprint(der: bytes) -> str:
    """The pin of a certificate: its SHA-256 in lowercase hex (64 digits)."""
    return hashlib.sha256(der).hexdigest()


def file_fingerprint(path: str | Path) -> str:
    """The pin of the first certificate of a PEM file (the server's own, before its chain)."""
    found = _PEM.search(Path(path).read_text(encoding="ascii", errors="replace"))
    if found is None:
        raise ValueError(f"no certificate in {path}")
    return fingerprint(ssl.PEM_cert_to_DER_cert(found.group(0)))


def normalise(pin: str) -> str:
    """A pin as typed or copied from ``openssl x509 -fingerprint -sha256`` (colons, capitals, a
    ``sha256:`` prefix) in the one form compared; ValueError when it is no SHA-256."""
    text = pin.strip().lower()
    text = text.removeprefix("sha256:").removeprefix("sha256=").replace(":", "")
    if not re.fullmatch(r"[0-9a-f]{64}", text):
        raise ValueError(pin)
    return text


def pinned_context(der: bytes) -> ssl.SSLContext:
    """A TLS context that trusts exactly this certificate (a leaf as its own trust anchor: the
    partial-chain flag), whatever name it carries: the pin replaces the host name check."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_REQUIRED
    context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
    context.load_verify_locations(cadata=der)
    return context


def probe_context() -> ssl.SSLContext:
    """A context that reads the server's certificate without trusting it: only to compare its
    pin before anything (the password above all) is sent."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class PinMismatch(ConnectionError):
    """The server's certificate is not the pinned one: nothing was sent to it."""


async def context_for(host: str, port: int, pin: str | None, timeout: float = 10.0) -> ssl.SSLContext:
    """The TLS context to connect with. Without a pin: the system's authorities and the host
    name. With a pin: the server's certificate is read first (a handshake that sends nothing)
    and compared, then only that certificate is trusted, so a password goes to that server and
    to no one else on the network. Raises PinMismatch, or OSError/TimeoutError when unreachable."""
    if pin is None:
        return ssl.create_default_context()
    _, writer = await asyncio.wait_for(asyncio.open_connection(host, port, ssl=probe_context()), timeout)
    try:
        der = writer.get_extra_info("ssl_object").getpeercert(binary_form=True)
    finally:
        writer.close()
    if not der or fingerprint(der) != pin:
        raise PinMismatch(f"{host}:{port}")
    return pinned_context(der)
