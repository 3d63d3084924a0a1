"""What a seat's own device (a phone) may do at the table: the rule, in the core, so that every
front end that lets a seat act for itself applies the same one (README.md, "Phones as seats").

- A seat acts for itself only: "pool -2" on Ann's phone is Ann's pool; a line naming another
  seat is refused.
- Counters of its own seat at any time; the turn's actions (next phase, pass, the game's verbs)
  on its own turn only, and the refusal says whose turn it is.
- Undo and redo from a seat (see ``Session``) are that seat's own.
- The seat's actions (``table.present.seat_actions``: the very list the table screen's seat
  menus show, with the same questions in the same order) whenever that list offers them: the
  list's own conditions (``when`` in game.yaml) already say when, so an action offered out of
  turn (taking a mark such as an edge) is allowed out of turn. Answers are checked against the choices
  the list offers before any line is sent.
- A table joined to a venue adds the venue's actions to every seat's list (``venue_actions``):
  confirm or contest the result waiting for the players' word, call a judge; the Runtime sends
  them (``Runtime.venue_action``), whoever asked.

Answers are plain dicts ``{"ok", "lines", "revision"}`` plus an HTTP-like ``status`` the web front
end may use; the lines are in the asker's language.
"""

from __future__ import annotations

from typing import Any

from companion.i18n import t
from companion.table import present
from companion.table.present import ActionView

CONFIRM_WORDS = frozenset({"ok", "oui", "yes"})
DISMISS_WORDS = frozenset({"non", "no"})
ANY_TIME = ("counter", "undo", "redo")  # verbs a seat may use when it is not its turn
CHOSEN = ("target", "vampire", "component", "essence")  # questions answered from a list of choices
LANGS = ("fr", "en")
MAX_AMOUNT = 9999
MAX_TEXT = 60
# What a table joined to a venue adds to every seat's list (the venue's link, duck-typed: the core
# imports no front end): confirm or contest the result waiting for the players, call a judge.
VENUE_ACTIONS = ("confirm_result", "contest_result", "judge")


def active_seat(session: Any) -> int | None:
    """The 1-based seat whose turn it is, or None."""
    game = session.game
    if game is None:
        return None
    seat = game.to_json().get("active_seat")
    return seat if isinstance(seat, int) else None


def seat_command(session: Any, seat: int, command: str, lang: str = "fr", source: str = "phone",
                 listed: bool = False, phones: Any = None) -> dict[str, Any]:
    """A command line from seat ``seat`` (1-based), acting as that seat. ``listed``: a line of an
    action its list offered (the list's conditions said who and when; a bleed names its target).
    ``ok`` (with essences of its choice) / ``non`` answer the proposal of a card the seat read."""
    if session.game is None:
        return {"ok": False, "lines": [t("ui.no_game", lang)], "status": 409}
    words = command.split()
    if words and words[0].lower() in CONFIRM_WORDS | DISMISS_WORDS:
        return answer_proposal(session, phones, seat, words[0].lower() in CONFIRM_WORDS, words[1:], lang, source)
    try:
        intent = session.parser(source).parse(command)
    except Exception:
        intent = None  # the session words the refusal itself, below
    if intent is not None:
        own = seat - 1
        if listed:
            pass
        elif intent.verb == "counter" and intent.seat is None:
            intent.seat = own  # "pool -2" on Ann's phone is Ann's pool
        elif intent.seat is not None and intent.seat != own:
            return {"ok": False, "lines": [t("phones.api.not_your_seat", lang)], "status": 403}
        elif (intent.verb not in ANY_TIME and active_seat(session) != seat
              and not _offered(session, own, intent.verb, words[0].lower() if words else "")):
            return {"ok": False, "lines": [why_waiting(session, seat, lang)], "status": 403}
        intent.args["by"] = own  # its author: the seat's undo takes back its own changes only
        result = session.apply(intent, source=source)
    else:
        result = session.apply(command, source=source)
    return {"ok": result.ok, "lines": result.lines(lang), "revision": session.revision}


