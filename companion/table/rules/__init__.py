"""One module per game; ``rules_for(data)`` gives the rules object of a game's table data."""

from __future__ import annotations

import importlib

from companion.table.data import TableData

MODULES = {"vtes": "vtes", "ascension": "ascension", "res-arcana": "res_arcana", "rise": "rise", "astral": "astral"}


def rules_for(data: TableData):  # -> Rules (imported lazily: rules modules import the engine)
    module = importlib.import_module(f"companion.table.rules.{MODULES.get(data.id, 'base')}")
    cls = getattr(module, "GameRules", None) or module.Rules
    return cls(data)
