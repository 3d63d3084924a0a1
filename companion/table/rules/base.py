"""What every game shares: seats in table order, counters with bounds, turns and phases with
their reminders, the first player drawn fairly, dice and coins, the round timer.

A game's module subclasses ``Rules`` and overrides hooks (``on_turn_start``, ``check_change``...)
or adds verbs (``verb_oust``). Handlers work on ``ctx.state``, a copy of the state; they refuse with
``ctx.refuse(key, ...)`` before changing anything they would have to take back.
"""

from __future__ import annotations

from typing import Any

from companion.i18n import t
from companion.table.data import TableData
from companion.table.model import SHARED, Change, Ctx, Intent, Refusal, render


class Rules:
    after_over: frozenset[str] = frozenset()

    def __init__(self, data: TableData) -> None:
        self.data = data
        self.params = data.params

    # -- set-up ---------------------------------------------------------------------------

    def check_players(self, names: list[str], options: dict[str, Any]) -> None:
        if any(not n for n in names):
            raise Refusal("table.refuse.empty_name")
        for n in names:  # from a phone or a terminal: a lone UTF-16 surrogate no journal or socket can carry
            try:
                n.encode("utf-8")
            except UnicodeEncodeError:
                raise Refusal("table.refuse.unreadable_name",
                              name=n.encode("utf-8", "replace").decode("utf-8")) from None
        if len({n.casefold() for n in names}) != len(names):
            raise Refusal("table.refuse.same_names")
        if any(n.isdigit() for n in names):
            raise Refusal("table.refuse.numeric_name")
        if not self.data.seats_min <= len(names) <= self.data.seats_max:
            raise Refusal("table.refuse.seat_count", game=self.data.name(), min=self.data.seats_min,
                          max=self.data.seats_max, count=len(names))

    def initial_state(self, players: list[str], seed: int, options: dict[str, Any], now: float) -> dict[str, Any]:
        seats = [{"name": n, "counters": self.start_counters(i, len(players), options), "out": False, "turns": 0}
                 for i, n in enumerate(players)]
        return {"game": self.data.id, "seed": seed, "rng": 0, "options": options, "seats": seats,
                "shared": {cid: c.start for cid, c in self.data.shared.items()},
                "first": None, "active": None, "turn": 0, "round": 0, "phase": None,
                "over": False, "winner": [], "clock": {"start": now, "turn": now, "round": now}}

    def chosen_first(self, names: list[str], wanted: str) -> int:
        """The seat of the first player the table chose: a seat number, a name, or the unambiguous
        beginning of one (accents and case ignored)."""
        from companion.table.data import fold

        if wanted.isdigit() and 1 <= int(wanted) <= len(names):
            return int(wanted) - 1
        key = fold(wanted)
        hits = [i for i, n in enumerate(names) if fold(n) == key] or \
            [i for i, n in enumerate(names) if fold(n).startswith(key)]
        if len(hits) != 1:
            raise Refusal("table.refuse.first_unknown", name=wanted, players=", ".join(names))
        return hits[0]

    def start_counters(self, seat: int, n: int, options: dict[str, Any]) -> dict[str, int | None]:
        return {cid: c.start for cid, c in self.data.counters.items()}

    def draw_first(self, ctx: Ctx, intent: Intent) -> None:
        n = len(ctx.state["seats"])
        chosen = ctx.state["options"].get("first")
        if chosen is not None:
            first = [seat["name"] for seat in ctx.state["seats"]].index(chosen)
            ctx.payload.update(draw=first, of=n, chosen=True)
            ctx.note("table.first_player_chosen", name=ctx.name(first))
        else:
            first = ctx.rand(n)
            ctx.payload.update(draw=first, of=n)
            ctx.note("table.first_player", name=ctx.name(first))
        ctx.state["first"] = first
        self.on_first_player(ctx, first)
        ctx.state["round"] = 1
        self.start_turn(ctx, first)

    def on_first_player(self, ctx: Ctx, first: int) -> None:
        """Set-up that depends on who plays first (coins given by turn order)."""

    # -- seats and order ------------------------------------------------------------------

    def in_play(self, s: dict[str, Any]) -> list[int]:
        return [i for i, seat in enumerate(s["seats"]) if not seat["out"]]

    def next_in_play(self, s: dict[str, Any], seat: int) -> int | None:
        n = len(s["seats"])
        for k in range(1, n + 1):
            j = (seat + k) % n
            if not s["seats"][j]["out"]:
                return j
        return None

    def prev_in_play(self, s: dict[str, Any], seat: int) -> int | None:
        n = len(s["seats"])
        for k in range(1, n + 1):
            j = (seat - k) % n
            if not s["seats"][j]["out"]:
                return j
        return None

    def position(self, s: dict[str, Any], seat: int) -> int:
        """0 for the first player, 1 for the one after, ... in table order."""
        return (seat - s["first"]) % len(s["seats"])

    def seat_of(self, ctx: Ctx, intent: Intent, default_active: bool = True) -> int:
        seat = intent.seat
        if seat is None:
            if not default_active or ctx.state["active"] is None:
                ctx.refuse("table.refuse.which_seat")
            seat = ctx.state["active"]
        if not 0 <= seat < len(ctx.state["seats"]):
            ctx.refuse("table.refuse.no_seat", seat=seat + 1)
        return seat

    def seat_in_play(self, ctx: Ctx, intent: Intent) -> int:
        seat = self.seat_of(ctx, intent)
        if ctx.state["seats"][seat]["out"]:
            ctx.refuse("table.refuse.seat_out", name=ctx.name(seat))
        return seat

    # -- turns and phases -----------------------------------------------------------------

    def first_phase(self, ctx: Ctx, seat: int) -> int:
        return 0

    def count_turn(self, ctx: Ctx, seat: int) -> None:
        """The bookkeeping of every turn that starts: who plays, how many turns, since when."""
        s = ctx.state
        s["active"] = seat
        s["turn"] += 1
        s["seats"][seat]["turns"] += 1
        s["clock"]["turn"] = ctx.now

    def start_turn(self, ctx: Ctx, seat: int) -> None:
        s = ctx.state
        self.count_turn(ctx, seat)
        s["phase"] = self.first_phase(ctx, seat)
        ctx.note("table.turn", name=ctx.name(seat), turn=s["seats"][seat]["turns"], round=s["round"])
        self.on_turn_start(ctx, seat)
        if not s["over"]:
            self.enter_phase(ctx)

    def enter_phase(self, ctx: Ctx) -> None:
        phase = self.data.phases[ctx.state["phase"]]
        key = "table.phase" if phase.remind() else "table.phase_bare"
        ctx.note(key, phase=f"@p:{phase.id}", reminder=f"@r:{phase.id}")
        self.on_phase_enter(ctx, phase.id)

    def phase_id(self, s: dict[str, Any]) -> str | None:
        return None if s["phase"] is None else self.data.phases[s["phase"]].id

    def end_turn(self, ctx: Ctx) -> None:
        cur = ctx.state["active"]
        self.on_turn_end(ctx, cur)
        for cid, c in self.data.counters.items():
            if c.clear == "turn":
                ctx.state["seats"][cur]["counters"][cid] = c.start
        if not ctx.state["over"]:
            self.advance_from(ctx, cur)

    def advance_from(self, ctx: Ctx, cur: int) -> None:
        """Hand the turn to the next seat in play after ``cur``; a new round when it wraps."""
        s = ctx.state
        nxt = self.next_seat(ctx, cur)
        if nxt is None:
            return
        if self.position(s, nxt) <= self.position(s, cur):
            self.on_round_end(ctx)
            if s["over"]:
                return
            s["round"] += 1
            s["clock"]["round"] = ctx.now
            self.on_round_start(ctx)
        self.start_turn(ctx, nxt)

    def next_seat(self, ctx: Ctx, cur: int) -> int | None:
        return self.next_in_play(ctx.state, cur)

    # hooks
    def on_turn_start(self, ctx: Ctx, seat: int) -> None: ...
    def on_turn_end(self, ctx: Ctx, seat: int) -> None: ...
    def on_phase_enter(self, ctx: Ctx, phase: str) -> None: ...
    def before_leave_phase(self, ctx: Ctx, phase: str) -> None: ...
    def on_round_end(self, ctx: Ctx) -> None: ...
    def on_round_start(self, ctx: Ctx) -> None: ...

    def finish(self, ctx: Ctx, winners: list[int], key: str = "table.over", **values: Any) -> None:
        ctx.state["over"] = True
        ctx.state["winner"] = sorted(winners)
        ctx.note(key, winners=[ctx.name(w) for w in sorted(winners)], **values)

    # -- counters -------------------------------------------------------------------------

    def value(self, s: dict[str, Any], seat: int | None, cid: str) -> int | None:
        return s["shared"][cid] if seat is None else s["seats"][seat]["counters"][cid]

    def bounds(self, s: dict[str, Any], seat: int | None, cid: str) -> tuple[int | None, int | None]:
        c = self.data.counter(cid)
        hi = c.max
        if isinstance(hi, str):
            hi = s["seats"][seat]["counters"][hi[1:]]
        return c.min, hi

    def change(self, ctx: Ctx, seat: int | None, cid: str, amount: int, mode: str = "+",
               quiet: bool = False) -> int:
        """Move one counter within its bounds, or refuse; returns the new value."""
        s = ctx.state
        who = ctx.name(seat) if seat is not None else SHARED
        old = self.value(s, seat, cid)
        if mode == "+" and old is None:
            ctx.refuse("table.refuse.unset", name=who, counter=f"@c:{cid}")
        new = amount if mode == "=" else old + amount
        lo, hi = self.bounds(s, seat, cid)
        if lo is not None and new < lo and mode == "+" and self.data.counter(cid).floor:
            new = lo  # more damage than what is left: down to the minimum, no further
        if lo is not None and new < lo:
            if mode == "+" and lo == 0:
                ctx.refuse("table.refuse.not_enough", name=who, counter=f"@c:{cid}", value=old, amount=-amount)
            ctx.refuse("table.refuse.below_min", name=who, counter=f"@c:{cid}", min=lo)
        if hi is not None and new > hi:
            ctx.refuse("table.refuse.above_max", name=who, counter=f"@c:{cid}", max=hi, value=old)
        self.check_change(ctx, seat, cid, old, new)
        self.set_value(ctx, seat, cid, new, quiet=quiet)
        return new

    def set_value(self, ctx: Ctx, seat: int | None, cid: str, new: int, quiet: bool = False) -> None:
        """Set a counter without checking its bounds (a rule's own consequence), and tell."""
        s = ctx.state
        old = self.value(s, seat, cid)
        if seat is None:
            s["shared"][cid] = new
        else:
            s["seats"][seat]["counters"][cid] = new
        delta = new - (old or 0)
        who = ctx.name(seat) if seat is not None else SHARED
        c = self.data.counter(cid)
        ctx.changes.append(Change(seat, who, cid, dict(c.names), delta, new))
        if not quiet:
            ctx.note("table.counter", name=who, counter=f"@c:{cid}", delta=f"{delta:+d}", value=new)
        self.on_counter_changed(ctx, seat, cid, old, new)

    def check_change(self, ctx: Ctx, seat: int | None, cid: str, old: int | None, new: int) -> None:
        """Refuse a change the game forbids beyond plain bounds."""

    def on_counter_changed(self, ctx: Ctx, seat: int | None, cid: str, old: int | None, new: int) -> None:
        """Consequences of a change (ousting, a win at 12 stars...)."""

    # -- verbs shared by every game -------------------------------------------------------

    def verb_counter(self, ctx: Ctx, intent: Intent) -> None:
        cid = intent.args["counter"]
        c = self.data.counter(cid)
        seat = None if c.scope == "shared" else self.seat_in_play(ctx, intent)
        ctx.type = "counter"
        ctx.payload["counter"] = cid
        self.change(ctx, seat, cid, int(intent.args["amount"]), intent.args.get("mode", "+"))

    def verb_next(self, ctx: Ctx, intent: Intent) -> None:
        s = ctx.state
        self.before_leave_phase(ctx, self.phase_id(s))
        nxt = s["phase"] + 1
        while nxt < len(self.data.phases) and self.nothing_possible(s, self.data.phases[nxt]):
            nxt += 1  # passed over without a word: nothing can happen in it (game.yaml skip)
        if nxt < len(self.data.phases):
            s["phase"] = nxt
            self.enter_phase(ctx)
        else:
            self.end_turn(ctx)

    def nothing_possible(self, s: dict[str, Any], phase: Any) -> bool:
        """Whether nothing can happen in ``phase`` for the seat whose turn it is, by the game's
        data (``skip:``, e.g. ``{round: 1}``: no creature can attack in the first round)."""
        when = dict(phase.skip or {})
        if not when:
            return False
        rounds = when.pop("round", None)
        if rounds is not None and s.get("round") not in (rounds if isinstance(rounds, list) else [rounds]):
            return False
        return not when or (s.get("active") is not None and self.action_ready(s, s["active"], when))

    def verb_end(self, ctx: Ctx, intent: Intent) -> None:
        if intent.seat is not None and intent.seat != ctx.state["active"]:
            ctx.refuse("table.refuse.not_your_turn", name=ctx.name(intent.seat), active=ctx.name(ctx.state["active"]))
        self.end_turn(ctx)

    def verb_pass(self, ctx: Ctx, intent: Intent) -> None:
        ctx.refuse("table.refuse.not_in_game", verb="pass", game=self.data.name())

    def verb_toss(self, ctx: Ctx, intent: Intent) -> None:
        side = ctx.rand(2)
        keys = self.params.get("toss", ["table.toss.heads", "table.toss.tails"])
        ctx.payload["result"] = side
        ctx.state["roll"] = {"kind": "toss", "result": side}
        who = ctx.name(ctx.state["active"]) if ctx.state["active"] is not None else ""
        ctx.note("table.tossed", name=who, result=f"@t:{keys[side]}")

    def verb_dice(self, ctx: Ctx, intent: Intent) -> None:
        sides = int(intent.args.get("sides", 6))
        count = int(intent.args.get("count", 1))
        if not 2 <= sides <= 100 or not 1 <= count <= 10:
            ctx.refuse("table.refuse.dice")
        rolls = [ctx.rand(sides) + 1 for _ in range(count)]
        ctx.payload["result"] = rolls
        ctx.state["roll"] = {"kind": "dice", "sides": sides, "result": rolls}
        total = sum(rolls)
        key = "table.rolled" if count == 1 else "table.rolled_many"
        ctx.note(key, sides=sides, count=count, result=total, rolls=", ".join(map(str, rolls)))

    def verb_status(self, ctx: Ctx, intent: Intent) -> None:
        state = ctx.state
        ctx.answer_for = lambda lang: self.status_lines(state, lang)

    def verb_timer(self, ctx: Ctx, intent: Intent) -> None:
        clock = ctx.state["clock"]
        ctx.note("table.timer", turn=_secs(ctx.now - clock["turn"]), round=_secs(ctx.now - clock["round"]),
                 game=_secs(ctx.now - clock["start"]))

    def verb_help(self, ctx: Ctx, intent: Intent) -> None:
        ctx.note("table.help")

    # -- cards laid: play, acquire, defeat -------------------------------------------------
    # The intent carries the card's reference, its name and its effect (cards/effects.py), put
    # there by whoever resolved the card: the rules never load a card library, and the event
    # records what was paid and gained, so replay needs no card data.

    def verb_play(self, ctx: Ctx, intent: Intent) -> None:
        self.card_action(ctx, intent, "play")

    def verb_acquire(self, ctx: Ctx, intent: Intent) -> None:
        self.card_action(ctx, intent, "acquire")

    def verb_defeat(self, ctx: Ctx, intent: Intent) -> None:
        self.card_action(ctx, intent, "defeat")

    def card_action(self, ctx: Ctx, intent: Intent, action: str) -> None:
        names = intent.args.get("names")
        # by language when the data has it: the note is written and said in the listener's
        card: Any = dict(names) if isinstance(names, dict) and names else \
            str(intent.args.get("name") or intent.args.get("card") or "")
        spec = intent.args.get("effect")
        if not isinstance(spec, dict):
            ctx.refuse("table.card.refuse.no_effect", card=card, action=f"@t:table.card.verb.{action}")
        seat = self.seat_in_play(ctx, intent)
        self.check_card(ctx, seat, action, intent)
        first = len(ctx.notes)
        before = len(ctx.changes)
        pay = self.card_payment(ctx, seat, spec, intent)
        for cid, amount in pay.items():
            have = self.value(ctx.state, seat, cid) or 0
            if have < amount:
                ctx.refuse("table.card.refuse.cannot_pay", name=ctx.name(seat), card=card, need=amount,
                           counter=f"@c:{cid}", value=have)
        for cid, amount in pay.items():
            self.card_pay(ctx, seat, cid, amount)
        for cid, amount in self.card_gains(ctx, seat, spec, intent).items():
            if amount:
                self.card_gain(ctx, seat, cid, amount)
        self.after_card(ctx, seat, action, intent)
        deltas = [[c.counter, c.delta, c.value] for c in ctx.changes[before:] if c.seat == seat and c.delta]
        key = f"table.card.{action}" if deltas else f"table.card.{action}_bare"
        ctx.notes.insert(first, (key, {"name": ctx.name(seat), "card": card, "effect": {"deltas": deltas}}))
        if spec.get("ask"):
            ctx.note("table.card.ask", ask=dict(spec["ask"]))

    def check_card(self, ctx: Ctx, seat: int, action: str, intent: Intent) -> None:
        """Refuse a card action the game forbids now (not this seat's turn, wrong phase...)."""

    def card_payment(self, ctx: Ctx, seat: int, spec: dict[str, Any], intent: Intent) -> dict[str, int]:
        """What the seat pays, by counter; games with choices (``any``) resolve them here."""
        pay = spec.get("pay") or {}
        if "any" in pay:
            ctx.refuse("table.card.refuse.choice", card=str(intent.args.get("name", "")))
        return {k: int(v) for k, v in pay.items() if v}

    def card_gains(self, ctx: Ctx, seat: int, spec: dict[str, Any], intent: Intent) -> dict[str, int]:
        gain = spec.get("gain") or {}
        if "any" in gain:
            ctx.refuse("table.card.refuse.choice", card=str(intent.args.get("name", "")))
        return {k: int(v) for k, v in gain.items() if v}

    def card_pay(self, ctx: Ctx, seat: int, cid: str, amount: int) -> None:
        self.change(ctx, seat, cid, -amount, quiet=True)

    def card_gain(self, ctx: Ctx, seat: int, cid: str, amount: int) -> None:
        self.change(ctx, seat, cid, amount, quiet=True)

    def after_card(self, ctx: Ctx, seat: int, action: str, intent: Intent) -> None:
        """What the game remembers of the card (components in play, cards owned)."""

    # -- reading --------------------------------------------------------------------------

    def counter_text(self, s: dict[str, Any], seat: int, lang: str) -> str:
        parts = []
        for cid, c in self.data.counters.items():
            if c.hidden:
                continue
            v = s["seats"][seat]["counters"][cid]
            parts.append(f"{c.name(lang)} {t('table.status.unset', lang) if v is None else v}")
        return ", ".join(parts)

    def held_marks(self, s: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """The marks a seat holds now that are worth saying when undo or redo moves them (the
        edge, having passed), as notes: a mark present after and not before is said."""
        return []

    def seat_extra(self, s: dict[str, Any], seat: int, lang: str) -> list[str]:
        return []

    def status_lines(self, s: dict[str, Any], lang: str) -> list[str]:
        lines = []
        if s.get("over"):
            names = [s["seats"][w]["name"] for w in s["winner"]]
            lines.append(render(self.data, "table.status.over", {"winners": names or ["—"]}, lang))
        elif s["active"] is not None:
            phase = self.data.phases[s["phase"]]
            lines.append(render(self.data, "table.status.turn", {
                "round": s["round"], "name": s["seats"][s["active"]]["name"], "phase": phase.name(lang),
                "turn": s["seats"][s["active"]]["turns"]}, lang))
        for i, seat in enumerate(s["seats"]):
            marks = self.seat_extra(s, i, lang)
            if seat["out"]:
                marks.insert(0, t("table.mark.out", lang))
            if i == s["active"] and not s.get("over"):
                marks.insert(0, t("table.mark.active", lang))
            extra = f" [{'; '.join(marks)}]" if marks else ""
            # Filled by hand, not through t(): names and counters are not a sentence to agree.
            lines.append(t("table.status.seat", lang).format(n=i + 1, name=seat["name"], marks=extra,
                                                             counters=self.counter_text(s, i, lang)))
        shared = [f"{c.name(lang)} {s['shared'][cid]}" for cid, c in self.data.shared.items() if not c.hidden]
        if shared:
            lines.append(t("table.status.shared", lang).format(counters=", ".join(shared)))
        return lines

    def summary(self, s: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """The state in one line for listings, as a note (a key and its values: no language)."""
        if s.get("over"):
            return "table.summary.over", {"winners": [s["seats"][w]["name"] for w in s["winner"]]}
        if s.get("active") is None:
            return None
        return "table.summary.turn", {"round": s["round"], "name": s["seats"][s["active"]]["name"],
                                      "phase": f"@p:{self.phase_id(s)}"}

    def to_json(self, s: dict[str, Any]) -> dict[str, Any]:
        active = s["active"]
        return {
            "game": s["game"],
            "seed": s["seed"],
            "round": s["round"],
            "turn": s["turn"],
            "active": None if active is None else s["seats"][active]["name"],
            "active_seat": None if active is None else active + 1,
            "phase": self.phase_id(s),
            "first": None if s["first"] is None else s["seats"][s["first"]]["name"],
            "over": s["over"],
            "winner": [s["seats"][w]["name"] for w in s["winner"]],
            "seats": [{"seat": i + 1, "name": seat["name"], "out": seat["out"], "turns": seat["turns"],
                       "counters": dict(seat["counters"]), **self.seat_json(s, i)}
                      for i, seat in enumerate(s["seats"])],
            "shared": dict(s["shared"]),
            "clock": dict(s["clock"]),
            **self.game_json(s),
        }

    def seat_json(self, s: dict[str, Any], seat: int) -> dict[str, Any]:
        return {}

    # -- presentation, as data for the front ends (companion/table/present.py) ---------------

    def main_counters(self) -> list[str]:
        """The counters each seat shows big, the first one biggest (``present.main`` in game.yaml)."""
        shown = [cid for cid, c in self.data.counters.items() if not c.hidden]
        return [cid for cid in self.data.present.get("main", shown[:1]) if cid in self.data.counters]

    def small_counters(self) -> list[str]:
        """The other counters a seat shows, smaller (``present.small``; default: the rest)."""
        main = self.main_counters()
        rest = [cid for cid, c in self.data.counters.items() if not c.hidden and cid not in main]
        return [cid for cid in self.data.present.get("small", rest) if cid in self.data.counters]

    def counter_note(self, s: dict[str, Any], seat: int, cid: str, lang: str) -> tuple[str, dict[str, Any]] | None:
        """A short note after a counter's name, as a message key and its values."""
        c = self.data.counters[cid]
        if c.clear == "turn":
            return "ui.this_turn", {}
        if isinstance(c.max, str):
            return "ui.of_max", {"max": s["seats"][seat]["counters"][c.max[1:]]}
        return None

    def seat_marks(self, s: dict[str, Any], seat: int, lang: str) -> list[tuple[str, str]]:
        """Marks of a seat as (mark id, words): out, winner, then the game's own."""
        out: list[tuple[str, str]] = []
        if s["seats"][seat]["out"]:
            out.append(("out", t("table.mark.out", lang)))
        if s.get("over") and seat in s.get("winner", []):
            out.append(("winner", t("ui.mark.winner", lang)))
        return out + self.game_marks(s, seat, lang)

    def game_marks(self, s: dict[str, Any], seat: int, lang: str) -> list[tuple[str, str]]:
        return []

    def table_info(self, s: dict[str, Any], lang: str) -> list[tuple[str, str]]:
        """Lines for the middle of the table as (mark id, words): the last coin toss..."""
        roll = s.get("roll")
        if roll and roll.get("kind") == "toss":
            keys = self.params.get("toss", ["table.toss.heads", "table.toss.tails"])
            return [("toss", t("ui.last_toss", lang, result=t(keys[roll["result"]], lang)))]
        return []

    def action_ready(self, s: dict[str, Any], seat: int | None, when: dict[str, Any]) -> bool:
        """Whether a seat action of game.yaml (``present.actions``) can be offered now; its
        ``when`` names conditions on the state only, so that the front end never does."""
        if s.get("over") and not when.get("after_over"):
            return False
        if seat is None:
            return True
        me = s["seats"][seat]
        if me["out"]:
            return False
        if "active" in when and (s.get("active") == seat) != bool(when["active"]):
            return False
        if "phase" in when and self.phase_id(s) != when["phase"]:
            return False
        if "flag" in when and not me.get(when["flag"]):
            return False
        if "no_flag" in when and me.get(when["no_flag"]):
            return False
        if "has" in when and not me.get(when["has"]):
            return False
        return not ("not_holder" in when and s.get(when["not_holder"]) == seat)

    def choices(self, s: dict[str, Any], seat: int, ask: str, lang: str) -> list[tuple[str, str]]:
        """What a seat action's question offers, as (word sent, word shown): other seats in
        play for ``target``; the games add theirs (vampires, components, essences)."""
        if ask == "target":
            return [(str(i + 1), x["name"]) for i, x in enumerate(s["seats"]) if i != seat and not x["out"]]
        return []

    def game_json(self, s: dict[str, Any]) -> dict[str, Any]:
        return {}


def _secs(seconds: float) -> str:
    """A duration as a note value: written as a clock on screen, in words for the ear."""
    return f"@s:{max(0, int(seconds))}"