def seat_proposal(session: Any, phones: Any, seat: int) -> Any:
    """The proposal seat ``seat`` (1-based) may answer: its private card's, or the table's when
    it is for that seat (a card laid on the table's reader during its turn)."""
    mine = phones.proposal(seat) if phones is not None else None
    if mine is not None:
        return mine
    table = session.proposal
    return table if table is not None and table.seat == seat - 1 else None


def proposal_json(session: Any, proposal: Any) -> dict[str, Any] | None:
    """A proposal as a phone shows it: the question and why it cannot be applied, both languages."""
    game = session.game
    if proposal is None or game is None:
        return None
    return {"seat": proposal.seat + 1, "choices": _choices_json(game, proposal.choices),
            "lines": {lang: [x for x in (proposal.text(game, lang), proposal.blocked(lang)) if x] for lang in LANGS}}


def _choices_json(game: Any, choices: dict[str, Any] | None) -> dict[str, Any] | None:
    """What the card's choice asks (essences "of your choice"), as the table screen offers it: how
    many to pay, then to gain, and each essence allowed with its name in both languages."""
    if not choices:
        return None
    allowed = []
    for essence in choices.get("allowed", []):
        try:
            counter = game.data.counter(essence)
            words = {lang: counter.name(lang) for lang in LANGS}
        except KeyError:
            words = {lang: essence for lang in LANGS}
        allowed.append([essence, words])
    return {"pay": int(choices.get("pay", 0)), "gain": int(choices.get("gain", 0)), "allowed": allowed}


def answer_proposal(session: Any, phones: Any, seat: int, confirm: bool, choice: list[str], lang: str = "fr",
                    source: str = "phone") -> dict[str, Any]:
    from companion.table import cardplay
    from companion.table.engine import Intent

    proposal = seat_proposal(session, phones, seat)
    if proposal is None:
        return {"ok": False, "lines": [t("play.no_proposal", lang)], "status": 409}
    private = phones is not None and phones.proposal(seat) is proposal
    if not confirm:
        if private:
            phones.propose(seat, None)
        else:
            session.dismiss()
        return {"ok": True, "lines": [], "revision": session.revision}
    intent = cardplay.with_choice(proposal.intent, choice[:30]) if choice else proposal.intent
    intent = Intent(intent.verb, intent.seat, {**intent.args, "by": seat - 1}, source=source, text=intent.text)
    result = session.apply(intent, source=source)
    if result.ok and private:
        phones.propose(seat, None)
    return {"ok": result.ok, "lines": result.lines(lang), "revision": session.revision}


def undo_counts(session: Any) -> dict[str, list[int]]:
    """Per seat (1-based, as text keys for JSON), how many of its own changes it may undo and redo."""
    game = session.game
    if game is None:
        return {}
    return {str(n): list(game.undoable_by(n - 1)) for n in range(1, len(session.seat_names) + 1)}


def why_waiting(session: Any, seat: int, lang: str = "fr") -> str:
    """Why seat ``seat``'s turn actions wait: whose turn it is."""
    active = active_seat(session)
    names = session.seat_names
    if active is None or active == seat or not 1 <= active <= len(names):
        return t("phones.api.not_your_turn", lang)
    return t("phones.waiting_for", lang, name=names[active - 1])


def _offered(session: Any, own: int, verb: str, word: str) -> bool:
    """Whether the seat's action list offers that verb now (typed rather than tapped): a
    life loss or taking essences back may happen in another player's turn."""
    game = session.game
    for action in present.seat_actions(game.rules, game.state, own, "fr"):
        for template in action.commands:
            first = template.split()[0].lower() if template.split() else ""
            if first and first in (verb, word):
                return True
    return False


def venue_actions(venue: Any, seat: int, lang: str = "fr") -> tuple[ActionView, ...]:
    """The venue's actions of seat ``seat`` (0-based), after the game's own in the very list the
    table screen's seat menus and the phones show: confirm and contest while a result waits for
    the players' word, and the judge call whenever the table is joined to a venue."""
    if venue is None or not callable(getattr(venue, "call_judge", None)):
        return ()
    out = []
    pending = venue.pending_result() if callable(getattr(venue, "pending_result", None)) else None
    if pending is not None:
        out += [ActionView("confirm_result", "ok", t("venue.result.confirm_action", lang,
                                                     result=venue.summary(pending, lang)), (), seat=seat, urgent=True),
                ActionView("contest_result", "refused", t("venue.result.contest", lang), (), seat=seat)]
    out.append(ActionView("judge", "judge", t("phones.call_judge", lang), (), seat=seat))
    return tuple(out)


