"""What a program sent to the voice: a stand-in ``espeak-ng`` first on PATH that writes each
utterance (voice, then text) as one line of a log, and hands the calls that write audio
(``-w``, ``--stdout``) to the real espeak-ng. Used to test the programs as users start them."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

SCRIPT = """#!/bin/sh
voice=""
audio=""
prev=""
for a in "$@"; do
  [ "$prev" = "-v" ] && voice="$a"
  case "$a" in -w|--stdout) audio=1 ;; esac
  prev="$a"
done
# the text read by the shell itself, as $(cat) would give it (trailing newlines dropped): no
# process started for it (a whole game says a few hundred utterances, each one this script)
text=""
nl=""
while IFS= read -r line || [ -n "$line" ]; do
  text="$text$nl$line"
  nl="
"
done
while [ "${text%
}" != "$text" ]; do text="${text%
}"; done
if [ -n "$audio" ]; then
  printf '%s\\n' "$text" | exec {real} "$@"
fi
printf '%s\\t%s\\n' "$voice" "$text" >> {log}
"""


def capture_env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """(an environment whose espeak-ng records what it is asked to say, the log file)."""
    bindir = tmp_path / "speech-bin"
    bindir.mkdir(exist_ok=True)
    log = tmp_path / "spoken.tsv"
    real = shutil.which("espeak-ng") or "false"
    exe = bindir / "espeak-ng"
    exe.write_text(SCRIPT.replace("{real}", real).replace("{log}", str(log)), encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}", COMPANION_SPEECH="espeak")
    return env, log


def spoken(log: Path) -> list[tuple[str, str]]:
    """(voice, text) of each utterance, in the order they were said."""
    if not log.exists():
        return []
    return [tuple(line.split("\t", 1)) for line in log.read_text(encoding="utf-8").splitlines() if "\t" in line]
