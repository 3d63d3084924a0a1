"""A player's gender is not known (issue 24): a French sentence about a player never agrees a
participle or adjective with them ("Ann est évincé", "Bob est le seul"): it is said without one
("Ann quitte la partie : évincement.", "Tous ont passé sauf Bob.")."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from companion import registry
from companion.cards.gamedata import load_game

ROOT = Path(__file__).resolve().parents[2]
# A player, or a vampire (a card named like a person, "Zillah"); not a thing of a player ("{summoner} de {name}").
PLAYER = r"(?<!de )(?<!USB )\{(?:name|seat|winner|winners|owner|active|player|who|vampire)\}"
# "{name} est évincé", "{seat} est éliminée", "{name} est le seul", "{name} est prêt"...
GENDERED = re.compile(PLAYER + r"(?: n'| ne)? (?:est|sera|était|reste|a été) (?:\w+ )?"
                      r"(?:\w+ée?s?|le seul|la seule|seule?|prête?|premier|première|dernier|dernière|mort|morte)\b")


def _french() -> list[tuple[str, str]]:
    out = []
    for path in sorted((ROOT / "companion").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        stack = [(str(path.relative_to(ROOT)), data)]
        while stack:
            where, node = stack.pop()
            if isinstance(node, dict):
                stack += [(f"{where}.{k}", v) for k, v in node.items()]
            elif isinstance(node, list):
                stack += [(f"{where}[{i}]", v) for i, v in enumerate(node)]
            elif isinstance(node, str):
                out.append((where, node))
    for gid in registry.builtin_ids():
        game = load_game(registry.game_file(gid))
        out += [(f"{gid}:{key}", texts.get("fr", "")) for key, texts in game.messages.items()]
    return out


def test_no_french_sentence_agrees_with_a_players_gender() -> None:
    found = [f"{where}: {text}" for where, text in _french() if GENDERED.search(text)]
    assert not found, "\n".join(found)
