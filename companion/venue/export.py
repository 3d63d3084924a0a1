"""The event's exports: standings as CSV, and the Archon files.

The Archon files are the CSV files a VEKN tournament's results are pasted from into the Archon
workbook, column for column as lionel-panhaleux/archon-bot writes them (``archon_bot/commands.py``,
``DownloadReports``; github.com/lionel-panhaleux/archon-bot at c552e45), no header row:

- ``Methuselahs.csv``: Player Num, First Name, Last Name, Country (empty), V:EKN #, Games Played,
  DQ ("DQ" or empty; the venue has no disqualification, so empty);
- ``Round-N.csv`` for each preliminary round with a result: Player Num, First Name, Last Name,
  Table, VP, table by table in seat order; a table of four is followed by an empty row (the
  workbook's tables are five rows);
- ``Finals.csv``: Player Num, First Name, Last Name, Table (1), Seat (the seed), VP.

Player numbers follow registration, among the players who sat at least once; the first name is
the name up to its first space, the last name the rest.
"""

from __future__ import annotations

import csv
import io
import zipfile

from companion.venue import scoring
from companion.venue.event import EventStore


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


def archon_files(store: EventStore) -> dict[str, str]:
    """The Archon files, by name, in the order the workbook takes them."""
    rounds = store.rounds()
    seatings = {r["round"]: store.seating(r["round"]) for r in rounds}
    games: dict[str, int] = {}
    for tables in seatings.values():
        for name in (p for t in tables for p in t):
            games[name] = games.get(name, 0) + 1
    played = [p for p in store.players() if games.get(p["name"])]
    number = {p["name"]: i for i, p in enumerate(played, 1)}
    vp = {(r["round"], name): v for r in store.counted() + store.counted(final=True)
          for name, v in zip(r["players"], r.get("vp", []), strict=False)}
    files = {"Methuselahs.csv": _csv([number[p["name"]], *_first_last(p["name"]), "", p["vekn"], games[p["name"]], ""]
                                     for p in played)}
    counted = {r for r, _ in vp}
    for r in rounds:
        n = r["round"]
        if r["final"] or n not in counted:
            continue
        rows: list[list[object]] = []
        for t, players in enumerate(seatings[n], 1):
            rows += [[number[p], *_first_last(p), t, _n(vp[(n, p)]) if (n, p) in vp else ""] for p in players]
            if len(players) < 5:
                rows.append([""] * 5)
        files[f"Round-{sum(1 for x in rounds if not x['final'] and x['round'] <= n)}.csv"] = _csv(rows)
    finals = [r for r in rounds if r["final"]]
    if finals and finals[-1]["round"] in counted:
        n = finals[-1]["round"]
        files["Finals.csv"] = _csv([number[p], *_first_last(p), 1, seat, _n(vp[(n, p)]) if (n, p) in vp else ""]
                                   for seat, p in enumerate(seatings[n][0], 1))
    return files


def archon_zip(store: EventStore) -> bytes:
    """The Archon files in one download."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in archon_files(store).items():
            z.writestr(name, text)
    return out.getvalue()


def _first_last(name: str) -> list[str]:
    first, _, last = name.partition(" ")
    return [first, last]


def _csv(rows) -> str:  # type: ignore[no-untyped-def]
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue()


def _n(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)
