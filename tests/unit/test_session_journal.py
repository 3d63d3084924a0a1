"""The app's session on a damaged journal (issue 15, item 1): it starts, lists what was
recovered, says so once, and a new game starts."""

from __future__ import annotations

from pathlib import Path

from companion.ui.session_mirror import SessionMirror
from tests.integration.test_journal_damage import damage, season


def test_the_app_session_starts_on_a_damaged_journal(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    before = season(path, games=6)
    damage(path, path.stat().st_size // 4096 - 1)
    session = SessionMirror(journal_path=path)
    said = []
    session.bind(on_result=lambda _s, result: said.append(result.text("en")))
    rows = session.saved_games()
    assert rows and {r.id for r in rows} <= set(before)
    assert len(said) == 1 and "was damaged: set aside as" in said[0]
    assert session.resume(rows[-1].id).ok
    assert session.new_game("rise", ["Ann", "Bob"], seed=1).ok
    assert session.apply("next").ok
    session.close()
    assert len(list(tmp_path.glob("games.sqlite3.damaged-*"))) == 1
