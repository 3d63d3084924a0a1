"""The built wheel is the whole program: built from the sources by the project's build backend
(setuptools, pyproject.toml), installed in a fresh venv and run from another folder, it has every
game of cardmap/ (package data, not a folder beside the sources) and plays one.

The front end is uv where the dev venv has it (``make setup`` installs it): ``uv build`` takes
setuptools from uv's cache where ``pip wheel`` downloaded it into a fresh build venv each time,
and ``uv pip install`` is a fraction of pip's start-up (7.7 + 2.7 CPU-s with pip, 3.1 + 0.2 with
uv). Both run the same backend on the same files: the same wheel. pip where uv is absent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What a build needs from the source tree (a copy, so that the build never writes into it).
SOURCES = ("companion", "cardmap", "pyproject.toml", "setup.py", "MANIFEST.in", "README.md")

pytestmark = pytest.mark.slow


UV = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(cmd)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, src / name)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COMPANION_CARDMAP", "COMPANION_CACHE")}
    if UV:
        _run([UV, "build", "--wheel", "-q", "-o", str(tmp / "dist"), "."], src, env)
    else:
        _run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "-w", str(tmp / "dist"), "-q"], src, env)
    (wheel,) = (tmp / "dist").glob("table_companion-*.whl")

    # A fresh venv that reuses this one's dependencies (Kivy, krcg...) instead of downloading them.
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp, env)
    python = venv / "bin" / "python"
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     tmp, env).stdout.strip())
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    if UV:
        _run([UV, "pip", "install", "--python", str(python), "--no-deps", "-q", str(wheel)], tmp, env)
    else:
        _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)], tmp, env)
    shutil.rmtree(src)  # nothing of the sources is left to fall back on

    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    env["COMPANION_HOME"] = str(tmp / "home")
    env.pop("COMPANION_CACHE", None)  # the installed wheel's own data: its own card index
    return python, {**env, "RUN_IN": str(elsewhere)}


def test_the_installed_wheel_has_every_game(installed: tuple[Path, dict[str, str]]) -> None:
    python, env = installed
    cwd = Path(env["RUN_IN"])
    shipped = sorted(p.name for p in (ROOT / "cardmap").iterdir() if (p / "game.yaml").is_file())
    where = _run([str(python), "-c", "import companion, companion.registry as r; "
                  "print(companion.__file__); print(r.builtin_dir()); print(','.join(r.ids()))"], cwd, env)
    module, data, ids = where.stdout.strip().splitlines()
    venv = python.parent.parent
    assert Path(module).is_relative_to(venv) and Path(data).is_relative_to(venv), where.stdout
    assert sorted(ids.split(",")) == shipped

    stats = json.loads(_run([str(python), "-m", "companion", "cards", "stats", "--json"], cwd, env).stdout)
    for game in shipped:
        assert game in stats and not stats[game].get("errors"), (game, stats.get(game))
    assert all(stats[g]["cards"] > 0 for g in shipped if (ROOT / "cardmap" / g / "cards.yaml").exists())


def test_the_installed_wheel_plays_each_game(installed: tuple[Path, dict[str, str]]) -> None:
    python, env = installed
    cwd = Path(env["RUN_IN"])
    for game in sorted(p.name for p in (ROOT / "cardmap").iterdir() if (p / "game.yaml").is_file()):
        done = subprocess.run([str(python), "-m", "companion", "table", "--game", game, "--players", "Ann,Bob",
                               "--seed", "1", "--json"], input="next\nundo\n", cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (game, done.stderr[-2000:])
        state = json.loads(done.stdout)
        assert [s["name"] for s in state["seats"]] == ["Ann", "Bob"], game
