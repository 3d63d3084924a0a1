"""YAML reading that keeps line numbers, so that every data error names file, line and field.

We compose the node tree (with libyaml's C composer when present) and build Python values
ourselves: that gives each value its line, and catches duplicate keys, which PyYAML's
``safe_load`` silently resolves by keeping the last one.

Users share card files (the cards of a game with no public list are typed in by players), so a file is hostile
input: aliases (``*name``) are refused, since a few hundred bytes of nested aliases expand to
gigabytes and a recursive one never ends; and a file is capped in size. No card file of ours
uses an alias.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from companion.i18n import t
from companion.textsafe import is_printable, printable

try:  # the C loader is an order of magnitude faster on the big files
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader


def file_identity(path: Path) -> tuple[int, int, int]:
    """What tells a data file changed since it was read, for one stat: its modification time,
    size and inode (an editor that saves by renaming a new file over the old one changes the
    inode, possibly nothing else). Raises ``OSError`` when the file cannot be reached."""
    st = os.stat(path)
    return st.st_mtime_ns, st.st_size, st.st_ino


# The largest shipped file is about 110 KB; a user's card file is far smaller.
MAX_FILE_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class DataError(Exception):
    """A problem in a data file, located for the person who has to fix it."""

    path: str
    line: int  # 1-based; 0 when the whole file is concerned
    field: str  # dotted path of the field, e.g. "cards[3].cost"
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class Located:
    """A mapping or list from YAML with the line of each item (``line_of``)."""


class LDict(dict, Located):
    line: int
    key_lines: dict[str, int]


class LList(list, Located):
    line: int
    item_lines: list[int]


def _build(node: yaml.Node, path: str, field: str, seen: set[int] | None = None) -> Any:
    line = node.start_mark.line + 1
    # The composer hands an alias back as the very node it names: a node met twice is an alias.
    seen = set() if seen is None else seen
    if not isinstance(node, yaml.ScalarNode):
        if id(node) in seen:
            raise DataError(path, line, field, t("data.alias", anchor="name"))
        seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        out = LDict()
        out.line = line
        out.key_lines = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise DataError(path, key_node.start_mark.line + 1, field, t("data.merge_key"))
            key = _build(key_node, path, field, seen)
            if not isinstance(key, str | int | float | bool):
                raise DataError(path, key_node.start_mark.line + 1, field, t("data.plain_key"))
            key = str(key)
            sub = f"{field}.{key}" if field else key
            if key in out:
                raise DataError(path, key_node.start_mark.line + 1, sub,
                                t("data.duplicate_key", line=out.key_lines[key]))
            out.key_lines[key] = key_node.start_mark.line + 1
            out[key] = _build(value_node, path, sub, seen)
        return out
    if isinstance(node, yaml.SequenceNode):
        items = LList()
        items.line = line
        items.item_lines = []
        for i, child in enumerate(node.value):
            items.item_lines.append(child.start_mark.line + 1)
            items.append(_build(child, path, f"{field}[{i}]", seen))
        return items
    # A scalar: let PyYAML's own resolver and constructor give it its type.
    return _scalar(node)


_constructor = yaml.constructor.SafeConstructor()


def _scalar(node: yaml.ScalarNode) -> Any:
    value = _constructor.construct_object(node, deep=True)
    # construct_object remembers each node it built (for aliases, which we refuse); only
    # construct_document forgets them. Forgotten here, or every scalar of every file ever read
    # stays alive with its marks: 40 MB more after a start that rebuilt the card index.
    _constructor.constructed_objects.pop(node, None)
    if isinstance(value, str) and not value.isprintable() and not is_printable(value):
        # A double-quoted "\e[2J" is valid YAML: a shared card file must not reach a terminal,
        # a label or the voice with it.
        return printable(value, limit=None, keep_newlines=True)
    return value


def load_file(path: Path, display: str | None = None) -> Any:
    """Parse one YAML file into LDict/LList/scalars; errors become DataError with a line."""
    shown = display or str(path)
    return load_text(read_file(path, shown), shown)


def read_file(path: Path, shown: str) -> str:
    """The text of a data file, as ``load_file`` reads it; errors become DataError."""
    from companion import userfiles

    try:
        # Only a regular file, and the cap counted on the bytes read (st_size is 0 for a FIFO
        # or /dev/zero): a special file or a dangling link is named and skipped, never waited on.
        text = userfiles.read_text(path, MAX_FILE_BYTES)
    except UnicodeDecodeError as exc:
        raise DataError(shown, 0, "", t("data.not_utf8", why=exc.reason, at=exc.start)) from None
    except userfiles.Unreadable as exc:
        if exc.key == "userfile.too_large":
            raise DataError(shown, 0, "", t("data.too_large", most=MAX_FILE_BYTES)) from None
        raise DataError(shown, 0, "", exc.reason()) from None
    except OSError as exc:
        raise DataError(shown, 0, "", t("data.cannot_read", why=exc.strerror or exc)) from None
    return text


def load_text(text: str, shown: str) -> Any:
    if len(text) > MAX_FILE_BYTES:
        raise DataError(shown, 0, "", t("data.text_too_large", size=len(text), most=MAX_FILE_BYTES))
    if "\t" in text:
        # YAML forbids tabs for indentation; name the first one rather than a parser riddle.
        for number, line in enumerate(text.splitlines(), 1):
            stripped = line.lstrip(" ")
            if stripped.startswith("\t"):
                raise DataError(shown, number, "", t("data.tab"))
    try:
        if "&" in text:  # an alias needs an anchor: without one, no pass over the events
            refuse_aliases(text, shown)
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        raise DataError(shown, line, "", t("data.yaml_syntax", problem=exc.problem or exc.context)) from None
    except yaml.YAMLError as exc:
        raise DataError(shown, 0, "", t("data.yaml", problem=exc)) from None
    if node is None:
        return None
    try:
        return _build(node, shown, "")
    except yaml.MarkedYAMLError as exc:  # a tag no safe constructor knows (!!python/object)
        mark = exc.problem_mark or exc.context_mark
        raise DataError(shown, mark.line + 1 if mark else 0, "",
                        t("data.yaml", problem=exc.problem or exc.context)) from None
    except (yaml.YAMLError, ValueError, OverflowError, RecursionError) as exc:  # a date such as 2024-13-45
        raise DataError(shown, 0, "", t("data.yaml", problem=f"{type(exc).__name__}: {exc}"[:300])) from None


def refuse_aliases(text: str, shown: str) -> None:
    """DataError at the first alias of ``text``. The events give the alias's own line; the
    composed node only the anchor's."""
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.AliasEvent):
            raise DataError(shown, event.start_mark.line + 1, "", t("data.alias", anchor=event.anchor))


