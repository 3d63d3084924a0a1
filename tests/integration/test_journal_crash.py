"""kill -9 at random moments while a child plays: every event the child acknowledged (it
prints the event id once ``apply`` has returned) is in the journal when it is reopened, and the
reopened games replay to consistent states."""

from __future__ import annotations

import os
import random
import select
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.table.engine import Game
from companion.table.journal import Journal

ROOT = Path(__file__).resolve().parents[2]

# One child's play: it opens the journal itself (nothing of it is inherited), resumes the game in
# play or starts one, and prints each event's id once ``apply`` has returned.
CHILD = r"""
import random, sys
from companion.table.commands import Parser
from companion.table.engine import Game
from companion.table.journal import Journal

path, seed = sys.argv[1], int(sys.argv[2])
journal = Journal(path)
rows = [r for r in journal.games() if r.status == "playing"]
game = Game.open(journal, rows[0].id) if rows else Game.new(journal, "ascension", ["Ann", "Bob", "Cy"], seed=seed)
words = ["honor 1 +1", "honor 2 +2", "honor 3 -1", "runes +2", "power 2 +1", "end", "next", "undo", "redo", "toss"]
rnd = random.Random(seed)
print("ready", flush=True)
while True:
    if game.state["over"]:
        game = Game.new(journal, "ascension", ["Ann", "Bob", "Cy"], seed=rnd.randrange(1000))
    parser = Parser(game.data, [s["name"] for s in game.state["seats"]])
    result = game.apply(parser.parse(rnd.choice(words)))
    if result.ok and result.event is not None:
        print(result.event.id, flush=True)
"""

# The 50 children are forked by one Python that imported the program once: each child is a
# process of its own that opens the journal itself and dies by a real SIGKILL, without 50 times
# the interpreter's start and the program's imports (0.15-0.2 CPU-s each, most of this test's
# CPU). Asked on its stdin, it forks a child that plays with its stdout on the given FIFO and
# answers the child's pid; asked to wait, it reaps the child and answers its exit code.
FORKER = r"""
import os, sys, traceback
from companion.table.commands import Parser
from companion.table.engine import Game
from companion.table.journal import Journal

child = compile(sys.argv[1], "<child>", "exec")
print("ready", flush=True)
for line in sys.stdin:
    verb, *args = line.split("\t")
    if verb in ("wait", "poll"):
        pid, status = os.waitpid(int(args[0]), 0 if verb == "wait" else os.WNOHANG)
        print(os.waitstatus_to_exitcode(status) if pid else "running", flush=True)
        continue
    fifo, path, seed = (a.strip() for a in args)
    pid = os.fork()
    if pid == 0:
        try:
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)
            os.dup2(os.open(fifo, os.O_WRONLY), 1)
            sys.argv = ["-c", path, seed]
            exec(child, {"__name__": "__main__"})
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(70)
    print(pid, flush=True)
"""


class Child:
    """A forked child: its pid, what it prints (on a FIFO of its own), its exit code once reaped
    (by the forker, its parent: asked as Popen would ask)."""

    def __init__(self, forker: subprocess.Popen, fifo: Path, path: Path, seed: int) -> None:
        self.forker = forker
        os.mkfifo(fifo)
        forker.stdin.write(f"fork\t{fifo}\t{path}\t{seed}\n")
        forker.stdin.flush()
        self.pid = int(forker.stdout.readline())
        self.fd = os.open(fifo, os.O_RDONLY)  # until the child opens its end
        self.returncode: int | None = None

    def read_rest(self) -> bytes:
        out = bytearray()
        while chunk := os.read(self.fd, 65536):
            out.extend(chunk)
        os.close(self.fd)
        return bytes(out)

    def _ask(self, verb: str) -> int | None:
        if self.returncode is None:
            self.forker.stdin.write(f"{verb}\t{self.pid}\n")
            self.forker.stdin.flush()
            answer = self.forker.stdout.readline().strip()
            self.returncode = None if answer == "running" else int(answer)
        return self.returncode

    def wait(self) -> int | None:
        return self._ask("wait")

    def poll(self) -> int | None:
        return self._ask("poll")


def read_lines(proc: Child, until: float, buf: bytearray) -> None:
    fd = proc.fd
    while time.monotonic() < until:
        ready, _, _ = select.select([fd], [], [], max(0.0, until - time.monotonic()))
        if not ready:
            return
        chunk = os.read(fd, 65536)
        if not chunk:
            return
        buf.extend(chunk)


def _acks(buf: bytearray) -> set[int]:
    """Event ids the child printed after apply returned; a line cut by the kill has no newline."""
    return {int(line) for line in bytes(buf).split(b"\n")[:-1] if line.strip().isdigit()}


@pytest.mark.timeout(120)
def test_nothing_acknowledged_is_lost_on_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    rnd = random.Random(1234)
    acked: set[int] = set()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    kills = playing = 0
    forker = subprocess.Popen([sys.executable, "-c", FORKER, CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              cwd=ROOT, env=env, text=True)
    assert forker.stdout.readline() == "ready\n"
    for i in range(50):
        proc = Child(forker, tmp_path / f"child-{i}.out", path, i)
        buf = bytearray()
        if rnd.random() < 0.1:  # sometimes during start-up or replay
            read_lines(proc, time.monotonic() + rnd.uniform(0.0, 0.15), buf)
        else:
            # Wait for its first acknowledged event (however slow the machine), then kill it at a
            # random moment of its play: every such child has something to lose.
            deadline = time.monotonic() + 10
            while not _acks(buf) and time.monotonic() < deadline and proc.poll() is None:
                read_lines(proc, time.monotonic() + 0.05, buf)
            playing += 1
            read_lines(proc, time.monotonic() + rnd.uniform(0.001, 0.08), buf)
        os.kill(proc.pid, signal.SIGKILL)
        kills += 1
        rest = proc.read_rest()  # what it printed before dying is acknowledged too
        buf.extend(rest)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL
        acked |= _acks(buf)
        # Reopen after every kill, like the app restarting.
        db = sqlite3.connect(path)
        stored = {r[0] for r in db.execute("SELECT id FROM events")}
        db.close()
        missing = acked - stored
        assert not missing, f"kill {i}: acknowledged events lost: {sorted(missing)[:10]}"
    forker.stdin.close()
    assert forker.wait(30) == 0
    assert kills == 50
    assert len(acked) >= playing >= 30, "the children should have played"
    with Journal(path) as journal:
        for row in journal.games():
            game = Game.open(journal, row.id)
            s = game.state
            honors = sum(x["counters"]["honor"] for x in s["seats"])
            assert s["shared"]["pool"] + honors == s["honor_start"] + s["shared"]["extra"]
