"""A whole scripted game of each of the five games, played through `python -m companion table`
(the real command through its entry point, in this process: tests.cli_run; a real journal), with a
known winner; then the journal is reopened and replayed to the same state."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from companion.table.engine import Game
from companion.table.journal import Journal
from tests.cli_run import run_cli

SCRIPTS = Path(__file__).parents[1] / "scripts"
ROOT = Path(__file__).resolve().parents[2]


def play(game: str, players: str, seed: int, journal: Path, *extra: str, script: Path | None = None,
         stdin: str | None = None) -> subprocess.CompletedProcess:
    cmd = ["table", "--game", game, "--players", players, "--seed", str(seed), "--journal", str(journal), *extra]
    if script is not None:
        cmd += ["--script", str(script)]
    return run_cli(*cmd, stdin=stdin, cwd=ROOT, env={"COMPANION_LANG": "fr"})


def final(game: str, players: str, seed: int, journal: Path) -> tuple[dict, subprocess.CompletedProcess]:
    proc = play(game, players, seed, journal, "--json", script=SCRIPTS / f"{game}.txt")
    assert proc.returncode == 0, proc.stderr
    state = json.loads(proc.stdout)
    with Journal(journal) as j:
        replayed = Game.open(j, state["id"]).to_json()
    assert replayed == {k: v for k, v in state.items() if k not in ("id", "journal")}
    return state, proc


def seat(state: dict, name: str) -> dict:
    return next(s for s in state["seats"] if s["name"] == name)


def test_vtes_full_game(tmp_path: Path) -> None:
    state, proc = final("vtes", "Ann,Bob,Cy", 5, tmp_path / "j.sqlite3")
    assert state["first"] == "Ann"
    assert state["over"] and state["winner"] == ["Ann"]
    ann, bob, cy = seat(state, "Ann"), seat(state, "Bob"), seat(state, "Cy")
    # oust (+1 VP) and last Methuselah (+1 VP); Cy withdrew (+1 VP); Bob ousted
    assert (ann["counters"]["vp"], bob["counters"]["vp"], cy["counters"]["vp"]) == (2, 0, 1)
    assert ann["counters"]["pool"] == 30 + 6 + 1  # oust bonus, then the edge at untap
    assert bob["out"] and cy["out"] and bob["counters"]["pool"] == 0
    assert cy["counters"]["pool"] == 28
    assert ann["vampires"] == {"Anson": {"capacity": 8, "blood": 7}}
    err = proc.stderr
    # one pluralisation helper: written lines agree, never "(s)"
    assert "Ann reçoit 1 transfert." in err and "Bob reçoit 2 transferts." in err
    assert "Cy reçoit 3 transferts." in err and "Ann reçoit 4 transferts." in err and "(s)" not in err
    assert "Refusé : Bob n'a que 10 réserve" in err
    assert "Refusé : Anson ne peut pas avoir plus de sang que sa capacité (8)" in err
    assert "Refusé : Bob n'est plus dans la partie" in err


def test_ascension_full_game(tmp_path: Path) -> None:
    state, proc = final("ascension", "Ann,Bob", 3, tmp_path / "j.sqlite3")
    assert state["over"] and state["winner"] == ["Bob"]  # 53 each: the later player wins ties
    assert state["totals"] == [53, 53]
    assert state["honor_pool"] == 0 and state["honor_extra"] == 2
    honors = [s["counters"]["honor"] for s in state["seats"]]
    assert state["honor_pool"] + sum(honors) == state["honor_start"] + state["honor_extra"] == 62
    assert all(s["counters"]["runes"] == s["counters"]["power"] == s["counters"]["energy"] == 0
               for s in state["seats"])
    assert "Refusé : Ann n'a que 0 puissance" in proc.stderr
    assert "Refusé : la partie est terminée" in proc.stderr


def test_res_arcana_full_game(tmp_path: Path) -> None:
    state, proc = final("res-arcana", "Ann,Bob", 3, tmp_path / "j.sqlite3")
    assert state["over"] and state["winner"] == ["Bob"]
    ann, bob = seat(state, "Ann"), seat(state, "Bob")
    assert ann["points"] == 10 and bob["points"] == 10 and bob["tile"]
    # Bob's life loss: 3 Vie then Mort and Sérénité for the fourth
    assert bob["counters"] == {"mort": 0, "serenite": 0, "vie": 0, "vigueur": 1, "or": 3, "vp": 9}
    assert ann["counters"]["vigueur"] == 3 and ann["on"] == {}
    err = proc.stderr
    assert "Refusé : Bob a passé : plus d'action" in err
    assert "Refusé : Ann n'a que 0 Or" in err
    assert "Refusé : Bob a passé et ne subit plus de perte de vie" in err
    assert "Bob passe en premier et prend la tuile premier joueur" in err


def test_rise_full_game(tmp_path: Path) -> None:
    state, proc = final("rise", "Ann,Bob", 3, tmp_path / "j.sqlite3")
    assert state["over"] and state["winner"] == ["Ann"]
    ann, bob = seat(state, "Ann"), seat(state, "Bob")
    assert ann["counters"] == {"coins": 3, "pv_a": 20, "pv_b": 18}
    assert bob["counters"] == {"coins": 1, "pv_a": 0, "pv_b": 0}
    err = proc.stderr
    assert "Ann commence avec 6 cartes et 2 pièces" in err and "Bob commence avec 4 cartes et 1 pièce." in err
    assert "Phase : Première phase d'invocation" in err.split("Journal :")[0]  # the first player starts at phase 3
    assert "Refusé : Bob choisit d'abord : « restauration 2 »" in err
    assert "Lancer de pièce : Succès" in err or "Lancer de pièce : Échec" in err


def test_astral_full_game(tmp_path: Path) -> None:
    state, proc = final("astral", "Ann,Bob", 3, tmp_path / "j.sqlite3")
    assert state["over"] and state["winner"] == ["Bob"]
    ann, bob = seat(state, "Ann"), seat(state, "Bob")
    assert ann["counters"]["max_energy"] == 7 and bob["counters"]["max_energy"] == 7
    assert ann["states"] == ["revealed", "cosmic", "astral", "supernova"]
    assert ann["counters"]["pv"] == 9 and bob["counters"]["pv"] == 9  # SuperNova from turn 9
    err = proc.stderr
    assert "Ann pioche 0 carte." in err and "Bob pioche 1 carte." in err
    assert "Refusé : Energy max d'Ann ne peut pas dépasser 7" in err
    assert "Refusé : pas plus de deux actions principales du même type (Sbire)" in err
    assert "Refusé : Ann a déjà fait ses 3 actions principales" in err
    assert "Refusé : Energy d'Ann ne peut pas dépasser 1" in err


def test_strict_stops_with_status_3(tmp_path: Path) -> None:
    proc = play("vtes", "Ann,Bob,Cy", 5, tmp_path / "j.sqlite3", "--strict", stdin="pool 2 -3\npool 2 -99\npool 2 -1\n")
    assert proc.returncode == 3
    assert "Refusé : Bob n'a que 27 réserve" in proc.stdout
    assert "Bob : réserve -1" not in proc.stdout  # nothing after the refused line
    lenient = play("vtes", "Ann,Bob,Cy", 5, tmp_path / "j.sqlite3", stdin="pool 2 -3\nfoo\npool 2 -1\n")
    assert lenient.returncode == 0
    assert "ligne 2 : Refusé : je ne connais pas « foo »" in lenient.stdout
    assert "Bob : réserve -1, maintenant 26." in lenient.stdout


def test_resume_list_and_export(tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite3"
    first = play("res-arcana", "Ann,Bob,Cy", 5, journal, "--json", stdin="or 1 +2\nnext\n")
    gid = json.loads(first.stdout)["id"]
    again = run_cli("table", "--resume", str(gid), "--journal", str(journal), "--json",
                    stdin="or 1 -3\nundo\nredo\n", cwd=ROOT)
    state = json.loads(again.stdout)
    assert seat(state, "Ann")["counters"]["or"] == 0 and state["phase"] == "actions"
    listing = run_cli("table", "--list", "--journal", str(journal), cwd=ROOT)
    assert f"{gid}\tres-arcana\tAnn, Bob, Cy\tplaying" in listing.stdout
    text = run_cli("table", "--resume", str(gid), "--journal", str(journal), "--export", "text", cwd=ROOT).stdout
    assert "Res Arcana" in text and "« or 1 -3 » : Ann : Or -3, maintenant 0." in text
    assert "[script]" in text and "Annulé (1)." in text and "Rétabli (1)." in text
    exported = json.loads(run_cli("table", "--resume", str(gid), "--journal", str(journal), "--export", "json",
                                  cwd=ROOT).stdout)
    assert [e["type"] for e in exported["events"]][:2] == ["start", "first_player"]
    assert exported["state"]["seats"][0]["counters"]["or"] == 0


@pytest.mark.parametrize("players,code", [("Ann", 2), ("Ann,ann", 2), ("", 2)])
def test_bad_tables_are_refused_calmly(tmp_path: Path, players: str, code: int) -> None:
    proc = play("vtes", players, 1, tmp_path / "j.sqlite3", stdin="")
    assert proc.returncode == code
    assert "Traceback" not in proc.stderr and proc.stderr.strip()


def test_first_player_chosen_on_the_command_line(tmp_path: Path) -> None:
    proc = play("res-arcana", "Ann,Bob,Cy", 3, tmp_path / "j.sqlite3", "--first", "cy", "--json", stdin="")
    assert proc.returncode == 0, proc.stderr
    state = json.loads(proc.stdout)
    assert state["first"] == "Cy" and state["tile"] == "Cy" and state["active"] == "Cy"
    assert "Premier joueur choisi par la table : Cy commence." in proc.stderr
    bad = play("vtes", "Ann,Bob", 3, tmp_path / "j.sqlite3", "--first", "Zed", stdin="")
    assert bad.returncode == 2 and "Zed" in bad.stderr
