"""The Deck screen: lay a deck's cards one after another and see it checked against the game's
deck rules, or against a deck list loaded from a file (what is missing, what is extra).

Checking a deck may go through a card source's own parser, which takes a second the first time: it runs in
a thread and the screen says "checking" meanwhile."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.utils import escape_markup

from companion import i18n, paths
from companion.cards.decks import DeckReport, check, check_cards, difference
from companion.cards.explain import type_names
from companion.cards.model import Card
from companion.i18n import t
from companion.tags.resolve import Scan
from companion.ui.fonts import for_display
from companion.ui.screens import load_kv
from companion.ui.screens.card import SessionScreen, run_until

DECK_FILES = ("*.txt", "*.dek", "*.lst", "*.yaml", "*.md")


def counts_line(report: DeckReport, game_info: object, lang: str) -> str:
    """The deck's numbers in words: "Crypte : 12 · Bibliothèque : 40" or per card type."""
    counts = report.counts
    if "crypt" in counts:  # a game whose decks have two parts (crypt and library)
        parts = [t("deck.crypt", n=counts.get("crypt", 0)), t("deck.library", n=counts.get("library", 0))]
        groups = counts.get("groups") or []
        if groups:
            parts.append(t("deck.groups", groups=", ".join(str(g) for g in groups)))
        return " · ".join(parts)
    parts = [t("deck.total", n=counts.get("total", 0))]
    for key, n in counts.items():
        if key == "total":
            continue
        name = key
        for ct in getattr(game_info, "card_types", ()):
            if ct.id == key:
                name = ct.names.get(lang) or ct.names.get("fr") or key
        parts.append(t("text.label_value", lang).format(label=name, value=n))
    return " · ".join(parts)


