"""Property and fuzz tests of everything that reads hostile input (issue 15): NDEF messages from
tags, the reader hub's line protocol, command words, YAML card files and journal payloads. The
crash cases found by the first fuzz runs are fixed examples (``@example``).

``make test`` runs each for a few seconds (profile ``ci``). ``make soak`` runs them for an hour
(``COMPANION_FUZZ=soak``; ``COMPANION_FUZZ_SECONDS`` shares that time among the tests) and writes
how many inputs each one tried to ``COMPANION_FUZZ_REPORT`` when it is set.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
import tempfile
import time
from collections import Counter
from pathlib import Path

import ndef
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from companion.cards import catalog as catalog_mod
from companion.cards.model import parse_ref
from companion.cards.yamlload import DataError, load_text
from companion.readers.events import TagEvent
from companion.readers.hub import HubReader, LineBuffer, format_line, parse_line
from companion.table.commands import ParseError, Parser, verb_words
from companion.table.data import TableData, load_table
from companion.table.engine import Game, Result
from companion.table.journal import Journal, JournalError
from companion.tags import records
from companion.tags.resolve import Resolver
from companion.textsafe import is_printable

PROFILE = os.environ.get("COMPANION_FUZZ", "ci")
if PROFILE == "soak":
    pytestmark = pytest.mark.timeout(0)  # each test runs for its share of the hour
SOAK_SECONDS = float(os.environ.get("COMPANION_FUZZ_SECONDS", "3600"))
_COMMON = {"deadline": None, "suppress_health_check": list(HealthCheck), "print_blob": True}
settings.register_profile("fuzz-ci", **_COMMON)
settings.register_profile("fuzz-soak", **_COMMON)
TRIED: Counter[str] = Counter()
# Journals in memory-backed files when the machine has them: the same SQLite code and fsync
# calls, without a disk's latency multiplied by thousands of inputs.
_FAST_TMP = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def _tmpdir() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="companion-fuzz-", dir=_FAST_TMP)
_FUZZ_TESTS: list[str] = []


def fuzz(examples: int):
    """The test under the ``ci`` profile (``examples`` inputs), or repeated under the ``soak``
    profile, new random inputs each round, until its share of the soak time is spent."""

    def wrap(test):
        _FUZZ_TESTS.append(test.__name__)
        profile = settings.get_profile(f"fuzz-{PROFILE}")
        hyp = settings(profile, max_examples=examples)(test)  # a soak repeats rounds of this size
        if PROFILE != "soak":
            return hyp

        def soaked() -> None:
            end = time.monotonic() + SOAK_SECONDS / len(_FUZZ_TESTS)
            while time.monotonic() < end:
                hyp()

        soaked.__name__ = test.__name__
        soaked.__doc__ = test.__doc__
        return soaked

    return wrap


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    out = os.environ.get("COMPANION_FUZZ_REPORT")
    if out:
        Path(out).write_text(json.dumps({"profile": PROFILE, "inputs": dict(TRIED)}, indent=1), encoding="utf-8")


# --- NDEF messages ---------------------------------------------------------------------------------------
def _message(type_: bytes, payload: bytes, tnf: int = 1) -> bytes:
    return bytes([0xD0 | 0x10 | tnf if len(payload) < 256 else 0xC0 | tnf, len(type_)]) + (
        bytes([len(payload)]) if len(payload) < 256 else len(payload).to_bytes(4, "big")) + type_ + payload


VALID_MESSAGES = [records.encode_ref("vtes:100845", kind) for kind in ("text", "uri", "external")] + [
    b"".join(ndef.message_encoder([ndef.TextRecord("res-arcana:athanor", "fr"), ndef.UriRecord("https://x/card/rise:a")]))]


# The strategies drawn from inside the composites below, made once (made at each draw, their
# set-up by Hypothesis cost more than the tests' own work).
_VALID = st.sampled_from(VALID_MESSAGES)
_EDITS = st.integers(0, 6)
_OPS = st.sampled_from(["flip", "insert", "delete", "truncate"])
_BYTE = st.integers(0, 255)
_INSERTED = st.binary(min_size=1, max_size=8)


@st.composite
def mutated_messages(draw) -> bytes:
    data = bytearray(draw(_VALID))
    for _ in range(draw(_EDITS)):
        op = draw(_OPS)
        i = draw(st.integers(0, max(0, len(data) - 1)))
        if op == "flip" and data:
            data[i] = draw(_BYTE)
        elif op == "insert":
            data[i:i] = draw(_INSERTED)
        elif op == "delete" and data:
            del data[i]
        elif op == "truncate":
            del data[i:]
    return bytes(data)


HOSTILE_TYPE = _message(b"T\x1b]0;pwned\x07", b"")
HOSTILE_LANG = _message(b"T", b"\x04\x1b[2Jvtes:100845")


class _NoCards:
    def get(self, ref: str) -> None:
        return None


@fuzz(examples=800)
@given(st.one_of(st.binary(max_size=300), mutated_messages(),
                 st.builds(_message, st.binary(max_size=12), st.binary(max_size=40), st.integers(0, 7))))
@example(HOSTILE_TYPE)
@example(HOSTILE_LANG)
@example(b"\xd1\x01\xff\x1b[2J")
def test_ndef_decoding_never_raises_and_prints_nothing_raw(data: bytes) -> None:
    TRIED["ndef"] += 1
    decoded = records.decode(data)
    for line in (*decoded.records, decoded.error):
        assert is_printable(line) and "\x1b" not in line
    for ref in decoded.refs:
        assert parse_ref(ref) is not None
    scan = Resolver(_NoCards()).resolve(TagEvent(kind="laid", reader="fuzz", uid="04A1B2C3", ndef=data))
    assert is_printable(scan.detail)


# --- the reader hub's line protocol -------------------------------------------------------------------------
_HUB_TOKENS = st.sampled_from(["HELLO", "LAID", "LIFTED", "ERR", "BEAT", "tchub", "0", "1", "2", "3", "9", "16",
                               "17", "99", "-1", "²", "04A1B2C3D4E5F6", "DEADBEEF", "1.0.0", "00AB", "FFFF",
                               "read", "noreader", "\x1b[2J", "x" * 30, "", "é"])


_HUB_KIND = st.integers(0, 2)
_HUB_NOISE = st.binary(max_size=120)
_HUB_BODY = st.lists(_HUB_TOKENS, max_size=7)


@st.composite
def hub_lines(draw) -> bytes:
    kind = draw(_HUB_KIND)
    if kind == 0:
        return draw(_HUB_NOISE)
    body = " ".join(draw(_HUB_BODY))
    if kind == 1:
        raw = body.encode("utf-8")
        from companion.readers.hub import checksum

        return raw + b"*" + checksum(raw).encode() + b"\r\n"
    return format_line(body.encode("ascii", "replace").decode("ascii"))


@fuzz(examples=400)
@given(st.integers(1, 4), st.lists(hub_lines(), max_size=25))
@example(2, [format_line("HELLO tchub 1 1.0.0 2 00AB"), format_line("ERR 9 read ghost"),
             format_line("LAID 3 DEADBEEF"), format_line("ERR 2 read real")])
@example(2, [format_line("BEAT 1"), format_line("BEAT 2"), format_line("HELLO tchub 2 2.0.0 4 0001")])
def test_hub_lines_make_events_only_for_seats_the_hub_has(seats: int, lines: list[bytes]) -> None:
    TRIED["hub"] += 1
    reader = HubReader("hub:loop://")
    events: list[TagEvent] = []
    reader._sink = events.append
    buffer = LineBuffer()
    hello_seen = False
    for chunk in [format_line(f"HELLO tchub 1 1.0.0 {seats} 00AB"), *lines]:
        for line in buffer.feed(chunk):
            valid = reader._handle(line)
            message = parse_line(line.rstrip(b"\r"))
            if message is not None and type(message).__name__ == "Hello" and message.proto == 1:
                hello_seen = True
            if not hello_seen:
                assert not valid  # nothing but an accepted HELLO keeps an unknown device alive
    hello = reader.stats.hello
    limit = hello.seats if hello is not None and hello.proto == 1 else 0
    for event in events:
        assert is_printable(event.detail)
        if event.kind in ("laid", "lifted", "unreadable"):
            assert event.seat is not None and 1 <= event.seat <= max(limit, 16)
        if event.kind == "unreadable":
            assert event.seat <= max(limit, 1)


# --- command words ------------------------------------------------------------------------------------------
GAMES = ["vtes", "ascension", "res-arcana", "rise", "astral"]
PLAYERS = {"vtes": ["Ann", "Bob", "Cy"], "ascension": ["Ann", "Bob"], "res-arcana": ["Ann", "Bob"],
           "rise": ["Ann", "Bob"], "astral": ["Ann", "Bob"]}


def _data(game: str) -> TableData:
    """A game's table data, read when a test first draws from it (load_table keeps it): not at
    import, which every xdist worker does while collecting, whether or not it runs this file."""
    return load_table(game)


_NUMBERS = st.one_of(st.integers(-20, 40).map(str), st.sampled_from(["²", "³", "٣", "½", "9" * 5000, "0" * 40 + "7",
                                                                        "1e3", "0x10", "-0", "+", "="]))


_SIGNED = st.tuples(st.sampled_from(["", "+", "-", "="]), _NUMBERS).map("".join)


@functools.cache
def command_lines(game: str) -> st.SearchStrategy[str]:
    """A game's command lines: one of its words, then up to four arguments. Made once per game
    (a strategy built inside each draw was half of the test's time, in Hypothesis's set-up)."""
    data = _data(game)
    words = sorted(verb_words(data)) + sorted(data.words) + sorted(data.groups)
    argument = st.one_of(st.sampled_from(PLAYERS[game] + ["1", "2", "3", "4", "a", "none", "cancel", "2d6"]),
                         _SIGNED, st.text(max_size=8))
    return st.tuples(st.sampled_from(words), st.lists(argument, max_size=4)).map(
        lambda line: " ".join([line[0], *line[1]]))


@functools.cache
def _script_lines(game: str) -> st.SearchStrategy[list[str]]:
    return st.lists(st.one_of(command_lines(game), st.text(max_size=30)), max_size=12)


@st.composite
def game_scripts(draw) -> tuple[str, list[str]]:
    game = draw(st.sampled_from(GAMES))
    return game, draw(_script_lines(game))


@fuzz(examples=100)
@given(game_scripts())
@example(("vtes", ["undo ²", "oust ²", "pool 1 =" + "9" * 5000, "pool 1 -3", "undo", "undo", "redo", "undo 2"]))
@example(("res-arcana", ["essence 1 gold +²", "dice 3d" + "9" * 5000, "lifeloss 1 ²"]))
def test_command_words_are_refused_or_played_and_replay_the_same(script: tuple[str, list[str]]) -> None:
    TRIED["commands"] += 1
    game_id, lines = script
    with _tmpdir() as tmp:
        path = Path(tmp) / "games.sqlite3"
        with Journal(path) as journal:
            game = Game.new(journal, game_id, PLAYERS[game_id], seed=7, data=_data(game_id))
            parser = Parser(game.data, PLAYERS[game_id], crypt_card=lambda name: None)
            for line in lines:
                try:
                    intent = parser.parse(line)
                except ParseError as exc:
                    assert exc.text("en") and len(exc.text("en")) < 600
                    continue
                if intent is None:
                    continue
                result = game.apply(intent)
                assert isinstance(result, Result) and result.text("en") is not None
            live = json.loads(json.dumps(game.state))
            game.close()
        with Journal(path) as journal:
            assert json.loads(json.dumps(Game.open(journal, game.id, data=_data(game_id)).state)) == live


# --- YAML card files ----------------------------------------------------------------------------------------
_YAML_BITS = ["cards:", "\n", "\n  ", "\n  - ", "- ", "id: ", "name: ", "type: ", "text: ", "cost: ", "&a ", "&b ",
              "*a", "*b", "<<: *a", "[", "]", "{", "}", ", ", ": ", "'", '"', "#", "\t", "x", "é", "\x1b[2J",
              "!!python/object ", "!!binary ", "?", "|", ">", "---", "...", "1", "-1", "1e400", "null", "~", "yes",
              "\\u0000", "%YAML 1.1\n"]

BOMB = "cards:\n  - &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" + "".join(
    f"  - &{b} [{','.join(['*' + a] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True))


@functools.cache
def games_catalog() -> catalog_mod.Catalog:
    # Not a fixture: a soak calls the test itself, round after round.
    with tempfile.TemporaryDirectory() as tmp:
        return catalog_mod.build(overlay=Path(tmp), with_sources=False)


@fuzz(examples=800)
@given(st.one_of(st.lists(st.sampled_from(_YAML_BITS), max_size=40).map("".join), st.text(max_size=200)))
@example(BOMB)
@example("cards: &a [*a]\n")
@example("cards:\n  - {id: x, name: X, type: invocateur, text: '\x1b]0;t\x07'}\n")
@example("!!python/object ")  # found by this test: a tag no safe constructor knows
@example("when: 2024-13-45\n")
def test_yaml_card_files_load_or_fail_with_file_and_line(text: str) -> None:
    TRIED["yaml"] += 1
    try:
        load_text(text, "rise.yaml")
    except DataError as exc:
        assert str(exc).startswith("rise.yaml")


@fuzz(examples=150)
@given(st.sampled_from(["rise", "astral"]),
       st.one_of(st.lists(st.sampled_from(_YAML_BITS), max_size=40).map("".join), st.just(BOMB)))
def test_a_users_card_file_never_stops_the_library(game: str, text: str) -> None:
    TRIED["overlay"] += 1
    shipped = games_catalog()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{game}.yaml"
        path.write_text(text, encoding="utf-8")
        catalog = catalog_mod.Catalog(games=dict(shipped.games), cards={g: dict(c) for g, c in shipped.cards.items()})
        catalog_mod._load_overlay(catalog, path)
        assert catalog.cards["res-arcana"]  # the other games are untouched


# --- journal payloads ---------------------------------------------------------------------------------------
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)
_PATH_KEYS = st.sampled_from(["seats", "c", "counters", "pool", "vp", "turn", "phase", "over", "first", "rng",
                              0, 1, 2, 7, -1, ""])
_EFFECTS = st.lists(st.fixed_dictionaries({"p": st.lists(_PATH_KEYS | _JSON, max_size=5)},
                                          optional={"o": _JSON, "n": _JSON}), max_size=4)
_PAYLOADS = st.one_of(
    _JSON.map(json.dumps),
    st.builds(lambda effects, undoable, targets: json.dumps({"effects": effects, "undoable": undoable,
                                                             "targets": targets}),
              _EFFECTS, st.booleans(), st.lists(st.integers(-2, 12), max_size=3)),
    st.sampled_from(["{not json", "", "[1, 2]", "null", "[" * 100000, '{"effects": 5}', "\x00\xff"]),
    st.text(max_size=40))


@functools.cache
def _played_journal() -> tuple[bytes, list[int]]:
    """Game 1, played a little by the engine, as the closed journal's bytes and its event ids:
    played once, each input damages a copy of the same file (not a fixture: a soak calls the
    test itself, round after round)."""
    with _tmpdir() as tmp:
        path = Path(tmp) / "games.sqlite3"
        with Journal(path) as journal:
            game = Game.new(journal, "vtes", ["Ann", "Bob", "Cy"], seed=3, data=_data("vtes"))
            assert game.id == 1
            parser = Parser(game.data, ["Ann", "Bob", "Cy"], crypt_card=lambda name: None)
            for line in ("pool 1 -1", "pool 2 -2", "undo", "pool 3 -3", "next", "undo", "redo", "vp 1 +1"):
                game.apply(parser.parse(line))
            ids = journal.event_ids(game.id)
            game.close()
        assert sorted(p.name for p in Path(tmp).iterdir() if p.name != "games.sqlite3.locks") == ["games.sqlite3"]
        return path.read_bytes(), ids


@fuzz(examples=120)
@given(st.lists(st.tuples(st.integers(0, 9), _PAYLOADS), min_size=1, max_size=4))
@example([(2, "{not json"), (3, '{"effects": [{"p": ["seats", 9, "x"], "n": 1}], "undoable": true}'), (4, "[1, 2]")])
@example([(4, '{"targets": [3], "effects": []}'), (5, '{"targets": [3], "effects": []}')])
@example([(0, "[" * 100000)])
# Found by the first soak: well-formed effects that leave a state the rules never make.
@example([(8, '{"effects": [{"p": ["phase"], "o": null, "n": 5}], "undoable": false, "targets": []}')])
@example([(8, '{"effects": [{"p": ["phase"], "n": []}], "undoable": false, "targets": []}')])
@example([(8, '{"effects": [{"p": ["phase"], "n": null}], "undoable": false, "targets": []}')])
@example([(8, '{"effects": [{"p": ["phase"]}], "undoable": false, "targets": []}')])
def test_journal_payloads_never_stop_a_resume(edits: list[tuple[int, str]]) -> None:
    TRIED["payloads"] += 1
    played, ids = _played_journal()
    parser = Parser(_data("vtes"), ["Ann", "Bob", "Cy"], crypt_card=lambda name: None)
    with _tmpdir() as tmp:
        path = Path(tmp) / "games.sqlite3"
        path.write_bytes(played)
        db = sqlite3.connect(path)
        for index, payload in edits:
            db.execute("UPDATE events SET payload = ? WHERE id = ?", (payload, ids[index % len(ids)]))
        db.commit()
        db.close()
        with Journal(path) as journal:
            try:
                game = Game.open(journal, 1, data=_data("vtes"))
            except JournalError:
                return  # the set-up itself is unreadable: refused with a reason, nothing raised
            for line in ("pool 1 +1", "undo", "undo", "redo", "next", "status"):
                assert isinstance(game.apply(parser.parse(line)), Result)
            assert game.status("en")
            live = json.loads(json.dumps(game.state))
            skipped = list(game.skipped)
            game.close()
        with Journal(path) as journal:
            again = Game.open(journal, 1, data=_data("vtes"))
            assert json.loads(json.dumps(again.state)) == live and again.skipped == skipped
