"""The voices behind the speaker: espeak-ng (Linux, Raspberry Pi), ``say`` (macOS), Windows'
System.Speech through PowerShell, and a silent backend that records what it would have said.

Each backend plays one utterance at a time, blocking, in the speaker's worker thread; the
speaker cuts a playback short with ``cancel()``. Engines are driven as child processes: a
killed process is the one interruption every platform agrees on.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from companion.i18n import t
from companion.speech.phrases import Utterance
from companion.speech.wav import join_wavs

log = logging.getLogger("companion.speech")
notice = logging.getLogger("companion.notice")  # sentences for the user, printed as they are (cli.py)


def _audio_noise(line: str) -> bool:
    """A line of the sound library espeak-ng plays through (ALSA, PulseAudio), not of espeak-ng."""
    return line.startswith(("ALSA lib", "error: No such file", "Home directory not accessible")) or \
        "pulse" in line.lower() or "jack" in line.lower()

BACKENDS = ("espeak", "say", "windows", "silent")


class SpeechError(Exception):
    """A voice could not do what was asked (render a file, find its engine)."""


@dataclass
class VoiceSettings:
    rate: int = 165  # words per minute
    pitch: int = 50  # 0 (low) to 100 (high)
    volume: int = 100  # percent of the engine's normal loudness, 0 to 200
    voice: str | dict[str, str] | None = None  # one voice for all, or one per language
    mbrola: bool = True  # prefer an installed MBROLA voice on espeak-ng

    def clamp(self) -> VoiceSettings:
        self.rate = max(80, min(450, int(self.rate)))
        self.pitch = max(0, min(100, int(self.pitch)))
        self.volume = max(0, min(200, int(self.volume)))
        return self

    def voice_for(self, lang: str) -> str | None:
        if isinstance(self.voice, dict):
            return self.voice.get(lang)
        return self.voice or None


class Backend:
    name = "base"
    can_render = False

    def play(self, utterance: Utterance, settings: VoiceSettings, cancel: threading.Event) -> None:
        raise SpeechError(f"the {self.name} backend cannot speak")

    def cancel(self) -> None:
        """Cut the utterance being played short (called from another thread)."""

    def render(self, utterances: Sequence[Utterance], settings: VoiceSettings, path: Path) -> None:
        raise SpeechError(f"the {self.name} backend cannot write audio files")

    def voices(self, lang: str) -> list[str]:
        return []


class ProcessBackend(Backend):
    """A backend whose engine is a child process fed with the text on its standard input."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._warned: set[str] = set()

    def _warn_once(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning(message)

    def _tell_once(self, key: str, sentence: str) -> None:
        """A sentence for the person at the terminal, in their language (companion.notice has
        no log prefix), once."""
        if key not in self._warned:
            self._warned.add(key)
            notice.warning(sentence)

    def _run(self, args: list[str], text: str, cancel: threading.Event | None = None) -> tuple[int, str]:
        with self._lock:
            if cancel is not None and cancel.is_set():
                return 0, ""
            proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, **_no_window())
            self._proc = proc
        try:
            _, err = proc.communicate(text.encode("utf-8"))
        finally:
            with self._lock:
                if self._proc is proc:
                    self._proc = None
        return proc.returncode, err.decode("utf-8", "replace")

    def cancel(self) -> None:
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                try:
                    self._proc.kill()
                except OSError:
                    pass

    def render(self, utterances: Sequence[Utterance], settings: VoiceSettings, path: Path) -> None:
        if not utterances:
            raise SpeechError("nothing to say")
        if len(utterances) == 1:
            self._render_one(utterances[0], settings, path)
            return
        # One file per utterance (each language has its own voice), then joined.
        with tempfile.TemporaryDirectory(prefix="companion-speech-") as tmp:
            parts = []
            for i, u in enumerate(utterances):
                part = Path(tmp) / f"{i:03d}.wav"
                self._render_one(u, settings, part)
                parts.append(part)
            join_wavs(parts, path)

    def _render_one(self, utterance: Utterance, settings: VoiceSettings, path: Path) -> None:
        raise SpeechError(f"the {self.name} backend cannot write audio files")


