"""The Raspberry Pi kiosk files in deploy/: checked with the tools that will read them (shellcheck,
systemd-analyze, Kivy's own config reader, nfcpy's device table), and install.sh run for real into a
temporary root, twice, to see that the second run changes nothing."""

from __future__ import annotations

import configparser
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
INSTALL = DEPLOY / "install.sh"
UNIT = DEPLOY / "table-companion.service"
ENV_FILE = DEPLOY / "table-companion.env"
RULES = DEPLOY / "99-table-companion-readers.rules"
BLACKLIST = DEPLOY / "blacklist-nfc.conf"
KIVY_CONFIG = DEPLOY / "kivy-config.ini"

# Where install.sh puts each file on the target system.
INSTALLED = {
    "/etc/systemd/system/table-companion.service": UNIT,
    "/etc/default/table-companion": ENV_FILE,
    "/etc/udev/rules.d/99-table-companion-readers.rules": RULES,
    "/etc/modprobe.d/table-companion-nfc.conf": BLACKLIST,
    "/etc/table-companion/kivy-config.ini": KIVY_CONFIG,
    "/opt/table-companion/README.md": DEPLOY / "README.md",
}
GRABBING_MODULES = {"pn533_usb", "pn533", "nfc", "port100"}

pytestmark = pytest.mark.timeout(60)


