"""Kivy's kv files kept parsed in the cache folder, as Python keeps its bytecode.

Every start parsed Kivy's own rules (kivy/data/style.kv, 1,340 lines, read when Kivy's
Builder is imported) and the companion's kv files: about 140 ms of CPU here before the first
frame, the largest share of the start after the window itself (several times that on a
Raspberry Pi). Kivy's parse of a text always gives the same rules, so the rules are kept after
a parse: the tree of Kivy's parser objects written as plain data with marshal (its expressions
as the code objects Kivy compiled), each rule on its own, and rebuilt at the next start for the
very same text, Kivy version and Python version; a rule is read back only when a widget first
matches it (most of style.kv's rules are for widgets a start never makes). The file's
directives (``#:import``, ``#:set``...) still run at each start, as Kivy runs them. Anything
unusual (a constant marshal cannot write, a kept file unreadable, damaged or of another text,
a read-only cache) falls back to Kivy's own parse. ``COMPANION_KV_KEPT=0`` turns it off.

Like Python's ``__pycache__``, a kept file holds code that runs: it lives in the user's own
cache folder, and is used only for the text whose digest heads it and whole (a second digest).

``install()`` must run before Kivy's Builder is imported (companion/ui/__init__.py); imported
later, it keeps only the files parsed from then on.
"""

from __future__ import annotations

import importlib.machinery
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


# What a parse leaves in Kivy's Parser: its rules (kept one by one, see _patch), and the rest.
_STATE = ("rules", "templates", "root", "sourcecode", "directives", "dynamic_classes")
_RAW = ("sourcecode", "directives", "dynamic_classes")  # plain lines, pairs and names: kept as they are
_TAGGED = ("templates", "root")


def _digest(filename: str | None, content: str) -> bytes:
    import hashlib
    from importlib.util import MAGIC_NUMBER

    import kivy

    head = f"{_FORMAT}\0{kivy.__version__}\0{filename or ''}\0".encode()
    return hashlib.blake2b(head + MAGIC_NUMBER + content.encode("utf-8", "surrogatepass"),
                           digest_size=_DIGEST).digest()


def _check(payload: bytes) -> bytes:
    import hashlib

    return hashlib.blake2b(payload, digest_size=_DIGEST).digest()


def _path(digest: bytes) -> str:
    from companion import paths

    return os.path.join(paths.cache_dir(), "kv", digest.hex() + ".marshal")


def _read(digest: bytes) -> Any:
    import marshal

    from companion import kept

    held = kept.read_file(_path(digest), code=True)
    if held is None:
        return None
    payload = held[2 * _DIGEST:]
    # Kept for this text, and whole: a rule is read from it only when a widget first needs it.
    if held[:_DIGEST] != digest or held[_DIGEST:2 * _DIGEST] != _check(payload):
        return None
    try:
        return marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None


def _keep(digest: bytes, state: Any) -> None:
    import marshal

    from companion import kept

    path = _path(digest)
    try:
        payload = marshal.dumps(state)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        kept.write_file(path, digest + _check(payload) + payload)
    except (OSError, ValueError) as exc:
        log.debug("kv rules not kept: %s", exc)


def _fields(rule: Any, ctx: Any) -> list[tuple[str, Any]]:
    return [(name, _plain(getattr(rule, name), ctx)) for name in type(rule).__slots__
            if name != "ctx" and hasattr(rule, name)]


def _state(parser: Any) -> tuple[Any, ...]:
    """A parse as marshal's data: each rule of the file on its own (marshal's bytes, read when
    a widget first matches it: most of Kivy's 1,340 lines are rules of widgets a start never
    makes, and reading every compiled expression back took half the time of a parse)."""
    import marshal

    blobs: list[bytes] = []
    made: dict[int, int] = {}  # one rule for several selectors (``<A,B>:``) stays one rule
    entries = []
    for selector, rule in parser.rules:
        if type(rule).__name__ != "ParserRule":
            raise _NotPlain(type(rule).__name__)
        number = made.get(id(rule))
        if number is None:
            number = made[id(rule)] = len(blobs)
            blobs.append(marshal.dumps(_fields(rule, parser)))
        entries.append((_plain(selector, parser), number))
    raw = tuple(getattr(parser, name) for name in _RAW)
    marshal.dumps(raw)  # raises ValueError for anything not plain
    return (entries, blobs, raw, tuple(_plain(getattr(parser, name), parser) for name in _TAGGED))


def _restore(parser: Any, held: Any, module: types.ModuleType, rule_class: type) -> None:
    entries, blobs, raw, tagged = held
    if not (type(blobs) is list and all(type(b) is bytes for b in blobs) and len(raw) == len(_RAW)
            and len(tagged) == len(_TAGGED) and type(raw[0]) is list and type(raw[1]) is list
            and type(raw[2]) is dict):
        raise ValueError("not a kept parse")
    rules = []
    for blob in blobs:
        rule = rule_class.__new__(rule_class)
        rule.ctx = parser
        rule._kept = (blob, module)
        rules.append(rule)
    values = {"rules": [(_rebuilt(selector, parser, module), rules[number]) for selector, number in entries]}
    values.update(zip(_RAW, raw, strict=True))
    values.update((name, _rebuilt(value, parser, module)) for name, value in zip(_TAGGED, tagged, strict=True))
    for name in _STATE:
        setattr(parser, name, values[name])


def _kept_rule_class(module: types.ModuleType) -> type:
    class KeptRule(module.ParserRule):  # type: ignore[name-defined,misc]
        """A rule of a kept parse, read from its bytes when first asked for anything (Kivy asks
        a rule for its fields only once a widget matches its selector)."""

        __slots__ = ("_kept",)

        def __getattr__(self, name: str) -> Any:
            import marshal

            try:
                blob, where = object.__getattribute__(self, "_kept")
            except AttributeError:
                raise AttributeError(name) from None
            if blob is None:
                raise AttributeError(name)
            self._kept = (None, None)
            ctx = object.__getattribute__(self, "ctx")
            for field, value in marshal.loads(blob):
                setattr(self, field, _rebuilt(value, ctx, where))
            return object.__getattribute__(self, name)

    return KeptRule


def _patch(module: types.ModuleType) -> None:
    parser_class = module.Parser
    parse = parser_class.parse
    if getattr(parse, "kept", False):
        return
    rule_class = _kept_rule_class(module)

    def kept_parse(self: Any, content: str) -> None:
        try:
            digest = _digest(self.filename, content)
        except Exception:  # noqa: BLE001 - keeping is an optimisation: Kivy's own parse is always there
            return parse(self, content)
        held = _read(digest)
        if held is not None:
            try:
                _restore(self, held, module, rule_class)
            except (ValueError, TypeError, IndexError, AttributeError, KeyError) as exc:
                log.debug("kv rules kept for %s unusable: %s", self.filename, exc)
            else:
                self.execute_directives()  # what Kivy's parse runs: the imports of the file
                return None
        parse(self, content)
        try:
            state = _state(self)
        except (_NotPlain, ValueError) as exc:
            log.debug("kv rules of %s parsed each time: %s", self.filename, exc)
            return None
        _keep(digest, state)
        return None

    kept_parse.kept = True  # type: ignore[attr-defined]
    parser_class.parse = kept_parse


class _Finder:
    """Finds Kivy's parser module as Python would, and patches it once it has run (an import
    system's meta path finder; importlib.abc's base class costs 20 ms of imports)."""

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
