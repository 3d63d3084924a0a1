"""Kivy's kv rules kept parsed in the cache folder (companion/ui/kv_kept.py): the rules a kept
file gives are the rules Kivy's own parse gives, for Kivy's style.kv and every kv file of the
companion; an edited text is parsed again; a damaged kept file never stops a start. Each case
is a fresh program, as a start is: the parser is patched when Kivy is first imported."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Prints, for Kivy's style.kv (parsed when the Builder is imported) and each kv file of the
# companion, a fingerprint of the parsed rules: every field of every rule, property and
# selector, each compiled expression by its bytecode, names, constants and line.
CHILD = r"""
import glob, json, os, sys, types
import companion.ui  # installs the kept parse before Kivy's Builder loads style.kv
from kivy import kivy_data_dir
from kivy.lang.parser import Parser, ParserRule, ParserRuleProperty, ParserSelector

def code(c):
    return [c.co_code.hex(), list(c.co_names), [code(x) if isinstance(x, types.CodeType) else repr(x)
            for x in c.co_consts], c.co_firstlineno, c.co_filename]

def shape(x, ctx):
    if x is ctx:
        return "ctx"
    if isinstance(x, types.CodeType):
        return code(x)
    if isinstance(x, (list, tuple)):
        return [shape(i, ctx) for i in x]
    if isinstance(x, dict):
        return [type(x).__name__] + [[shape(k, ctx), shape(v, ctx)] for k, v in x.items()]
    if isinstance(x, (ParserRule, ParserRuleProperty)):
        cls = ParserRule if isinstance(x, ParserRule) else ParserRuleProperty
        return [cls.__name__] + [[n, shape(getattr(x, n), ctx) if hasattr(x, n) else "unset"]
                                 for n in cls.__slots__ if n != "ctx"]
    if isinstance(x, ParserSelector):
        return [type(x).__name__, sorted(vars(x).items())]
    return repr(x)

ours = sorted(glob.glob(os.path.join(sys.argv[1], "**", "*.kv"), recursive=True))
files = [os.path.join(kivy_data_dir, "style.kv")] + ours
# Each variant (a JSON list of [old, new] text replacements, none for the files as they are) on a line.
for variant in json.loads(sys.argv[2]):
    out = {}
    kinds = set()
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for old, new in variant:
            text = text.replace(old, new)
        parser = Parser(content=text, filename=path)
        name = os.path.relpath(path, os.path.dirname(sys.argv[1])) if path in ours else "style.kv"
        state = ("rules", "templates", "root", "sourcecode", "directives", "dynamic_classes")
        out[name] = [shape(getattr(parser, n), parser) for n in state]
        # One rule for several selectors stays one rule.
        out[name].append(len({id(rule) for _selector, rule in parser.rules}))
        kinds |= {type(rule).__name__ for _selector, rule in parser.rules}
    print(json.dumps([sorted(kinds), out]))
