"""Vampire: the Eternal Struggle: the ring of predators and preys, pool, the edge, transfers,
ousting, withdrawal, victory points, and the blood on each controlled vampire.

Seats are in play order: each Methuselah's prey is the next one still in the game, its
predator the one before. Numbers (30 pool, transfers 1/2/3 then 4, +1 VP and +6 pool for an
oust...) come from ``params`` in game.yaml.
"""

from __future__ import annotations

from typing import Any

from companion.i18n import t
from companion.table.commands import ParseError, Parser, number
from companion.table.data import fold
from companion.table.model import Ctx, Intent
from companion.table.rules.base import Rules


class GameRules(Rules):
    def initial_state(self, players: list[str], seed: int, options: dict[str, Any], now: float) -> dict[str, Any]:
        s = super().initial_state(players, seed, options, now)
        s["edge"] = None
        for seat in s["seats"]:
            seat.update(withdrawing=False, vampires={})
        return s

    # -- the ring -------------------------------------------------------------------------

    def prey(self, s: dict[str, Any], seat: int) -> int | None:
        j = self.next_in_play(s, seat)
        return None if j == seat else j

    def predator(self, s: dict[str, Any], seat: int) -> int | None:
        j = self.prev_in_play(s, seat)
        return None if j == seat else j

    # -- phases ---------------------------------------------------------------------------

    def on_phase_enter(self, ctx: Ctx, phase: str) -> None:
        s = ctx.state
        seat = s["active"]
        if phase == "untap":
            if s["seats"][seat]["withdrawing"]:
                self.leave(ctx, seat)  # a withdrawal declared at the last untap and kept succeeds
                return
            if s["edge"] == seat:
                gain = int(self.params.get("edge_pool", 1))
                ctx.note("table.vtes.edge_gain", name=ctx.name(seat), amount=gain)
                self.set_value(ctx, seat, "pool", s["seats"][seat]["counters"]["pool"] + gain)
        elif phase == "influence":
            table = list(self.params.get("first_transfers", [1, 2, 3]))
            # The order of play counts, not seat numbers: a seat ousted before its first turn
            # does not use up the 2 or the 3 of those who play after it.
            pos = sum(1 for i, x in enumerate(s["seats"]) if i != seat and x["turns"] > 0)
            first_turn = s["seats"][seat]["turns"] == 1
            amount = table[pos] if first_turn and pos < len(table) else int(self.params.get("transfers", 4))
            self.set_value(ctx, seat, "transfers", amount, quiet=True)
            ctx.note("table.vtes.transfers", name=ctx.name(seat), amount=amount)

    # -- pool, ousting, withdrawal --------------------------------------------------------

    def on_counter_changed(self, ctx: Ctx, seat: int | None, cid: str, old: int | None, new: int) -> None:
        if seat is None or cid != "pool":
            return
        if old is not None and new < old:
            self.withdrawal_fails(ctx, seat)
        if new <= 0 and not ctx.state["seats"][seat]["out"]:
            self.oust(ctx, seat)

    def withdrawal_fails(self, ctx: Ctx, seat: int) -> None:
        if ctx.state["seats"][seat]["withdrawing"]:
            ctx.state["seats"][seat]["withdrawing"] = False
            ctx.note("table.vtes.withdraw_failed", name=ctx.name(seat))

    def oust(self, ctx: Ctx, seat: int) -> None:
        s = ctx.state
        predator = self.predator(s, seat)
        s["seats"][seat]["out"] = True
        s["seats"][seat]["withdrawing"] = False
        ctx.note("table.vtes.ousted", name=ctx.name(seat))
        if s["edge"] == seat:
            s["edge"] = None
        if predator is not None:
            c = s["seats"][predator]["counters"]
            self.set_value(ctx, predator, "vp", c["vp"] + int(self.params.get("oust_vp", 1)))
            self.set_value(ctx, predator, "pool", c["pool"] + int(self.params.get("oust_pool", 6)))
        self.after_leaving(ctx, seat)

    def leave(self, ctx: Ctx, seat: int) -> None:
        """A successful withdrawal: the Methuselah leaves with a victory point; nobody is
        rewarded for it."""
        s = ctx.state
        s["seats"][seat]["out"] = True
        s["seats"][seat]["withdrawing"] = False
        ctx.note("table.vtes.withdrawn", name=ctx.name(seat))
        self.set_value(ctx, seat, "vp", s["seats"][seat]["counters"]["vp"] + int(self.params.get("withdraw_vp", 1)))
        if s["edge"] == seat:
            s["edge"] = None
        self.after_leaving(ctx, seat)

    def after_leaving(self, ctx: Ctx, seat: int) -> None:
        s = ctx.state
        left = self.in_play(s)
        if len(left) == 1:
            last = left[0]
            self.set_value(ctx, last, "vp", s["seats"][last]["counters"]["vp"] + int(self.params.get("last_vp", 1)))
            best = max(x["counters"]["vp"] for x in s["seats"])
            self.finish(ctx, [i for i, x in enumerate(s["seats"]) if x["counters"]["vp"] == best])
            return
        if not left:
            best = max(x["counters"]["vp"] for x in s["seats"])
            self.finish(ctx, [i for i, x in enumerate(s["seats"]) if x["counters"]["vp"] == best])
            return
        if s["active"] == seat and not s["over"]:
            self.advance_from(ctx, seat)  # the turn goes on with the prey

    # -- verbs ----------------------------------------------------------------------------

    def verb_oust(self, ctx: Ctx, intent: Intent) -> None:
        seat = self.seat_in_play(ctx, intent)
        if intent.seat is None:
            ctx.refuse("table.refuse.which_seat")
        self.set_value(ctx, seat, "pool", 0)

    def verb_edge(self, ctx: Ctx, intent: Intent) -> None:
        if intent.args.get("none"):
            if ctx.state["edge"] is None:
                ctx.refuse("table.vtes.refuse.no_edge")
            ctx.state["edge"] = None
            ctx.note("table.vtes.edge_burnt")
            return
        seat = self.seat_in_play(ctx, intent)
        if ctx.state["edge"] == seat:
            ctx.refuse("table.vtes.refuse.has_edge", name=ctx.name(seat))
        ctx.state["edge"] = seat
        ctx.note("table.vtes.edge", name=ctx.name(seat))

    def verb_bleed(self, ctx: Ctx, intent: Intent) -> None:
        s = ctx.state
        bleeder = s["active"]
        target = self.prey(s, bleeder) if intent.seat is None else self.seat_in_play(ctx, intent)
        if target is None or target == bleeder:
            ctx.refuse("table.vtes.refuse.bleed_self")
        amount = int(intent.args.get("amount", 1))
        if amount < 1:
            ctx.refuse("table.refuse.positive")
        pool = s["seats"][target]["counters"]["pool"]
        taken = min(amount, pool)
        ctx.note("table.vtes.bled", name=ctx.name(bleeder), target=ctx.name(target), amount=taken)
        if s["edge"] != bleeder:
            s["edge"] = bleeder
            ctx.note("table.vtes.edge", name=ctx.name(bleeder))
        self.set_value(ctx, target, "pool", pool - taken)

    def verb_withdraw(self, ctx: Ctx, intent: Intent) -> None:
        s = ctx.state
        seat = self.seat_in_play(ctx, intent)
        if intent.args.get("cancel"):
            if not s["seats"][seat]["withdrawing"]:
                ctx.refuse("table.vtes.refuse.not_withdrawing", name=ctx.name(seat))
            self.withdrawal_fails(ctx, seat)
            return
        if s["seats"][seat]["withdrawing"]:
            ctx.refuse("table.vtes.refuse.withdrawing", name=ctx.name(seat))
        if seat != s["active"] or self.phase_id(s) != "untap":
            ctx.refuse("table.vtes.refuse.withdraw_when", name=ctx.name(seat))
        s["seats"][seat]["withdrawing"] = True
        ctx.note("table.vtes.withdrawing", name=ctx.name(seat))

    def _vampire(self, ctx: Ctx, seat: int, name: str) -> str:
        vamps = ctx.state["seats"][seat]["vampires"]
        from companion.table.data import fold

        wanted = fold(name)
        hits = [v for v in vamps if fold(v) == wanted] or [v for v in vamps if fold(v).startswith(wanted)]
        if len(hits) != 1:
            ctx.refuse("table.vtes.refuse.no_vampire", name=ctx.name(seat), vampire=name)
        return hits[0]

    def verb_vampire(self, ctx: Ctx, intent: Intent) -> None:
        seat = self.seat_in_play(ctx, intent)
        name = str(intent.args.get("name", "")).strip()
        cap = intent.args.get("capacity")
        if not name or not isinstance(cap, int) or cap < 1:
            ctx.refuse("table.vtes.refuse.vampire_usage")
        vamps = ctx.state["seats"][seat]["vampires"]
        if name in vamps:
            ctx.refuse("table.vtes.refuse.vampire_exists", vampire=name)
        blood = intent.args.get("blood")
        blood = cap if blood is None else int(blood)
        if not 0 <= blood <= cap:
            ctx.refuse("table.vtes.refuse.capacity", vampire=name, capacity=cap)
        vamps[name] = {"capacity": cap, "blood": blood}
        ctx.note("table.vtes.vampire", name=ctx.name(seat), vampire=name, capacity=cap, blood=blood)

    def verb_blood(self, ctx: Ctx, intent: Intent) -> None:
        seat = self.seat_in_play(ctx, intent)
        vname = self._vampire(ctx, seat, str(intent.args.get("name", "")))
        v = ctx.state["seats"][seat]["vampires"][vname]
        amount, mode = int(intent.args["amount"]), intent.args.get("mode", "+")
        new = amount if mode == "=" else v["blood"] + amount
        if new < 0:
            ctx.refuse("table.vtes.refuse.no_blood", vampire=vname, blood=v["blood"])
        if new > v["capacity"]:
            ctx.refuse("table.vtes.refuse.capacity", vampire=vname, capacity=v["capacity"])
        if new < v["blood"]:
            self.withdrawal_fails(ctx, seat)
        old = v["blood"]
        v["blood"] = new
        ctx.note("table.vtes.blood", vampire=vname, delta=f"{new - old:+d}", value=new)

    def verb_burn(self, ctx: Ctx, intent: Intent) -> None:
        seat = self.seat_in_play(ctx, intent)
        vname = self._vampire(ctx, seat, str(intent.args.get("name", "")))
        del ctx.state["seats"][seat]["vampires"][vname]
        ctx.note("table.vtes.burnt", vampire=vname, name=ctx.name(seat))

    # -- cards: pool costs paid, vampires influenced out -----------------------------------

    def verb_play(self, ctx: Ctx, intent: Intent) -> None:
        vampire = intent.args.get("vampire")
        if not isinstance(vampire, dict):
            super().verb_play(ctx, intent)
            return
        # A crypt card laid: it comes out of the uncontrolled region with its capacity in blood,
        # that blood moved there from its Methuselah's pool (transfers at influence).
        seat = self.seat_in_play(ctx, intent)
        cap = vampire.get("capacity")
        pool = self.value(ctx.state, seat, "pool") or 0
        if isinstance(cap, int) and pool < cap:
            ctx.refuse("table.vtes.refuse.vampire_pool", name=ctx.name(seat), vampire=vampire.get("name"),
                       capacity=cap, pool=pool)
        ctx.note("table.card.play_bare", name=ctx.name(seat), card=str(intent.args.get("name", "")))
        self.verb_vampire(ctx, Intent("vampire", seat, {"name": vampire.get("name"),
                                                        "capacity": vampire.get("capacity")}))
        if isinstance(cap, int):
            self.change(ctx, seat, "pool", -cap)

    def check_card(self, ctx: Ctx, seat: int, action: str, intent: Intent) -> None:
        # A master card is played by its owner in their master phase; out of turn, by another.
        if intent.args.get("master") and seat == ctx.state.get("active") and self.phase_id(ctx.state) != "master":
            ctx.refuse("table.vtes.refuse.master_phase", name=ctx.name(seat),
                       card=intent.args.get("names") or str(intent.args.get("name", "")), phase="@p:master")

    # -- reading --------------------------------------------------------------------------

    def held_marks(self, s: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        edge = s.get("edge")
        return [] if edge is None else [("table.vtes.edge", {"name": s["seats"][edge]["name"]})]

    def seat_extra(self, s: dict[str, Any], seat: int, lang: str) -> list[str]:
        marks = []
        if s["edge"] == seat:
            marks.append(t("table.vtes.mark.edge", lang))
        if not s["seats"][seat]["out"]:
            prey = self.prey(s, seat)
            if prey is not None:
                marks.append(t("table.vtes.mark.prey", lang, name=s["seats"][prey]["name"]))
        if s["seats"][seat]["withdrawing"]:
            marks.append(t("table.vtes.mark.withdrawing", lang))
        for name, v in s["seats"][seat]["vampires"].items():
            marks.append(f"{name} {v['blood']}/{v['capacity']}")
        return marks

    def seat_json(self, s: dict[str, Any], seat: int) -> dict[str, Any]:
        prey, predator = self.prey(s, seat), self.predator(s, seat)
        out = s["seats"][seat]["out"]
        return {"edge": s["edge"] == seat, "withdrawing": s["seats"][seat]["withdrawing"],
                "prey": None if out or prey is None else s["seats"][prey]["name"],
                "predator": None if out or predator is None else s["seats"][predator]["name"],
                "vampires": s["seats"][seat]["vampires"]}

    def game_json(self, s: dict[str, Any]) -> dict[str, Any]:
        return {"edge": None if s["edge"] is None else s["seats"][s["edge"]]["name"]}

    # -- presentation (companion/table/present.py) ---------------------------------------

    def game_marks(self, s: dict[str, Any], seat: int, lang: str) -> list[tuple[str, str]]:
        me = s["seats"][seat]
        out: list[tuple[str, str]] = []
        if s["edge"] == seat:
            out.append(("edge", t("ui.vtes.edge", lang)))
        if not me["out"]:
            prey, predator = self.prey(s, seat), self.predator(s, seat)
            if prey is not None:
                out.append(("prey", t("ui.vtes.prey", lang, name=s["seats"][prey]["name"])))
            if predator is not None:
                out.append(("predator", t("ui.vtes.predator", lang, name=s["seats"][predator]["name"])))
        if me["withdrawing"]:
            out.append(("withdrawing", t("table.vtes.mark.withdrawing", lang)))
        for name, v in me["vampires"].items():
            out.append(("blood", f"{name} {v['blood']}/{v['capacity']}"))
        return out

    def table_info(self, s: dict[str, Any], lang: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        ring = self.in_play(s)
        if len(ring) > 1:
            names = [s["seats"][i]["name"] for i in ring] + [s["seats"][ring[0]]["name"]]
            out.append(("", t("ui.vtes.ring", lang, ring=" \u2192 ".join(names))))
        holder = s["edge"]
        out.append(("edge", t("ui.vtes.edge_holder", lang, name=s["seats"][holder]["name"])
                    if holder is not None else t("ui.vtes.no_edge", lang)))
        return out + super().table_info(s, lang)

    def choices(self, s: dict[str, Any], seat: int, ask: str, lang: str) -> list[tuple[str, str]]:
        if ask == "vampire":
            return [(name, f"{name} {v['blood']}/{v['capacity']}") for name, v in s["seats"][seat]["vampires"].items()]
        return super().choices(s, seat, ask, lang)


# -- its own command words (``edge 2``, ``vampire 1 Anson``...): the parsers of its verbs --------
# The verbs and their words in each language are in cardmap/vtes/game.yaml (table.verbs).


CANCEL = {"cancel", "annule", "annuler", "rate", "echec", "fail"}
NONE = {"none", "aucun", "personne", "-", "0", "burn", "bruler"}


def _edge(p: Parser, verb: str, rest: list[str]) -> Intent:
    if len(rest) != 1:
        raise ParseError("table.parse.need_seat", command=verb)
    if fold(rest[0]) in NONE:
        return Intent(verb, None, {"none": True})
    return Intent(verb, p.need_seat(rest[0]))


def _oust(p: Parser, verb: str, rest: list[str]) -> Intent:
    return p.only_seat(verb, rest, required=True)


def _withdraw(p: Parser, verb: str, rest: list[str]) -> Intent:
    cancel = any(fold(x) in CANCEL for x in rest)
    rest = [x for x in rest if fold(x) not in CANCEL]
    intent = p.only_seat(verb, rest, required=True)
    intent.args["cancel"] = cancel
    return intent


def _bleed(p: Parser, verb: str, rest: list[str]) -> Intent:
    if not rest or len(rest) > 2:
        raise ParseError("table.parse.bleed")
    seat = p.need_seat(rest[0]) if len(rest) == 2 else None
    return Intent(verb, seat, {"amount": p.count(rest[-1].lstrip("+-"), verb)})


def _vampire(p: Parser, verb: str, rest: list[str]) -> Intent:
    if len(rest) < 2:
        raise ParseError("table.parse.vampire")
    seat = p.need_seat(rest[0])
    nums = []
    body = rest[1:]
    while body and number(body[-1]) is not None and len(nums) < 2:
        nums.insert(0, number(body.pop()))
    if not body:
        raise ParseError("table.parse.vampire")
    name = " ".join(body)
    if not nums:
        found = p.crypt_card(name) if p.crypt_card is not None else crypt_card(name, p.library)
        if found is None:
            raise ParseError("table.parse.vampire_unknown", vampire=name)
        name, capacity = found
        nums = [capacity]
    args: dict[str, Any] = {"name": name, "capacity": nums[0]}
    if len(nums) == 2:
        args["blood"] = nums[1]
    return Intent(verb, seat, args)


def _blood(p: Parser, verb: str, rest: list[str]) -> Intent:
    amount = p.amount(rest[-1]) if rest else None
    if len(rest) < 3 or amount is None:
        raise ParseError("table.parse.blood")
    mode, n = amount
    return Intent(verb, p.need_seat(rest[0]), {"name": " ".join(rest[1:-1]), "amount": n, "mode": mode})


def _burn(p: Parser, verb: str, rest: list[str]) -> Intent:
    if len(rest) < 2:
        raise ParseError("table.parse.burn")
    return Intent(verb, p.need_seat(rest[0]), {"name": " ".join(rest[1:])})


PARSERS = {"edge": _edge, "oust": _oust, "withdraw": _withdraw, "bleed": _bleed, "vampire": _vampire,
           "blood": _blood, "burn": _burn}


def crypt_card(name: str, library: Any) -> tuple[str, int] | None:
    """(printed name, capacity) of the crypt card a player named, forgiving typos; None when no
    crypt card answers to it, or when no card library was given."""
    if library is None:
        return None
    hits = [h.card for h in library.search(name, game="vtes", limit=5) if h.card.extra.get("capacity")]
    if not hits:
        return None
    card = hits[0]
    return card.extra.get("printed_name") or card.name, int(card.extra["capacity"])
