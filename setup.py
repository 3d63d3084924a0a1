"""The wheel carries the games' data: the top-level ``cardmap/`` folder (where the product's
layout keeps it) is copied into the built package as ``companion/cardmap/``, which
``companion.registry`` finds beside itself in an installed program. Everything else about the
package is in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA = ("*.yaml", "*.md")


class BuildWithGameData(build_py):
    def run(self) -> None:
        super().run()
        source = Path(__file__).resolve().parent / "cardmap"
        target = Path(self.build_lib) / "companion" / "cardmap"
        if target.exists():
            shutil.rmtree(target)
        for path in sorted(source.rglob("*")):
            if path.is_file() and any(path.match(p) for p in DATA):
                dest = target / path.relative_to(source)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, dest)


setup(cmdclass={"build_py": BuildWithGameData})
