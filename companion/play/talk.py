"""Words said to the companion itself rather than to the game, for a player who cannot see the
screen: ``aide`` (the command words of this game, short first, ``plus`` for more), ``règle edge``
(the best matching glossary entry or rules section, its first sentences, ``plus`` for the rest),
``verbosité court``, ``place`` and ``table`` (short or full readings), ``précédent`` / ``après``
(the last messages), ``carte`` (the last card again).

Every front end binds it the same way: the console hands it each typed line before the game
does; the words are data (talk.yaml), the sentences are in the translation table (talk.*).
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Any

import yaml

from companion.i18n import t
from companion.table.data import fold

_SENTENCE = re.compile(r"(?<=[.!?])\s+")  # a colon or a semicolon goes on: "La condition de victoire : …"


@functools.cache
def talk_data() -> dict[str, Any]:
    text = resources.files("companion.play").joinpath("talk.yaml").read_text(encoding="utf-8")
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _word_of(token: str) -> str | None:
    folded = fold(token)
    for kind, words in talk_data()["words"].items():
        if folded in {fold(w) for w in words}:
            return kind
    return None


def verbosity_of(token: str) -> str | None:
    folded = fold(token)
    for level, words in talk_data()["verbosities"].items():
        if folded in {fold(w) for w in words}:
            return level
    return None


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(" ".join(text.split())) if s.strip()]


class Talk:
    """The answers to those words, said by the announcer (and so written by the console)."""

    def __init__(self, session: Any, announcer: Any, voice: Any, library: Any = None) -> None:
        self.session = session
        self.announcer = announcer
        self.voice = voice
        self.library = library
        self.more: list[str] = []  # what ``plus`` says next, one chunk at a time

    @property
    def lang(self) -> str:
        return self.announcer.lang

    def handle(self, line: str) -> bool:
        """True when the line was one of these words (answered); False for the game to try."""
        tokens = line.strip().split()
        if not tokens:
            return False
        kind = _word_of(tokens[0])
        rest = tokens[1:]
        if kind is None:
            return False
        if kind in ("seat", "table") and rest and verbosity_of(rest[0]) is None:
            return False  # "place 2 ..." or a card named "Table Rase" are not a reading
        if kind == "card" and rest:
            return False
        if kind in ("help", "more", "back", "forward") and rest and kind != "help":
            return False
        getattr(self, f"_{kind}")(rest)
        return True

    # -- help -----------------------------------------------------------------------------
    def _help(self, _rest: list[str]) -> None:
        game = self.session.game
        if game is None:
            self._say(t("talk.no_game", self.lang))
            return
        lang, data = self.lang, game.data
        counters = [c for c in data.counters.values() if not c.hidden]
        first = counters[0] if counters else None
        example = f"{first.id} 2 -1" if first is not None else "next"
        # The English word (often the game's own term), with the French one after it in French.
        verbs = []
        for verb, words in data.verbs.items():
            en, fr = (words.get("en") or (verb,))[0], (words.get("fr") or ("",))[0]
            verbs.append(en if lang == "en" or not fr else f"{en} ({fr})")
        # "pv_a" is typed "pv 1 a": the id as words, the counter's name after it when it differs.
        names = [f"{c.id.replace('_', ' ')} ({c.name(lang)})" if fold(c.name(lang)) != fold(c.id) else c.id
                 for c in [*counters, *[s for s in data.shared.values() if not s.hidden]]]
        chunks = [t("talk.help_counters", lang, counters=", ".join(names))]
        if verbs:
            chunks.append(t("talk.help_verbs", lang, verbs=", ".join(verbs)))
        chunks.append(t("talk.help_common", lang))
        self.more = chunks
        self._say(t("talk.help_short", lang, game=data.name(lang), example=example))

    def _more(self, _rest: list[str]) -> None:
        if not self.more:
            self._say(t("talk.no_more", self.lang))
            return
        self._say(self.more.pop(0))

    # -- rules ----------------------------------------------------------------------------
    def _rule(self, rest: list[str]) -> None:
        game = self.session.game
        if game is None:
            self._say(t("talk.no_game", self.lang))
            return
        lang = self.lang
        if not rest:
            example = game.data.present.get("rule_example") or "phase"  # a word of the game's glossary
            self._say(t("talk.rule_what", lang, example=example))
            return
        query = " ".join(rest)
        info = self.library.game(game.data.id) if self.library is not None else None
        if info is None:
            self._say(t("talk.rule_none", lang, query=query))
            return
        from companion.cards.gamedata import GlossaryEntry
        from companion.cards.rules import search_rules

        hits = search_rules(info, query, limit=3)
        if not hits:
            self._say(t("talk.rule_none", lang, query=query))
            return
        chunk = int(talk_data().get("chunk") or 2)
        self.more = []
        first = ""
        for n, hit in enumerate(hits, 1):
            item = hit.item
            glossary = isinstance(item, GlossaryEntry)
            title = item.name(lang) if glossary else (item.title.get(lang) or item.title.get("fr") or item.id)
            text = item.text.get(lang) or item.text.get("fr") or ""
            parts = sentences(text)
            head = t("talk.rule_hit", lang, title=title, kind=t("rules.glossary" if glossary else "rules.section",
                                                                    lang), n=n, count=len(hits),
                     text=" ".join(parts[:1]))
            rest_parts = [" ".join(parts[i:i + chunk]) for i in range(1, len(parts), chunk)]
            if n == 1:
                first = head
                self.more += rest_parts
            else:
                self.more += [head, *rest_parts]
        self._say([first, t("talk.rule_more", lang)] if self.more else first)

    # -- settings -------------------------------------------------------------------------
    def _verbosity(self, rest: list[str]) -> None:
        level = verbosity_of(rest[0]) if rest else None
        if level is None:
            self._say(t("talk.verbosity_what", self.lang, level=t(f"talk.verbosity.{self.voice.verbosity}",
                                                                  self.lang)))
            return
        self.voice.verbosity = level
        self._say(t("talk.verbosity_set", self.lang, level=t(f"talk.verbosity.{level}", self.lang)))

    # -- readings and history ---------------------------------------------------------------
    def _form(self, rest: list[str]) -> bool:
        level = verbosity_of(rest[0]) if rest else None
        return (level or self.voice.verbosity) == "short"

    def _seat(self, rest: list[str]) -> None:
        game = self.session.game
        if game is None:
            self._say(t("talk.no_game", self.lang))
            return
        seat = self.session.selected_seat
        if seat is None:
            seat = game.state.get("active") or 0
        self.announcer.read_seat(game, seat, short=self._form(rest))

    def _table(self, rest: list[str]) -> None:
        self.announcer.read_table(self.session.game, short=self._form(rest))

    def _back(self, _rest: list[str]) -> None:
        if not self.announcer.history_step(-1):
            self._say(t("talk.history_empty", self.lang))

    def _forward(self, _rest: list[str]) -> None:
        if not self.announcer.history_step(1):
            self._say(t("talk.history_end", self.lang))

    def _card(self, _rest: list[str]) -> None:
        if not self.voice.repeat():
            self._say(t("talk.no_card", self.lang))

    def _say(self, texts: str | list[str]) -> None:
        """Said for the ear (icons and signs as words, numbers spelled), written as they are."""
        from companion.play.announcer import ear

        lines = [texts] if isinstance(texts, str) else list(texts)
        game = self.session.game
        gid = game.data.id if game is not None else ""
        self.announcer.say([ear(x, self.lang, gid) for x in lines], interrupt=True, written=lines)
