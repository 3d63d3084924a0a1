"""Small checks that turn a wrong value into a DataError naming file, line, field and what was expected."""

from __future__ import annotations

import re
from typing import Any

from companion.cards.yamlload import DataError, LDict, line_of
from companion.i18n import t

ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")

TEXTS = "{fr: ..., en: ...}"  # how texts by language are written, the same in every language


def kind_name(kind: type) -> str:
    """What a field holds, in the user's language ("un nombre entier")."""
    name = f"data.kind.{kind.__name__}"
    word = t(name)
    return kind.__name__ if word == name else word


class Checker:
    """Checks the fields of one mapping of one file; ``where`` is the dotted field prefix."""

    def __init__(self, path: str, data: Any, where: str) -> None:
        self.path = path
        self.data = data
        self.where = where

    def fail(self, key: str | int | None, message: str) -> DataError:
        field = self.where if key is None else (f"{self.where}.{key}" if self.where else str(key))
        return DataError(self.path, line_of(self.data, key), field, message)

    def mapping(self) -> LDict:
        if not isinstance(self.data, dict):
            raise DataError(self.path, line_of(self.data), self.where, t("data.expected_mapping"))
        return self.data  # type: ignore[return-value]

    def only(self, allowed: set[str] | frozenset[str]) -> None:
        for key in self.mapping():
            if key not in allowed:
                raise self.fail(key, t("data.unknown_field", allowed=", ".join(sorted(allowed))))

    def get(self, key: str, kind: type, required: bool = False, default: Any = None) -> Any:
        data = self.mapping()
        if key not in data or data[key] is None:
            if required:
                raise self.fail(None, t("data.missing_field", key=key, kind=kind_name(kind)))
            return default
        value = data[key]
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if not ok:
            raise self.fail(key, t("data.expected_got", kind=kind_name(kind), got=describe(value)))
        return value

    def ident(self, key: str, required: bool = True) -> str:
        value = self.get(key, str, required=required)
        if value is not None and not ID_RE.match(value):
            raise self.fail(key, t("data.expected_id", got=repr(value)))
        return value

    def texts(self, key: str, required: bool = True, langs: tuple[str, ...] = ("fr",)) -> dict[str, str]:
        """A text by language: ``{fr: ..., en: ...}``; a plain string counts as French."""
        data = self.mapping()
        value = data.get(key)
        if value is None:
            if required:
                raise self.fail(None, t("data.missing_field", key=key, kind=TEXTS))
            return {}
        if isinstance(value, str):
            value = {"fr": value}
        if not isinstance(value, dict):
            raise self.fail(key, t("data.expected_texts", shape=TEXTS, got=describe(value)))
        sub = Checker(self.path, value, f"{self.where}.{key}" if self.where else key)
        out = {}
        for lang, text in value.items():
            if lang not in ("fr", "en"):
                raise sub.fail(lang, t("data.unknown_language"))
            if not isinstance(text, str):
                raise sub.fail(lang, t("data.expected_got", kind=kind_name(str), got=describe(text)))
            out[lang] = text
        for lang in langs:
            if not out.get(lang):
                raise sub.fail(None, t("data.missing_text", which=lang))
        return out

    def str_list(self, key: str) -> list[str]:
        value = self.get(key, list, default=[])
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise DataError(self.path, line_of(value, i), f"{self.where}.{key}[{i}]",
                                t("data.expected_got", kind=kind_name(str), got=describe(item)))
        return list(value)

    def counts(self, key: str) -> dict[str, int]:
        """A mapping name → whole number, e.g. a cost in essences ``{or: 2, vie: 1}``."""
        value = self.get(key, dict, default={})
        return Checker(self.path, value, f"{self.where}.{key}" if self.where else key).own_counts()

    def own_counts(self) -> dict[str, int]:
        for k, v in self.mapping().items():
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise self.fail(k, t("data.at_least", least=0, got=describe(v)))
        return dict(self.data)


def describe(value: Any) -> str:
    """A value found where another was expected, as a message names it."""
    if isinstance(value, bool):
        return f"{str(value).lower()} (true/false)"
    if isinstance(value, dict):
        return kind_name(dict)
    if isinstance(value, list):
        return kind_name(list)
    if isinstance(value, int | float):
        return t("data.got.number", n=value)
    return f"{value!r}"
