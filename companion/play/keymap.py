"""The key map (keymap.yaml, data): which key does what on which screen in which game, and
the words of it all, in French and English: the actions, the prompts, the keys' names, and what
H says on each screen."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from companion import kept
from companion.play.keynames import known_lang


def game_verbs(game: str) -> frozenset[str]:
    """The command verbs of a game's own (game.yaml ``table.verbs``); none for an unknown game."""
    from companion.table.data import TableDataError, load_table

    try:
        return frozenset(load_table(game).verbs)
    except TableDataError:
        return frozenset()


@dataclass(frozen=True)
class Binding:
    action: str
    screen: str
    keys: tuple[tuple[str, ...], ...]  # each a sequence of key names
    keypad: tuple[tuple[str, ...], ...]
    command: str | None = None
    verb: str | None = None  # only in the games that have this command verb (their game.yaml)
    n: int | None = None
    amount: bool = False
    n_range: tuple[int, int] | None = None

    def sequences(self) -> tuple[tuple[str, ...], ...]:
        return self.keys + self.keypad

    def for_game(self, game: str | None) -> bool:
        return self.verb is None or (game is not None and self.verb in game_verbs(game))


@dataclass(frozen=True)
class ScreenKeys:
    id: str
    name: dict[str, str]
    shows: dict[str, str]
    bindings: tuple[Binding, ...]
    raw: tuple[dict[str, Any], ...] = field(default=(), compare=False)


def _seq(spec: str, n: int | None) -> tuple[str, ...]:
    text = spec.replace("{n}", str(n)) if n is not None else spec
    return tuple(text.split())