class DeckScreen(SessionScreen):
    takes_scans = True
    scanned = ListProperty([])  # [(Card, count)] in the order first laid
    summary = StringProperty("")
    verdict = StringProperty("")  # the deck is legal or not, in words
    legal = BooleanProperty(False)
    problems = StringProperty("")
    expected_name = StringProperty("")  # the deck list file, "" when checking against the rules only
    comparison = StringProperty("")  # markup: missing and extra cards
    progress = StringProperty("")  # "12 / 40" against a list
    notice = StringProperty("")
    checking = BooleanProperty(False)

    def __init__(self, **kwargs) -> None:
        load_kv("card")
        load_kv("deck")
        kwargs.setdefault("name", "deck")
        super().__init__(**kwargs)
        self.expected: DeckReport | None = None
        self.report: DeckReport | None = None
        self._generation = 0
        self._order: list[str] = []
        self._lock = threading.Lock()
        self.refresh_games()
        self._show_report()

    def on_game(self, screen: SessionScreen, game: str) -> None:
        super().on_game(screen, game)
        if self.scanned and self.scanned[0][0].game != game:
            self.clear()
        elif self.expected is not None and self.expected.game != game:
            self.drop_list()

    # --- intents -------------------------------------------------------------------------
    def take_scan(self, scan: Scan) -> bool:
        card = scan.card
        if card is None:
            self.notice = t("deck.unknown_tag", uid=scan.uid)
            self.say(self.notice, "error")
            return True
        if card.game != self.game:
            if self.scanned:
                self.notice = t("deck.other_game", name=card.name, game=card.game)
                self.say(self.notice, "error")
                return True
            self.game = card.game  # the first card says which game the deck is for
        self.add_card(card)
        return True

    def add_card(self, card: Card, count: int = 1) -> None:
        counts = Counter({c.ref: n for c, n in self.scanned})
        cards = {c.ref: c for c, _n in self.scanned}
        if card.ref not in cards:
            self._order.append(card.ref)
        cards[card.ref] = card
        counts[card.ref] += count
        self.scanned = [(cards[ref], counts[ref]) for ref in self._order if counts[ref] > 0]
        self.notice = t("deck.added", name=for_display(card.name), n=counts[card.ref])
        self.recheck()

    def remove_last(self) -> None:
        if not self._order:
            return
        ref = self._order[-1]
        counts = {c.ref: n for c, n in self.scanned}
        cards = {c.ref: c for c, _n in self.scanned}
        counts[ref] -= 1
        if counts[ref] <= 0:
            self._order.pop()
        self.scanned = [(cards[r], counts[r]) for r in self._order if counts[r] > 0]
        self.notice = t("deck.removed", name=for_display(cards[ref].name))
        self.recheck()

    def clear(self) -> None:
        self._order = []
        self.scanned = []
        self.notice = ""
        self.recheck()

    def load_list(self, path: str | Path) -> bool:
        """A deck list file to compare with; a file that cannot be read is said, nothing is lost."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self.notice = t("deck.list_unreadable", path=path.name, detail=str(exc).splitlines()[0] if str(exc) else "")
            self.say(self.notice, "error")
            return False
        if not self.library_ready:
            self.notice = t("ui.loading")
            return False
        report = check(self.game, text, self.library)
        if not report.cards:
            self.notice = t("deck.list_empty", path=path.name)
            self.say(self.notice, "error")
            return False
        self.expected = report
        self.expected_name = path.name
        bad = [f"{line}: {reason}" for line, _text, reason in report.unreadable[:3]]
        self.notice = t("deck.list_loaded", path=path.name, n=sum(n for _c, n in report.cards)) + (
            " " + t("deck.list_skipped", lines="; ".join(bad)) if bad else "")
        self.recheck()
        return True

    def drop_list(self) -> None:
        self.expected = None
        self.expected_name = ""
        self.recheck()

    def expected_cards(self) -> list[tuple[Card, int]]:
        """What the Enroll screen walks through to tag a whole deck: the list, else what was laid."""
        if self.expected is not None:
            return list(self.expected.cards)
        return list(self.scanned)

    def tag_deck(self) -> None:
        """Tag every card of the list, one after another (Enroll screen, "3 / 40")."""
        cards = self.expected_cards()
        manager = self.manager
        if not cards or manager is None or not manager.has_screen("enroll"):
            return
        manager.get_screen("enroll").start_deck(self.game, cards)
        manager.current = "enroll"

    def choose_list(self) -> None:
        from kivy.uix.filechooser import FileChooserListView
        from kivy.uix.popup import Popup

        start = paths.data_dir()
        content = Factory.BoxLayout(orientation="vertical")
        chooser = FileChooserListView(path=str(start), filters=list(DECK_FILES))
        content.add_widget(chooser)
        row = Factory.BoxLayout(size_hint_y=None)
        cancel = Factory.UiButton(text=t("deck.cancel"))
        pick = Factory.UiButton(text=t("deck.open"))
        row.add_widget(cancel)
        row.add_widget(pick)
        row.height = cancel.height
        content.add_widget(row)
        popup = Popup(title=t("deck.choose"), content=content, size_hint=(0.95, 0.95))
        cancel.bind(on_release=lambda *_a: popup.dismiss())

        def chosen(*_a) -> None:
            if chooser.selection:
                popup.dismiss()
                self.load_list(chooser.selection[0])

        pick.bind(on_release=chosen)
        chooser.bind(on_submit=lambda *_a: chosen())
        popup.open()

    # --- checking, off the main thread -----------------------------------------------------
    def recheck(self) -> None:
        self._generation += 1
        generation, scanned, game = self._generation, list(self.scanned), self.game
        if not scanned or not self.library_ready:
            self.report = None
            self._show_report()
            return
        self.checking = True
        library = self.library

        def work() -> None:
            try:
                with self._lock:  # one check at a time: krcg loads its cards on the first one
                    if generation != self._generation:
                        return  # cards added since (a deck laid in a row): only the newest check is shown
                    report = check_cards(game, scanned, library)
            except Exception as exc:  # a checker failure is said; the scanned cards stay
                report = DeckReport(game, problems=[f"{type(exc).__name__}: {exc}"])
            Clock.schedule_once(lambda _dt: self._checked(generation, report))

        threading.Thread(target=work, name="deck check", daemon=True).start()

    def wait_checked(self, timeout: float = 10.0) -> bool:
        """For tests and the screenshots: let the check in flight finish and be shown."""
        return run_until(lambda: not self.checking, timeout)

    def _checked(self, generation: int, report: DeckReport) -> None:
        if generation != self._generation:
            return  # a newer scan is being checked; this answer is stale
        self.checking = False
        self.report = report
        self._show_report()

    def _show_report(self) -> None:
        lang = i18n.language()
        report = self.report
        info = self.game_info()
        if report is None:
            self.summary = t("deck.empty") if not self.scanned else t("deck.checking")
            self.verdict = ""
            self.problems = ""
        else:
            self.summary = counts_line(report, info, lang)
            self.legal = report.legal
            self.verdict = t("deck.legal") if report.legal else t("deck.illegal")
            self.problems = "\n".join(f"•  {p}" for p in report.problems)
        self._show_comparison()
        self._show_cards(info, lang)

    def _show_comparison(self) -> None:
        if self.expected is None:
            self.comparison = ""
            self.progress = ""
            return
        want = sum(n for _c, n in self.expected.cards)
        diff = difference(self.expected, list(self.scanned))
        have = want - sum(n for _c, n in diff.missing)
        self.progress = t("deck.progress", have=have, want=want)
        lines = []
        if diff.missing:
            lines.append(f"[b]{escape_markup(t('deck.missing'))}[/b]")
            lines.extend(f"•  {n} × {escape_markup(for_display(c.name))}" for c, n in diff.missing)
        if diff.extra:
            lines.append(f"[b]{escape_markup(t('deck.extra'))}[/b]")
            lines.extend(f"•  {n} × {escape_markup(for_display(c.name))}" for c, n in diff.extra)
        if diff.complete:
            lines.append(escape_markup(t("deck.matches")))
        self.comparison = "\n".join(lines)

    def _show_cards(self, info: object, lang: str) -> None:
        box = self.ids.cards
        box.clear_widgets()
        for card, n in reversed(self.scanned):  # the last laid on top
            kinds = ", ".join(type_names(card, info, lang)) if info is not None else ", ".join(card.types)
            box.add_widget(Factory.DeckLine(text=f"{n} × {for_display(card.name)}  ·  {for_display(kinds)}"))
