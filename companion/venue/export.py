"""The event's exports: standings as CSV, and the players and results in the columns of Archon's
Methuselahs sheet, to paste into the VEKN's tournament workbook."""

from __future__ import annotations

import csv
import io

from companion.venue import scoring
from companion.venue.event import EventStore

# Archon's "Methuselahs" sheet, its first columns (the rest is filled by Archon itself).
ARCHON_COLUMNS = ["Player Num", "First Name", "Last Name", "Country", "V:EKN #", "E-Mail"]


def standings_csv(store: EventStore) -> str:
    out = io.StringIO()
    w = csv.writer(out)
    vekn = {p["name"]: p["vekn"] for p in store.players()}
    w.writerow(["rank", "name", "vekn", "gw", "vp", "tp", "games"])
    ranked = store.standings()
    for i, s in zip(scoring.ranks(ranked), ranked, strict=True):
        w.writerow([i, s.name, vekn.get(s.name, ""), s.gw, _n(s.vp), _n(s.tp), s.games])
    finals = store.counted(final=True)
    if finals:
        w.writerow([])
        w.writerow(["final", "name", "vp"])
        r = finals[-1]
        for name, vp in sorted(zip(r["players"], r.get("vp", []), strict=False), key=lambda x: -x[1]):
            w.writerow(["", name, _n(vp)])
    return out.getvalue()


def archon_csv(store: EventStore) -> str:
    """One row per player in Archon's Methuselahs columns, then each round's table and VP."""
    rounds = [r for r in store.rounds()]
    results = {(r["round"], name): vp for r in store.counted() + store.counted(final=True)
               for name, vp in zip(r["players"], r.get("vp", []), strict=False)}
    tables = {}
    for r in rounds:
        for t, players in enumerate(store.seating(r["round"]), 1):
            for p in players:
                tables[(r["round"], p)] = t
    out = io.StringIO()
    w = csv.writer(out)
    head = list(ARCHON_COLUMNS)
    for r in rounds:
        label = "Final" if r["final"] else f"Round {r['round']}"
        head += [f"{label} table", f"{label} VP"]
    w.writerow(head)
    for i, p in enumerate(store.players(), 1):
        first, _, last = p["name"].partition(" ")
        row = [i, first, last, "", p["vekn"], ""]
        for r in rounds:
            row += [tables.get((r["round"], p["name"]), ""), _n(results[(r["round"], p["name"])])
                    if (r["round"], p["name"]) in results else ""]
        w.writerow(row)
    return out.getvalue()


def _n(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)