def run_install(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(INSTALL), *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "LC_ALL": "C"})


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path under root with its type, mode, content (or link target) and modification time."""
    result: dict[str, tuple] = {}
    if not root.exists():
        return result
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        if stat.S_ISLNK(st.st_mode):
            what: object = ("link", os.readlink(path))
        elif stat.S_ISDIR(st.st_mode):
            what = ("dir",)
        else:
            what = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
        result[str(path.relative_to(root))] = (what, stat.S_IMODE(st.st_mode), st.st_mtime_ns)
    return result


def unit_sections(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=True, delimiters=("=",),
                                       comment_prefixes=("#", ";"))
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read_string(text)
    return parser


# --- shell ----------------------------------------------------------------------------------------------------
def test_every_script_is_shellcheck_clean() -> None:
    shellcheck = shutil.which("shellcheck")
    assert shellcheck, "shellcheck is missing: deploy/system-packages.sh installs it (make test runs it)"
    scripts = sorted(DEPLOY.glob("*.sh"))
    assert INSTALL in scripts
    result = subprocess.run([shellcheck, "--shell=bash", *map(str, scripts)], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "set -euo pipefail" in INSTALL.read_text()


def test_shellcheck_catches_a_bad_script(tmp_path: Path) -> None:
    """The check above can fail: an unquoted variable is reported."""
    shellcheck = shutil.which("shellcheck")
    assert shellcheck
    bad = tmp_path / "bad.sh"
    bad.write_text('#!/usr/bin/env bash\nrm -rf $1/tmp\n')
    result = subprocess.run([shellcheck, str(bad)], capture_output=True, text=True, timeout=30)
    assert result.returncode != 0 and "SC2086" in result.stdout


# --- systemd --------------------------------------------------------------------------------------------------
def verify_unit(text: str, tmp_path: Path, python: str, env_file: Path) -> subprocess.CompletedProcess[str]:
    """systemd-analyze verify on a copy whose ExecStart and EnvironmentFile point at real files."""
    env_file.touch()
    text = re.sub(r"(?m)^ExecStart=\S+", f"ExecStart={python}", text)
    text = re.sub(r"(?m)^EnvironmentFile=\S+", f"EnvironmentFile={env_file}", text)
    copy = tmp_path / "table-companion.service"
    copy.write_text(text)
    return subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, timeout=30)


needs_systemd_analyze = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None,
    reason="systemd-analyze is missing (Debian package systemd, not installed on this machine); "
           "the unit's settings are still checked by test_unit_settings")


@needs_systemd_analyze
def test_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    result = verify_unit(UNIT.read_text(), tmp_path, sys.executable, tmp_path / "env")
    # verify exits 0 on unknown keys and bad values, and only says so: any output is a finding.
    assert result.returncode == 0 and not (result.stdout + result.stderr).strip(), result.stdout + result.stderr


@needs_systemd_analyze
def test_systemd_analyze_reports_a_broken_unit(tmp_path: Path) -> None:
    broken = UNIT.read_text().replace("Restart=always", "Restart=alwayz").replace("ProtectHome=", "ProtectHom=")
    result = verify_unit(broken, tmp_path, sys.executable, tmp_path / "env")
    out = result.stdout + result.stderr
    assert "alwayz" in out and "ProtectHom" in out


def test_unit_settings() -> None:
    unit = unit_sections(UNIT.read_text())
    service = unit["Service"]
    exec_start = service["ExecStart"].split()
    assert exec_start[0] == "/opt/table-companion/venv/bin/python"
    assert exec_start[1:] == ["-m", "companion", "run", "--reader", "${COMPANION_READER}"]
    assert service["EnvironmentFile"] == "/etc/default/table-companion"
    assert service["Restart"] == "always" and float(service["RestartSec"]) >= 1
    assert int(unit["Unit"]["StartLimitBurst"]) >= 3 and int(unit["Unit"]["StartLimitIntervalSec"]) > 0
    assert service["User"] not in ("", "root") and service["NoNewPrivileges"] == "yes"
    assert service["ProtectSystem"] in ("full", "strict", "yes")
    # Settings that would hide /dev/dri, /dev/input, /dev/bus/usb, the serial ports or the sound card.
    for blocking in ("PrivateDevices", "DevicePolicy", "DeviceAllow", "ProtectClock", "PrivateUsers",
                     "DynamicUser"):
        assert blocking not in service, blocking
    assert service["ProtectHome"] in ("read-only", "no")
    assert service["StateDirectory"] == "table-companion"
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    assert "getty@tty1.service" in unit["Unit"]["Conflicts"]


# --- the environment file -------------------------------------------------------------------------------------
def read_env(path: Path) -> dict[str, str]:
    values = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = re.fullmatch(r"([A-Z_][A-Z0-9_]*)=(\S*)", line)
        assert match, f"{path.name}:{number}: not a KEY=value line systemd reads as such: {line!r}"
        values[match[1]] = match[2]
    return values


def test_environment_file_selects_the_kiosk_display_and_a_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    env = read_env(ENV_FILE)
    assert env["SDL_VIDEODRIVER"] == "kmsdrm" and env["KIVY_WINDOW"] == "sdl2"
    assert env["COMPANION_WINDOW"] == "fullscreen"
    assert "COMPANION_LANG" not in env  # the Settings screen chooses; the env file would overrule it
    assert env["SDL_TOUCH_MOUSE_EVENTS"] == "0"
    service = unit_sections(UNIT.read_text())["Service"]
    state = "/var/lib/" + service["StateDirectory"]
    assert env["COMPANION_HOME"] == state and env["KIVY_HOME"].startswith(state + "/")
    assert env["XDG_CACHE_HOME"] == "/var/cache/" + service["CacheDirectory"]

    # The reader reaches the run command as systemd passes it, and the run command picks the window.
    from companion.cli import build_parser
    from companion.launch import display_available

    args = build_parser(only="run").parse_args(["run", "--reader", env["COMPANION_READER"]])
    assert args.reader == ["usb"]
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    assert not display_available()
    monkeypatch.setenv("SDL_VIDEODRIVER", env["SDL_VIDEODRIVER"])
    assert display_available()


# --- udev -----------------------------------------------------------------------------------------------------
UDEV_MATCH_KEYS = {"ACTION", "DEVPATH", "KERNEL", "KERNELS", "NAME", "SYMLINK", "SUBSYSTEM", "SUBSYSTEMS",
                   "DRIVER", "DRIVERS", "ATTR", "ATTRS", "SYSCTL", "ENV", "CONST", "TAG", "TAGS", "TEST",
                   "PROGRAM", "RESULT"}
UDEV_ASSIGN_KEYS = {"NAME", "SYMLINK", "OWNER", "GROUP", "MODE", "SECLABEL", "ATTR", "SYSCTL", "ENV", "TAG",
                    "RUN", "LABEL", "GOTO", "IMPORT", "OPTIONS"}
UDEV_TOKEN = re.compile(r'([A-Z]+)(?:\{([^}]+)\})?(==|!=|\+=|-=|:=|=)"([^"]*)"')


def parse_udev_line(line: str) -> list[tuple[str, str | None, str, str]]:
    """udev's rule syntax: KEY[{attr}] OP "value", separated by commas. Raises ValueError."""
    tokens, pos = [], 0
    while pos < len(line):
        match = UDEV_TOKEN.match(line, pos)
        if not match:
            raise ValueError(f"cannot read a key at column {pos + 1}: {line[pos:pos + 30]!r}")
        key, attr, op, value = match.groups()
        if op in ("==", "!=") and key not in UDEV_MATCH_KEYS:
            raise ValueError(f"{key} cannot be matched")
        if op not in ("==", "!=") and key not in UDEV_ASSIGN_KEYS:
            raise ValueError(f"{key} cannot be assigned")
        if key in ("ATTR", "ATTRS", "ENV") and not attr:
            raise ValueError(f"{key} needs {{name}}")
        tokens.append((key, attr, op, value))
        pos = match.end()
        separator = re.compile(r",\s*").match(line, pos)
        if pos < len(line):
            if not separator:
                raise ValueError(f"expected a comma at column {pos + 1}")
            pos = separator.end()
    if not any(op in ("==", "!=") for _, _, op, _ in tokens):
        raise ValueError("a rule with no match applies to every device")
    return tokens


