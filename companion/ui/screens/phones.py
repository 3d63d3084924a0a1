""""Inviter les téléphones": the window starts the phone server (companion.web) beside the Kivy
loop and shows one QR code per seat, each turned to face its seat, with a short code to type and
the spectator link. The server runs in its own thread; nothing here blocks the window.

The players' setting ``phones/lan`` decides where it listens: off, this machine only (127.0.0.1);
on, the local network, so the phones on the same Wi-Fi can join.
"""

from __future__ import annotations

import io
import logging
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.image import Image as CoreImage
from kivy.metrics import dp
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.image import Image
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView

from companion.i18n import t
from companion.ui.theme import theme
from companion.ui.widgets.buttons import GlyphButton
from companion.ui.widgets.turned import Turned
from companion.web.invite import lan_address, qr_png
from companion.web.server import PhoneServer

log = logging.getLogger(__name__)


def phone_server(runtime: Any, lan: bool) -> PhoneServer:
    """The one phone server of the window, started once (its thread is a daemon: it ends with the
    app); the seats' tokens renew by themselves at every new game."""
    server = getattr(runtime, "phone_server", None)
    if server is not None and (server.host != "127.0.0.1") != lan:
        # The setting changed since the first invitation: serve where it says now (the phones
        # could not join a server bound to this machine alone anyway; they join the new one).
        server.stop()
        server = None
    if server is None:
        host = lan_address() if lan else "127.0.0.1"  # the LAN address only, never every interface
        server = PhoneServer(runtime, host=host, port=0, public_host=host)
        # A second phone for a seat waits for the host: the table screen asks (from Kivy's thread).
        server.on_pending = lambda pending: Clock.schedule_once(lambda _dt: ask_host(server, pending))
        server.start()
        runtime.phone_server = server
    return server


def lan_setting() -> bool:
    app = App.get_running_app()
    config = getattr(app, "config", None)
    try:
        return config is not None and config.get("phones", "lan") == "1"
    except Exception:  # a companion.ini from before the setting existed
        return False


class PhonesView(ModalView):
    """One QR code per seat, turned to that seat (the far half of the table reads it upside down
    otherwise), its player's name and short code; the spectator link under them."""

    def __init__(self, server: PhoneServer, far: set[int] | None = None, **kwargs: Any) -> None:
        super().__init__(size_hint=(0.96, 0.96), auto_dismiss=True, **kwargs)
        self.server = server
        self.far = far
        self.build()

    def revoke(self, seat: int) -> None:
        """Take the seat back from its phone: a new QR code and code, the old phone cut off."""
        self.server.revoke(seat)
        self.clear_widgets()
        self.build()

    def build(self) -> None:
        server, far = self.server, self.far
        invitation = server.invitations()
        seats = invitation["seats"]
        far = far if far is not None else {s["seat"] for s in seats[len(seats) // 2:]} if len(seats) > 1 else set()
        body = BoxLayout(orientation="vertical", padding=dp(6), spacing=dp(6))
        body.add_widget(_text(t("phones.scan_help"), theme.small))
        # One row up to four seats (800x480 leaves each QR code about 200 px), two rows beyond.
        grid = GridLayout(cols=len(seats) if len(seats) <= 4 else 3, spacing=dp(8))
        self.codes: dict[int, str] = {}
        for seat in seats:
            turned = Turned(angle=180 if seat["seat"] in far else 0)
            box = turned.fill(BoxLayout(orientation="vertical", spacing=dp(2)))
            texture = CoreImage(io.BytesIO(qr_png(seat["join"], scale=6)), ext="png").texture
            texture.mag_filter = "nearest"  # the modules stay sharp squares when scaled down or up
            box.add_widget(Image(texture=texture, fit_mode="contain"))
            box.add_widget(_text(f"{seat['name']}\n{t('phones.code', code=seat['code'])}", theme.body, bold=True))
            revoke = GlyphButton(glyph="\u2715", word=t("phones.revoke"), size_hint=(1, None), height=dp(44), wrap=True,
                                 font_size=theme.small)
            revoke.bind(on_release=lambda _b, n=seat["seat"]: self.revoke(n))
            box.add_widget(revoke)
            self.codes[seat["seat"]] = seat["code"]
            grid.add_widget(turned)
        body.add_widget(grid)
        self.spectator = invitation["spectator"]
        note = t("phones.spectator", url=self.spectator)
        if invitation["url"].startswith("http://127.0.0.1"):
            note += "\n" + t("phones.local_only")
        body.add_widget(_text(note, theme.small * 0.85))
        close = GlyphButton(glyph="\u2715", word=t("phones.close"), size_hint_y=None, height=dp(48))
        close.bind(on_release=lambda *_: self.dismiss())
        body.add_widget(close)
        self.add_widget(body)


class HostAsk(ModalView):
    """Another phone wants a seat that already has one (its code was used): the host accepts or
    refuses it here, at the table."""

    def __init__(self, server: PhoneServer, pending: Any, **kwargs: Any) -> None:
        super().__init__(size_hint=(0.8, 0.6), auto_dismiss=False, **kwargs)
        self.server, self.pending = server, pending
        body = BoxLayout(orientation="vertical", padding=dp(8), spacing=dp(8))
        name = server.runtime.seat_name(pending.seat)
        body.add_widget(_text(t("phones.host_ask", seat=pending.seat, name=name, address=pending.address), theme.body))
        row = BoxLayout(spacing=dp(8), size_hint_y=None, height=dp(56))
        answers = ((t("phones.host_accept"), "\u2713", True), (t("phones.host_refuse"), "\u2715", False))
        for word, glyph, approve in answers:
            button = GlyphButton(glyph=glyph, word=word)
            button.bind(on_release=lambda _b, a=approve: self.answer(a))
            row.add_widget(button)
        body.add_widget(row)
        self.add_widget(body)

    def answer(self, approve: bool) -> None:
        self.server.answer(self.pending.id, approve)
        self.dismiss()


def ask_host(server: PhoneServer, pending: Any) -> HostAsk:
    view = HostAsk(server, pending)
    view.open()
    return view


def _text(words: str, size: float, bold: bool = False) -> Label:
    """A centred label that wraps to its width and is as tall as its lines."""
    label = Label(text=words, font_name=theme.font_name, font_size=size, color=theme.text, bold=bold,
                  halign="center", valign="middle", size_hint_y=None)
    label.bind(width=lambda lb, w: setattr(lb, "text_size", (w, None)),
               texture_size=lambda lb, ts: setattr(lb, "height", ts[1]))
    return label


def invite(runtime: Any, far: set[int] | None = None) -> PhonesView:
    """The Table screen's "Inviter les téléphones": start serving (once) and show the invitations,
    the QR codes of the seats across the table (``far``, 1-based) turned to them."""
    view = PhonesView(phone_server(runtime, lan_setting()), far=far)
    view.open()
    return view
