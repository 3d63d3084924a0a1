"""Kivy's kv files kept parsed in the cache folder, as Python keeps its bytecode.

Every start parses Kivy's own rules (kivy/data/style.kv, 1,340 lines, read when Kivy's
Builder is imported) and the companion's kv files: 130 ms of CPU here before the first frame,
the largest single share of the start that is not the window itself (several times that on a
Raspberry Pi). Kivy's parse of a text always gives the same rules, so the rules are kept after
a parse: the tree of Kivy's parser objects written as plain data with marshal (its expressions
as the code objects Kivy compiled), and rebuilt at the next start for the very same text, Kivy
version and Python version. The file's directives (``#:import``, ``#:set``...) still run at
each start, as Kivy runs them. Anything unusual (a constant marshal cannot write, a kept file
unreadable, damaged or of another text, a read-only cache) falls back to Kivy's own parse.

Like Python's ``__pycache__``, a kept file holds code that runs: it lives in the user's own
cache folder, and is used only for the text whose digest heads it.

``install()`` must run before Kivy's Builder is imported (companion/ui/__init__.py); imported
later, it does nothing.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import logging
import os
import sys
import types
from collections import OrderedDict
from typing import Any

log = logging.getLogger(__name__)

_PARSER = "kivy.lang.parser"
_FORMAT = "kv-kept 1"
_DIGEST = 16
_CLASSES = ("ParserRule", "ParserRuleProperty", "ParserSelectorId", "ParserSelectorClass", "ParserSelectorName")
_SCALARS = (str, int, float, bool, type(None), bytes, complex, types.CodeType)


class _NotPlain(Exception):
    """Something in the parsed rules that marshal cannot keep: the file is parsed each time."""


def _plain(obj: Any, ctx: Any) -> Any:
    """The parser's tree as marshal's plain data: (tag, content) pairs."""
    if obj is ctx:
        return ("c",)
    kind = type(obj)
    if kind in _SCALARS:
        return ("v", obj)
    if kind is list:
        return ("l", [_plain(x, ctx) for x in obj])
    if kind is tuple:
        return ("t", [_plain(x, ctx) for x in obj])
    if kind is dict or kind is OrderedDict:
        return ("o" if kind is OrderedDict else "d", [(_plain(k, ctx), _plain(v, ctx)) for k, v in obj.items()])
    if kind.__name__ in _CLASSES and kind.__module__ == _PARSER:
        names = getattr(kind, "__slots__", None) or tuple(vars(obj))
        fields = [(name, _plain(getattr(obj, name), ctx)) for name in names if hasattr(obj, name)]
        return ("x", kind.__name__, fields)
    raise _NotPlain(kind.__name__)


def _rebuilt(data: Any, ctx: Any, module: types.ModuleType) -> Any:
    tag = data[0]
    if tag == "v":
        return data[1]
    if tag == "c":
        return ctx
    if tag == "l":
        return [_rebuilt(x, ctx, module) for x in data[1]]
    if tag == "t":
        return tuple(_rebuilt(x, ctx, module) for x in data[1])
    if tag in ("d", "o"):
        items = [(_rebuilt(k, ctx, module), _rebuilt(v, ctx, module)) for k, v in data[1]]
        return OrderedDict(items) if tag == "o" else dict(items)
    if tag == "x" and data[1] in _CLASSES:
        cls = getattr(module, data[1])
        obj = cls.__new__(cls)
        for name, value in data[2]:
            setattr(obj, name, _rebuilt(value, ctx, module))
        return obj
    raise ValueError(f"unknown tag {tag!r}")


_STATE = ("rules", "templates", "root", "sourcecode", "directives", "dynamic_classes")


def _digest(filename: str | None, content: str) -> bytes:
    import hashlib

    import kivy

    head = f"{_FORMAT}\0{kivy.__version__}\0{filename or ''}\0".encode()
    return hashlib.blake2b(head + importlib.util.MAGIC_NUMBER + content.encode("utf-8", "surrogatepass"),
                           digest_size=_DIGEST).digest()


def _path(digest: bytes) -> str:
    from companion import paths

    return os.path.join(paths.cache_dir(), "kv", digest.hex() + ".marshal")


def _read(digest: bytes) -> Any:
    import marshal
    import stat

    try:
        # Opened without waiting, read only if a plain file (companion/kept.py: a FIFO there
        # would hold the start forever).
        fd = os.open(_path(digest), os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            held = file.read()
        if held[:_DIGEST] != digest:
            return None
        return marshal.loads(held[_DIGEST:])
    except (OSError, ValueError, EOFError, TypeError):
        return None


def _keep(digest: bytes, state: Any) -> None:
    import marshal

    path = _path(digest)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        part = f"{path}.{os.getpid()}"  # whole or not at all: programs start together
        with open(part, "wb") as file:
            file.write(digest + marshal.dumps(state))
        os.replace(part, path)
    except (OSError, ValueError) as exc:
        log.debug("kv rules not kept: %s", exc)


def _patch(module: types.ModuleType) -> None:
    parser_class = module.Parser
    parse = parser_class.parse
    if getattr(parse, "kept", False):
        return

    def kept_parse(self: Any, content: str) -> None:
        try:
            digest = _digest(self.filename, content)
        except Exception:  # noqa: BLE001 - keeping is an optimisation: Kivy's own parse is always there
            return parse(self, content)
        held = _read(digest)
        if held is not None and type(held) is tuple and len(held) == len(_STATE):
            try:
                values = [_rebuilt(value, self, module) for value in held]
            except (ValueError, TypeError, IndexError, AttributeError) as exc:
                log.debug("kv rules kept for %s unusable: %s", self.filename, exc)
            else:
                for name, value in zip(_STATE, values, strict=True):
                    setattr(self, name, value)
                self.execute_directives()  # what Kivy's parse runs: the imports of the file
                return None
        parse(self, content)
        try:
            state = tuple(_plain(getattr(self, name), self) for name in _STATE)
        except _NotPlain as exc:
            log.debug("kv rules of %s parsed each time: %s", self.filename, exc)
            return None
        _keep(digest, state)
        return None

    kept_parse.kept = True  # type: ignore[attr-defined]
    parser_class.parse = kept_parse


class _Finder(importlib.abc.MetaPathFinder):
    """Finds Kivy's parser module as Python would, and patches it once it has run."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if name != _PARSER:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        loader = getattr(spec, "loader", None)
        run = getattr(loader, "exec_module", None)
        if spec is None or run is None:
            return spec

        def exec_module(module: types.ModuleType) -> None:
            run(module)
            _patch(module)

        loader.exec_module = exec_module  # type: ignore[union-attr]  # this spec's own loader
        return spec


def install() -> None:
    """Keep kv rules parsed from now on: patches Kivy's parser when it is imported."""
    if os.environ.get("COMPANION_KV_KEPT", "1") == "0":
        return
    module = sys.modules.get(_PARSER)
    if module is not None:
        _patch(module)  # Kivy's style.kv is parsed already; the companion's own files are not
        return
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
