"""What is said and how: phrases written for the ear (phrases.py, phrases.yaml) and a speaker
with a queue, priorities and interruption, in front of the platform's voice.

``make_speaker("auto")`` picks espeak-ng on Linux and the Raspberry Pi, ``say`` on macOS and
System.Speech on Windows. ``COMPANION_SPEECH=<backend>`` overrides the choice (the test suite
sets ``silent``); a voice that is missing falls back to silence with one clear log line.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable
from typing import Any

from companion.speech.backends import (
    BACKENDS,
    Backend,
    SilentBackend,
    SpeechError,
    VoiceSettings,
    create,
    platform_backend,
)
from companion.speech.phrases import Utterance, card_speech, change_speech, scan_speech
from companion.speech.speaker import Priority, Speaker

__all__ = [
    "BACKENDS", "Backend", "Priority", "SilentBackend", "Speaker", "SpeechError", "Utterance",
    "VoiceSettings", "card_speech", "change_speech", "make_backend", "make_speaker", "scan_speech",
    "speak_scan_callback",
]

log = logging.getLogger("companion.speech")

_SETTINGS = ("rate", "pitch", "volume", "voice", "mbrola")


def make_backend(backend: str = "auto", respect_env: bool = True) -> Backend:
    """The backend asked for, or the silent one with a one-line warning when it cannot run here.

    ``respect_env=False`` ignores ``COMPANION_SPEECH``: writing a WAV file makes no sound, so a
    machine kept silent can still render one.
    """
    forced = os.environ.get("COMPANION_SPEECH", "").strip().lower() if respect_env else ""
    if forced and forced not in (*BACKENDS, "auto"):
        log.warning("COMPANION_SPEECH=%s is not a speech backend (%s); ignored", forced, ", ".join(BACKENDS))
        forced = ""
    name = forced or backend or "auto"
    if name == "auto":
        name = platform_backend()
    try:
        return create(name)
    except SpeechError as exc:
        if name == "espeak":
            log.warning("espeak-ng is not installed: the companion will stay silent "
                        "(install it with: sudo apt-get install espeak-ng)")
        else:
            log.warning("speech: %s; the companion will stay silent", exc)
        return SilentBackend()


def make_speaker(backend: str = "auto", **settings: Any) -> Speaker:
    """A running speaker. Settings: rate (words a minute), pitch (0-100), volume (percent,
    0-200), voice (a name, or one per language), mbrola (prefer MBROLA voices), lang (the
    listener's language). Unknown settings are logged and ignored, so an old settings file
    never stops the voice."""
    lang = settings.pop("lang", "fr")
    respect_env = settings.pop("respect_env", True)
    unknown = sorted(set(settings) - set(_SETTINGS))
    for key in unknown:
        log.warning("speech: unknown setting %r ignored", key)
        settings.pop(key)
    voice_settings = VoiceSettings(**settings)
    return Speaker(make_backend(backend, respect_env=respect_env), voice_settings, lang=lang)


@functools.cache
def game_info(game: str) -> Any:
    """The GameInfo of a game from its folder, shipped or the user's (type names, glossary), or None."""
    try:
        from companion import registry
        from companion.cards.gamedata import load_game

        path = registry.game_file(game) if registry.ID.match(game) else None
        return load_game(path) if path is not None and path.exists() else None
    except Exception:  # broken game data: the card is still read, with its raw type ids
        log.warning("speech: no game data for %s", game, exc_info=True)
        return None


def speak_scan_callback(lang: str, speaker: Speaker | None = None, verbosity: str = "normal",
                        games: Callable[[str], Any] | None = None) -> Callable[[Any], None]:
    """A callback for the console and the app: speaks each Scan, cutting short what was said.

    A card is read in full (its name in its own language); an unknown or unreadable tag gets a
    calm sentence. The speaker is made on first use, so a console that never scans starts fast.
    ``games(game_id)`` gives a game's GameInfo (``CardLibrary.game``); by default it is read
    from the game's cardmap folder.
    """
    games = games or game_info
    holder: dict[str, Speaker] = {}
    if speaker is not None:
        holder["s"] = speaker

    def on_scan(scan: Any) -> None:
        try:
            if "s" not in holder:
                holder["s"] = make_speaker("auto", lang=lang)
            s = holder["s"]
            if getattr(scan, "card", None) is not None:
                card = scan.card
                utterances = card_speech(card, verbosity=verbosity, lang=lang, game=games(card.game))
            else:
                detail = scan.detail_text(lang, spoken=True) if hasattr(scan, "detail_text") else ""
                utterances = scan_speech(getattr(scan, "status", "unknown"), lang, detail)
            s.say_all(utterances, Priority.CARD, interrupt=True)
        except Exception:  # speech must never take the reader down with it
            log.exception("speaking a scan failed")

    on_scan.speaker = lambda: holder.get("s")  # type: ignore[attr-defined]
    return on_scan
