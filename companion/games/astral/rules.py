"""ASTRAL CARDS: maximum Energy +1 per turn up to 7, stars (12 win at once), the Navigateur's
PV, the states that come with a player's turns (Navigateur revealed at 3, Cosmic at 5, Astral
at 7 with a third main action, SuperNova from 9), main actions (at most two of one type),
first-turn draws, the hand limit, sudden death when the deck is empty.

States follow the player's own turn number, as the seed states them ("tour 3 du joueur"...);
the Energy reached on that turn is the same number unless a card changed it.
"""

from __future__ import annotations

from typing import Any

from companion.i18n import t
from companion.table.commands import ParseError, Parser, number
from companion.table.model import Ctx, Intent
from companion.table.rules.base import Rules

STATES = ("revealed", "cosmic", "astral", "supernova")


class GameRules(Rules):
    def initial_state(self, players: list[str], seed: int, options: dict[str, Any], now: float) -> dict[str, Any]:
        s = super().initial_state(players, seed, options, now)
        for seat in s["seats"]:
            seat.update(states=[], actions={"sbire": 0, "pouvoir": 0}, deck_empty=False, from_hand=False)
        return s

    def on_turn_start(self, ctx: Ctx, seat: int) -> None:
        s = ctx.state
        me = s["seats"][seat]
        turn = me["turns"]
        top = int(self.params.get("energy_max", 7))
        if me["counters"]["max_energy"] < top:
            self.set_value(ctx, seat, "max_energy", me["counters"]["max_energy"] + 1)
        self.set_value(ctx, seat, "energy", me["counters"]["max_energy"], quiet=True)
        me["actions"] = {"sbire": 0, "pouvoir": 0}
        me["from_hand"] = False
        at = self.params.get("states", {"revealed": 3, "cosmic": 5, "astral": 7, "supernova": 9})
        for state in STATES:
            if turn >= int(at[state]) and state not in me["states"]:
                me["states"].append(state)
                ctx.note(f"table.astral.{state}", name=ctx.name(seat))
        if turn == 1:
            draw = 0 if seat == s["first"] else 1
        else:
            draw = int(self.params.get("draw", 2))
        ctx.note("table.astral.draw", name=ctx.name(seat), count=draw)

    def on_turn_end(self, ctx: Ctx, seat: int) -> None:
        s = ctx.state
        me = s["seats"][seat]
        ctx.note("table.astral.hand_limit", limit=int(self.params.get("hand_limit", 7)))
        if me["deck_empty"] and not me["from_hand"]:
            ctx.note("table.astral.sudden_death_lost", name=ctx.name(seat))
            self.lose(ctx, seat)
            return
        if "supernova" in me["states"] and me["counters"]["pv"] is not None and me["counters"]["pv"] > 0:
            ctx.note("table.astral.supernova_hit", name=ctx.name(seat))
            self.set_value(ctx, seat, "pv", me["counters"]["pv"] - 1)

    def lose(self, ctx: Ctx, seat: int) -> None:
        if ctx.state["over"]:
            return
        ctx.state["seats"][seat]["out"] = True
        self.finish(ctx, [i for i in range(len(ctx.state["seats"])) if i != seat])

    def on_counter_changed(self, ctx: Ctx, seat: int | None, cid: str, old: int | None, new: int) -> None:
        if seat is None or ctx.state["over"]:
            return
        if cid == "stars" and new >= int(self.params.get("stars_to_win", 12)):
            ctx.note("table.astral.stars_win", name=ctx.name(seat))
            self.finish(ctx, [seat])
        elif cid == "max_energy" and new < old and ctx.state["seats"][seat]["counters"]["energy"] > new:
            self.set_value(ctx, seat, "energy", new)  # Energy never stays above its maximum
        elif cid == "pv" and new == 0 and old != 0:
            ctx.note("table.astral.navigator_dead", name=ctx.name(seat))
            self.lose(ctx, seat)

    def check_change(self, ctx: Ctx, seat: int | None, cid: str, old: int | None, new: int) -> None:
        if cid == "max_energy" and new > int(self.params.get("energy_max", 7)):
            ctx.refuse("table.astral.refuse.energy_max", max=int(self.params.get("energy_max", 7)))

    def main_action(self, ctx: Ctx, intent: Intent, kind: str) -> None:
        s = ctx.state
        seat = s["active"]
        if intent.seat is not None and intent.seat != seat:
            ctx.refuse("table.refuse.not_your_turn", name=ctx.name(intent.seat), active=ctx.name(seat))
        me = s["seats"][seat]
        limit = 3 if "astral" in me["states"] else 2
        done = sum(me["actions"].values())
        if done >= limit:
            ctx.refuse("table.astral.refuse.actions", name=ctx.name(seat), limit=limit)
        if me["actions"][kind] >= int(self.params.get("same_type_max", 2)):
            ctx.refuse("table.astral.refuse.same_type", kind=f"@t:table.astral.kind.{kind}")
        cost = int(intent.args.get("cost", 0))
        if cost < 0:
            ctx.refuse("table.refuse.positive")
        if cost > me["counters"]["energy"]:
            ctx.refuse("table.refuse.not_enough", name=ctx.name(seat), counter="@c:energy",
                       value=me["counters"]["energy"], amount=cost)
        me["actions"][kind] += 1
        me["from_hand"] = True
        ctx.note("table.astral.action", name=ctx.name(seat), kind=f"@t:table.astral.kind.{kind}",
                 done=done + 1, limit=limit)
        if cost:
            self.set_value(ctx, seat, "energy", me["counters"]["energy"] - cost)

    def verb_summon(self, ctx: Ctx, intent: Intent) -> None:
        self.main_action(ctx, intent, "sbire")

    def verb_power(self, ctx: Ctx, intent: Intent) -> None:
        self.main_action(ctx, intent, "pouvoir")

    def check_card(self, ctx: Ctx, seat: int, action: str, intent: Intent) -> None:
        kind = intent.args.get("type")
        if kind in ("sbire", "pouvoir"):
            # A minion or power card is one of the turn's main actions; its cost is paid after.
            self.main_action(ctx, Intent(kind, seat, {"cost": 0}), kind)

    def verb_empty(self, ctx: Ctx, intent: Intent) -> None:
        seat = self.seat_in_play(ctx, intent)
        if ctx.state["seats"][seat]["deck_empty"]:
            ctx.refuse("table.astral.refuse.already_empty", name=ctx.name(seat))
        ctx.state["seats"][seat]["deck_empty"] = True
        ctx.note("table.astral.sudden_death", name=ctx.name(seat))

    def verb_win(self, ctx: Ctx, intent: Intent) -> None:
        if intent.seat is None:
            ctx.refuse("table.refuse.which_seat")
        seat = self.seat_in_play(ctx, intent)
        ctx.note("table.astral.effect_win", name=ctx.name(seat))
        self.finish(ctx, [seat])

    def seat_extra(self, s: dict[str, Any], seat: int, lang: str) -> list[str]:
        me = s["seats"][seat]
        marks = [t(f"table.astral.mark.{x}", lang) for x in me["states"]]
        if me["deck_empty"]:
            marks.append(t("table.astral.mark.sudden_death", lang))
        if seat == s["active"] and not s["over"]:
            marks.append(t("table.astral.mark.actions", lang, done=sum(me["actions"].values()),
                           limit=3 if "astral" in me["states"] else 2))
        return marks

    def seat_json(self, s: dict[str, Any], seat: int) -> dict[str, Any]:
        me = s["seats"][seat]
        return {"states": me["states"], "main_actions": me["actions"], "deck_empty": me["deck_empty"]}

    # -- presentation (companion/table/present.py) ---------------------------------------

    def counter_note(self, s: dict[str, Any], seat: int, cid: str, lang: str) -> tuple[str, dict[str, Any]] | None:
        if cid == "stars":
            return "ui.of_max", {"max": int(self.params.get("stars_to_win", 12))}
        return super().counter_note(s, seat, cid, lang)

    def game_marks(self, s: dict[str, Any], seat: int, lang: str) -> list[tuple[str, str]]:
        me = s["seats"][seat]
        out = [("state", t(f"table.astral.mark.{st}", lang)) for st in me["states"]]
        if not me["states"]:
            out.append(("", t("ui.astral.hidden", lang)))
        if me["deck_empty"]:
            out.append(("out", t("table.astral.mark.sudden_death", lang)))
        if seat == s.get("active") and not s.get("over"):
            limit = 3 if "astral" in me["states"] else 2
            out.append(("", t("table.astral.mark.actions", lang, done=sum(me["actions"].values()), limit=limit)))
        return out


# -- its own command words (``summon 3``, ``empty 2``...); the verbs and their words in each
# language are in cardmap/astral/game.yaml (table.verbs).



def _summon(p: Parser, verb: str, rest: list[str]) -> Intent:
    if len(rest) > 1:
        raise ParseError("table.parse.unexpected", word=rest[1], command=verb)
    cost = 0
    if rest:
        value = number(rest[0])
        if value is None:
            raise ParseError("table.parse.number", word=rest[0], command=verb)
        cost = value
    return Intent(verb, None, {"cost": cost})


def _seat_needed(p: Parser, verb: str, rest: list[str]) -> Intent:
    return p.only_seat(verb, rest, required=True)


PARSERS = {"summon": _summon, "power": _summon, "empty": _seat_needed, "win": _seat_needed}
