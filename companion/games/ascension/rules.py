"""Ascension: Rise of Vigil: the honor pool, this turn's runes, power and energy, the last round
once the pool is empty, the final score and its tie-break, solo against the Cult, teams.

Honor is conserved: every point a player takes comes out of the pool; once the pool is empty,
what is still won is counted apart (``extra``), so that pool + players' honor = start + extra.
"""

from __future__ import annotations

from typing import Any

from companion.i18n import t
from companion.table.model import Ctx, Intent, Refusal
from companion.table.rules.base import Rules

CULT = "Culte"


class GameRules(Rules):
    after_over = frozenset({"counter"})  # card honor is entered once the last round is played

    def check_players(self, names: list[str], options: dict[str, Any]) -> None:
        super().check_players(names, options)
        if options.get("teams") and len(names) not in (4, 6):
            raise Refusal("table.ascension.refuse.teams", count=len(names))
        if len(names) == 1 and names[0].casefold() == CULT.casefold():
            raise Refusal("table.refuse.same_names")

    def initial_state(self, players: list[str], seed: int, options: dict[str, Any], now: float) -> dict[str, Any]:
        solo = len(players) == 1
        s = super().initial_state(players + ([CULT] if solo else []), seed, options, now)
        per = int(self.params.get("honor_per_player", 30))
        s["shared"]["pool"] = int(self.params.get("honor_solo", 50)) if solo else per * len(players)
        s["shared"]["extra"] = 0
        s["honor_start"] = s["shared"]["pool"]
        s["solo"] = solo
        s["last_round"] = False
        for seat in s["seats"]:
            seat["cult"] = solo and seat is s["seats"][-1]
        if options.get("teams"):
            half = len(players) // 2  # partners sit opposite each other
            s["teams"] = [[i, i + half] for i in range(half)]
        return s

    def draw_first(self, ctx: Ctx, intent: Intent) -> None:
        if ctx.state["solo"]:  # the player opens; the Cult never takes a turn of its own
            ctx.payload.update(draw=0, of=1)
            ctx.state["first"] = 0
            ctx.note("table.first_player", name=ctx.name(0))
            ctx.state["round"] = 1
            self.start_turn(ctx, 0)
            return
        super().draw_first(ctx, intent)

    def next_seat(self, ctx: Ctx, cur: int) -> int | None:
        j = self.next_in_play(ctx.state, cur)
        while j is not None and ctx.state["seats"][j]["cult"]:
            j = self.next_in_play(ctx.state, j)
        return j

    # -- honor ----------------------------------------------------------------------------

    def verb_counter(self, ctx: Ctx, intent: Intent) -> None:
        cid = intent.args["counter"]
        if ctx.state["over"] and cid != "cards":
            ctx.refuse("table.refuse.over")
        if cid in ("pool", "extra"):
            ctx.refuse("table.ascension.refuse.pool_direct")
        if cid != "honor":
            seat = self.seat_in_play(ctx, intent)
            if ctx.state["seats"][seat]["cult"] and cid not in ("honor", "cards"):
                ctx.refuse("table.ascension.refuse.cult_counter", counter=f"@c:{cid}")
            super().verb_counter(ctx, intent)
            if ctx.state["over"] and cid == "cards":
                self.score(ctx)
            return
        seat = self.seat_in_play(ctx, intent)
        ctx.type = "counter"
        ctx.payload["counter"] = cid
        amount, mode = int(intent.args["amount"]), intent.args.get("mode", "+")
        self.take_honor(ctx, seat, amount if mode == "+" else amount - ctx.state["seats"][seat]["counters"]["honor"])

    def take_honor(self, ctx: Ctx, seat: int, delta: int, quiet: bool = False) -> None:
        s = ctx.state
        pool, extra = s["shared"]["pool"], s["shared"]["extra"]
        honor = s["seats"][seat]["counters"]["honor"]
        if delta == 0:
            ctx.refuse("table.refuse.no_change")
        if honor + delta < 0:
            ctx.refuse("table.refuse.not_enough", name=ctx.name(seat), counter="@c:honor", value=honor,
                       amount=-delta)
        apart = 0  # honor beyond the pool, counted apart
        if delta > 0:
            from_pool = min(delta, pool)
            if from_pool:
                self.set_value(ctx, None, "pool", pool - from_pool, quiet=True)
            if delta > from_pool:
                apart = delta - from_pool
                self.set_value(ctx, None, "extra", extra + apart, quiet=True)
                if s["last_round"]:  # the pool was said empty already (else: after it, below)
                    ctx.note("table.ascension.extra", amount=apart)
        else:
            back = -delta
            to_extra = min(back, extra)  # give back what was counted apart first
            if to_extra:
                self.set_value(ctx, None, "extra", extra - to_extra, quiet=True)
            if back > to_extra:
                self.set_value(ctx, None, "pool", pool + back - to_extra, quiet=True)
        self.set_value(ctx, seat, "honor", honor + delta, quiet=quiet)
        if s["shared"]["pool"] != 0 or s["last_round"]:
            if s["shared"]["pool"] != pool:  # an empty pool is not said again at each gain
                ctx.note("table.ascension.pool", value=s["shared"]["pool"])
        else:  # emptied now: "La réserve d'honneur est vide : …" says it, once
            s["last_round"] = True
            last = self.last_of_round(s)
            if last == s["active"]:
                ctx.note("table.ascension.pool_empty_last")
            else:
                ctx.note("table.ascension.pool_empty", name=ctx.name(last))
            if apart:  # the rest of the gain, after the empty pool was said
                ctx.note("table.ascension.extra_after", amount=apart)

    def last_of_round(self, s: dict[str, Any]) -> int:
        """Who plays the round's last turn: the player before the first one in turn order (the
        rules: "le joueur situé à droite du premier joueur"); in solo, the player."""
        players = [i for i, seat in enumerate(s["seats"]) if not seat["cult"] and not seat["out"]]
        return max(players, key=lambda i: self.position(s, i))

    def on_turn_start(self, ctx: Ctx, seat: int) -> None:
        s = ctx.state
        if s["last_round"] and not s["solo"] and seat == self.last_of_round(s):
            ctx.note("table.ascension.last_turn")

    # -- cards: heroes and constructs played, the center row acquired, monsters defeated --

    def check_card(self, ctx: Ctx, seat: int, action: str, intent: Intent) -> None:
        s = ctx.state
        if s["seats"][seat]["cult"]:
            ctx.refuse("table.card.refuse.cult")
        if seat != s["active"]:
            ctx.refuse("table.refuse.not_your_turn", name=ctx.name(seat), active=ctx.name(s["active"]))
        if self.phase_id(s) != "play":
            ctx.refuse("table.card.refuse.phase", action=f"@t:table.card.verb.{action}", phase="@p:play")

    def card_payment(self, ctx: Ctx, seat: int, spec: dict[str, Any], intent: Intent) -> dict[str, int]:
        from companion.cards.effects import FREE_WORDS
        from companion.table.data import fold

        card = str(intent.args.get("name", ""))
        words = [fold(str(w)) for w in intent.args.get("choice") or []]
        unknown = [w for w in words if w not in FREE_WORDS]
        if unknown:
            ctx.refuse("table.card.refuse.extra_choice", card=card, words=", ".join(unknown))
        if words:
            # Another card (Monastic Tutor, Righteous Templar, Lifebound Muse...) pays for this one.
            ctx.note("table.card.free", card=card)
            return {}
        return super().card_payment(ctx, seat, spec, intent)

    def card_gains(self, ctx: Ctx, seat: int, spec: dict[str, Any], intent: Intent) -> dict[str, int]:
        gains = dict(super().card_gains(ctx, seat, spec, intent))
        energized = spec.get("energized")
        # Energize counts the energy gained this turn before the card, never its own.
        energy = ctx.state["seats"][seat]["counters"]["energy"]
        if energized and energy >= int(energized.get("at", 1)):
            if energized.get("instead"):
                gains = {}
            for cid, n in (energized.get("gain") or {}).items():
                gains[cid] = gains.get(cid, 0) + int(n)
            for cid, n in (energized.get("per") or {}).items():
                gains[cid] = gains.get(cid, 0) + int(n) * energy
            ctx.note("table.card.energized", energy=energy)
        return gains

    def card_gain(self, ctx: Ctx, seat: int, cid: str, amount: int) -> None:
        if cid == "honor":
            self.take_honor(ctx, seat, amount, quiet=True)  # honor always comes out of the pool
        else:
            super().card_gain(ctx, seat, cid, amount)

    def after_card(self, ctx: Ctx, seat: int, action: str, intent: Intent) -> None:
        ref = str(intent.args.get("card", ""))
        if action in ("acquire", "defeat") and ref:
            # What a seat has taken is what it may later play (a hero, a trophy monster).
            owned = ctx.state["seats"][seat].setdefault("owned", {})
            owned[ref] = owned.get(ref, 0) + 1

    # -- turns ----------------------------------------------------------------------------

    def end_turn(self, ctx: Ctx) -> None:
        s = ctx.state
        if s["solo"] and s["last_round"]:
            # The Cult takes its two cards at the end of every turn of the player, the last one
            # too: its honor is entered first, and the next "end" counts the scores.
            if not s.get("cult_last"):
                s["cult_last"] = True
                ctx.note("table.ascension.cult_last")
                return
            self.score(ctx, final=True)
            return
        super().end_turn(ctx)

    def on_turn_end(self, ctx: Ctx, seat: int) -> None:
        if ctx.state["solo"]:
            ctx.note("table.ascension.cult_turn")

    def on_round_end(self, ctx: Ctx) -> None:
        if ctx.state["last_round"]:
            self.score(ctx, final=True)

    def score(self, ctx: Ctx, final: bool = False) -> None:
        s = ctx.state
        totals = [x["counters"]["honor"] + x["counters"]["cards"] for x in s["seats"]]
        # Ties go to whoever played later in the first round; in solo the Cult plays after you.
        def later(i: int) -> int:
            return len(s["seats"]) if s["seats"][i]["cult"] else self.position(s, i)

        if s.get("teams"):
            best = max(s["teams"], key=lambda team: (sum(totals[i] for i in team), max(later(i) for i in team)))
            winners = list(best)
        else:
            winners = [max(range(len(totals)), key=lambda i: (totals[i], later(i)))]
        s["over"] = True
        s["winner"] = sorted(winners)
        s["totals"] = totals
        ctx.note("table.ascension.final" if final else "table.ascension.rescored",
                 scores=", ".join(f"{x['name']} {v}" for x, v in zip(s["seats"], totals, strict=True)),
                 winners=[ctx.name(w) for w in sorted(winners)])
        best = max(totals)
        if not s.get("teams") and sum(1 for v in totals if v == best) > 1:
            # The rules' tie-break decided: said, so that a tie is not heard as a mistake.
            ctx.note("table.ascension.tie_break", points=best, winners=[ctx.name(w) for w in sorted(winners)])
        if final:
            ctx.note("table.ascension.card_honor")

    # -- reading --------------------------------------------------------------------------

    def seat_extra(self, s: dict[str, Any], seat: int, lang: str) -> list[str]:
        marks = []
        if s.get("teams"):
            for n, team in enumerate(s["teams"]):
                if seat in team:
                    marks.append(t("table.ascension.mark.team", lang, team=n + 1))
        if s.get("over") and "totals" in s:
            marks.append(t("table.ascension.mark.total", lang, total=s["totals"][seat]))
        return marks

    def status_lines(self, s: dict[str, Any], lang: str) -> list[str]:
        lines = super().status_lines(s, lang)
        if s["last_round"] and not s["over"]:
            lines.append(t("table.ascension.last_round", lang))
        return lines

    def game_json(self, s: dict[str, Any]) -> dict[str, Any]:
        return {"honor_pool": s["shared"]["pool"], "honor_extra": s["shared"]["extra"],
                "honor_start": s["honor_start"], "last_round": s["last_round"], "solo": s["solo"],
                "teams": [[s["seats"][i]["name"] for i in team] for team in s.get("teams", [])],
                "totals": s.get("totals")}

    # -- presentation (companion/table/present.py) ---------------------------------------

    def game_marks(self, s: dict[str, Any], seat: int, lang: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        if s["seats"][seat].get("cult"):
            out.append(("", t("ui.ascension.cult", lang)))
        for n, team in enumerate(s.get("teams", [])):
            if seat in team:
                out.append(("", t("table.ascension.mark.team", lang, team=n + 1)))
        if s.get("over") and s.get("totals"):
            out.append(("winner", t("table.ascension.mark.total", lang, total=s["totals"][seat])))
        return out

    def table_info(self, s: dict[str, Any], lang: str) -> list[tuple[str, str]]:
        out = [("", t("table.ascension.last_round", lang))] if s.get("last_round") and not s.get("over") else []
        return out + super().table_info(s, lang)