def action_menu(session: Any, venue: Any = None) -> dict[str, list[dict[str, Any]]]:
    """Per seat (1-based, as text keys), the actions it may take now, in both languages, with the
    choices each question offers: what a phone shows as its seat's buttons (the venue's last)."""
    game = session.game
    if game is None:
        return {}
    rules, s = game.rules, game.state
    out: dict[str, list[dict[str, Any]]] = {}
    for i in range(len(s["seats"])):
        by_lang = {lang: present.seat_actions(rules, s, i, lang) + venue_actions(venue, i, lang) for lang in LANGS}
        if len({len(v) for v in by_lang.values()}) > 1:  # a result settled between the two: once more
            by_lang = {lang: by_lang["fr"] for lang in LANGS}
        items = []
        for n, action in enumerate(by_lang["fr"]):
            choices = {}
            for ask in action.ask:
                if ask in CHOSEN or ask == "essences":
                    words = {lang: rules.choices(s, i, ask, lang) for lang in LANGS}
                    choices[ask] = [[value, {lang: dict(words[lang]).get(value, shown) for lang in LANGS}]
                                    for value, shown in words["fr"]]
            items.append({"id": action.id, "mark": action.mark, "urgent": action.urgent, "ask": list(action.ask),
                          "words": {lang: by_lang[lang][n].words for lang in LANGS}, "choices": choices})
        out[str(i + 1)] = items
    return out


def seat_action(session: Any, seat: int, action_id: str, answers: Any, lang: str = "fr",
                source: str = "phone") -> dict[str, Any]:
    """Seat ``seat`` (1-based) takes action ``action_id`` of its list with ``answers``: checked
    against what the list offers now, then its command lines sent as that seat."""
    game = session.game
    if game is None:
        return {"ok": False, "lines": [t("ui.no_game", lang)], "status": 409}
    own = seat - 1
    if not 0 <= own < len(game.state["seats"]):
        return {"ok": False, "lines": [t("phones.api.not_your_seat", lang)], "status": 403}
    offered = {a.id: a for a in present.seat_actions(game.rules, game.state, own, lang)}
    action = offered.get(action_id) if isinstance(action_id, str) else None
    if action is None:
        return {"ok": False, "lines": [t("phones.action_not_now", lang)], "status": 409}
    checked = _answers(game, own, action, answers if isinstance(answers, dict) else {}, lang)
    if checked is None:
        return {"ok": False, "lines": [t("phones.bad_answer", lang, action=action.words)], "status": 400}
    reply: dict[str, Any] = {"ok": True, "lines": []}
    for line in action.command_lines(checked):
        reply = seat_command(session, seat, line, lang, source, listed=True)
        if not reply["ok"]:
            break
    return reply


def _answers(game: Any, own: int, action: Any, answers: dict[str, Any], lang: str) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    for ask in action.ask:
        value = answers.get(ask)
        if ask == "amount":
            if isinstance(value, str) and value.isdigit():
                value = int(value)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_AMOUNT:
                return None
        elif ask in CHOSEN:
            values = {v for v, _ in game.rules.choices(game.state, own, ask, lang)}
            if ask == "component" and isinstance(value, str) and value.strip() and value not in values:
                value = _text(value)  # a component nothing is on yet: its name, typed
            if not isinstance(value, str) or (ask != "component" and value not in values) or not value:
                return None
        elif ask == "essences":
            values = {v for v, _ in game.rules.choices(game.state, own, ask, lang)}
            if not isinstance(value, list) or len(value) > 30 or any(v not in values for v in value):
                return None
        elif ask == "text":
            value = _text(value) if isinstance(value, str) else ""
            if not value:
                return None
        else:  # confirm
            if value is not True:
                return None
        out[ask] = value
    return out


def _text(value: str) -> str:
    """A typed name: one line, no braces, at most MAX_TEXT characters."""
    return " ".join(value.replace("{", " ").replace("}", " ").split())[:MAX_TEXT]
