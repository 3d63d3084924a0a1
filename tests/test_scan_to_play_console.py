"""Scan to play through the console and a real reader path: cards laid on an emulated NTAG213
behind nfcpy's own udp driver, each proposal printed, ``ok`` typed to apply it; a whole
Ascension turn (three Apprentices, a Mystic acquired, then played), a card left with ``non``,
and the journal read back."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from companion.table.journal import Journal
from tests.emulators.ntag21x import Ntag21x, text_message

pytestmark = pytest.mark.timeout(90)
ROOT = Path(__file__).resolve().parents[1]


class Console:
    """The console companion as a user starts it, its printed lines read as they come."""

    def __init__(self, reader: str, journal: Path) -> None:
        env = {**os.environ, "COMPANION_LANG": "fr"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "console", "--reader", reader, "--game", "ascension",
             "--players", "Ann,Bob", "--seed", "1", "--journal", str(journal)],
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def until(self, *texts: str, timeout: float = 20.0) -> list[str]:
        """The lines printed up to the first that holds one of ``texts``."""
        got: list[str] = []
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                pytest.fail(f"never printed {texts!r}; printed:\n" + "\n".join(self.seen))
            got.append(line)
            self.seen.append(line)
            if any(text in line for text in texts):
                return got

    def type(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def close(self) -> str:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        finally:
            self.proc.kill()
        rest = []
        while not self.lines.empty():
            rest.append(self.lines.get())
        return "\n".join(self.seen + rest)


def test_a_whole_ascension_turn_by_laying_cards_on_the_reader_and_typing_ok(tmp_path: Path) -> None:
    journal = tmp_path / "games.sqlite3"
    with Ntag21x() as tag:
        console = Console(tag.path, journal)
        try:
            console.until("Tapez une commande")
            uid = 0x04000000000100

            def lay(ref: str) -> list[str]:
                nonlocal uid
                uid += 1
                tag.lay(f"{uid:014X}", ndef_message_bytes=text_message(ref))
                # The card, its question, then how to answer it or why it cannot be paid.
                lines = console.until("pour appliquer", "ne peut pas payer")
                tag.lift()
                return lines

            for _ in range(3):
                lines = lay("ascension:apprenti")
                assert "Apprenti : jouer (+1 runes) ?" in lines
                console.type("ok")
                console.until("joue Apprenti : +1 runes")
            assert "Mystique : acquérir pour 3 runes ?" in lay("ascension:mystique")
            console.type("ok")
            console.until("acquiert Mystique : -3 runes (0)")
            assert "Mystique : jouer (+2 runes) ?" in lay("ascension:mystique")  # now the seat's own
            console.type("oui")
            console.until("joue Mystique : +2 runes (2)")
            lines = lay("ascension:monk-of-the-lidless-eye")
            assert any("ne peut pas payer" in line for line in lines)  # said before anyone confirms
            console.type("non")
            console.until("Carte laissée, rien n'a changé.")
            console.type("ok")  # nothing proposed any more
            console.until("Rien à appliquer")
        finally:
            out = console.close()
    assert "Au revoir. La partie n° 1 est enregistrée" in out, out
    with Journal(journal) as j:
        cards = [(e.type, e.payload.get("card")) for e in j.events(1) if e.payload.get("card")]
    assert cards == [("play", "ascension:apprenti")] * 3 + [("acquire", "ascension:mystique"),
                                                          ("play", "ascension:mystique")]
