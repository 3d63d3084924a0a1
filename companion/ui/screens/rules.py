"""The Rules screen: search as you type over a game's rules sections and glossary; tap a result
to read it in full. The game is the one on the table, or the one picked here."""

from __future__ import annotations

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import ListProperty, StringProperty
from kivy.utils import escape_markup

from companion import i18n
from companion.cards.gamedata import GameInfo, GlossaryEntry, RuleSection
from companion.cards.rules import search_rules
from companion.i18n import t
from companion.ui.fonts import for_display
from companion.ui.screens import load_kv
from companion.ui.screens.card import SessionScreen

RESULTS = 12
TYPING_PAUSE = 0.12  # seconds: search when the fingers rest, not at every key


def entry_title(item: GlossaryEntry | RuleSection, lang: str) -> str:
    if isinstance(item, GlossaryEntry):
        return item.name(lang)
    return item.title.get(lang) or item.title.get("fr") or item.id


def entry_text(item: GlossaryEntry | RuleSection, lang: str) -> str:
    return item.text.get(lang) or item.text.get("fr") or ""


def entry_kind(item: GlossaryEntry | RuleSection) -> str:
    return t("rules.glossary") if isinstance(item, GlossaryEntry) else t("rules.section")


def results_for(game: GameInfo, query: str, limit: int = RESULTS) -> list[GlossaryEntry | RuleSection]:
    """The hits for a query; with no query, the rules sections in order (a table of contents)."""
    if not query.strip():
        return list(game.rules)
    return [hit.item for hit in search_rules(game, query, limit=limit)]


class RulesScreen(SessionScreen):
    query = StringProperty("")
    results = ListProperty([])  # [GlossaryEntry | RuleSection]
    status = StringProperty("")
    reading_title = StringProperty("")  # the entry opened in full ("" shows the results)
    reading_text = StringProperty("")

    def __init__(self, **kwargs) -> None:
        load_kv("card")
        load_kv("rules")
        kwargs.setdefault("name", "rules")
        super().__init__(**kwargs)
        self._search_later = Clock.create_trigger(lambda _dt: self.search_now(), TYPING_PAUSE)
        self.refresh()

    def relabel(self) -> None:
        self.refresh()

    def refresh(self) -> None:
        self.refresh_games()
        self.search_now()

    def on_game(self, screen: SessionScreen, game: str) -> None:
        super().on_game(screen, game)
        self.close_entry()
        self.search_now()

    def on_query(self, *_args) -> None:
        self._typed = True  # the count of what was found is said once the typing pauses
        self._search_later()

    def search_now(self) -> None:
        game = self.game_info()
        if game is None:
            self.results = []
            self.status = t("ui.loading") if not self.library_ready else t("rules.no_game", game=self.game)
            self._say_status()
            return
        found = results_for(game, self.query)
        self.results = found
        if not self.query.strip():
            self.status = t("rules.contents", count=len(found))
        elif found:
            self.status = t("rules.found", count=len(found), query=self.query.strip())
        else:
            self.status = t("cards.no_hits", query=self.query.strip())
        self._say_status()

    def _say_status(self) -> None:
        """After typing: how many entries were found (or why none can be), said once."""
        if getattr(self, "_typed", False):
            self._typed = False
            self.say(self.status)

    def on_results(self, _screen: RulesScreen, results: list) -> None:
        box = self.ids.results
        box.clear_widgets()
        lang = i18n.language()
        for item in results:
            title = escape_markup(for_display(entry_title(item, lang)))
            text = f"[b]{title}[/b]  · {escape_markup(entry_kind(item))}"
            button = Factory.UiListButton(text=text)
            button.bind(on_release=lambda _b, it=item: self.open_entry(it))
            box.add_widget(button)
        self.ids.scroll.scroll_y = 1

    def open_entry(self, item: GlossaryEntry | RuleSection) -> None:
        lang = i18n.language()
        self.reading_title = for_display(entry_title(item, lang))
        self.reading_text = for_display(entry_text(item, lang))
        self.ids.reading_scroll.scroll_y = 1
        self.say(f"{self.reading_title}. {self.reading_text}")

    def close_entry(self) -> None:
        self.reading_title = ""
        self.reading_text = ""