def line_of(container: Any, key: str | int | None = None) -> int:
    """The line of a key of an LDict or an item of an LList (or of the container itself)."""
    if isinstance(container, LDict):
        if key is not None and str(key) in container.key_lines:
            return container.key_lines[str(key)]
        return container.line
    if isinstance(container, LList):
        if isinstance(key, int) and 0 <= key < len(container.item_lines):
            return container.item_lines[key]
        return container.line
    return 0


# -- a document kept parsed, lines and all ------------------------------------------------------

# Bumped when what load_text builds changes (a new check, another shape): a document kept by an
# older program is then parsed again, never trusted.
_KEPT_FORMAT = "located-1\n"


def load_text_kept(text: str, shown: str, name: str) -> Any:
    """``load_text``, the result kept in the cache file ``name`` (companion.kept) for this very
    text: a game.yaml is parsed at every game's start (the largest takes 80 ms of CPU
    here, several times that on a Pi), while loading the kept document takes a few. Only a text
    that parsed without error is kept, so a kept one has no error to name; one with values
    marshal cannot hold (a date) is simply parsed each time."""
    from companion import kept

    found, packed = kept.read(name, _KEPT_FORMAT + text)
    if found:
        try:
            return _unpack(packed)
        except (TypeError, ValueError, IndexError):
            pass  # not what this program keeps: parsed again below, and kept again
    data = load_text(text, shown)
    kept.keep(name, _KEPT_FORMAT + text, _pack(data))
    return data


def _pack(value: Any) -> Any:
    """LDict → (0, line, ((key, key line, value), ...)), LList → (1, line, ((item line, item),
    ...)), scalars as they are (YAML gives no tuple, so a tuple is always a container)."""
    if isinstance(value, LDict):
        return 0, value.line, tuple((k, value.key_lines[k], _pack(v)) for k, v in value.items())
    if isinstance(value, LList):
        return 1, value.line, tuple((line, _pack(v)) for line, v in zip(value.item_lines, value, strict=True))
    return value


def _unpack(packed: Any) -> Any:
    if type(packed) is not tuple:
        return packed
    kind, line, items = packed
    if kind == 0:
        out = LDict()
        out.line = line
        out.key_lines = {}
        for key, key_line, value in items:
            out.key_lines[key] = key_line
            out[key] = _unpack(value)
        return out
    if kind == 1:
        seq = LList()
        seq.line = line
        seq.item_lines = [item_line for item_line, _ in items]
        seq.extend(_unpack(value) for _, value in items)
        return seq
    raise ValueError(f"not a kept document: {kind!r}")
