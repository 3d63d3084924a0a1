"""install.sh removes exactly what it installed (issue 15, item 7): ``--uninstall --prefix
/usr/local`` used to run ``rm -rf -- /usr/local``. Every run here uses --root, so that even a
regression only touches a temporary folder."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "deploy" / "install.sh"


def run_install(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(INSTALL), *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("prefix", ["/usr/local", "/opt", "/usr", "/", "/usr/local/", "/opt/./x/..", "/var//lib"])
@pytest.mark.parametrize("action", [["--uninstall"], []])
def test_a_system_folder_is_refused_as_prefix(tmp_path: Path, prefix: str, action: list[str]) -> None:
    target = tmp_path / "root"
    keep = target / "usr/local/bin/someone-elses-tool"
    keep.parent.mkdir(parents=True)
    keep.write_text("#!/bin/sh\n")
    (target / "opt/other-app").mkdir(parents=True)
    result = run_install(*action, "--root", str(target), "--no-pip", "--prefix", prefix)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "--prefix" in result.stderr and ("system folder" in result.stderr or "plain path" in result.stderr)
    assert keep.exists() and (target / "opt/other-app").is_dir()


def manifest(target: Path) -> list[str]:
    text = (target / "etc/table-companion/installed-paths").read_text()
    return [line for line in text.splitlines() if line.startswith("/")]


def test_the_manifest_lists_what_was_installed(tmp_path: Path) -> None:
    target = tmp_path / "root"
    first = run_install("--root", str(target), "--no-pip")
    assert first.returncode == 0, first.stdout + first.stderr
    assert manifest(target) == sorted([
        "/etc/default/table-companion", "/etc/modprobe.d/table-companion-nfc.conf",
        "/etc/systemd/system/table-companion.service", "/etc/table-companion",
        "/etc/table-companion/kivy-config.ini", "/etc/udev/rules.d/99-table-companion-readers.rules",
        "/opt/table-companion", "/var/lib/table-companion/kivy/config.ini"])


def test_a_prefix_that_was_there_keeps_what_is_not_ours(tmp_path: Path) -> None:
    target = tmp_path / "root"
    theirs = target / "srv/apps/notes.txt"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("mine\n")
    assert run_install("--root", str(target), "--no-pip", "--prefix", "/srv/apps").returncode == 0
    assert "/srv/apps" not in manifest(target) and "/srv/apps/venv" in manifest(target)
    assert (target / "srv/apps/venv/bin/python").exists()
    # Uninstall needs no --prefix: the manifest knows.
    result = run_install("--uninstall", "--root", str(target))
    assert result.returncode == 0, result.stdout + result.stderr
    assert theirs.read_text() == "mine\n"
    assert sorted(p.name for p in (target / "srv/apps").iterdir()) == ["notes.txt"]
    assert not (target / "etc/table-companion").exists()


def test_a_tampered_manifest_cannot_remove_a_system_folder(tmp_path: Path) -> None:
    target = tmp_path / "root"
    assert run_install("--root", str(target), "--no-pip").returncode == 0
    listed = target / "etc/table-companion/installed-paths"
    listed.write_text(listed.read_text() + "/usr\n/usr/local\n/opt/../usr\nrelative\n")
    (target / "usr/local/bin").mkdir(parents=True)
    result = run_install("--uninstall", "--root", str(target))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (target / "usr/local/bin").is_dir()
    assert result.stdout.count("not removing") == 3  # "relative" is not a path: never read
    assert not (target / "opt/table-companion").exists()


def test_uninstall_without_a_manifest_removes_only_our_files(tmp_path: Path) -> None:
    target = tmp_path / "root"
    assert run_install("--root", str(target), "--no-pip").returncode == 0
    (target / "etc/table-companion/installed-paths").unlink()  # an install from before the manifest
    (target / "opt/table-companion/backup.tar").write_text("not ours")
    result = run_install("--uninstall", "--root", str(target))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (target / "opt/table-companion/backup.tar").exists()
    assert not (target / "opt/table-companion/venv").exists()
    assert not (target / "etc/systemd/system/table-companion.service").exists()