"""


def _variants(cache: Path, kept: bool, variants: list[list[tuple[str, str]]],
              read: bool | None | list[bool | None] = None) -> list[dict[str, object]]:
    """Each kv file's rules as a fresh program parses them, once per variant of the texts (a list
    of text replacements), in that order; ``read``: whether they must have come from kept files
    (True), from Kivy's parse (False), or either (None), for all the variants or one per variant.
    Nothing of a parse stays in the program but the kept files on the disk: a variant finds what
    the ones before it kept, as the next program would."""
    reads = read if isinstance(read, list) else [read] * len(variants)
    env = dict(os.environ, PYTHONPATH=str(ROOT), COMPANION_CACHE=str(cache), COMPANION_KV_KEPT="1" if kept else "0",
               KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1",
               PYTHONHASHSEED="0")  # Kivy lists an expression's watched keys from a set: one order in all
    # Under a desktop's umask (002: files its group may write), what is kept must still be read.
    proc = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "companion" / "ui"), json.dumps(variants)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, umask=0o002)
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = [json.loads(line) for line in proc.stdout.strip().splitlines()[-len(variants):]]
    assert len(found) == len(variants)
    for (kinds, _rules), must in zip(found, reads, strict=True):
        if must is not None:
            assert kinds == (["KeptRule"] if must else ["ParserRule"])
    return [rules for _kinds, rules in found]


def _rules(cache: Path, kept: bool, *replace: str, read: bool | None = None) -> dict[str, object]:
    (rules,) = _variants(cache, kept, [[(replace[0], replace[1])] if replace else []], read=read)
    return rules


@pytest.fixture(scope="module")
def first_start(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    """A first start with an empty cache (it parses and keeps; style.kv: kept at the Builder's
    import, read here): its kept files and its rules. Each test starts from a copy of them,
    as the first program after it would find them, instead of a first start of its own."""
    cache = tmp_path_factory.mktemp("kv-first-start")
    return cache, _rules(cache, kept=True)


def _after_first_start(first_start: tuple[Path, dict[str, object]], cache: Path) -> dict[str, object]:
    """``cache`` as the first start left its own (the kept files, their modes and times)."""
    kept, rules = first_start
    shutil.copytree(kept / "kv", cache / "kv", copy_function=shutil.copy2)
    return rules


@pytest.mark.timeout(300)
def test_kept_rules_are_kivys_own_parse_and_an_edit_is_parsed_again(tmp_path: Path, first_start) -> None:
    # Kivy's own parse, of the texts as they are and edited: one program (nothing kept, nothing
    # read: a second parse in it is a first parse, as in a program of its own).
    parsed, edited_by_kivy = _variants(tmp_path / "none", False, [[], [("theme.gap / 3", "theme.gap / 4")]],
                                       read=False)
    assert {"style.kv", "ui/kv/home.kv", "ui/widgets/widgets.kv"} <= set(parsed)
    assert not (tmp_path / "none" / "kv").exists()
    first = _after_first_start(first_start, tmp_path)
    kept_files = sorted((tmp_path / "kv").iterdir())
    assert len(kept_files) >= len(parsed)  # style.kv also as the Builder reads it at its import
    # Read back, then an edited text (home.kv parsed, the others read): one program, the edit last.
    read_back, edited = _variants(tmp_path, True, [[], [("theme.gap / 3", "theme.gap / 4")]], read=[True, None])
    assert read_back == first == parsed  # read back: the same rules
    # An edited text is not answered from what was kept for the old one.
    assert edited["ui/kv/home.kv"] != parsed["ui/kv/home.kv"]
    assert edited == edited_by_kivy


@pytest.mark.timeout(300)
def test_a_damaged_kept_file_is_parsed_again(tmp_path: Path, first_start) -> None:
    parsed = _after_first_start(first_start, tmp_path)
    for i, path in enumerate(sorted((tmp_path / "kv").iterdir())):
        data = path.read_bytes()
        # Cut short, its digest kept with garbage after it, or its plain data of another shape.
        damaged = [data[: len(data) // 2], data[:16] + b"\x00garbage", data[:16] + b"\xe9\x03\x00\x00\x00"]
        path.write_bytes(damaged[i % 3])
    # Each damaged file parsed again and kept anew (first pass), then read from what was kept.
    again, read_back = _variants(tmp_path, True, [[], []], read=[None, True])
    assert again == parsed
    assert read_back == parsed


@pytest.mark.timeout(300)
def test_kept_code_that_others_may_write_is_never_run(tmp_path: Path, first_start) -> None:
    """A kept file holds code that runs: one that another user could have written (writable by
    its group or by all) is parsed again, never read, as ssh refuses a key others may write."""
    parsed = _after_first_start(first_start, tmp_path)
    kept = sorted((tmp_path / "kv").iterdir())
    for path in kept:
        path.chmod(0o666)
    assert _rules(tmp_path, kept=True) == parsed
    # Each was parsed again and kept anew (a file read is left as it is): none others may write.
    assert all(path.stat().st_mode & 0o022 == 0 for path in kept)
