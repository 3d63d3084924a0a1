"""Rise: two players, two Summoners each with their PV, coins, seven phases, the restoration
choice, coin tosses; a player whose two Summoners are dead loses.

The Summoners' PV are printed on their cards, so they start unknown and are entered at the
table (``pv 1 a =20``); a Summoner whose PV were never entered is not counted dead.
"""

from __future__ import annotations

from typing import Any

from companion.i18n import t
from companion.table.commands import ParseError, Parser
from companion.table.model import Ctx, Intent
from companion.table.rules.base import Rules


class GameRules(Rules):
    def initial_state(self, players: list[str], seed: int, options: dict[str, Any], now: float) -> dict[str, Any]:
        s = super().initial_state(players, seed, options, now)
        for seat in s["seats"]:
            seat["restored"] = False
        return s

    def summoners(self) -> list[str]:
        return [cid for cid, c in self.data.counters.items() if c.group == "pv"]

    def on_first_player(self, ctx: Ctx, first: int) -> None:
        coins = list(self.params.get("start_coins", [2, 1]))
        cards = list(self.params.get("start_cards", [6, 4]))
        for pos in range(len(ctx.state["seats"])):
            seat = (first + pos) % len(ctx.state["seats"])
            self.set_value(ctx, seat, "coins", coins[pos], quiet=True)
            ctx.note("table.rise.start", name=ctx.name(seat), cards=cards[pos], coins=coins[pos])

    def first_phase(self, ctx: Ctx, seat: int) -> int:
        s = ctx.state
        if seat == s["first"] and s["seats"][seat]["turns"] == 1:
            return int(self.params.get("first_turn_phase", 3)) - 1  # the first player skips phases 1 and 2
        return 0

    def on_turn_start(self, ctx: Ctx, seat: int) -> None:
        ctx.state["seats"][seat]["restored"] = False

    def before_leave_phase(self, ctx: Ctx, phase: str) -> None:
        if phase == "restoration" and not ctx.state["seats"][ctx.state["active"]]["restored"]:
            ctx.refuse("table.rise.refuse.restore_first", name=ctx.name(ctx.state["active"]))

    def verb_end(self, ctx: Ctx, intent: Intent) -> None:
        # The seven phases come in order: ending the turn early never skips the restoration,
        # which every turn has except the first player's first.
        s = ctx.state
        seat = s["active"]
        first_turn_of_first = seat == s["first"] and s["seats"][seat]["turns"] == 1
        if not first_turn_of_first and not s["seats"][seat]["restored"]:
            ctx.refuse("table.rise.refuse.restore_first", name=ctx.name(seat))
        super().verb_end(ctx, intent)

    def verb_restore(self, ctx: Ctx, intent: Intent) -> None:
        s = ctx.state
        seat = s["active"]
        if intent.seat is not None and intent.seat != seat:
            ctx.refuse("table.refuse.not_your_turn", name=ctx.name(intent.seat), active=ctx.name(seat))
        if self.phase_id(s) != "restoration":
            ctx.refuse("table.rise.refuse.restore_when")
        if s["seats"][seat]["restored"]:
            ctx.refuse("table.rise.refuse.restored", name=ctx.name(seat))
        cards = intent.args.get("cards")
        choices = {int(k): int(v) for k, v in self.params.get("restore", {2: 1, 1: 2}).items()}
        if cards not in choices:
            ctx.refuse("table.rise.refuse.restore_usage")
        s["seats"][seat]["restored"] = True
        ctx.note("table.rise.restored", name=ctx.name(seat), cards=cards, coins=choices[cards])
        self.set_value(ctx, seat, "coins", s["seats"][seat]["counters"]["coins"] + choices[cards])
        s["phase"] += 1
        self.enter_phase(ctx)

    def on_counter_changed(self, ctx: Ctx, seat: int | None, cid: str, old: int | None, new: int) -> None:
        if seat is None or cid not in self.summoners() or new != 0 or old == 0:
            return
        pv = [ctx.state["seats"][seat]["counters"][x] for x in self.summoners()]
        if not all(v == 0 for v in pv):  # both dead: "Les deux Invocateurs de Bob sont morts" says it
            ctx.note("table.rise.summoner_dead", name=ctx.name(seat), summoner=f"@c:{cid}")
        else:
            ctx.state["seats"][seat]["out"] = True
            ctx.note("table.rise.lost", name=ctx.name(seat))
            self.finish(ctx, [i for i in range(len(ctx.state["seats"])) if i != seat])

    def check_change(self, ctx: Ctx, seat: int | None, cid: str, old: int | None, new: int) -> None:
        if seat is not None and cid in self.summoners() and old == 0 and new > 0:
            ctx.refuse("table.rise.refuse.dead", summoner=f"@c:{cid}", name=ctx.name(seat))

    def seat_extra(self, s: dict[str, Any], seat: int, lang: str) -> list[str]:
        marks = []
        if s["first"] == seat:
            marks.append(t("table.mark.first", lang))
        return marks

    # -- presentation (companion/table/present.py) ---------------------------------------

    def game_marks(self, s: dict[str, Any], seat: int, lang: str) -> list[tuple[str, str]]:
        return [("first", t("table.mark.first", lang))] if s.get("first") == seat else []


# -- its own command words (``restore 2``); the verbs and their words in each language are in
# cardmap/rise/game.yaml (table.verbs).



def _restore(p: Parser, verb: str, rest: list[str]) -> Intent:
    if len(rest) != 1 or rest[0] not in ("1", "2"):
        raise ParseError("table.parse.restore")
    return Intent(verb, None, {"cards": int(rest[0])})


PARSERS = {"restore": _restore}
