"""The application core (companion/play/) without a window: the Session and its observers, the
one announcer, the voice keeping each utterance's language, the scans with the collection's live
UID map, and the keys over a real game. Everything here is what the app, the console and the
phones share; the window tests only prove the Kivy binding."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from companion.play.runtime import Runtime
from companion.play.session import Session
from companion.readers.events import TagEvent
from companion.speech.phrases import Utterance

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def runtime(tmp_path: Path, card_library):
    # The session's library: its cards and search are read once, not again for each test.
    rt = Runtime(library=card_library, journal_path=tmp_path / "games.sqlite3", lang="fr")
    yield rt
    rt.close()


def spoken(rt: Runtime) -> list[Utterance]:
    assert rt.voice.wait_idle(5)
    speaker = rt.voice.speaker()
    return list(speaker.backend.spoken) if speaker is not None else []


# --- the Session ------------------------------------------------------------------------------
def test_observers_hear_each_change_once_it_is_on_the_disk(tmp_path: Path) -> None:
    session = Session(journal_path=tmp_path / "g.sqlite3")
    seen: list[tuple] = []

    def on_state() -> None:
        # told only once the event is durable: a second reader of the journal already sees it
        from companion.table.journal import Journal

        other = Journal(tmp_path / "g.sqlite3")
        try:
            seen.append(("state", other.game(session.game.id).events))
        finally:
            other.close()

    session.subscribe("state", on_state)
    session.subscribe("result", lambda r: seen.append(("result", r.ok)))
    session.new_game("vtes", ["Ann", "Bob"], seed=1)
    start = len(seen)
    session.apply("pool 1 -3", source="key")
    assert seen[start:] == [("state", seen[start][1]), ("result", True)] and seen[start][1] >= 3
    before = len(seen)
    refused = session.apply("pool 1 -99", source="key")  # a refusal changes nothing, fires no state
    assert not refused.ok and seen[before:] == [("result", False)]
    unread = session.apply("flibber", source="key")  # a line that is no command: refused, said
    assert not unread.ok and unread.intent.verb == "refused"
    session.close()


def test_a_broken_observer_never_stops_the_game(tmp_path: Path) -> None:
    session = Session(journal_path=tmp_path / "g.sqlite3")
    session.subscribe("state", lambda: 1 / 0)
    heard = []
    session.subscribe("result", heard.append)
    session.new_game("vtes", ["Ann", "Bob"], seed=2)
    assert session.apply("pool 1 -1", source="touch").ok and len(heard) == 2
    session.close()


def test_changes_from_several_threads_are_served_one_at_a_time(tmp_path: Path) -> None:
    # The window, a phone server and a reader may all change the game: none is lost, the journal
    # and the live state agree.
    from companion.table.engine import Game

    session = Session(journal_path=tmp_path / "g.sqlite3")
    session.new_game("vtes", ["Ann", "Bob"], seed=1)

    errors: list[BaseException] = []

    def work(seat: int) -> None:
        try:
            for _ in range(40):
                assert session.apply(f"pool {seat} -1", source="touch").ok
                assert session.apply(f"pool {seat} +1", source="key").ok
        except BaseException as exc:  # seen by the test, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in (1, 2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert errors == []
    assert session.game.journal.game(session.game.id).events == 1 + 1 + 160  # start, draw, the changes
    live = session.game.state
    assert [s["counters"]["pool"] for s in live["seats"]] == [30, 30]
    assert Game.open(session.journal, session.game.id).state == live
    session.close()


def test_one_card_library_per_process(runtime, monkeypatch) -> None:
    # A vampire named without its capacity takes it from the session's library: no second,
    # hidden library is loaded (it froze the window for 0.37 s and took 24 MB).
    from companion.cards import library as library_module

    made = []
    real = library_module.CardLibrary.__init__

    def counting(self, *args, **kwargs):
        made.append(self)
        real(self, *args, **kwargs)

    monkeypatch.setattr(library_module.CardLibrary, "__init__", counting)
    runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1)
    result = runtime.session.apply("vampire 1 anson", source="key")
    assert result.ok, result.text()
    assert runtime.session.game.state["seats"][0]["vampires"]["Anson"]["capacity"] == 8
    assert made == []


# --- the announcer: the same words whatever asked -----------------------------------------------
def test_a_result_is_said_the_same_way_from_every_source(runtime) -> None:
    session = runtime.session
    session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    texts = []
    for source in ("key", "touch", "phone", "script"):
        before = len(spoken(runtime))
        session.apply("pool 2 -3", source=source)
        # A key's answer cuts the one before short (a player pressing on wants the news): let
        # each be heard, so that what is compared is what each source says, not the machine's pace.
        assert runtime.voice.wait_idle(10)
        session.apply("undo", source=source)
        assert runtime.voice.wait_idle(10)
        texts.append([u.text for u in spoken(runtime)[before:]])
    # the change typed: whose and where it stands; the undo: what it moved back, in full
    assert texts[0] == ["Bob, vingt-sept.", "Annulé. Bob, réserve, plus trois, total trente."]
    assert all(x == texts[0] for x in texts), texts


def test_durations_are_said_in_words(runtime) -> None:
    runtime.session.new_game("rise", ["Ann", "Bob"], seed=1)
    before = len(spoken(runtime))
    result = runtime.session.apply("timer", source="key")
    said = [u.text for u in spoken(runtime)[before:]]
    assert any(x.startswith("Ce tour : ") and "seconde" in x for x in said), said
    assert not any(ch.isdigit() for x in said for ch in x), said
    assert ":" in result.lines("fr")[0].split(" : ", 1)[1]  # the screen shows a clock: 0:00


def test_the_journal_holds_ids_and_values_never_sentences(runtime) -> None:
    import json
    import sqlite3

    runtime.session.new_game("ascension", ["Ann"], seed=1)
    runtime.session.apply("honor 1 +2", source="key")
    runtime.session.apply("timer", source="key")
    db = sqlite3.connect(runtime.session.journal_path)
    try:
        payloads = [json.loads(p) for (p,) in db.execute("SELECT payload FROM events")]
    finally:
        db.close()
    notes = [n for p in payloads for n in p.get("notes", [])]
    values = [v for _key, vals in notes for v in vals.values() if isinstance(v, str)]
    assert "@g:ascension" in values  # the game by its id, named when read
    assert not any("Ascension" in v for v in values), values
    # and the same game reads in either language
    from companion.table.export import export_text

    assert "Ascension" in export_text(runtime.session.journal, runtime.session.game.id, "en")


# --- the voice: each utterance keeps its language -----------------------------------------------
def test_each_utterance_keeps_its_language_and_a_name_is_spelt_in_the_listeners(runtime) -> None:
    voice = runtime.voice
    voice.say_all([Utterance("Govern the Unaligned", "en"), Utterance("coûte un sang", "fr")], "card")
    said = spoken(runtime)
    assert [(u.text, u.lang) for u in said[-2:]] == [("Govern the Unaligned", "en"), ("coûte un sang", "fr")]
    from companion.speech.phrases import spell_speech

    voice.spell("Jy")  # J and Y are named differently in French and in English
    expected = spell_speech("Jy", "fr")
    letters = spoken(runtime)[-len(expected):]
    assert [(u.text, u.lang) for u in letters] == [(u.text, u.lang) for u in expected]
    assert [u.text for u in expected] != [u.text for u in spell_speech("Jy", "en")]


# --- scans --------------------------------------------------------------------------------------
def test_a_tag_bound_now_is_known_at_its_next_scan(runtime) -> None:
    from companion.tags.collection import bind_uid

    runtime.load_cards()
    scans = runtime.scans
    event = TagEvent("laid", reader="sim", uid="04AABBCCDD1122")
    assert scans.resolve(event).status == "unknown"
    bind_uid("04AABBCCDD1122", "vtes:100845", note="test")
    scan = scans.resolve(event)
    assert scan.status == "card" and scan.ref == "vtes:100845"


def test_a_hostile_tag_is_an_unknown_card_never_a_crash(runtime) -> None:
    runtime.load_cards()
    got = []
    runtime.scans.deliver = got.append
    for ndef in (b"\xd1\x01\xff", b"\x00" * 3, bytes(range(256)), b"\x91\x01\x05T\x02frvtes:1"):
        runtime.scans.on_event(TagEvent("laid", reader="sim", uid="04", ndef=ndef))
    assert len(got) == 4 and all(s.status in ("unknown", "card") for s in got)


def test_cards_laid_are_kept_and_spoken(runtime) -> None:
    runtime.load_cards()
    runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1)
    scan = runtime.scans.resolve(TagEvent("laid", reader="sim", uid="", ndef=None))
    runtime.lay(scan)
    assert runtime.session.last_scan is scan and list(runtime.session.scans) == [scan]
    assert runtime.voice.wait_idle(5)


# --- keys ---------------------------------------------------------------------------------------
class OverTheTable:
    """A front end showing the Card screen over the table, as the app does after a card is laid."""

    screen = "card"

    def go(self, screen: str) -> bool:
        self.screen = screen
        return True

    def back(self) -> bool:
        return False

    def quit(self) -> None:
        pass

    def screen_names(self) -> list[str]:
        return ["home", "table", "card"]

    def show_cursor(self, seat, counter) -> None:
        pass


def test_a_card_laid_never_takes_the_tables_keys_away(runtime) -> None:
    runtime.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    keys = runtime.keys(OverTheTable())
    before = len(spoken(runtime))
    assert keys.press("numpaddivide") and keys.press("numpad2")  # seat 2, from the card screen
    assert keys.press("-")
    assert runtime.session.game.state["seats"][1]["counters"]["pool"] == 29
    # Heard before the undo, as a player hears it: an undo that comes while the change is still
    # waiting to be said replaces it (nothing stale is said), which a loaded machine could cause.
    spoken(runtime)
    assert keys.press("numpad7")  # undo, still on the card screen
    assert runtime.session.game.state["seats"][1]["counters"]["pool"] == 30
    said = [u.text for u in spoken(runtime)[before:]]
    assert "Bob, vingt-neuf." in said and "Annulé." not in said
    assert keys.press("f4") is True  # the card's own key still brings the card back


def test_console_amounts_and_prefix_reset(runtime) -> None:
    runtime.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    keys = runtime.keys()
    keys.press("numpaddivide")
    keys.reset()  # the end of a console line
    keys.press("numpad2")  # alone: the keypad's 2 (next counter), not seat 2
    assert runtime.session.selected_seat is None
    assert keys.amount("-3") is not None and keys.amount("+x") is None and keys.amount("=99999999") is None
    active = runtime.session.game.state["active"]
    assert runtime.session.game.state["seats"][active]["counters"]


# --- phones: private cards ---------------------------------------------------------------------
def test_a_card_laid_on_the_reader_of_a_seat_with_a_phone_is_that_seats_secret(runtime) -> None:
    from companion.tags.records import encode_ref

    runtime.load_cards()
    runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1)
    runtime.phones.attach(1)
    private: list = []
    public: list = []
    runtime.phones.subscribe("private", lambda seat, card: private.append((seat, card)))
    runtime.phones.subscribe("read", public.append)
    runtime.session.subscribe("scan", public.append)
    event = TagEvent("laid", reader="sim", uid="04A1", ndef=encode_ref("vtes:100845"), seat=1)
    scan = runtime.scans.resolve(event)
    assert scan.status == "card"
    runtime.lay(scan)
    # the seat's own channel has the whole card; the table has only the fact
    assert [(s, c["ref"]) for s, c in private] == [(1, "vtes:100845")] and private[0][1]["text"]
    assert public == [1] and runtime.session.last_scan is None
    said = " ".join(u.text for u in spoken(runtime))
    assert "Ann a lu une carte" in said and scan.card.name not in said
    # a card on Bob's reader (no phone) is public as before
    other = runtime.scans.resolve(TagEvent("laid", reader="sim", uid="04B2", ndef=encode_ref("vtes:100845"), seat=2))
    runtime.lay(other)
    assert runtime.session.last_scan is other
    # another seat cannot reveal Ann's card; Ann can, and then the table has it
    number = private[0][1]["id"]
    assert not runtime.reveal(2, number)
    assert runtime.reveal(1, number) and runtime.session.last_scan is scan
    assert runtime.phones.cards(1) == [] and not runtime.reveal(1, number)


def test_private_cards_never_reach_the_journal_and_end_with_the_game(runtime, tmp_path: Path) -> None:
    from companion.table.export import export_json
    from companion.tags.records import encode_ref

    runtime.load_cards()
    runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1)
    runtime.phones.attach(2)
    scan = runtime.scans.resolve(TagEvent("laid", reader="sim", uid="04C3", ndef=encode_ref("vtes:100845"), seat=2))
    runtime.lay(scan)
    runtime.session.apply("pool 2 -1", source="phone")
    exported = str(export_json(runtime.session.journal, runtime.session.game.id))
    assert "100845" not in exported and scan.card.name not in exported
    raw = (tmp_path / "games.sqlite3").read_bytes()
    assert b"100845" not in raw
    assert len(runtime.phones.cards(2)) == 1
    runtime.session.new_game("vtes", ["Ann", "Bob"], seed=2)
    assert runtime.phones.cards(2) == []


# --- scan to play in the core: a proposal waits for one confirmation ---------------------------
def test_a_card_laid_proposes_and_only_a_confirmation_applies_it(tmp_path, card_library):
    from companion.play.session import Session
    from companion.readers.events import TagEvent
    from companion.tags.resolve import Scan

    library = card_library
    session = Session(library, tmp_path / "games.sqlite3")
    heard: list = []
    session.subscribe("proposal", heard.append)
    assert session.new_game("ascension", ["Ann", "Bob"], seed=1).ok
    me = session.game.state["active"]

    def lay(ref: str, seat: int | None = None) -> None:
        session.add_scan(Scan(TagEvent("laid", reader="sim", seat=seat, uid="04"), "card", card=library.get(ref),
                              ref=ref))

    lay("ascension:apprenti")
    proposal = session.proposal
    assert proposal is not None and proposal.intent.verb == "play" and proposal.seat == me
    assert proposal.text(session.game, "en") == "Bob, Apprentice: play (+1 rune)?" and proposal.blocked() == ""
    assert session.game.state["seats"][me]["counters"]["runes"] == 0 and heard == [proposal]
    assert session.confirm().ok and session.game.state["seats"][me]["counters"]["runes"] == 1
    assert session.proposal is None and heard[-1] is None
    assert not session.confirm().ok  # nothing proposed any more: refused, nothing moves
    # A proposal never outlives the next change of the table: the turn passes, it is gone.
    lay("ascension:apprenti")
    assert session.proposal is not None
    assert session.apply("end").ok and session.proposal is None
    # The reader's seat is the seat it proposes for, whoever is active.
    other = 1 - session.game.state["active"]
    lay("ascension:apprenti", seat=other + 1)
    assert session.proposal.seat == other
    # A card that cannot be paid says why before anyone confirms, and stays refused.
    lay("ascension:monk-of-the-lidless-eye")
    assert "cannot pay" in session.proposal.blocked("en")
    before = session.game.state
    assert not session.confirm().ok and session.game.state == before and session.proposal is not None
    assert session.dismiss() and session.proposal is None
    # A card of another game, or one with nothing mechanical, proposes nothing.
    lay("vtes:100845")
    assert session.proposal is None
    session.close()
