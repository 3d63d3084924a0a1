"""The program's own YAML files kept parsed in the cache folder (companion.kept): the same data as
a parse, parsed again for another text, and never a hang or a crash on what is found there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from companion import kept

TEXT = "a: 1\nb: [deux, 3.5]\nc: {d: null}\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path))
    return tmp_path


def test_kept_data_is_what_a_parse_gives_and_another_text_is_parsed_again(cache: Path) -> None:
    assert kept.read("x.kept", TEXT) == (False, None)
    assert kept.load_yaml("x.kept", TEXT) == yaml.safe_load(TEXT)
    assert kept.read("x.kept", TEXT) == (True, yaml.safe_load(TEXT))
    other = TEXT.replace("1", "2")
    assert kept.read("x.kept", other) == (False, None)  # an edited file is not answered from the old
    assert kept.load_yaml("x.kept", other)["a"] == 2


@pytest.mark.timeout(20)
@pytest.mark.parametrize("found", ["damaged", "fifo", "folder", "dangling"])
def test_what_is_found_in_the_cache_never_stops_a_start(cache: Path, found: str) -> None:
    path = cache / "x.kept"
    if found == "damaged":
        kept.load_yaml("x.kept", TEXT)
        path.write_bytes(path.read_bytes()[:20])
    elif found == "fifo":
        os.mkfifo(path)  # opened blocking, it would wait for a writer forever
    elif found == "folder":
        path.mkdir()
    else:
        path.symlink_to(cache / "nowhere")
    assert kept.load_yaml("x.kept", TEXT) == yaml.safe_load(TEXT)
