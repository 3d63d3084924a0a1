"""Words said to the companion itself rather than to the game, for a player who cannot see the
screen: ``aide`` (the command words of this game, short first, ``plus`` for more), ``règle edge``
(the best matching glossary entry or rules section, its first sentences, ``plus`` for the rest),
``verbosité court``, ``rappel`` (the reminder of the phase the game is in), ``place`` (or
``place 2``) and ``table`` (short or full readings), ``qui joue``, ``score``, ``répète``,
``précédent`` / ``après`` (the last messages), ``carte`` (the last card again), and with no
game ``partie <jeu> Ann Bob`` and ``reprendre 1`` (a saved game, as the goodbye says). Also a
player's own words for table commands (``fin de tour``, ``pile ou face``: aliases) and the
suggestion of a command word close to a typo.

Every front end binds it the same way: the console hands it each typed line before the game
does; the words are data (talk.yaml), the sentences are in the translation table (talk.*).
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Any

from companion import kept, registry
from companion.i18n import t
from companion.table.data import fold

_SENTENCE = re.compile(r"(?<=[.!?])\s+")  # a colon or a semicolon goes on: "La condition de victoire : …"


@functools.cache
def talk_data() -> dict[str, Any]:
    text = resources.files("companion.play").joinpath("talk.yaml").read_text(encoding="utf-8")
    return kept.load_yaml("talk.marshal", text)  # read by the console's first line: kept parsed


def _word_of(token: str) -> str | None:
    folded = fold(token)
    for kind, words in talk_data()["words"].items():
        if folded in {fold(w) for w in words}:
            return kind
    return None


def talk_words() -> set[str]:
    """Every word said to the companion itself, and the first words of the player's own words
    for table commands (what a typo may be close to)."""
    words = {w for ws in talk_data()["words"].values() for w in ws}
    words |= {_line(p).split()[0] for p in (talk_data().get("aliases") or {})}
    return {fold(w) for w in words}


def _line(text: str) -> str:
    """A line folded as the phrase lists are: no accents, lower case, apostrophes as spaces."""
    return " ".join(fold(text.replace("'", " ").replace("’", " ")).split())


def phrase_of(line: str) -> str | None:
    """The reading a whole line asks for ("qui joue" → "turn"), or None."""
    folded = _line(line)
    for kind, phrases in (talk_data().get("phrases") or {}).items():
        if folded in {_line(p) for p in phrases}:
            return kind
    return None


def alias_of(line: str) -> str | None:
    """The table command a player's own words stand for ("fin de tour" → "end", "exclure 3" →
    "oust 3"), or None."""
    words = _line(line).split()
    best: tuple[int, str] | None = None
    for phrase, command in (talk_data().get("aliases") or {}).items():
        head = _line(phrase).split()
        if words[:len(head)] == head and (best is None or len(head) > best[0]):
            best = (len(head), str(command))
    if best is None:
        return None
    return " ".join([best[1], *line.split()[best[0]:]])


def suggestion(line: str, known: set[str]) -> tuple[str, str] | None:
    """(the word typed, the command word it is close to) when the line's first word is within a
    few edits of one (talk.yaml ``typos``: "suivnat" → "suivant"), else None. Edits are counted
    by rapidfuzz (optimal string alignment: a swap of two letters is one edit)."""
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    words = line.split()
    if not words or not known:
        return None
    word = fold(words[0])
    if len(word) < 3 or word in known or not word.isalpha():
        return None
    typos = talk_data().get("typos") or {}
    limit = int(typos.get("edits", 2)) if len(word) > int(typos.get("short", 4)) else 1
    hit = process.extractOne(word, sorted(known), scorer=OSA.distance, score_cutoff=limit)
    if hit is None:
        return None
    return words[0], hit[0]


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
        # How the front end starts a game (its opening said first); None: the session's own.
        self.start_game: Any = None
        self.resume_game: Any = None  # and how it resumes one, by its number

    @property
    def lang(self) -> str:
        return self.announcer.lang

    def handle(self, line: str) -> bool:
        """True when the line was one of these words (answered); False for the game to try."""
        tokens = line.strip().split()
        if not tokens:
            return False
        said = phrase_of(line)
        if said is not None:
            getattr(self, f"_{said}")([])
            return True
        kind = _word_of(tokens[0])
        rest = tokens[1:]
        if kind is None:
            return False
        if kind == "seat" and len(rest) == 1 and self._seat_number(rest[0]) is not None:
            self._read_seat(self._seat_number(rest[0]), [])  # "place 2": seat 2's reading
            return True
        if kind == "game":
            return self.session.game is None and bool(rest) and self._start(rest)
        if kind == "resume":  # "reprendre 1": with no game only (a game takes its own words)
            return self.session.game is None and len(rest) == 1 and rest[0].isdigit() and self._resume(int(rest[0]))
        if kind in ("seat", "table") and rest and verbosity_of(rest[0]) is None:
            return False  # "place 2 ..." or a card named "Table Rase" are not a reading
        if kind == "card" and rest:
            return False
        if kind in ("more", "back", "forward", "reminder", "repeat") and rest:
            return False
        getattr(self, f"_{kind}")(rest)
        return True

    # -- help -----------------------------------------------------------------------------
    def _help(self, _rest: list[str]) -> None:
        game = self.session.game
        if game is None:  # the console with no game: what can be done here, and how
            self.more = [t("talk.help_games", self.lang, games=", ".join(self._games()))]
            self._say(t("talk.help_no_game", self.lang, game=registry.example_game()))
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

    # -- the phase's reminder ---------------------------------------------------------------
    def _reminder(self, _rest: list[str]) -> None:
        game = self.session.game
        if game is None:
            self._say(t("talk.no_game", self.lang))
            return
        self._say(self.announcer.reminder_text(game) or t("talk.no_reminder", self.lang))

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
        self._read_seat(seat, rest)

    def _read_seat(self, seat: int, rest: list[str]) -> None:
        self.announcer.read_seat(self.session.game, seat, short=self._form(rest))

    def _seat_number(self, token: str) -> int | None:
        game = self.session.game
        if game is None or not token.isdigit():
            return None
        n = int(token)
        return n - 1 if 1 <= n <= len(game.state["seats"]) else None

    def _turn(self, _rest: list[str]) -> None:
        """Whose turn it is and which phase ("qui joue", "c'est à qui", "whose turn")."""
        game = self.session.game
        if game is None:
            self._say(t("talk.no_game", self.lang))
            return
        text = self.announcer.table_texts(game)[0]
        self.announcer.say(text, interrupt=True, written=[self.announcer.table_texts(game, digits=True)[0]])

    def _scores(self, _rest: list[str]) -> None:
        self.announcer.read_table(self.session.game, short=True)

    def _repeat(self, _rest: list[str]) -> None:
        if not self.announcer.history_step(0):
            self._say(t("talk.history_empty", self.lang))

    # -- a game started from the console ---------------------------------------------------
    def _games(self) -> list[str]:
        return list(getattr(self.library, "games", None) or [])

    def _start(self, rest: list[str]) -> bool:
        """``partie <jeu> Ann Bob Cy`` (or ``Ann,Bob``): a new game, when none is on the table."""
        games = {fold(g): g for g in self._games()}
        game = games.get(fold(rest[0]))
        if game is None:
            self._say(t("talk.game_what", self.lang, games=", ".join(self._games()), game=registry.example_game()))
            return True
        names = [n for part in rest[1:] for n in part.split(",") if n]
        if self.start_game is not None:
            self.start_game(game, names)
        else:
            self.session.new_game(game, names, source="key")
        return True

    def _resume(self, number: int) -> bool:
        """``reprendre 1``: a saved game goes on, when none is on the table."""
        if self.resume_game is not None:
            self.resume_game(number)
        else:
            self.session.resume(number, source="key")
        return True

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