class KeyMap:
    def __init__(self, tree: dict[str, Any]) -> None:
        self.tree = tree
        self.actions: dict[str, dict[str, str]] = tree["actions"]
        self.prompts: dict[str, dict[str, str]] = tree["prompts"]
        self.key_names: dict[str, dict[str, str]] = tree["key_names"]
        self.screen_order: list[str] = list(tree["screen_order"])
        self.out_of_round: set[str] = set(tree.get("out_of_round") or ())
        self.screens: dict[str, ScreenKeys] = {}
        for sid, entry in tree["screens"].items():
            bindings = []
            for b in entry.get("bindings") or []:
                rng = b.get("n")
                numbers: list[int | None] = list(range(rng[0], rng[1] + 1)) if rng else [None]
                for n in numbers:
                    bindings.append(Binding(
                        action=b["action"], screen=sid,
                        keys=tuple(_seq(k, n) for k in b.get("keys") or []),
                        keypad=tuple(_seq(k, n) for k in b.get("keypad") or []),
                        command=b.get("command"), verb=b.get("verb"),
                        n=n, amount=bool(b.get("amount")), n_range=tuple(rng) if rng else None))
            self.screens[sid] = ScreenKeys(sid, entry["name"], entry["shows"], tuple(bindings),
                                           tuple(entry.get("bindings") or []))
        # A screen shown over the table (the card laid) keeps the table's keys: "inherit: table".
        self.inherits: dict[str, str] = {sid: e["inherit"] for sid, e in tree["screens"].items() if e.get("inherit")}

    # -- looking up -----------------------------------------------------------------------
    def bindings(self, screen: str, game: str | None) -> list[Binding]:
        """The keys live on a screen: its own first, then the global ones, each global binding
        keeping only the key sequences that the screen left free."""
        own = [b for b in self._screen(screen).bindings if b.for_game(game)] if screen != "global" else []
        parent = self.inherits.get(screen)
        if parent and game is not None:  # the table's keys, for the game that is on the table
            taken = {seq for b in own for seq in b.sequences()}
            own += [b for b in self._screen(parent).bindings
                    if b.for_game(game) and not taken & set(b.sequences())]
        taken = {seq for b in own for seq in b.sequences()}
        out = list(own)
        for b in self.screens["global"].bindings:
            if not b.for_game(game):
                continue
            keys = tuple(s for s in b.keys if s not in taken)
            keypad = tuple(s for s in b.keypad if s not in taken)
            if (keys, keypad) == (b.keys, b.keypad):
                out.append(b)
            elif keys or keypad:
                out.append(Binding(b.action, b.screen, keys, keypad, b.command, b.verb, b.n, b.amount, b.n_range))
        return out

    def _screen(self, screen: str) -> ScreenKeys:
        return self.screens.get(screen) or self.screens["global"]

    def match(self, screen: str, game: str | None, sequence: tuple[str, ...]) -> tuple[Binding | None, bool]:
        """(the binding this sequence completes, whether a longer sequence starts with it)."""
        exact = None
        longer = False
        for b in self.bindings(screen, game):
            for seq in b.sequences():
                if seq == sequence and exact is None:
                    exact = b
                elif len(seq) > len(sequence) and seq[:len(sequence)] == sequence:
                    longer = True
        return exact, longer

    # -- words ----------------------------------------------------------------------------
    def action_words(self, binding: Binding, lang: str) -> str:
        words = self.actions[binding.action][known_lang(lang)]
        return words.format(n=binding.n if binding.n is not None else "")

    def prompt(self, key: str, lang: str, **values: Any) -> str:
        return self.prompts[key][known_lang(lang)].format(**values)

    def key_words(self, seq: tuple[str, ...], lang: str) -> str:
        """A key sequence as said and written: "pavé barre oblique, puis pavé 3"."""
        names = self.key_names[known_lang(lang)]

        def one(key: str) -> str:
            parts = key.split("+") if key != "+" else ["+"]
            if key.endswith("++"):
                parts = [*key[:-2].split("+"), "+"]
            return " ".join(names.get(p, p.upper() if len(p) == 1 and p.isalpha() else p) for p in parts)

        return f" {self.prompt('then', lang)} ".join(one(k) for k in seq)

    def screen_name(self, screen: str, lang: str) -> str:
        return self._screen(screen).name[known_lang(lang)]

    def screen_shows(self, screen: str, lang: str) -> str:
        return self._screen(screen).shows[known_lang(lang)]

    def help_lines(self, screen: str, game: str | None, lang: str, keypad: bool = False) -> list[str]:
        """What H says: this screen's keys, then those of every screen; for the keyboard, or for
        the keypad when help was asked from the keypad (a keypad user needs no letter keys)."""
        lang = known_lang(lang)
        out = [self.prompt("help_head", lang, screen=self.screen_name(screen, lang))]
        if keypad:
            out.append(self.prompt("help_keypad", lang))
        own = [b for b in self.bindings(screen, game) if b.screen == screen and screen != "global"]
        rest = [b for b in self.bindings(screen, game) if b not in own]
        out += self._binding_lines(own, lang, keypad)
        others = self._binding_lines(rest, lang, keypad)
        if others:
            out += [self.prompt("help_global", lang), *others]
        out.append(self.prompt("help_other_keypad" if not keypad else "help_other_keys", lang))
        return out

    def _binding_lines(self, bindings: list[Binding], lang: str, keypad: bool) -> list[str]:
        lines = []
        seen: set[str] = set()
        for b in bindings:
            seqs = b.keypad if keypad else b.keys
            if not seqs or b.action == "prefix":
                continue
            keys = f" {self.prompt('or', lang)} ".join(self.key_words(s, lang) for s in seqs)
            action = self.action_words(b, lang)
            if b.n_range is not None and b.n is not None:
                # One line for "1 to 6", not six.
                span = self.prompt("range", lang, first=b.n_range[0], last=b.n_range[1])
                keys = span.join(keys.rsplit(str(b.n), 1))
                action = span.join(action.rsplit(str(b.n), 1))
            line = self.prompt("key_action", lang, keys=keys, action=action)
            if line not in seen:
                seen.add(line)
                lines.append(line)
        return lines


@functools.cache
def load_keymap() -> KeyMap:
    text = resources.files("companion.play").joinpath("keymap.yaml").read_text(encoding="utf-8")
    return KeyMap(kept.load_yaml("keymap.marshal", text))  # read at every start: kept parsed
