"""The Enroll screen: a tag the companion does not know was laid. Pick its card by searching the
game (search as you type), or create it (users' own cards), then bind the tag's UID to it in the
collection, or write the card's reference on the tag. Then the card shows.

For a whole deck (from the Deck screen) it asks for one card after another, "3 / 40", and binds
each tag laid to the next card of the list."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from kivy.app import App
from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, OptionProperty, StringProperty
from kivy.utils import escape_markup

from companion import i18n
from companion.cards.explain import type_names
from companion.cards.model import Card
from companion.i18n import t
from companion.readers.events import TagEvent
from companion.tags.collection import bind_uid
from companion.tags.resolve import Scan
from companion.ui.fonts import for_display
from companion.ui.screens import load_kv
from companion.ui.screens.card import SessionScreen, run_until

log = logging.getLogger(__name__)

MODES = ("idle", "pick", "create", "chosen", "deck", "done")
RESULTS = 8
TYPING_PAUSE = 0.12
WRITE_TIMEOUT = 10.0
# nfcpy drives these readers and can write a tag; a hub, a keyboard-wedge reader or the
# simulator only report UIDs.
WRITABLE = ("usb", "tty", "udp")


def can_write(reader_path: str) -> bool:
    return reader_path.split(":", 1)[0] in WRITABLE


class EnrollScreen(SessionScreen):
    mode = OptionProperty("idle", options=MODES)
    uid = StringProperty("")
    query = StringProperty("")
    results = ListProperty([])  # [Card]
    chosen_name = StringProperty("")
    notice = StringProperty("")
    busy = BooleanProperty(False)
    type_names = ListProperty([])  # the game's card types, for the create form
    # A deck being tagged: the card wanted now, how far along.
    deck_card = StringProperty("")
    deck_done = NumericProperty(0)
    deck_total = NumericProperty(0)

    def __init__(self, **kwargs) -> None:
        load_kv("card")
        load_kv("enroll")
        kwargs.setdefault("name", "enroll")
        super().__init__(**kwargs)
        self.scan: Scan | None = None
        self.chosen: Card | None = None
        self.deck: list[Card] = []
        self._used: set[str] = set()
        self._search_later = Clock.create_trigger(lambda _dt: self.search_now(), TYPING_PAUSE)
        # The panels are made once by the kv rules; only the current mode's sits in the body.
        self._panels = {mode: self.ids[f"panel_{mode}"].__self__ for mode in MODES}  # strong refs
        self.on_mode(self, self.mode)
        self.refresh_games()

    def on_mode(self, _screen: EnrollScreen, mode: str) -> None:
        body = self.ids.body
        for panel in self._panels.values():
            if panel.parent is not None:
                panel.parent.remove_widget(panel)
        body.add_widget(self._panels[mode], index=0)
        self.ids.scroll.scroll_y = 1

    @property
    def takes_scans(self) -> bool:  # type: ignore[override]
        return self.mode == "deck"

    def on_game(self, screen: SessionScreen, game: str) -> None:
        super().on_game(screen, game)
        info = self.game_info(game)
        self._types = [(ct.id, ct.names.get(i18n.language()) or ct.names.get("fr") or ct.id)
                       for ct in (info.card_types if info else ())]
        self.type_names = [name for _id, name in self._types]
        self.search_now()

    def _session_scan(self, _session: object, scan: Scan) -> None:
        # An unknown tag comes here wherever the user was (the app then shows this screen);
        # while a deck is tagged, every tag laid is the next card's.
        if self.mode == "deck":
            self.take_scan(scan)
        elif scan.status == "unknown":
            self.start(scan)

    # --- one unknown tag ---------------------------------------------------------------------
    def start(self, scan: Scan) -> None:
        self.scan = scan
        self.uid = scan.uid
        self.chosen = None
        self.chosen_name = ""
        self.mode = "pick"
        self.notice = t("enroll.unknown", uid=scan.uid) if scan.uid else t("enroll.no_uid")
        self.query = ""
        self.search_now()
        self.say(t("enroll.spoken"), "card")

    def on_query(self, *_args) -> None:
        self._typed = True  # the count of what was found is said once the typing pauses
        self._search_later()

    def search_now(self) -> None:
        if not self.library_ready or not self.query.strip():
            self.results = []
            return
        hits = self.library.search(self.query, game=self.game, limit=RESULTS)
        self.results = [hit.card for hit in hits]
        if getattr(self, "_typed", False):
            self._typed = False
            query = self.query.strip()
            self.say(t("enroll.found", count=len(hits), query=query) if hits else t("cards.no_hits", query=query))

    def on_results(self, _screen: EnrollScreen, results: list[Card]) -> None:
        box = self.ids.results
        box.clear_widgets()
        info = self.game_info()
        lang = i18n.language()
        for card in results:
            kinds = ", ".join(type_names(card, info, lang))
            button = Factory.UiListButton(
                text=f"[b]{escape_markup(for_display(card.name))}[/b]  · {escape_markup(for_display(kinds))}")
            button.bind(on_release=lambda _b, c=card: self.choose(c))
            box.add_widget(button)

    def choose(self, card: Card) -> None:
        self.chosen = card
        self.chosen_name = for_display(card.name)
        self.mode = "chosen"
        if self.scan is not None and not can_write(self.scan.event.reader):
            self.notice = t("enroll.bind_only", reader=self.scan.event.reader or "?")
        else:
            self.notice = t("enroll.bind_or_write")

    def back_to_search(self) -> None:
        self.mode = "pick" if self.scan is not None else "idle"
        self.notice = ""

    def bind_tag(self) -> bool:
        """Map the tag's UID to the chosen card in the collection, then show the card."""
        if self.scan is None or self.chosen is None:
            return False
        ok = self._bind(self.scan.uid, self.chosen)
        if ok:
            self._finish(self.chosen)
        return ok

    def _bind(self, uid: str, card: Card) -> bool:
        try:
            # The scans see the collection as it is on the disk: the tag is known at its next scan.
            bind_uid(uid, card.ref, note=card.name)
        except Exception as exc:  # a broken collection file is said; nothing is overwritten
            self.notice = t("enroll.bind_failed", detail=str(exc))
            self.say(self.notice, "error")
            return False
        return True

    def write(self) -> None:
        """Write the reference on the tag through the reader it was laid on (nfcpy readers only)."""
        scan, card = self.scan, self.chosen
        if scan is None or card is None or self.busy:
            return
        path = scan.event.reader
        if not can_write(path):
            self.notice = t("enroll.bind_only", reader=path or "?")
            self.say(self.notice, "error")
            return
        self.busy = True
        self.notice = t("enroll.writing")
        runtime = getattr(App.get_running_app(), "runtime", None)

        def work() -> None:
            try:
                if runtime is not None:
                    runtime.scans.write(path, card.ref, timeout=WRITE_TIMEOUT)
                else:  # a screen shown alone (tests, screenshots): no reader of ours holds the radio
                    from companion.tags import writer

                    writer.on_reader(path, lambda tag: writer.write_ref(tag, card.ref), timeout=WRITE_TIMEOUT)
                outcome = ""
            except Exception as exc:  # TagError carries the user's message; anything else too
                outcome = str(exc) or type(exc).__name__
            Clock.schedule_once(lambda _dt: self._written(card, outcome))

        if runtime is not None:
            runtime.workers.submit(work)
        else:
            threading.Thread(target=work, name="tag write", daemon=True).start()

    def _written(self, card: Card, error: str) -> None:
        self.busy = False
        if error:
            self.notice = t("enroll.write_failed", detail=error)
            self.say(self.notice, "error")
            return
        self._finish(card)

    def _finish(self, card: Card) -> None:
        event = self.scan.event if self.scan is not None else TagEvent("laid", reader="")
        self.mode = "done"
        self.notice = t("enroll.bound", name=card.name)
        self.scan = None
        show_card(self.manager, Scan(event, "card", card=card, ref=card.ref))

    # --- a card of one's own -------------------------------------------------------------------
    def open_create(self) -> None:
        self.mode = "create"
        self.notice = t("enroll.create_hint")
        ids = self.ids
        ids.new_name.text = self.query
        if self.type_names and ids.new_type.text not in self.type_names:
            ids.new_type.text = self.type_names[0]

    def create(self, name: str, type_name: str, cost: str, text: str) -> Card | None:
        """Add the card to the user's overlay (checked like the shipped cards) and choose it."""
        from companion.cards.catalog import known_ids
        from companion.cards.overlay import add_card
        from companion.cards.yamlload import DataError

        info = self.game_info()
        if info is None:
            self.notice = t("ui.loading")
            return None
        type_id = next((tid for tid, shown in self._types if shown == type_name), type_name)
        fields = {"name": name.strip(), "type": type_id, "cost": cost.strip(), "text": text.strip()}
        if not fields["name"]:
            self.notice = t("enroll.need_name")
            self.say(self.notice, "error")
            return None
        try:
            card = add_card(info, fields, known_ids(self.library.load(self.game)))
        except DataError as exc:
            self.notice = t("enroll.create_failed", detail=str(exc))
            self.say(self.notice, "error")
            return None
        except OSError as exc:
            self.notice = t("enroll.create_failed", detail=str(exc))
            return None
        self._reindex()
        self.choose(card)
        return card

    def _reindex(self) -> None:
        """The overlay changed: the index is rebuilt in a thread (seconds on a Pi), with progress."""
        library = self.library
        self.busy = True

        def work() -> None:
            try:
                library.reload()
                library.games  # noqa: B018 - loads the index again now, off the main thread
            except Exception:
                log.exception("rebuilding the card index failed")
            Clock.schedule_once(lambda _dt: setattr(self, "busy", False))

        threading.Thread(target=work, name="card index", daemon=True).start()

    def wait_idle(self, timeout: float = 30.0) -> bool:
        return run_until(lambda: not self.busy, timeout)

    # --- a whole deck, card after card -----------------------------------------------------------
    def start_deck(self, game: str, cards: list[tuple[Card, int]]) -> None:
        self.game = game
        self.deck = [card for card, n in cards for _ in range(n)]
        self._used = set()
        self.deck_total = len(self.deck)
        self.deck_done = 0
        self.scan = None
        self.mode = "deck"
        self._ask_next()

    def _ask_next(self) -> None:
        if self.deck_done >= self.deck_total:
            self.mode = "done"
            self.deck_card = ""
            self.notice = t("enroll.deck_done", n=self.deck_total)
            self.say(self.notice)
            return
        card = self.deck[self.deck_done]
        self.deck_card = for_display(card.name)
        self.say(t("enroll.deck_next", name=card.name, i=self.deck_done + 1, n=self.deck_total))

    def take_scan(self, scan: Scan) -> bool:
        if self.mode != "deck":
            return False
        if not scan.uid or scan.status == "unreadable":
            self.notice = t("enroll.deck_again")
            return True
        if scan.uid in self._used:
            self.notice = t("enroll.deck_used", uid=scan.uid)
            self.say(self.notice, "error")
            return True
        wanted = self.deck[self.deck_done]
        if scan.card is not None and scan.card.ref != wanted.ref:
            # The tag already names another card (written on it, or bound): take a blank one.
            self.notice = t("enroll.deck_taken", name=scan.card.name)
            self.say(self.notice, "error")
            return True
        if scan.card is None and not self._bind(scan.uid, wanted):
            return True
        self._used.add(scan.uid)
        self.notice = t("enroll.deck_bound", name=wanted.name, uid=scan.uid)
        self.deck_done += 1
        self._ask_next()
        return True

    def skip(self) -> None:
        if self.mode == "deck":
            self.deck_done += 1
            self._ask_next()

    def stop_deck(self) -> None:
        self.mode = "idle"
        self.deck_card = ""
        self.notice = t("enroll.deck_stopped", done=self.deck_done, n=self.deck_total)


def show_card(manager: object, scan: Scan) -> None:
    """Show (and, through the app, speak) a card as if it had just been laid."""
    app = App.get_running_app()
    # Only an app that is really showing a window (a stopped one keeps being "the running app").
    live = app is not None and getattr(app, "root", None) is not None
    show: Callable[[Scan], None] | None = getattr(app, "show_scan", None) if live else None
    if callable(show):
        show(scan)
        return
    if manager is not None and manager.has_screen("card"):
        manager.get_screen("card").show_scan(scan)
        manager.current = "card"
