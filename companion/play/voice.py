"""The one door to companion.speech, for every front end.

Speech runs on its own thread, so no front end ever waits for a voice, and the speaker is made
on first use, so a missing or broken voice leaves the companion silent (and says so in the log)
instead of taking it down. Each utterance keeps its own language: a card's English name is read
by the English voice inside a French sentence, and a name is spelt with the listener's letters.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from companion.speech.phrases import Utterance
from companion.tags.resolve import Scan

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Said:
    utterances: tuple[Utterance, ...]
    priority: str = "change"
    interrupt: bool = False

    @property
    def text(self) -> str:
        return " ".join(u.text for u in self.utterances)


class Voice:
    def __init__(self, lang: str = "fr", enabled: bool = True) -> None:
        self._lang = lang
        self._verbosity = "normal"
        # How the speaker is made on first use (the settings panel's voice section).
        self.backend = "auto"
        self.rate: int | None = None
        self.pitch: int | None = None
        self.volume: int | None = None
        self.voice_name = ""
        # The game data (type names, glossary) from the app's card library, already in memory;
        # without it speech would read each game's YAML again on the first card of that game.
        self.games: Callable[[str], object] | None = None
        self.enabled = enabled
        self.last_scan: Scan | None = None
        self.sent: deque[str] = deque(maxlen=50)  # refs handed to speech, newest last (log, tests)
        self._queue: queue.SimpleQueue[Scan | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._speak_scan: Callable[[Scan], object] | None = None
        self._broken = False
        self._handing = False  # a scan taken from the queue, not yet given to the speaker

    @property
    def lang(self) -> str:
        return self._lang

    @lang.setter
    def lang(self, value: str) -> None:
        self._lang = value
        self._rebuild()

    @property
    def verbosity(self) -> str:
        return self._verbosity

    @verbosity.setter
    def verbosity(self, value: str) -> None:
        self._verbosity = value
        self._rebuild()

    def configure(self, backend: str | None = None, rate: int | None = None, voice_name: str | None = None,
                  verbosity: str | None = None, pitch: int | None = None, volume: int | None = None) -> None:
        """Settings from the config file, kept for the speaker made on first use and applied at
        once to one already speaking (rate, pitch, volume)."""
        if backend:
            self.backend = backend
        if voice_name is not None:
            self.voice_name = voice_name
        speaker = self.speaker()
        for name, value in (("rate", rate), ("pitch", pitch), ("volume", volume)):
            if value is None:
                continue
            setattr(self, name, value)
            settings = getattr(speaker, "settings", None)
            if settings is not None:
                setattr(settings, name, value)
                settings.clamp()
        if verbosity:
            self.verbosity = verbosity

    def _rebuild(self) -> None:
        # A card is spoken by a callback bound to a language and a verbosity: make a new one on
        # the same speaker, so that what is being said goes on and the next card follows the setting.
        speaker = self.speaker()
        if speaker is None:
            return
        from companion.speech import speak_scan_callback

        self._speak_scan = speak_scan_callback(self._lang, speaker=speaker, verbosity=self._verbosity,
                                               games=self.games)

    def scan(self, scan: Scan) -> None:
        """A card was laid: speak it (a newer scan replaces one not yet spoken)."""
        self.last_scan = scan
        self._submit(scan)

    def say(self, text: str, priority: str = "change", interrupt: bool = False) -> None:
        """Speak a sentence of the table (a change, a refusal, a hint) in the listener's language:
        ``priority`` is a name of companion.speech's Priority (card, error, change, hint)."""
        if text.strip():
            self._submit(_Said((Utterance(text, self._lang),), priority, interrupt))

    def say_all(self, utterances: Sequence[Utterance], priority: Any = "change", interrupt: bool = False) -> None:
        """Speak one message made of utterances, each in its own language and voice."""
        kept = tuple(u for u in utterances if u.text and u.text.strip())
        if kept:
            name = priority if isinstance(priority, str) else priority.name.lower()
            self._submit(_Said(kept, name, interrupt))

    def spell(self, name: str) -> None:
        """Spell a name letter by letter, with the letter names of the listener's language."""
        from companion.speech.phrases import spell_speech

        self.say_all(spell_speech(name, self._lang), "card", True)

    def stop(self) -> None:
        """Silence now: cut what is being said and forget what waits."""
        speaker = self.speaker()
        stop = getattr(speaker, "stop", None)
        if callable(stop):
            stop()

    def repeat_message(self) -> None:
        """Say the last message again (a change, a refusal, a card), from its start."""
        speaker = self.speaker()
        again = getattr(speaker, "repeat", None)
        if callable(again):
            again()

    def repeat(self) -> bool:
        """Speak the last card again; False when there is none yet."""
        if self.last_scan is None:
            return False
        self._submit(self.last_scan)
        return True

    def speaker(self) -> object | None:
        """companion.speech's Speaker once one has been made (None before the first scan)."""
        get = getattr(self._speak_scan, "speaker", None)
        return get() if callable(get) else None

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until every scan handed over has reached the speaker and been said."""
        deadline = time.monotonic() + timeout
        while not self._queue.empty() or self._handing:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        speaker = self.speaker()
        wait = getattr(speaker, "wait_idle", None)
        return bool(wait(max(0.0, deadline - time.monotonic()))) if callable(wait) else True

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(1.0)
            self._thread = None
        speaker = self.speaker()
        try:
            close = getattr(speaker, "close", None)
            if callable(close):
                close()
        except Exception:
            log.exception("closing the speaker failed")

    def _submit(self, scan: Scan | _Said) -> None:
        self.sent.append(scan.text if isinstance(scan, _Said) else scan.ref or scan.uid)
        if not self.enabled or self._broken:
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="speech", daemon=True)
            self._thread.start()
        self._handing = True  # before the put, so wait_idle never sees an empty queue too early
        self._queue.put(scan)

    def _say(self, said: _Said) -> None:
        from companion.speech import Priority

        speaker = self.speaker()
        if speaker is not None:
            speaker.say_all(said.utterances, Priority[said.priority.upper()], interrupt=said.interrupt)

    def _load(self) -> bool:
        if self._speak_scan is None and not self._broken:
            try:
                from companion.speech import make_speaker, speak_scan_callback

                # One speaker for cards and table sentences, made before the first card.
                settings: dict = {"lang": self._lang}
                for name in ("rate", "pitch", "volume"):
                    if getattr(self, name) is not None:
                        settings[name] = getattr(self, name)
                if self.voice_name:
                    settings["voice"] = self.voice_name
                speaker = make_speaker(self.backend or "auto", **settings)
                self._speak_scan = speak_scan_callback(self._lang, speaker=speaker, verbosity=self._verbosity,
                                                       games=self.games)
            except Exception:
                log.exception("speech unavailable; the app goes on without a voice")
                self._broken = True
        return self._speak_scan is not None

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            # Only the newest scan matters: a card laid while another was queued replaces it.
            # Sentences of the table are never dropped: they go to the speaker's own queue.
            while item is not None and not isinstance(item, _Said):
                try:
                    newer = self._queue.get_nowait()
                except queue.Empty:
                    break
                if isinstance(newer, _Said):
                    self._queue.put(newer)
                    break
                item = newer
            try:
                if item is None or not self._load():
                    return
                if isinstance(item, _Said):
                    self._say(item)
                else:
                    self._speak_scan(item)  # type: ignore[misc]
            except Exception:
                log.exception("speech failed for %s", getattr(item, "text", None) or getattr(item, "ref", ""))
            finally:
                self._handing = False
