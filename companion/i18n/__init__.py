"""The one translation table of user-facing text: French first, English second.

Messages live in ``messages.yaml`` as ``key: {fr: ..., en: ...}``; each game's own messages in
its game.yaml (``messages:``), added by the one game.yaml reader when it reads a game
(``add_messages``). ``t(key, **values)`` formats one in the current language and falls back to
French, then to the key itself, so a missing translation shows something readable instead of
failing.
"""

from __future__ import annotations

import functools
import os
import re
from importlib import resources

LANGUAGES = ("fr", "en")
_lang = os.environ.get("COMPANION_LANG", "fr") if os.environ.get("COMPANION_LANG") in LANGUAGES else "fr"


@functools.cache
def _table() -> dict[str, dict[str, str]]:
    text = resources.files(__package__).joinpath("messages.yaml").read_text(encoding="utf-8")
    kept = _kept_table(text)
    if kept is not None:
        return kept
    # libyaml's parser when PyYAML has it: the same table, read five times faster (this is on
    # the way to the first frame).
    import yaml

    table = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    _keep_table(text, table)
    return table


# The table as the last program to read this very text of messages.yaml kept it, in the cache
# folder (companion.kept): every start reads it (the window, each console, each command), and
# parsing it is 30 ms here, 0.2 s on a Pi; loading it kept is 1 ms.
_KEPT = "messages.marshal"


def _kept_table(text: str) -> dict[str, dict[str, str]] | None:
    from companion import kept

    found, table = kept.read(_KEPT, text)
    return table if found and isinstance(table, dict) else None


def _keep_table(text: str, table: dict[str, dict[str, str]]) -> None:
    from companion import kept

    kept.keep(_KEPT, text, table)


_games: dict[str, dict[str, str]] = {}  # the games' own messages, as their data is read


def add_messages(messages: dict[str, dict[str, str]]) -> None:
    """A game's own messages join the table (never replacing one of the program's own)."""
    table = _table()
    for key, entry in messages.items():
        if key not in table and isinstance(entry, dict):
            _games[key] = dict(entry)


def _entry(key: str) -> dict[str, str] | None:
    return _table().get(key) or _games.get(key)


# Chosen by the person starting the program (--lang, COMPANION_LANG): wins over the app's settings.
_chosen = _lang == os.environ.get("COMPANION_LANG")


_listeners: list = []  # weak references to what is called with a new language


def on_language(fn) -> None:
    """Call ``fn(lang)`` whenever the language changes (the window's labels, the table's voice
    follow it). A bound method is held weakly: a runtime gone is forgotten, not kept alive."""
    import weakref

    _listeners.append(weakref.WeakMethod(fn) if hasattr(fn, "__self__") else (lambda: fn))


def set_language(lang: str, chosen: bool = False) -> None:
    global _lang, _chosen
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; expected one of {LANGUAGES}")
    changed = lang != _lang
    _lang = lang
    _chosen = _chosen or chosen
    if changed:
        for ref in list(_listeners):
            fn = ref()
            if fn is None:
                _listeners.remove(ref)
            else:
                fn(lang)


def language_chosen() -> bool:
    """Whether the command line or the environment named the language (the settings then yield)."""
    return _chosen


def language() -> str:
    return _lang


# French elides "de" before a vowel: a name put in a sentence reads "le tour d'Ann", "Commandes
# d'Orion", never "de Ann".
_ELISION = re.compile(r"\b([Dd])e (?=[AEIOUYÉÈÊÀÂÎÔÛŒaeiouyéèêàâîôûœ])")


def elide(text: str) -> str:
    """French elision of "de" before a word that starts with a vowel."""
    return _ELISION.sub(r"\1'", text)


def t(key: str, lang: str | None = None, **values: object) -> str:
    entry = _entry(key)
    if entry is None:
        return key
    used = (lang or _lang) if entry.get(lang or _lang) else "fr"
    text = entry.get(used) or key
    if not values:
        return text
    from companion.i18n.grammar import agree

    text = agree(text.format(**values), used)  # "1 carte(s)" → "1 carte"
    return elide(text) if used == "fr" else text


def t_first(keys: tuple[str, ...], lang: str | None = None, **values: object) -> str:
    """The first of ``keys`` that the table has (a game's own word before the general one)."""
    return t(next((k for k in keys if _entry(k) is not None), keys[-1]), lang, **values)
