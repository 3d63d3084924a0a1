"""A game as readable text (French by default, from the message table) or as JSON."""

from __future__ import annotations

import time
from typing import Any

from companion.i18n import t
from companion.table.data import TableData, load_table
from companion.table.engine import Game, render
from companion.table.journal import Event, Journal


def event_line(data: TableData, ev: Event, start: float, lang: str = "fr") -> str:
    clock = time.strftime("%H:%M:%S", time.localtime(ev.ts))
    notes = [render(data, k, v, lang) for k, v in ev.payload.get("notes", [])]
    what = ev.payload.get("text") or ev.type
    quoted = t("text.quoted", lang).format(text=what)
    head = f"{clock} (+{int(ev.ts - start)} s) [{ev.source}] #{ev.id} {quoted}"
    return t("text.label_value", lang).format(label=head, value=" ".join(notes))


def export_text(journal: Journal, game_id: int, lang: str = "fr") -> str:
    row = journal.game(game_id)
    if row is None:
        raise KeyError(game_id)
    data = load_table(row.game)
    events = journal.events(game_id)
    start = events[0].ts if events else row.created
    head = t("table.export.head", lang, game=data.name(lang), id=game_id,
             date=time.strftime("%Y-%m-%d %H:%M", time.localtime(row.created)), players=row.players)
    lines = [head, ""]
    lines += [event_line(data, ev, start, lang) for ev in events]
    game = Game.open(journal, game_id, data=data, read_only=True)  # while it is played elsewhere too
    lines += ["", t("table.cli.final", lang), *game.status(lang)]
    return "\n".join(lines) + "\n"


def export_json(journal: Journal, game_id: int) -> dict[str, Any]:
    row = journal.game(game_id)
    if row is None:
        raise KeyError(game_id)
    game = Game.open(journal, game_id, read_only=True)
    return {"id": game_id, "game": row.game, "players": row.players, "created": row.created,
            "status": row.status, "events": [ev.to_json() for ev in journal.events(game_id)],
            "state": game.to_json()}