def _no_window() -> dict:
    if sys.platform == "win32":  # no console window flashing up for every sentence
        return {"creationflags": getattr(subprocess, "CREATE_NO_WINDOW", 0)}
    return {}


# ---------------------------------------------------------------------------------------------

MBROLA_DIRS = ("/usr/share/mbrola", "/usr/local/share/mbrola", "/usr/lib/mbrola")
MBROLA_VOICES = {"fr": ("fr1", "fr4", "fr2", "fr3", "fr6", "fr7", "fr5"), "en": ("us1", "en1", "us2", "us3")}
ESPEAK_DEFAULT = {"fr": "fr", "en": "en"}


def mbrola_voice(lang: str) -> str | None:
    """The espeak-ng name of an installed MBROLA voice for ``lang`` (``mb-fr1``), or None."""
    if shutil.which("mbrola") is None:
        return None
    for name in MBROLA_VOICES.get(lang, ()):
        for base in MBROLA_DIRS:
            if os.path.exists(os.path.join(base, name, name)) or os.path.isfile(os.path.join(base, name)):
                return f"mb-{name}"
    return None


class EspeakBackend(ProcessBackend):
    name = "espeak"
    can_render = True

    def __init__(self, exe: str | None = None) -> None:
        super().__init__()
        self.exe = exe or shutil.which("espeak-ng")
        if self.exe is None:
            raise SpeechError("espeak-ng not found")

    def voice(self, lang: str, settings: VoiceSettings) -> str:
        chosen = settings.voice_for(lang)
        if chosen:
            return chosen
        if settings.mbrola:
            mb = mbrola_voice(lang)
            if mb:
                return mb
        return ESPEAK_DEFAULT.get(lang, lang)

    def args(self, utterance: Utterance, settings: VoiceSettings, wav: Path | None = None,
             stdout: bool = False) -> list[str]:
        s = settings
        args = [self.exe or "espeak-ng", "-v", self.voice(utterance.lang, s), "-s", str(s.rate),
                "-p", str(min(99, s.pitch)), "-a", str(s.volume)]
        if wav is not None:
            args += ["-w", str(wav)]
        elif stdout:
            args.append("--stdout")
        return [*args, "--stdin"]

    def play(self, utterance: Utterance, settings: VoiceSettings, cancel: threading.Event) -> None:
        code, err = self._run(self.args(utterance, settings), utterance.text + "\n", cancel)
        if cancel.is_set():
            return
        lines = [line.strip() for line in err.splitlines() if line.strip()]
        if code == 0:
            if lines and "audio" not in self._warned:
                # No sound card (a headless Pi, a CI machine): espeak-ng says so in English ALSA
                # lines and goes on. For the log (--verbose), never the player's terminal.
                self._warned.add("audio")
                log.info("espeak-ng: no sound card, nothing heard: %s", lines[0])
            return
        # A real failure: what espeak-ng says after its sound library's lines.
        why = next((line for line in reversed(lines) if not _audio_noise(line)), f"exit status {code}")
        voice = self.voice(utterance.lang, settings)
        if "voice does not exist" in why:
            self._tell_once(f"voice:{voice}", t("speech.no_voice", voice=voice))
        else:
            self._tell_once(f"failed:{why}", t("speech.failed", why=why))

    def _render_one(self, utterance: Utterance, settings: VoiceSettings, path: Path) -> None:
        code, err = self._run(self.args(utterance, settings, wav=path), utterance.text + "\n")
        if code != 0 or not path.exists() or path.stat().st_size <= 44:
            raise SpeechError(f"espeak-ng could not write {path}: {err.strip() or f'exit status {code}'}")

    def first_audio_seconds(self, utterance: Utterance, settings: VoiceSettings,
                            at_first_audio: Callable[[int], None] | None = None) -> float:
        """Time from starting the engine to its first audio samples (for ``bench speech``);
        ``at_first_audio`` is then told the engine's process id, while it still runs."""
        start = time.perf_counter()
        proc = subprocess.Popen(self.args(utterance, settings, stdout=True), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write((utterance.text + "\n").encode("utf-8"))
            proc.stdin.close()
            got = 0
            while got < 46:  # the WAV header, then the first sample
                chunk = proc.stdout.read1(4096)
                if not chunk:
                    raise SpeechError("espeak-ng produced no audio")
                got += len(chunk)
            elapsed = time.perf_counter() - start
            if at_first_audio is not None:
                at_first_audio(proc.pid)
            return elapsed
        finally:
            proc.kill()
            proc.wait()

    def voices(self, lang: str) -> list[str]:
        try:
            out = subprocess.run([self.exe or "espeak-ng", f"--voices={lang}"], capture_output=True,
                                 text=True, timeout=5).stdout
        except (OSError, subprocess.SubprocessError):
            return []
        names = []
        for line in out.splitlines()[1:]:
            cols = line.split()
            if len(cols) >= 5:
                file = cols[4]
                if file.startswith("mb/") and not mbrola_voice_installed(file[3:]):
                    continue  # listed by espeak-ng but unusable without the MBROLA data
                names.append(file.split("/")[-1])
        return names


def mbrola_voice_installed(espeak_name: str) -> bool:
    name = espeak_name.removeprefix("mb-")
    return shutil.which("mbrola") is not None and any(
        os.path.exists(os.path.join(base, name, name)) or os.path.isfile(os.path.join(base, name))
        for base in MBROLA_DIRS
    )


# ---------------------------------------------------------------------------------------------

SAY_DEFAULT = {"fr": "Thomas", "en": "Samantha"}


class SayBackend(ProcessBackend):
    """macOS ``say``. Pitch and volume go in as the engine's embedded commands."""

    name = "say"
    can_render = True

    def __init__(self) -> None:
        super().__init__()
        self.exe = shutil.which("say")
        if self.exe is None:
            raise SpeechError("the say command was not found")

    def args(self, lang: str, settings: VoiceSettings, out: Path | None = None) -> list[str]:
        args = [self.exe or "say", "-r", str(settings.rate)]
        voice = settings.voice_for(lang) or SAY_DEFAULT.get(lang)
        if voice and "voice" not in self._warned:
            args += ["-v", voice]
        if out is not None:
            args += ["-o", str(out), "--file-format=WAVE", "--data-format=LEI16@22050"]
        return [*args, "-f", "-"]

    @staticmethod
    def text(utterance: Utterance, settings: VoiceSettings) -> str:
        return f"[[volm {settings.volume / 100:.2f}]] [[pbas {20 + settings.pitch * 0.6:.0f}]] {utterance.text}"

    def _say(self, utterance: Utterance, settings: VoiceSettings, cancel: threading.Event | None,
             out: Path | None = None) -> tuple[int, str]:
        code, err = self._run(self.args(utterance.lang, settings, out), self.text(utterance, settings), cancel)
        if code != 0 and "voice" in err.lower() and "voice" not in self._warned:
            self._warn_once("voice", f"say: {err.strip()}; using the system voice")
            code, err = self._run(self.args(utterance.lang, settings, out), self.text(utterance, settings), cancel)
        return code, err

    def play(self, utterance: Utterance, settings: VoiceSettings, cancel: threading.Event) -> None:
        code, err = self._say(utterance, settings, cancel)
        if code != 0 and not cancel.is_set():
            self._warn_once("play", f"say failed: {err.strip() or code}")

    def _render_one(self, utterance: Utterance, settings: VoiceSettings, path: Path) -> None:
        code, err = self._say(utterance, settings, None, path)
        if code != 0 or not path.exists():
            raise SpeechError(f"say could not write {path}: {err.strip() or code}")


# ---------------------------------------------------------------------------------------------

WINDOWS_CULTURE = {"fr": "fr-FR", "en": "en-US"}


def _ps_quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class WindowsBackend(ProcessBackend):
    """Windows' System.Speech, driven through PowerShell; the text arrives on stdin as UTF-8."""

    name = "windows"
    can_render = True

    def __init__(self) -> None:
        super().__init__()
        self.exe = shutil.which("powershell") or shutil.which("pwsh")
        if self.exe is None:
            raise SpeechError("PowerShell was not found")

    def script(self, lang: str, settings: VoiceSettings, out: Path | None = None) -> str:
        culture = WINDOWS_CULTURE.get(lang, lang)
        lines = [
            "[Console]::InputEncoding = [System.Text.Encoding]::UTF8",
            "Add-Type -AssemblyName System.Speech",
            "$s = New-Object System.Speech.Synthesis.SpeechSynthesizer",
            # System.Speech counts rate from -10 to 10 around about 180 words a minute.
            f"$s.Rate = {max(-10, min(10, round((settings.rate - 180) / 20)))}",
            f"$s.Volume = {min(100, settings.volume)}",
            "try { $s.SelectVoiceByHints([System.Speech.Synthesis.VoiceGender]::NotSet, "
            "[System.Speech.Synthesis.VoiceAge]::NotSet, 0, "
            f"[System.Globalization.CultureInfo]::GetCultureInfo({_ps_quote(culture)})) }} catch {{}}",
        ]
        voice = settings.voice_for(lang)
        if voice:
            lines.append(f"try {{ $s.SelectVoice({_ps_quote(voice)}) }} catch {{}}")
        if out is not None:
            lines.append(f"$s.SetOutputToWaveFile({_ps_quote(str(out))})")
        lines += ["$t = [Console]::In.ReadToEnd()", "$s.Speak($t)", "$s.Dispose()"]
        return "; ".join(lines)

    def _args(self, lang: str, settings: VoiceSettings, out: Path | None = None) -> list[str]:
        return [self.exe or "powershell", "-NoProfile", "-NonInteractive", "-Command", self.script(lang, settings, out)]

    def play(self, utterance: Utterance, settings: VoiceSettings, cancel: threading.Event) -> None:
        code, err = self._run(self._args(utterance.lang, settings), utterance.text, cancel)
        if code != 0 and not cancel.is_set():
            self._warn_once("play", f"Windows speech failed: {err.strip() or code}")

    def _render_one(self, utterance: Utterance, settings: VoiceSettings, path: Path) -> None:
        code, err = self._run(self._args(utterance.lang, settings, path), utterance.text)
        if code != 0 or not path.exists():
            raise SpeechError(f"Windows speech could not write {path}: {err.strip() or code}")


# ---------------------------------------------------------------------------------------------

@dataclass
class SilentBackend(Backend):
    """Says nothing and remembers everything: what was started, finished or cut short.

    ``seconds_per_char`` lets it take as long as a voice would, so that queue order and
    interruption can be watched in tests and on machines with no sound.
    """

    seconds_per_char: float = 0.0
    started: list[Utterance] = field(default_factory=list)
    spoken: list[Utterance] = field(default_factory=list)
    cut: list[Utterance] = field(default_factory=list)

    name = "silent"

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._cancel: threading.Event | None = None

    def play(self, utterance: Utterance, settings: VoiceSettings, cancel: threading.Event) -> None:
        with self._lock:
            if cancel.is_set():
                return
            self.started.append(utterance)
            self._cancel = cancel
        if cancel.wait(self.seconds_per_char * len(utterance.text)):
            self.cut.append(utterance)
        else:
            self.spoken.append(utterance)

    def cancel(self) -> None:
        with self._lock:
            if self._cancel is not None:
                self._cancel.set()

    def texts(self) -> list[str]:
        return [u.text for u in self.spoken]


def create(name: str) -> Backend:
    """A backend by name; raises SpeechError when its engine is not on this machine."""
    if name == "espeak":
        return EspeakBackend()
    if name == "say":
        return SayBackend()
    if name == "windows":
        return WindowsBackend()
    if name == "silent":
        return SilentBackend()
    raise SpeechError(f"unknown speech backend {name!r}; expected one of {', '.join(BACKENDS)}")


def platform_backend() -> str:
    if sys.platform == "darwin":
        return "say"
    if sys.platform == "win32":
        return "windows"
    return "espeak"
