"""Invitations without a window: the address phones reach, and a QR code per join link (segno),
for ``serve`` and for the window's "Inviter les téléphones"."""

from __future__ import annotations

import io
import socket


def lan_address() -> str:
    """The address of this machine on the local network (the route to the outside), or 127.0.0.1.
    Nothing is sent: connecting a UDP socket only picks the interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere, never contacted
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def qr_png(url: str, scale: int = 8) -> bytes:
    """A QR code of ``url`` as PNG bytes, black on white with its quiet zone (phones read it at 1 m)."""
    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="png", scale=scale, border=4, dark="#000000", light="#ffffff")
    return out.getvalue()


def qr_svg(url: str) -> str:
    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=6, border=4, xmldecl=False)
    return out.getvalue().decode("utf-8")


def qr_terminal(url: str) -> str:
    """A QR code of ``url`` drawn with block characters, for ``serve``'s terminal (phones read it
    from the screen as from paper)."""
    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()
