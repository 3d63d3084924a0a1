"""How much a whole game makes a listener hear: each game's script (tests/scripts/<game>.txt)
played by ear in the console as a blind player plays it (``console --speak``, every line typed),
every utterance captured from the voice, then counted in words and in seconds of the real
espeak-ng at the companion's own settings (its voice, rate, pitch and volume), sox measuring
each rendered file.

    PYTHONPATH=$PWD python -m tests.speech_measure [--lang en] [--json OUT] [GAME...]

prints one line per game (utterances, words, seconds) and, with ``--json``, writes them with
every utterance, so that a change to what is said can be weighed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.cli_run import run_cli
from tests.speech_capture import capture_env, spoken

SCRIPTS = Path(__file__).parent / "scripts"
# game: (players, seed) as the script's first line says
GAMES = {
    "vtes": ("Ann,Bob,Cy", 5),
    "ascension": ("Ann,Bob", 3),
    "res-arcana": ("Ann,Bob", 3),
    "rise": ("Ann,Bob", 3),
    "astral": ("Ann,Bob", 3),
}


def typed_lines(game: str) -> list[str]:
    """The script's lines as a player types them: comments are the script's notes, not typed."""
    out = []
    for line in (SCRIPTS / f"{game}.txt").read_text(encoding="utf-8").splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if line:
            out.append(line)
    return out


def play_by_ear(game: str, workdir: Path, lang: str = "fr", extra: list[str] | None = None) -> list[tuple[str, str]]:
    """(voice, text) of everything said in a whole game of ``game`` in the console."""
    players, seed = GAMES[game]
    env, log = capture_env(workdir)
    env["COMPANION_LANG"] = lang
    lines = [*(extra or []), *typed_lines(game), "quitter"]
    # The console through its entry point, in this process (tests.cli_run): what it says is all that is read.
    run = run_cli("console", "--speak", "--game", game, "--players", players, "--seed", str(seed),
                  "--journal", str(workdir / "games.sqlite3"), stdin="".join(x + "\n" for x in lines), env=env)
    if run.returncode != 0 or "Traceback" in run.stderr:
        raise RuntimeError(f"{game}: the console failed\n{run.stderr}")
    return spoken(log)


def play_by_ear_once(game: str, lang: str = "fr") -> list[tuple[str, str]]:
    """What ``play_by_ear`` hears, the game played once for the whole test session: the test
    modules that only read a whole game's words (several, possibly in different pytest-xdist
    workers) share one run of each game in each language, kept as JSON in the session's folder
    (``_COMPANION_TEST_HEARD``, made by tests/conftest.py before the workers start; same script,
    same seed, a fresh journal: the same words). Without that folder it is played each time."""
    shared = os.environ.get("_COMPANION_TEST_HEARD")
    if not shared or not Path(shared).is_dir():
        with tempfile.TemporaryDirectory() as tmp:
            return play_by_ear(game, Path(tmp), lang)
    import fcntl

    folder = Path(shared)
    kept = folder / f"{game}-{lang}.json"
    with open(folder / f"{game}-{lang}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker playing this game: its words, once it is done
        if kept.exists():
            return [(voice, text) for voice, text in json.loads(kept.read_text(encoding="utf-8"))]
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            said = play_by_ear(game, Path(tmp), lang)
        part = folder / f"{game}-{lang}.part"
        part.write_text(json.dumps(said, ensure_ascii=False), encoding="utf-8")
        part.replace(kept)
        return said


def words(texts: list[str]) -> int:
    return sum(len(x.split()) for x in texts)


def seconds(said: list[tuple[str, str]], workdir: Path) -> float:
    """Seconds of speech, each utterance rendered by the real espeak-ng at the companion's
    settings (the voice it chose, the default rate, pitch and volume) and measured by sox."""
    from companion.speech.backends import EspeakBackend, VoiceSettings
    from companion.speech.phrases import Utterance

    real = shutil.which("espeak-ng", path=os.defpath + ":/usr/local/bin:/usr/bin")
    backend = EspeakBackend(real)
    total = 0.0
    wav = workdir / "one.wav"
    for voice, text in said:
        settings = VoiceSettings(voice=voice or None)
        args = backend.args(Utterance(text, voice[:2] or "fr"), settings, wav=wav)
        subprocess.run(args, input=text + "\n", text=True, capture_output=True, check=True, timeout=60)
        out = subprocess.run(["soxi", "-D", str(wav)], capture_output=True, text=True, check=True, timeout=60)
        total += float(out.stdout.strip())
    return total


def measure(game: str, lang: str = "fr") -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        said = play_by_ear(game, Path(tmp), lang)
        return {"game": game, "lang": lang, "utterances": len(said), "words": words([t for _v, t in said]),
                "seconds": round(seconds(said, Path(tmp)), 1), "said": said}


# game: phases in a turn, for a round in which each player only says "suivant" through every phase
QUIET = {"vtes": 5, "astral": 3}


def quiet_turn(game: str, lang: str = "fr") -> dict:
    """Words and seconds of one turn in which the player only says "suivant" through every phase,
    averaged over the third round (reminders said the first time are behind by then)."""
    players, seed = GAMES[game]
    n = len(players.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        env, log = capture_env(Path(tmp))
        env["COMPANION_LANG"] = lang
        lines = ["suivant"] * (QUIET[game] * n * 3) + ["quitter"]
        subprocess.run([sys.executable, "-m", "companion", "console", "--speak", "--game", game, "--players", players,
                        "--seed", str(seed), "--journal", f"{tmp}/games.sqlite3"],
                       input="".join(x + "\n" for x in lines), capture_output=True, text=True, timeout=600, env=env)
        said = spoken(log)
        turns = [i for i, (_v, x) in enumerate(said) if "au tour d" in x.lower() or "'s turn" in x]
        part = said[turns[2 * n]:turns[3 * n] if len(turns) > 3 * n else len(said) - 1]
        return {"game": game, "words": round(words([x for _v, x in part]) / n, 1),
                "seconds": round(seconds(part, Path(tmp)) / n, 1)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("games", nargs="*", default=list(GAMES))
    p.add_argument("--lang", default="fr")
    p.add_argument("--json", help="write the figures and every utterance here")
    p.add_argument("--quiet-turn", action="store_true", help='one turn of only "suivant" (VTES, ASTRAL)')
    args = p.parse_args()
    if args.quiet_turn:
        for game in QUIET:
            r = quiet_turn(game, args.lang)
            print(f"{game:<11} a turn of only suivant: {r['words']:>6} words  {r['seconds']:>5} s")
        return 0
    results = [measure(g, args.lang) for g in args.games]
    for r in results:
        print(f"{r['game']:<11} {r['lang']}  {r['utterances']:>4} utterances  {r['words']:>5} words  "
              f"{r['seconds']:>7.1f} s")
    print(f"{'total':<11} {args.lang}  {sum(r['utterances'] for r in results):>4} utterances  "
          f"{sum(r['words'] for r in results):>5} words  {sum(r['seconds'] for r in results):>7.1f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
