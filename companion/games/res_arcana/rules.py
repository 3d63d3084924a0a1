"""Res Arcana: rounds of collect, actions in turn until everyone has passed, and a victory
check. Five essences per player, the first-player tile (worth 1 point, taken by the first to
pass), life loss, essences placed on components.

Here a "turn" is one action: ``end`` (or ``next``) hands the action to the next player who has
not passed; ``pass`` ends a player's round.
"""

from __future__ import annotations

from typing import Any

from companion.i18n import t
from companion.table.commands import ParseError, Parser
from companion.table.data import fold
from companion.table.model import Ctx, Intent
from companion.table.rules.base import Rules

ESSENCES = ("mort", "serenite", "vie", "vigueur", "or")
LANGS = ("fr", "en")  # a note is kept without a language: its words are given in both


class GameRules(Rules):
    def initial_state(self, players: list[str], seed: int, options: dict[str, Any], now: float) -> dict[str, Any]:
        s = super().initial_state(players, seed, options, now)
        s["tile"] = None
        s["tile_taken"] = False  # someone has passed first this round
        for seat in s["seats"]:
            seat.update(passed=False, on={})
        return s

    def on_first_player(self, ctx: Ctx, first: int) -> None:
        ctx.state["tile"] = first

    def essences(self) -> tuple[str, ...]:
        return tuple(cid for cid, c in self.data.counters.items() if c.group == "essence")

    # -- the round ------------------------------------------------------------------------

    def start_turn(self, ctx: Ctx, seat: int) -> None:
        s = ctx.state
        self.count_turn(ctx, seat)
        if s["phase"] is None:
            s["phase"] = 0
            ctx.note("table.res.round", round=s["round"], name=ctx.name(seat))
            self.enter_phase(ctx)
        else:
            ctx.note("table.res.to_act", name=ctx.name(seat))

    def verb_next(self, ctx: Ctx, intent: Intent) -> None:
        phase = self.phase_id(ctx.state)
        if phase == "collect":
            ctx.state["phase"] = self.data.phase_index("actions")
            self.enter_phase(ctx)
            ctx.note("table.res.to_act", name=ctx.name(ctx.state["active"]))
        elif phase == "actions":
            self.verb_end(ctx, intent)
        else:
            self.victory_check(ctx)

    def verb_end(self, ctx: Ctx, intent: Intent) -> None:
        s = ctx.state
        if self.phase_id(s) != "actions":
            ctx.refuse("table.res.refuse.not_actions", phase=f"@p:{self.phase_id(s)}")
        if intent.seat is not None and intent.seat != s["active"]:
            ctx.refuse("table.refuse.not_your_turn", name=ctx.name(intent.seat), active=ctx.name(s["active"]))
        self.next_actor(ctx, s["active"])

    def next_actor(self, ctx: Ctx, cur: int) -> None:
        s = ctx.state
        n = len(s["seats"])
        for k in range(1, n + 1):
            j = (cur + k) % n
            if not s["seats"][j]["passed"]:
                if j == cur:
                    ctx.note("table.res.alone", name=ctx.name(j))
                self.start_turn(ctx, j)
                return
        s["phase"] = self.data.phase_index("check")
        self.enter_phase(ctx)

    def verb_pass(self, ctx: Ctx, intent: Intent) -> None:
        s = ctx.state
        seat = self.seat_of(ctx, intent)
        if self.phase_id(s) != "actions":
            ctx.refuse("table.res.refuse.not_actions", phase=f"@p:{self.phase_id(s)}")
        if s["seats"][seat]["passed"]:
            ctx.refuse("table.res.refuse.passed", name=ctx.name(seat))
        if seat != s["active"]:
            ctx.refuse("table.refuse.not_your_turn", name=ctx.name(seat), active=ctx.name(s["active"]))
        s["seats"][seat]["passed"] = True
        ctx.note("table.res.passed", name=ctx.name(seat))
        if not s["tile_taken"]:
            s["tile_taken"] = True
            s["tile"] = seat
            ctx.note("table.res.tile", name=ctx.name(seat))
        ctx.note("table.res.pass_reminder")
        self.next_actor(ctx, seat)

    def points(self, s: dict[str, Any], seat: int) -> int:
        return s["seats"][seat]["counters"]["vp"] + (1 if s["tile"] == seat else 0) + self.component_points(s, seat)

    def component_points(self, s: dict[str, Any], seat: int) -> int:
        """Points printed on the components a seat placed or acquired through the table."""
        return sum(int(c.get("vp", 0)) for c in s["seats"][seat].get("comp", {}).values())

    def _score_words(self, ctx: Ctx, seat: int, points: int, lang: str) -> str:
        """One player's real total for the victory check, the tile named when it counts in it."""
        said = t("table.res.score", lang, name=ctx.name(seat), points=points)
        return t("table.res.score_tile", lang, score=said) if ctx.state["tile"] == seat else said

    def essence_score(self, s: dict[str, Any], seat: int) -> int:
        c = s["seats"][seat]["counters"]
        return sum(c[e] for e in self.essences()) + c.get("or", 0)  # gold counts twice

    def victory_check(self, ctx: Ctx) -> None:
        s = ctx.state
        target = int(self.params.get("victory", 10))
        scores = [self.points(s, i) for i in range(len(s["seats"]))]
        ctx.note("table.res.check", scores={
            lang: ", ".join(self._score_words(ctx, i, v, lang) for i, v in enumerate(scores)) for lang in LANGS})
        if max(scores) >= target:
            best = max(scores)
            tied = [i for i, v in enumerate(scores) if v == best]
            if len(tied) > 1:
                essences = {i: self.essence_score(s, i) for i in tied}
                top = max(essences.values())
                said = ", ".join(f"{ctx.name(i)} {essences[i]}" for i in sorted(tied, key=lambda i: -essences[i]))
                tied = [i for i in tied if essences[i] == top]
                ctx.note("table.res.tie_shared" if len(tied) > 1 else "table.res.tie_break", points=best,
                         essences=said)
            self.finish(ctx, tied)
            return
        # No winner: everything is readied, the tile flips back, and its holder opens the round.
        s["round"] += 1
        s["clock"]["round"] = ctx.now
        s["tile_taken"] = False
        for seat in s["seats"]:
            seat["passed"] = False
        s["first"] = s["tile"]
        s["phase"] = None
        ctx.note("table.res.no_winner", target=target)
        self.start_turn(ctx, s["tile"])

    # -- essences -------------------------------------------------------------------------

    def check_change(self, ctx: Ctx, seat: int | None, cid: str, old: int | None, new: int) -> None:
        s = ctx.state
        if seat is None or old is None or self.phase_id(s) != "actions" or not s["seats"][seat]["passed"]:
            return
        # A rival's power may still give essences to a player who has passed; nothing else moves.
        if cid in self.essences() and new >= old:
            return
        ctx.refuse("table.res.refuse.acting_after_pass", name=ctx.name(seat))

    def refuse_if_passed(self, ctx: Ctx, seat: int) -> None:
        if self.phase_id(ctx.state) == "actions" and ctx.state["seats"][seat]["passed"]:
            ctx.refuse("table.res.refuse.acting_after_pass", name=ctx.name(seat))

    def verb_life(self, ctx: Ctx, intent: Intent) -> None:
        s = ctx.state
        seat = self.seat_of(ctx, intent, default_active=False)
        amount = int(intent.args.get("amount", 1))
        if amount < 1:
            ctx.refuse("table.refuse.positive")
        if seat == s["active"] and self.phase_id(s) == "actions":
            ctx.refuse("table.res.refuse.life_self", name=ctx.name(seat))
        if s["seats"][seat]["passed"]:
            ctx.refuse("table.res.refuse.protected", name=ctx.name(seat))
        c = s["seats"][seat]["counters"]
        paid_life = min(amount, c["vie"])
        missing = amount - paid_life
        others = [e for e in self.essences() if e != "vie"]
        owed = 2 * missing
        chosen = [self.essence_word(ctx, w) for w in intent.args.get("pay", [])]
        available = sum(c[e] for e in others)
        # The hint repeats what was typed (seat, amount) with essences this player really holds.
        hint = {"name": ctx.name(seat), "vie": c["vie"], "count": owed, "seat": seat + 1, "amount": amount,
                "example": " ".join([e for e in others for _ in range(c[e])][:owed])}
        if missing and available <= owed:
            chosen = [e for e in others for _ in range(c[e])]  # everything left goes
        elif missing and len(chosen) != owed:
            ctx.refuse("table.res.refuse.life_choose", **hint)
        if chosen and not missing:
            ctx.refuse("table.res.refuse.life_no_choice", name=ctx.name(seat))
        if any(e == "vie" for e in chosen):
            ctx.refuse("table.res.refuse.life_choose", **hint)
        need: dict[str, int] = {}
        for e in chosen:
            need[e] = need.get(e, 0) + 1
        for e, k in need.items():
            if c[e] < k:
                ctx.refuse("table.refuse.not_enough", name=ctx.name(seat), counter=f"@c:{e}", value=c[e], amount=k)
        ctx.note("table.res.life", name=ctx.name(seat), amount=amount)
        if paid_life:
            self.set_value(ctx, seat, "vie", c["vie"] - paid_life)
        for e, k in need.items():
            self.set_value(ctx, seat, e, c[e] - k)

    def essence_word(self, ctx: Ctx, word: str) -> str:
        hit = self.data.groups.get("essence", {}).get(fold(word))
        if hit is None:
            ctx.refuse("table.res.refuse.essence", word=word)
        return hit

    def verb_put(self, ctx: Ctx, intent: Intent) -> None:
        s = ctx.state
        seat = self.seat_of(ctx, intent)
        self.refuse_if_passed(ctx, seat)
        comp = str(intent.args.get("component", "")).strip()
        essence = self.essence_word(ctx, str(intent.args.get("essence", "")))
        amount, mode = int(intent.args["amount"]), intent.args.get("mode", "+")
        on = s["seats"][seat]["on"]
        key = next((k for k in on if fold(k) == fold(comp)), comp)
        pile = on.setdefault(key, {})
        old = pile.get(essence, 0)
        new = amount if mode == "=" else old + amount
        if new < 0:
            ctx.refuse("table.res.refuse.not_on", component=key, essence=f"@c:{essence}", value=old)
        if new:
            pile[essence] = new
        else:
            pile.pop(essence, None)
        if not pile:
            on.pop(key)
        ctx.note("table.res.on", name=ctx.name(seat), component=key, essence=f"@c:{essence}",
                 delta=f"{new - old:+d}", value=new)

    def verb_take(self, ctx: Ctx, intent: Intent) -> None:
        """Collect: take every essence off one component into the reserve (all or nothing)."""
        s = ctx.state
        seat = self.seat_of(ctx, intent)
        if self.phase_id(s) != "collect":
            ctx.refuse("table.res.refuse.take_when")
        comp = str(intent.args.get("component", "")).strip()
        on = s["seats"][seat]["on"]
        key = next((k for k in on if fold(k) == fold(comp)), None)
        if key is None:
            ctx.refuse("table.res.refuse.empty_component", component=comp)
        for essence, k in on.pop(key).items():
            self.set_value(ctx, seat, essence, s["seats"][seat]["counters"][essence] + k)

    # -- cards: artifacts placed, monuments and places of power acquired -----------------

    def check_card(self, ctx: Ctx, seat: int, action: str, intent: Intent) -> None:
        s = ctx.state
        if self.phase_id(s) != "actions":
            ctx.refuse("table.res.refuse.not_actions", phase=f"@p:{self.phase_id(s)}")
        if seat != s["active"]:
            ctx.refuse("table.refuse.not_your_turn", name=ctx.name(seat), active=ctx.name(s["active"]))
        if s["seats"][seat]["passed"]:
            ctx.refuse("table.res.refuse.acting_after_pass", name=ctx.name(seat))
        ref, card = str(intent.args.get("card", "")), str(intent.args.get("name", ""))
        pair = intent.args.get("pair")
        for i, other in enumerate(s["seats"]):
            comp = other.get("comp", {})
            # A component exists once; a place of power's two faces are one card.
            hit = ref in comp or (pair and any(r.endswith(f":{pair}") for r in comp))
            if hit and i == seat:
                ctx.refuse("table.card.refuse.in_play", card=card, name=ctx.name(seat))
            if hit:
                ctx.refuse("table.card.refuse.taken", card=card, owner=ctx.name(i))

    def _choices(self, ctx: Ctx, intent: Intent) -> list[str]:
        """Essences chosen after the card's name (``2 mort`` is ``mort mort``); a reduction
        (``-1 vigueur``) is taken apart by ``_reductions``."""
        return self._words(ctx, intent)[0]

    def _words(self, ctx: Ctx, intent: Intent) -> tuple[list[str], dict[str, int]]:
        out: list[str] = []
        less: dict[str, int] = {}
        times, minus = 1, False
        for word in intent.args.get("choice") or []:
            word = str(word)
            if word.lstrip("-").isdigit():
                times, minus = int(word.lstrip("-")), word.startswith("-")
                continue
            essence = self.essence_word(ctx, word)
            if minus:
                less[essence] = less.get(essence, 0) + times
            else:
                out.extend([essence] * times)
            times, minus = 1, False
        return out, less

    def _reduce(self, pay: dict[str, int], n_any: int, less: dict[str, int]) -> tuple[dict[str, int], int]:
        """A cost lowered by another component (Artificier, Harnais du Dragon...): each essence
        named comes off that essence's part of the cost first, then off the essences of choice."""
        pay = dict(pay)
        for essence, n in less.items():
            off = min(n, pay.get(essence, 0))
            if off:
                pay[essence] -= off
            n_any = max(0, n_any - (n - off))
        return {k: v for k, v in pay.items() if v}, n_any

    def _allowed(self, spec: dict[str, Any]) -> list[str]:
        return [e for e in self.essences() if e not in (spec.get("but") or [])]

    def card_payment(self, ctx: Ctx, seat: int, spec: dict[str, Any], intent: Intent) -> dict[str, int]:
        pay = {k: int(v) for k, v in (spec.get("pay") or {}).items() if v and k != "any"}
        n_any = int((spec.get("pay") or {}).get("any", 0))
        chosen, less = self._words(ctx, intent)
        if less:
            pay, n_any = self._reduce(pay, n_any, less)
            for essence, n in less.items():
                ctx.note("table.card.reduced", card=str(intent.args.get("name", "")), amount=n,
                         essence=f"@c:{essence}")
        ctx.payload["choice_left"] = chosen[n_any:] if n_any else chosen
        if not n_any:
            return pay
        card = str(intent.args.get("name", ""))
        allowed = self._allowed(spec)
        c = ctx.state["seats"][seat]["counters"]
        left = {e: c[e] - pay.get(e, 0) for e in allowed}
        if chosen:
            if len(chosen) < n_any:
                self._ask_choice(ctx, "table.card.refuse.choose_pay", card, n_any, allowed)
            picks = chosen[:n_any]
        else:
            usable = {e: k for e, k in left.items() if k > 0}
            total = sum(usable.values())
            if total < n_any:
                ctx.refuse("table.card.refuse.cannot_pay_any", name=ctx.name(seat), card=card, need=n_any,
                           value=max(total, 0))
            if len(usable) != 1 and total != n_any:
                self._ask_choice(ctx, "table.card.refuse.choose_pay", card, n_any, allowed)
            picks = [e for e, k in usable.items() for _ in range(k)][:n_any]
        for e in picks:
            if e not in allowed:
                ctx.refuse("table.card.refuse.excluded", card=card, essence=f"@c:{e}")
            pay[e] = pay.get(e, 0) + 1
        return pay

    def _ask_choice(self, ctx: Ctx, key: str, card: str, count: int, allowed: list[str]) -> None:
        ctx.refuse(key, card=card, count=count, allowed=[f"@c:{e}" for e in allowed])

    def card_gains(self, ctx: Ctx, seat: int, spec: dict[str, Any], intent: Intent) -> dict[str, int]:
        gain = {k: int(v) for k, v in (spec.get("gain") or {}).items() if v and k != "any"}
        n_any = int((spec.get("gain") or {}).get("any", 0))
        left = ctx.payload.pop("choice_left", [])
        card = str(intent.args.get("name", ""))
        if n_any:
            if len(left) < n_any:
                self._ask_choice(ctx, "table.card.refuse.choose_gain", card, n_any, self._allowed(spec))
            for e in left[:n_any]:
                if e not in self._allowed(spec):
                    ctx.refuse("table.card.refuse.excluded", card=card, essence=f"@c:{e}")
                gain[e] = gain.get(e, 0) + 1
            left = left[n_any:]
        if left:
            ctx.refuse("table.card.refuse.extra_choice", card=card, words=", ".join(left))
        return gain

    def after_card(self, ctx: Ctx, seat: int, action: str, intent: Intent) -> None:
        spec = intent.args.get("effect") or {}
        comp = ctx.state["seats"][seat].setdefault("comp", {})
        comp[str(intent.args.get("card", ""))] = {"name": str(intent.args.get("name", "")),
                                                  "vp": int(spec.get("vp", 0))}

    # -- reading --------------------------------------------------------------------------

    def held_marks(self, s: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        return [("table.res.passed", {"name": seat["name"]}) for seat in s["seats"] if seat.get("passed")]

    def seat_extra(self, s: dict[str, Any], seat: int, lang: str) -> list[str]:
        marks = []
        if s["tile"] == seat:
            marks.append(t("table.res.mark.tile", lang))
        if s["seats"][seat]["passed"]:
            marks.append(t("table.res.mark.passed", lang))
        for comp, pile in s["seats"][seat]["on"].items():
            what = ", ".join(f"{k} {self.data.counter(e).name(lang)}" for e, k in pile.items())
            marks.append(t("text.label_value", lang).format(label=comp, value=what))
        if s["seats"][seat].get("comp"):
            marks.append(t("table.res.mark.components", lang, points=self.component_points(s, seat),
                           names=", ".join(c["name"] for c in s["seats"][seat]["comp"].values())))
        total = self.points(s, seat)
        if total != self.value(s, seat, "vp"):  # the counter alone is not the player's total
            marks.append(t("table.res.mark.total", lang, points=total))
        return marks

    def seat_json(self, s: dict[str, Any], seat: int) -> dict[str, Any]:
        return {"passed": s["seats"][seat]["passed"], "tile": s["tile"] == seat,
                "points": self.points(s, seat), "on": s["seats"][seat]["on"],
                "components": s["seats"][seat].get("comp", {})}

    def game_json(self, s: dict[str, Any]) -> dict[str, Any]:
        return {"tile": None if s["tile"] is None else s["seats"][s["tile"]]["name"]}

    # -- presentation (companion/table/present.py) ---------------------------------------

    def game_marks(self, s: dict[str, Any], seat: int, lang: str) -> list[tuple[str, str]]:
        me = s["seats"][seat]
        out: list[tuple[str, str]] = []
        if s["tile"] == seat:
            out.append(("tile", t("table.res.mark.tile", lang)))
        out.append(("passed", t("table.res.mark.passed", lang)) if me["passed"] else ("", t("ui.res.not_passed", lang)))
        for comp, pile in me["on"].items():
            what = ", ".join(f"{k} {self.data.counter(e).name(lang)}" for e, k in pile.items())
            out.append(("put", t("text.label_value", lang).format(label=comp, value=what)))
        return out

    def choices(self, s: dict[str, Any], seat: int, ask: str, lang: str) -> list[tuple[str, str]]:
        if ask == "essence":
            return [(e, self.data.counter(e).name(lang)) for e in self.essences()]
        if ask == "essences":  # what pays for a missing Vie: any essence but Vie
            return [(e, self.data.counter(e).name(lang)) for e in self.essences() if e != "vie"]
        if ask == "component":
            return [(comp, comp) for comp in s["seats"][seat]["on"]]
        return super().choices(s, seat, ask, lang)


# -- its own command words (``lifeloss 2 3``, ``put 1 Athanor or +2``...) -----------------------
# The verbs and their words in each language are in cardmap/res-arcana/game.yaml (table.verbs);
# ``pass`` takes a seat only, the generic way.



def _life(p: Parser, verb: str, rest: list[str]) -> Intent:
    if len(rest) < 2:
        raise ParseError("table.parse.life")
    seat = p.need_seat(rest[0])
    return Intent(verb, seat, {"amount": p.count(rest[1].lstrip("-+"), verb), "pay": rest[2:]})


def _put(p: Parser, verb: str, rest: list[str]) -> Intent:
    amount = p.amount(rest[-1]) if rest else None
    if len(rest) < 4 or amount is None:
        raise ParseError("table.parse.put")
    mode, n = amount
    return Intent(verb, p.need_seat(rest[0]),
                  {"component": " ".join(rest[1:-2]), "essence": rest[-2], "amount": n, "mode": mode})


def _take(p: Parser, verb: str, rest: list[str]) -> Intent:
    if len(rest) < 2:
        raise ParseError("table.parse.take")
    return Intent(verb, p.need_seat(rest[0]), {"component": " ".join(rest[1:])})


PARSERS = {"life": _life, "put": _put, "take": _take}
