"""Where the user's files go: COMPANION_HOME keeps them in one folder; COMPANION_CACHE puts the
rebuildable card index in a folder several homes may share."""

from pathlib import Path

from companion import paths
from companion.cards import index


def test_the_cache_may_live_apart_from_the_home(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("COMPANION_CACHE", raising=False)
    assert paths.cache_dir() == tmp_path / "home" / "cache"
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path / "shared"))
    assert paths.cache_dir() == tmp_path / "shared" and paths.cache_dir().is_dir()
    assert index.index_path().parent == tmp_path / "shared"
    assert paths.data_dir() == tmp_path / "home" / "data"  # only the cache moves
