"""``python -m companion tag read|write|bind`` as a user runs it, on the udp NTAG21x emulator."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from companion.tags import records
from tests.cli_run import run_cli
from tests.emulators.ntag21x import Ntag21x, text_message

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]
UID = "04A1B2C3D4E5F6"


def companion(*args: str, home: Path | None = None) -> subprocess.CompletedProcess:
    # In this process (tests.cli_run), as the command runs: it talks to the emulator over UDP.
    return run_cli(*args, cwd=ROOT, env={"COMPANION_HOME": str(home)} if home is not None else None)


@pytest.fixture(scope="module")
def emu():
    emu = Ntag21x().start()
    yield emu
    emu.stop()


def test_write_then_read_back_through_the_cli(emu: Ntag21x) -> None:
    emu.lay(UID)  # a fresh sticker
    done = companion("tag", "write", "vtes:100845", "--reader", emu.path, "--timeout", "5")
    assert done.returncode == 0, done.stderr
    assert "Govern the Unaligned" in done.stdout and UID in done.stdout
    assert emu.card is not None and emu.card.message() == records.encode_ref("vtes:100845")

    shown = companion("--lang", "en", "tag", "read", "--reader", emu.path, "--timeout", "5", "--json")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["uid"] == UID and data["product"] == "NXP NTAG213"
    assert data["capacity"] == 142 and data["writeable"] is True
    assert data["refs"] == ["vtes:100845"]
    assert data["card"]["name"] == "Govern the Unaligned"

    plain = companion("tag", "read", "--reader", emu.path, "--timeout", "5")
    assert plain.returncode == 0
    assert UID in plain.stdout and "NTAG213" in plain.stdout
    assert "Text[en] 'vtes:100845'" in plain.stdout and "Govern the Unaligned" in plain.stdout


@pytest.mark.parametrize("kind", ["uri", "external"])
def test_write_other_record_kinds(emu: Ntag21x, kind: str) -> None:
    emu.lay(UID, kind="NTAG215")
    done = companion("tag", "write", "vtes:101144", "--kind", kind, "--reader", emu.path, "--timeout", "5")
    assert done.returncode == 0, done.stderr
    assert emu.card is not None and emu.card.message() == records.encode_ref("vtes:101144", kind)


def test_locked_tag_refused_with_a_clear_message(emu: Ntag21x) -> None:
    emu.lay(UID, ndef_message_bytes=text_message("vtes:100845"), locked=True)
    before = emu.memory
    done = companion("--lang", "en", "tag", "write", "vtes:101144", "--reader", emu.path, "--timeout", "5")
    assert done.returncode == 1
    assert "write-protected" in done.stderr and "Traceback" not in done.stderr
    assert emu.memory == before


def test_bad_references_refused_before_waiting(emu: Ntag21x) -> None:
    bad = companion("--lang", "en", "tag", "write", "not a ref", "--reader", emu.path)
    assert bad.returncode == 2 and "not a card reference" in bad.stderr
    unknown = companion("--lang", "en", "tag", "bind", "vtes:999999999", "--reader", emu.path)
    assert unknown.returncode == 2 and "--force" in unknown.stderr


def test_no_card_gives_up_after_timeout(emu: Ntag21x) -> None:
    emu.lift()
    done = companion("--lang", "en", "tag", "read", "--reader", emu.path, "--timeout", "0.5")
    assert done.returncode == 1
    assert "No card was laid" in done.stderr and "Traceback" not in done.stderr


def test_bind_adds_the_uid_and_the_console_then_knows_the_card(emu: Ntag21x, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    collection = data_dir / "collection.yaml"
    collection.write_text("# my cards\n04112233445566: res-arcana:athanor\n", encoding="utf-8")
    emu.lay(UID, formatted=False)  # a tag that cannot hold a reference
    done = companion("tag", "bind", "vtes:101144", "--reader", emu.path, "--timeout", "5", home=tmp_path)
    assert done.returncode == 0, done.stderr
    text = collection.read_text(encoding="utf-8")
    assert text.startswith("# my cards\n")
    assert yaml.load(text, Loader=yaml.BaseLoader) == {
        "04112233445566": "res-arcana:athanor", UID: "vtes:101144"}
    shown = companion("--lang", "en", "tag", "read", "--reader", emu.path, "--timeout", "5", "--json",
                      home=tmp_path)
    data = json.loads(shown.stdout)
    assert data["formatted"] is False and data["card"]["name"] == "Majesty"