def udev_rules() -> list[list[tuple[str, str | None, str, str]]]:
    rules = []
    for number, line in enumerate(RULES.read_text().splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            try:
                rules.append(parse_udev_line(line.strip()))
            except ValueError as exc:
                pytest.fail(f"{RULES.name}:{number}: {exc}")
    return rules


def test_udev_rules_parse() -> None:
    assert len(udev_rules()) >= 10
    udevadm = shutil.which("udevadm")
    if udevadm and subprocess.run([udevadm, "verify", "--help"], capture_output=True, timeout=10).returncode == 0:
        result = subprocess.run([udevadm, "verify", str(RULES)], capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, result.stdout + result.stderr


def test_udev_checker_rejects_broken_lines() -> None:
    for bad in ('SUBSYSTEM=="usb", ATTR{idVendor}=="054c MODE="0660"',  # quote left open
                'SUBSYSTEM=="usb" ATTR{idVendor}=="054c"',  # no comma
                'SUBSYSTEM=="usb", GROUP=="plugdev"',  # GROUP is assigned, never matched
                'MODE="0666"'):  # matches every device
        with pytest.raises(ValueError):
            parse_udev_line(bad)


def test_udev_rules_cover_every_usb_reader_nfcpy_drives() -> None:
    from nfc.clf.device import usb_device_map

    covered = {}
    for rule in udev_rules():
        keys = {(key, attr): value for key, attr, _, value in rule}
        if keys.get(("SUBSYSTEM", None)) == "usb":
            ids = (int(keys[("ATTR", "idVendor")], 16), int(keys[("ATTR", "idProduct")], 16))
            covered[ids] = (keys[("GROUP", None)], keys[("MODE", None)])
    assert set(usb_device_map) <= set(covered)
    # The readers the kiosk is sold with, by name (RC-S380 twice, PN533, ACR122U, SCL3711).
    assert {(0x054C, 0x06C3), (0x054C, 0x06C1), (0x04CC, 0x2533), (0x072F, 0x2200), (0x04E6, 0x5591)} <= set(covered)
    assert set(covered.values()) == {("plugdev", "0660")}


def test_udev_rules_give_serial_ports_to_dialout() -> None:
    kernels = {}
    for rule in udev_rules():
        keys = {(key, attr): value for key, attr, _, value in rule}
        if keys.get(("SUBSYSTEM", None)) == "tty":
            for name in keys[("KERNEL", None)].split("|"):
                kernels[name] = keys[("GROUP", None)]
    assert kernels.get("ttyACM[0-9]*") == "dialout" and kernels.get("ttyUSB[0-9]*") == "dialout"


# --- modprobe -------------------------------------------------------------------------------------------------
def test_blacklist_names_the_four_modules_and_says_why() -> None:
    lines = BLACKLIST.read_text().splitlines()
    listed = {line.split()[1] for line in lines if line.startswith("blacklist ")}
    assert listed == GRABBING_MODULES
    for line in lines:  # modprobe.d knows a handful of commands; anything else is ignored with a warning
        assert not line.strip() or line.startswith("#") or line.split()[0] in ("blacklist", "install", "options")
    assert "nfcpy" in BLACKLIST.read_text()


# --- Kivy -----------------------------------------------------------------------------------------------------
def test_kivy_config_is_the_touchscreen_kiosk() -> None:
    config = configparser.RawConfigParser()  # raw: "%(name)s" is a key Kivy expands itself
    config.read(KIVY_CONFIG)
    graphics = config["graphics"]
    assert (graphics["width"], graphics["height"]) == ("800", "480")
    assert graphics["fullscreen"] in ("auto", "1")
    assert graphics["show_cursor"] == "0"
    assert config["kivy"]["exit_on_escape"] == "0"
    assert config["kivy"]["keyboard_mode"] in ("system", "systemanddock", "systemandmulti")
    providers = [value for key, value in config["input"].items() if key != "mouse"]
    assert any("probesysfs" in v and ("provider=mtdev" in v or "provider=hidinput" in v) for v in providers)


KIVY_READ = """
import json, logging, sys
records = []
class Keep(logging.Handler):
    def emit(self, record):
        records.append(record.getMessage())
logging.getLogger().addHandler(Keep())
logging.getLogger().setLevel(logging.DEBUG)
from kivy.config import Config
print(json.dumps({"sections": {s: sorted(Config.options(s)) for s in Config.sections()},
                  "values": {s: dict(Config.items(s, raw=True)) for s in Config.sections()},
                  "log": records}))
"""


def kivy_reads(kivy_home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KCFG_", "KIVY_"))}
    env.update(KIVY_HOME=str(kivy_home), KIVY_NO_ARGS="1", KIVY_LOG_MODE="PYTHON")
    result = subprocess.run([sys.executable, "-c", KIVY_READ], capture_output=True, text=True, env=env,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_kivy_reads_the_config_as_is_and_never_rewrites_it(tmp_path: Path) -> None:
    """Kivy rewrites (and completes) a config.ini that is older than itself: ours must be complete for
    the Kivy in use, since under systemd it sits read-only in /etc."""
    defaults = kivy_reads(tmp_path / "defaults")  # Kivy writes its own, complete, file there
    home = tmp_path / "kiosk"
    home.mkdir()
    etc_copy = tmp_path / "kivy-config.ini"
    shutil.copy(KIVY_CONFIG, etc_copy)
    etc_copy.chmod(0o444)
    (home / "config.ini").symlink_to(etc_copy)  # as install.sh links it
    before = etc_copy.stat().st_mtime_ns
    ours = kivy_reads(home)
    assert not [m for m in ours["log"] if "Older configuration version" in m or "Unable to write" in m]
    assert etc_copy.stat().st_mtime_ns == before and etc_copy.read_bytes() == KIVY_CONFIG.read_bytes()
    assert ours["sections"] == defaults["sections"], "kivy-config.ini lacks keys (or has extra ones) for this Kivy"
    assert ours["values"]["graphics"]["fullscreen"] == "auto"
    assert ours["values"]["graphics"]["width"] == "800" and ours["values"]["graphics"]["height"] == "480"
    assert ours["values"]["kivy"]["exit_on_escape"] == "0"


# --- install.sh -----------------------------------------------------------------------------------------------
def test_dry_run_prints_every_action_and_changes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "root"
    result = run_install("--dry-run", "--root", str(target), "--no-pip")
    assert result.returncode == 0, result.stdout + result.stderr
    assert not target.exists()
    out = result.stdout
    for dest in INSTALLED:
        assert re.search(rf"would\s+install {re.escape(dest)}\n\s+\$ install .*{re.escape(str(target) + dest)}",
                         out), dest
    assert "would  create the virtualenv /opt/table-companion/venv" in out
    assert "would  install the game data /opt/table-companion/cardmap" in out
    assert "would  link /var/lib/table-companion/kivy/config.ini -> /etc/table-companion/kivy-config.ini" in out
    assert "nothing was changed" in out


SYSTEM_PATHS = [*INSTALLED, "/opt/table-companion", "/var/lib/table-companion", "/var/cache/table-companion",
                "/etc/table-companion"]


def system_state() -> dict[str, object]:
    state: dict[str, object] = {p: snapshot(Path(p)) if Path(p).is_dir() else
                                (Path(p).stat().st_mtime_ns if Path(p).exists() else None) for p in SYSTEM_PATHS}
    state["user"] = subprocess.run(["id", "companion"], capture_output=True, text=True).stdout
    return state


def test_dry_run_on_this_machine_changes_nothing() -> None:
    """Without --root, as the administrator would first run it: it looks at the real system (packages,
    user, groups, modules, systemd) and only prints."""
    before = system_state()
    result = run_install("--dry-run")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "dry run" in result.stdout
    assert system_state() == before
    assert re.search(r"(would|ok)\s+.*table-companion\.service", result.stdout)


def test_install_into_a_root_then_again_changes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "root"
    first = run_install("--root", str(target), "--no-pip")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "Done:" in first.stdout
    for dest, source in INSTALLED.items():
        installed = target / dest.lstrip("/")
        assert installed.read_bytes() == source.read_bytes(), dest
        assert stat.S_IMODE(installed.stat().st_mode) == 0o644
    link = target / "var/lib/table-companion/kivy/config.ini"
    assert os.readlink(link) == "/etc/table-companion/kivy-config.ini"
    # The games' data, which pip leaves behind, is copied whole, where the unit tells the app to look.
    cardmap = target / "opt/table-companion/cardmap"
    source_files = {p.relative_to(ROOT / "cardmap"): p.read_bytes() for p in (ROOT / "cardmap").rglob("*")
                    if p.is_file() and "__pycache__" not in p.parts}
    assert {p.relative_to(cardmap): p.read_bytes() for p in cardmap.rglob("*") if p.is_file()} == source_files
    unit = (target / "etc/systemd/system/table-companion.service").read_text()
    assert "Environment=COMPANION_CARDMAP=/opt/table-companion/cardmap\n" in unit
    python = target / "opt/table-companion/venv/bin/python"
    assert subprocess.run([str(python), "-c", "import sys; assert sys.prefix != sys.base_prefix"],
                          timeout=30).returncode == 0
    # --root leaves the machine itself alone, and says so.
    for step in ("Debian packages", "user 'companion'", "kernel modules", "udev", "systemd"):
        assert re.search(rf"skip\s+{step}.*--root", first.stdout), step

    before = snapshot(target)
    second = run_install("--root", str(target), "--no-pip")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Nothing to do" in second.stdout
    assert not re.search(r"^\s+do\s", second.stdout, re.M)
    assert snapshot(target) == before

    dry = run_install("--dry-run", "--root", str(target), "--no-pip")
    assert "Nothing to do" in dry.stdout and "would" not in dry.stdout


@needs_systemd_analyze
def test_installed_unit_verifies_against_the_installed_venv(tmp_path: Path) -> None:
    target = tmp_path / "root"
    assert run_install("--root", str(target), "--no-pip").returncode == 0
    unit = (target / "etc/systemd/system/table-companion.service").read_text()
    python = target / "opt/table-companion/venv/bin/python"
    result = verify_unit(unit, tmp_path, str(python), target / "etc/default/table-companion")
    assert result.returncode == 0 and not (result.stdout + result.stderr).strip(), result.stdout + result.stderr


def test_install_for_another_user_and_prefix(tmp_path: Path) -> None:
    target = tmp_path / "root"
    result = run_install("--root", str(target), "--no-pip", "--user", "pi", "--prefix", "/srv/companion")
    assert result.returncode == 0, result.stdout + result.stderr
    service = unit_sections((target / "etc/systemd/system/table-companion.service").read_text())["Service"]
    assert service["User"] == "pi" and service["Group"] == "pi"
    assert service["ExecStart"].startswith("/srv/companion/venv/bin/python -m companion run")
    assert service["Environment"] == "COMPANION_CARDMAP=/srv/companion/cardmap"
    assert (target / "srv/companion/cardmap/vtes").is_dir()
    assert (target / "srv/companion/venv/bin/python").exists()
    assert not (target / "opt").exists()


def test_settings_are_kept_and_our_files_restored(tmp_path: Path) -> None:
    target = tmp_path / "root"
    assert run_install("--root", str(target), "--no-pip").returncode == 0
    env = target / "etc/default/table-companion"
    env.write_text(env.read_text().replace("COMPANION_READER=usb", "COMPANION_READER=tty:S0:pn532"))
    rules = target / "etc/udev/rules.d/99-table-companion-readers.rules"
    rules.write_text("# emptied by hand\n")
    result = run_install("--root", str(target), "--no-pip")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "COMPANION_READER=tty:S0:pn532" in env.read_text()
    assert "kept" in result.stdout
    assert rules.read_bytes() == RULES.read_bytes()
    assert re.search(r"do\s+update /etc/udev/rules.d/99-table-companion-readers.rules", result.stdout)
    assert "Done: 1 change(s)." in result.stdout


def test_uninstall_removes_what_it_installed_and_keeps_the_data(tmp_path: Path) -> None:
    target = tmp_path / "root"
    assert run_install("--root", str(target), "--no-pip").returncode == 0
    saved = target / "var/lib/table-companion/data/collection.yaml"
    saved.parent.mkdir(parents=True)
    saved.write_text("04a1b2c3d4e5f6: vtes:100845\n")

    dry = run_install("--uninstall", "--dry-run", "--root", str(target))
    assert dry.returncode == 0 and "would  remove /opt/table-companion" in dry.stdout
    assert (target / "opt/table-companion").exists()

    result = run_install("--uninstall", "--root", str(target))
    assert result.returncode == 0, result.stdout + result.stderr
    for dest in INSTALLED:
        assert not (target / dest.lstrip("/")).exists(), dest
    assert not (target / "opt/table-companion").exists()
    assert not (target / "var/lib/table-companion/kivy/config.ini").is_symlink()
    assert saved.read_text() == "04a1b2c3d4e5f6: vtes:100845\n"
    again = run_install("--uninstall", "--root", str(target))
    assert again.returncode == 0 and "Nothing to do" in again.stdout


def test_bad_options_get_a_clear_message(tmp_path: Path) -> None:
    result = run_install("--frobnicate")
    assert result.returncode == 2 and "unknown option '--frobnicate'" in result.stderr
    result = run_install("--dry-run", "--prefix", "relative/dir")
    assert result.returncode == 1 and "--prefix must be an absolute path" in result.stderr
    result = run_install("--dry-run", "--root", str(tmp_path), "--user", "root")
    assert result.returncode == 1 and "does not run as root" in result.stderr
    result = run_install("--root")
    assert result.returncode == 2 and "--root needs a value" in result.stderr


def test_readme_covers_the_steps_people_need() -> None:
    readme = (DEPLOY / "README.md").read_text()
    for needed in ("sudo deploy/install.sh", "--dry-run", "--uninstall", "sudo reboot", "journalctl -u table-companion",
                   "enable_uart=1", "do_serial_cons", "dialout", "HSU", "tty:S0:pn532", "tty:AMA0:pn532",
                   "git pull", "Bookworm", "Trixie", "aarch64"):
        assert needed in readme, needed


# --- install.sh on a real system, in a throwaway mount namespace ----------------------------------------------
SANDBOX = """set -euo pipefail
base=$1
shift
for d in etc opt var; do
  mkdir -p "$base/$d.up" "$base/$d.work"
  mount -t overlay overlay -o "lowerdir=/$d,upperdir=$base/$d.up,workdir=$base/$d.work" "/$d"
done
touch /etc/.table-companion-sandbox  # seen only inside: proof that the overlays are in place
exec "$@"
"""

INSIDE = """set -u
test -e /etc/.table-companion-sandbox || { echo "not in the sandbox"; exit 99; }
run() { echo "=== $*"; bash "$INSTALL" "$@" --no-packages --no-pip; echo "rc=$?"; }
run
echo "=== state"
id companion
stat -c '%U:%G %a' /var/lib/table-companion /var/lib/table-companion/kivy /var/cache/table-companion
readlink /etc/systemd/system/multi-user.target.wants/table-companion.service
grep -E '^(User|Group)=' /etc/systemd/system/table-companion.service
run
run --uninstall
run --uninstall
"""


def sandbox_unavailable() -> str | None:
    if os.geteuid() != 0:
        return "needs root for a mount namespace (the --root tests cover the files)"
    if Path("/run/systemd/system").exists():
        return "systemd is running here: systemctl enable would reach the real /etc through PID 1"
    loaded = {line.split()[0] for line in Path("/proc/modules").read_text().splitlines()} \
        if Path("/proc/modules").exists() else set()
    if loaded & GRABBING_MODULES:
        return "NFC kernel modules are loaded here, and unloading them is not confined to a namespace"
    if shutil.which("unshare") is None or shutil.which("useradd") is None:
        return "unshare or useradd is missing"
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "true"], capture_output=True, timeout=10)
    if probe.returncode != 0 or "overlay" not in Path("/proc/filesystems").read_text():
        return "no mount namespaces or overlayfs here"
    return None


@pytest.mark.skipif(sandbox_unavailable() is not None, reason=str(sandbox_unavailable()))
def test_system_install_creates_the_user_and_enables_the_unit_then_nothing_to_do(tmp_path: Path) -> None:
    """The steps --root skips (user, groups, ownership, systemctl enable), for real, on overlays of /etc,
    /opt and /var that vanish with the namespace."""
    sandbox = tmp_path / "sandbox.sh"
    sandbox.write_text(SANDBOX)
    before = system_state()
    command = ["unshare", "-m", "--propagation", "private",
               "bash", str(sandbox), str(tmp_path / "layers"), "bash", "-c", INSIDE]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60,
                            env={**os.environ, "INSTALL": str(INSTALL), "LC_ALL": "C"})
    out = result.stdout
    assert result.returncode == 0 and "not in the sandbox" not in out, out + result.stderr
    first, state, second, uninstall, again = out.split("=== ")[1:]
    assert first.rstrip().endswith("rc=0"), first
    assert "create the system user 'companion'" in first and "start table-companion.service at boot" in first
    for group in ("dialout", "plugdev"):
        assert f"add user 'companion' to group '{group}'" in first
    assert re.search(r"groups=.*\bdialout\b", state) and re.search(r"groups=.*\bplugdev\b", state)
    assert "companion:companion 750" in state
    assert "/etc/systemd/system/table-companion.service" in state
    assert "User=companion" in state and "Group=companion" in state
    assert "Nothing to do" in second and not re.search(r"^\s+do\s", second, re.M), second
    assert "do     do not start table-companion.service at boot" in uninstall and uninstall.rstrip().endswith("rc=0")
    assert "Nothing to do" in again
    # Nothing leaked out of the namespace.
    assert not Path("/etc/.table-companion-sandbox").exists()
    assert system_state() == before
