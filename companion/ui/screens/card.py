"""The card screen: the last card laid on a reader, large, with everything printed on it."""

from __future__ import annotations

from dataclasses import dataclass

from kivy.factory import Factory
from kivy.properties import ListProperty, OptionProperty, StringProperty
from kivy.uix.screenmanager import Screen
from kivy.utils import escape_markup

from companion.cards.model import Card
from companion.i18n import t
from companion.tags.resolve import Scan
from companion.ui.fonts import for_display
from companion.ui.screens import load_kv

MODES = ("loading", "empty", "card", "unknown", "unreadable")


@dataclass(frozen=True)
class CardView:
    """What the screen shows, as text, worked out away from the widgets."""

    mode: str
    title: str
    fields: tuple[tuple[str, str], ...] = ()
    text: str = ""
    rulings: str = ""  # markup
    detail: str = ""
    where: str = ""  # reader and seat


def reader_label(path: str) -> str:
    if not path:
        return t("ui.reader.none")
    if path == "sim" or path.startswith("sim:"):
        return t("ui.reader", path=t("ui.reader.sim"))
    return t("ui.reader", path=path)


def card_fields(card: Card) -> list[tuple[str, str]]:
    """(label, value) rows under the name: type, cost, clan, disciplines or keywords."""
    rows = []
    if card.types:
        rows.append((t("card.type"), ", ".join(card.types)))
    if card.cost:
        rows.append((t("card.cost"), card.cost))
    clans = card.extra.get("clans") if isinstance(card.extra, dict) else None
    if clans:
        rows.append((t("card.clan"), ", ".join(str(c) for c in clans)))
    if card.keywords:
        label = t("card.disciplines") if card.game == "vtes" else t("card.keywords")
        rows.append((label, ", ".join(card.keywords)))
    return [(label, for_display(value)) for label, value in rows]


def scan_view(scan: Scan) -> CardView:
    where = reader_label(scan.event.reader)
    if scan.seat is not None:
        where += " · " + t("ui.seat", seat=scan.seat)
    tag = t("card.tag", uid=scan.uid) if scan.uid else ""
    if scan.card is not None:
        card = scan.card
        rulings = ""
        if card.rulings:
            items = "\n".join(f"•  {escape_markup(for_display(r))}" for r in card.rulings)
            rulings = f"[b]{escape_markup(t('card.rulings'))}[/b]\n{items}"
        return CardView("card", title=for_display(card.name), fields=tuple(card_fields(card)),
                        text=for_display(card.text), rulings=rulings, detail=card.ref, where=where)
    if scan.status == "unreadable":
        return CardView("unreadable", title=t("card.unreadable.title"),
                        text=t("card.unreadable", detail=scan.detail), detail=tag, where=where)
    detail = " — ".join(x for x in (tag, scan.detail) if x)
    return CardView("unknown", title=t("card.unknown.title"), text=t("card.unknown.hint"), detail=detail, where=where)


class CardScreen(Screen):
    mode = OptionProperty("loading", options=MODES)
    title = StringProperty("")
    fields = ListProperty([])  # [(label, value)]
    text = StringProperty("")
    rulings = StringProperty("")
    detail = StringProperty("")
    where = StringProperty("")
    notice = StringProperty("")  # reader news: lifted card, lost reader, cards that failed to load
    hint = StringProperty("")

    def __init__(self, **kwargs) -> None:
        load_kv("card")
        kwargs.setdefault("name", "card")
        super().__init__(**kwargs)
        self.hint = t("ui.keys")
        self.show_waiting(loading=True)

    def on_fields(self, _screen: CardScreen, fields: list[tuple[str, str]]) -> None:
        # A two-column grid rather than one line of text: a label never wraps away from its value.
        grid = self.ids.fields
        grid.clear_widgets()
        for label, value in fields:
            name = Factory.CardFieldLabel(text=t("ui.field.label", label=label))
            content = Factory.CardFieldValue(text=value)
            content.bind(height=name.setter("height"))
            grid.add_widget(name)
            grid.add_widget(content)

    def show_waiting(self, loading: bool) -> None:
        """The empty state: cards still loading, or waiting for the first card."""
        if self.mode not in ("loading", "empty"):
            return
        self._apply(CardView("loading" if loading else "empty", title=t("ui.loading" if loading else "card.none")))

    def show_scan(self, scan: Scan) -> None:
        self._apply(scan_view(scan))
        scroll = self.ids.get("scroll")
        if scroll is not None:
            scroll.scroll_y = 1  # a new card is read from its name down

    def _apply(self, view: CardView) -> None:
        self.mode = view.mode
        self.title = view.title
        self.fields = list(view.fields)
        self.text = view.text
        self.rulings = view.rulings
        self.detail = view.detail
        if view.where:
            self.where = view.where
