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
ROOT = Path(__file__).resolve().parents[2]


class Console:
    """The console companion as a user starts it, its printed lines read as they come."""

    def __init__(self, reader: str, journal: Path, game: str = "ascension", players: str = "Ann,Bob",
                 seed: int = 1) -> None:
        env = {**os.environ, "COMPANION_LANG": "fr"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "console", "--reader", reader, "--game", game,
             "--players", players, "--seed", str(seed), "--journal", str(journal)],
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


class Table:
    """An emulated NTAG213 on nfcpy's udp driver, and the console reading it."""

    def __init__(self, tag: Ntag21x, console: Console) -> None:
        self.tag, self.console, self.uid = tag, console, 0x04000000000200

    def lay(self, ref: str) -> list[str]:
        """Lay a card; the lines up to its question's answer: how to confirm, what to choose or
        why it cannot be paid."""
        self.uid += 1
        self.tag.lay(f"{self.uid:014X}", ndef_message_bytes=text_message(ref))
        lines = self.console.until("pour appliquer", "ne peut pas payer", "Tapez ok puis", "phase d'actions")
        self.tag.lift()
        return lines


def test_a_res_arcana_action_with_essences_of_your_choice(tmp_path: Path) -> None:
    journal = tmp_path / "games.sqlite3"
    with Ntag21x() as tag:
        console = Console(tag.path, journal, game="res-arcana", seed=3)
        table = Table(tag, console)
        try:
            console.until("Tapez une commande")
            lines = table.lay("res-arcana:arbre-de-vie")  # during the collection: said at once
            assert "Ann, Arbre de Vie : jouer pour 1 Vie, 2 essences au choix ?" in lines
            assert any("phase d'actions" in line for line in lines), lines
            console.type("next")
            console.until("À Ann d'agir.")
            lines = table.lay("res-arcana:arbre-de-vie")
            assert any(line.startswith("Tapez ok puis 2 essences à payer parmi Mort") for line in lines), lines
            console.type("ok vie vie")  # Ann has one Vie: refused with the reason, still proposed
            console.until("Ann ne peut pas payer Arbre de Vie")
            console.type("ok mort serenite")
            console.until("Ann joue Arbre de Vie : -1 Vie (0), -1 Mort (0), -1 Sérénité (0).")
        finally:
            out = console.close()
    assert "Au revoir" in out, out


def test_a_vtes_master_paid_from_the_pool(tmp_path: Path) -> None:
    journal = tmp_path / "games.sqlite3"
    with Ntag21x() as tag:
        console = Console(tag.path, journal, game="vtes", players="Ann,Bob,Cy", seed=3)
        table = Table(tag, console)
        try:
            console.until("Tapez une commande")
            console.type("next")  # a master card is played in its owner's master phase
            console.until("Phase : Maître.")
            assert "Cy, Academic Hunting Ground : jouer pour 2 réserve ?" in table.lay("vtes:100015")
            console.type("ok")
            console.until("Cy joue Academic Hunting Ground : -2 réserve (28).")
            console.type("undo")  # one event naming the card: undone whole
            console.until("Annulé")
        finally:
            out = console.close()
    assert "3. Cy : réserve 30" in out, out


def test_a_whole_ascension_turn_by_laying_cards_on_the_reader_and_typing_ok(tmp_path: Path) -> None:
    journal = tmp_path / "games.sqlite3"
    with Ntag21x() as tag:
        console = Console(tag.path, journal)
        lay = Table(tag, console).lay
        try:
            console.until("Tapez une commande")
            for _ in range(3):
                lines = lay("ascension:apprenti")
                assert any(x.endswith(", Apprenti : jouer (+1 rune) ?") for x in lines), lines
                console.type("ok")
                console.until("joue Apprenti : +1 rune")
            assert any(x.endswith(", Mystique : acquérir pour 3 runes ?") for x in lay("ascension:mystique"))
            console.type("ok")
            console.until("acquiert Mystique : -3 runes (0)")
            assert any(x.endswith(", Mystique : jouer (+2 runes) ?")  # now the seat's own
                       for x in lay("ascension:mystique"))
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
