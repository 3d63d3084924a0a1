"""The speaker: one queue of messages, spoken in a worker thread, by priority.

Card text comes before counter changes, which come before hints. A new card (a new scan)
cuts short whatever is being said and drops the stale card text and hints still waiting;
counter changes still waiting are kept, they are the table's numbers. ``interrupt=True``
clears everything. Nothing here raises into the caller: a voice that fails is logged.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path

from companion.speech.backends import Backend, SilentBackend, SpeechError, VoiceSettings
from companion.speech.phrases import Utterance, spell_speech

log = logging.getLogger("companion.speech")


class Priority(IntEnum):
    CARD = 0
    ERROR = 1
    CHANGE = 2
    HINT = 3


@dataclass
class _Message:
    utterances: tuple[Utterance, ...]
    priority: Priority
    seq: int
    repeat: bool = False
    cancel: threading.Event = field(default_factory=threading.Event)


class Speaker:
    def __init__(self, backend: Backend | None = None, settings: VoiceSettings | None = None,
                 lang: str = "fr", history: int = 200) -> None:
        self.backend = backend if backend is not None else SilentBackend()
        self.settings = (settings or VoiceSettings()).clamp()
        self.lang = lang  # the listener's language: letter names when spelling
        self._cv = threading.Condition()
        self._pending: list[_Message] = []
        self._current: _Message | None = None
        self._last: _Message | None = None
        self._history: deque[tuple[Utterance, ...]] = deque(maxlen=history)
        self._seq = itertools.count()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="speech", daemon=True)
        self._thread.start()

    # -- settings -------------------------------------------------------------------------
    @property
    def rate(self) -> int:
        return self.settings.rate

    @rate.setter
    def rate(self, value: int) -> None:
        self.settings.rate = value
        self.settings.clamp()

    @property
    def pitch(self) -> int:
        return self.settings.pitch

    @pitch.setter
    def pitch(self, value: int) -> None:
        self.settings.pitch = value
        self.settings.clamp()

    @property
    def volume(self) -> int:
        return self.settings.volume

    @volume.setter
    def volume(self, value: int) -> None:
        self.settings.volume = value
        self.settings.clamp()

    @property
    def voice(self) -> str | dict[str, str] | None:
        return self.settings.voice

    @voice.setter
    def voice(self, value: str | dict[str, str] | None) -> None:
        self.settings.voice = value

    def voices(self, lang: str) -> list[str]:
        try:
            return self.backend.voices(lang)
        except Exception:
            log.exception("listing voices failed")
            return []

    # -- what to say ----------------------------------------------------------------------
    def say(self, text: str, lang: str = "fr", priority: Priority = Priority.CARD, interrupt: bool = False) -> None:
        """Queue one sentence. A CARD message cuts short what is being said (a new scan)."""
        self.say_all([Utterance(text, lang)], priority, interrupt)

    def say_all(self, utterances: Sequence[Utterance], priority: Priority = Priority.CARD,
                interrupt: bool = False) -> None:
        """Queue one message made of several utterances (a card: its name in English, the rest in
        French) that is spoken whole, never cut by its own parts."""
        utterances = tuple(u for u in utterances if u.text and u.text.strip())
        if not utterances:
            return
        self._submit(utterances, Priority(priority), interrupt)

    def repeat(self) -> None:
        """Say the last message again, from its start."""
        with self._cv:
            last = self._last
        if last is not None:
            self._submit(last.utterances, last.priority, True, repeat=True)

    def spell(self, name: str, lang: str | None = None) -> None:
        """Spell a name letter by letter, now."""
        self._submit(tuple(spell_speech(name, lang or self.lang)), Priority.CARD, True, repeat=True)

    def stop(self) -> None:
        """Silence: cut what is being said and forget what was waiting."""
        with self._cv:
            self._pending.clear()
            self._cut_current()
            self._cv.notify_all()

    def _submit(self, utterances: tuple[Utterance, ...], priority: Priority, interrupt: bool,
                repeat: bool = False) -> None:
        if not utterances:
            return
        with self._cv:
            if self._closed:
                return
            if interrupt:
                self._pending.clear()
            elif priority == Priority.CARD:
                self._pending = [m for m in self._pending if m.priority not in (Priority.CARD, Priority.HINT)]
            if interrupt or priority == Priority.CARD:
                self._cut_current()
            msg = _Message(utterances, priority, next(self._seq), repeat)
            self._pending.append(msg)
            self._pending.sort(key=lambda m: (m.priority, m.seq))
            self._cv.notify_all()

    def _cut_current(self) -> None:
        current = self._current
        if current is not None:
            current.cancel.set()
            try:
                self.backend.cancel()
            except Exception:
                log.exception("cancelling speech failed")

    # -- the worker -----------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._pending and not self._closed:
                    self._cv.wait()
                if self._closed:
                    return
                msg = self._pending.pop(0)
                self._current = msg
                if not msg.repeat:
                    self._last = msg
                self._history.append(msg.utterances)
            try:
                for utterance in msg.utterances:
                    if msg.cancel.is_set():
                        break
                    self.backend.play(utterance, self.settings, msg.cancel)
            except Exception as exc:  # a failing voice is logged; the program goes on
                self._backend_failed(exc)
            finally:
                with self._cv:
                    self._current = None
                    self._cv.notify_all()

    def _backend_failed(self, exc: Exception) -> None:
        if isinstance(exc, FileNotFoundError | SpeechError):
            log.warning("speech: %s; going on without a voice", exc)
            self.backend = SilentBackend()
        else:
            log.exception("speech failed")

    # -- state ----------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        with self._cv:
            return bool(self._pending) or self._current is not None

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until everything queued has been said; False on timeout."""
        with self._cv:
            return self._cv.wait_for(lambda: not self._pending and self._current is None, timeout)

    @property
    def last(self) -> list[Utterance] | None:
        with self._cv:
            return list(self._last.utterances) if self._last else None

    @property
    def history(self) -> list[list[Utterance]]:
        """Every message started, oldest first (the last few hundred)."""
        with self._cv:
            return [list(m) for m in self._history]

    # -- files ----------------------------------------------------------------------------
    @property
    def can_render(self) -> bool:
        return self.backend.can_render

    def render_wav(self, text: str | Sequence[Utterance], lang: str = "fr", path: str | Path = "speech.wav") -> bool:
        """Write what would be said to a WAV file; False (and logged) when this voice cannot."""
        utterances = [Utterance(text, lang)] if isinstance(text, str) else [u for u in text if u.text.strip()]
        try:
            self.backend.render(utterances, self.settings, Path(path))
            return True
        except Exception as exc:
            log.warning("speech: %s", exc)
            return False

    # -- end ------------------------------------------------------------------------------
    def close(self, timeout: float = 2.0) -> None:
        with self._cv:
            if self._closed:
                return
            self._closed = True
            self._pending.clear()
            self._cut_current()
            self._cv.notify_all()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def __enter__(self) -> Speaker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
