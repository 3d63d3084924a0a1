"""Find the readers on this machine and what stops them, with the exact command that fixes each
problem. Used by ``python -m companion doctor``.

Serial ports are only listened to: a reader hub announces itself with HELLO every 2 s
(hardware/protocol.md). Nothing is ever written to a port we do not know: PN532 frames sent
"to see" (as ``python -m nfc --search-tty`` does) would land in a hub, a GPS or a modem.

Every probe of the system is a field of ``Probes`` so that tests can hand in a fake /proc, fake
ports and a fake USB bus.
"""

from __future__ import annotations

import ctypes.util
import errno
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from companion.i18n import t

GRABBING_MODULES = ("pn533_usb", "pn533", "nfc", "port100")
HELLO_WAIT = 2.5  # s: a hub sends HELLO every 2 s

# USB readers nfcpy drives, by vendor:product.
KNOWN_USB_READERS = {
    ("054c", "06c1"): "Sony RC-S380/S",
    ("054c", "06c3"): "Sony RC-S380/P",
    ("054c", "02e1"): "Sony RC-S330/360/370",
    ("04cc", "2533"): "NXP PN533",
    ("04e6", "5591"): "SCM SCL3711",
    ("04e6", "5593"): "SCM SCL3712",
    ("054c", "0193"): "Sony PN531",
    ("04cc", "0531"): "Philips PN531",
    ("072f", "2200"): "ACS ACR122U",
    ("072f", "90cc"): "ACS ACR122 (Touchatag)",
}
ACR122 = {("072f", "2200"), ("072f", "90cc")}
UDEV_RULES = "/etc/udev/rules.d/60-table-companion-nfc.rules"


@dataclass
class UsbDevice:
    vendor: str
    product: str
    node: str  # /dev/bus/usb/BBB/DDD

    @property
    def name(self) -> str:
        return KNOWN_USB_READERS.get((self.vendor, self.product), f"{self.vendor}:{self.product}")


@dataclass
class SerialPort:
    device: str
    description: str = ""
    vid: int | None = None
    pid: int | None = None


@dataclass
class Reader:
    kind: str  # "usb", "hub"
    path: str  # what to give to --reader
    name: str


@dataclass
class Problem:
    key: str  # stable identifier, for tests and --json
    message: str
    fix: str  # the command that fixes it; "" when there is nothing to run


@dataclass
class Report:
    readers: list[Reader] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.readers)

    def to_json(self) -> dict:
        return {"ok": self.ok, "readers": [asdict(r) for r in self.readers],
                "problems": [asdict(p) for p in self.problems], "notes": self.notes}


# --- probes of the real system ------------------------------------------------------------------------------
def _usb_devices(sysfs: Path = Path("/sys/bus/usb/devices")) -> list[UsbDevice]:
    devices = []
    if not sysfs.is_dir():
        return devices
    for entry in sorted(sysfs.iterdir()):
        try:
            vendor = (entry / "idVendor").read_text().strip().lower()
            product = (entry / "idProduct").read_text().strip().lower()
            bus = int((entry / "busnum").read_text())
            dev = int((entry / "devnum").read_text())
        except (OSError, ValueError):
            continue  # interfaces and hubs without these files
        devices.append(UsbDevice(vendor, product, f"/dev/bus/usb/{bus:03d}/{dev:03d}"))
    return devices


def _serial_ports() -> list[SerialPort]:
    from serial.tools import list_ports

    return [SerialPort(p.device, "" if p.description in (None, "n/a") else p.description, p.vid, p.pid)
            for p in list_ports.comports()]


def _processes(proc: Path = Path("/proc")) -> set[str]:
    names = set()
    try:
        entries = list(proc.iterdir())
    except OSError:
        return names
    for entry in entries:
        if entry.name.isdigit():
            try:
                names.add((entry / "comm").read_text().strip())
            except OSError:
                continue
    return names


def _groups() -> set[str]:
    import grp

    names = set()
    for gid in os.getgroups():
        try:
            names.add(grp.getgrgid(gid).gr_name)
        except KeyError:
            continue
    return names


def _open_nfcpy_usb() -> str | None:
    """The first USB reader nfcpy can open, described; None when there is none. Raises OSError
    (FileNotFoundError without libusb, EACCES, EBUSY) as nfcpy does."""
    import logging

    import nfc

    nfc_log = logging.getLogger("nfc")
    level = nfc_log.level
    nfc_log.setLevel(logging.CRITICAL)  # "no reader available" is our answer here, not an error
    try:
        clf = nfc.ContactlessFrontend()
        if not clf.open("usb"):
            return None
        try:
            return str(clf.device)
        finally:
            clf.close()
    finally:
        nfc_log.setLevel(level)


def listen_for_hello(device: str, wait: float = HELLO_WAIT):
    """Open ``device``, only read, and return the hub's Hello if one speaks within ``wait``."""
    import time

    import serial

    from companion.readers.hub import BAUDRATE, Hello, LineBuffer, parse_line

    port = serial.Serial(device, BAUDRATE, timeout=0.1, exclusive=True)
    try:
        buffer = LineBuffer()
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            for line in buffer.feed(port.read(256)):
                message = parse_line(line)
                if isinstance(message, Hello):
                    return message
        return None
    finally:
        port.close()


def _pi_model(path: Path = Path("/proc/device-tree/model")) -> str:
    try:
        return path.read_bytes().strip(b"\x00").decode("ascii", "replace")
    except OSError:
        return ""


@dataclass
class Probes:
    proc_modules: Path = Path("/proc/modules")
    cmdline: Path = Path("/proc/cmdline")
    find_library: Callable[[str], str | None] = ctypes.util.find_library
    usb_devices: Callable[[], list[UsbDevice]] = _usb_devices
    serial_ports: Callable[[], list[SerialPort]] = _serial_ports
    open_nfcpy_usb: Callable[[], str | None] = _open_nfcpy_usb
    listen: Callable[[str], object] = listen_for_hello
    processes: Callable[[], set[str]] = _processes
    groups: Callable[[], set[str]] = _groups
    access: Callable[[str, int], bool] = os.access
    is_root: Callable[[], bool] = lambda: os.geteuid() == 0
    pi_model: Callable[[], str] = _pi_model
    serial0: Path = Path("/dev/serial0")
    card_problems: Callable[[], list[tuple[str, str]]] = lambda: _card_problems()


# --- the checks ------------------------------------------------------------------------------------------------
def diagnose(probes: Probes | None = None) -> Report:
    probes = probes or Probes()
    report = Report()
    root = probes.is_root()
    usb = [d for d in _safe(probes.usb_devices, []) if (d.vendor, d.product) in KNOWN_USB_READERS]

    libusb = probes.find_library("usb-1.0")
    if libusb is None:
        report.problems.append(Problem("libusb", t("doctor.libusb"), "sudo apt-get install -y libusb-1.0-0"))

    loaded = _loaded_modules(probes.proc_modules)
    if loaded is None:
        report.notes.append(t("doctor.no_proc_modules", path=str(probes.proc_modules)))
    else:
        grabbing = [m for m in GRABBING_MODULES if m in loaded]
        if grabbing:
            blacklist = "\\n".join(f"blacklist {m}" for m in GRABBING_MODULES)
            report.problems.append(Problem(
                "kernel-modules", t("doctor.modules", modules=", ".join(grabbing)),
                f"sudo modprobe -r {' '.join(grabbing)} && "
                f"printf '{blacklist}\\n' | sudo tee /etc/modprobe.d/table-companion-nfc.conf"))

    if "pcscd" in _safe(probes.processes, set()):
        report.problems.append(Problem(
            "pcscd", t("doctor.pcscd"),
            "sudo systemctl stop pcscd.socket pcscd.service && sudo systemctl disable pcscd.socket pcscd.service"))

    for device in usb:
        if (device.vendor, device.product) in ACR122:
            report.notes.append(t("doctor.acr122"))
        if not root and not probes.access(device.node, os.R_OK | os.W_OK):
            rule = (f'SUBSYSTEM=="usb", ATTRS{{idVendor}}=="{device.vendor}", '
                    f'ATTRS{{idProduct}}=="{device.product}", MODE="0660", GROUP="plugdev"')
            report.problems.append(Problem(
                "usb-permission", t("doctor.usb_permission", name=device.name, node=device.node),
                f"echo '{rule}' | sudo tee -a {UDEV_RULES} && sudo udevadm control --reload && "
                f"sudo udevadm trigger && sudo usermod -aG plugdev $USER  # then log out and in"))

    if libusb is not None:
        _check_nfcpy_usb(probes, usb, report)
    if not usb:
        report.notes.append(t("doctor.no_usb_reader"))

    _check_serial(probes, root, report)
    _check_raspberry_pi(probes, report)
    _check_card_data(probes, report)
    report.notes.append(t("doctor.wedge"))
    return report


def _card_problems() -> list[tuple[str, str]]:
    """(game, sentence) for each game whose data did not load, from the card library."""
    from companion.cards.library import CardLibrary

    library = CardLibrary()
    sentences = library.load_problems()
    return list(zip(library.errors(), sentences, strict=True))


def install_command(packages: str) -> str:
    """The command that installs ``packages`` into this program's own Python: its pip, or, when
    it has none (the venv ``make setup`` makes has none: uv installs there), the uv beside it or
    on PATH; a Python with neither gets its pip first (ensurepip)."""
    import importlib.util
    import shlex
    import shutil

    python = shlex.quote(sys.executable)
    if importlib.util.find_spec("pip") is not None:
        return f"{python} -m pip install {packages}"
    beside = Path(sys.prefix) / "bin" / "uv"
    uv = str(beside) if beside.is_file() and os.access(beside, os.X_OK) else shutil.which("uv")
    if uv:
        return f"{shlex.quote(uv)} pip install --python {python} {packages}"
    return f"{python} -m ensurepip && {python} -m pip install {packages}"


def _check_card_data(probes: Probes, report: Report) -> None:
    try:
        problems = probes.card_problems()
    except Exception as exc:  # the library itself failed: that is the problem to report
        problems = [("*", f"{type(exc).__name__}: {exc}")]
    for game, sentence in problems:
        fix = ""
        if "krcg" in sentence:
            root = Path(__file__).resolve().parents[1]
            fix = install_command(f"-e {root}")
        report.problems.append(Problem(f"cards-{game}", sentence, fix))


def _check_nfcpy_usb(probes: Probes, usb: list[UsbDevice], report: Report) -> None:
    try:
        found = probes.open_nfcpy_usb()
    except OSError as exc:  # FileNotFoundError when libusb cannot be loaded, EACCES, EBUSY...
        if exc.errno == errno.ENODEV:
            return
        if exc.errno == errno.EBUSY:
            report.problems.append(Problem("usb-busy", t("doctor.usb_busy", detail=str(exc)), ""))
        elif exc.errno == errno.EACCES:
            if not any(p.key == "usb-permission" for p in report.problems):
                report.problems.append(Problem("usb-permission", t("doctor.usb_denied", detail=str(exc)),
                                               "sudo usermod -aG plugdev $USER  # then log out and in"))
        else:
            report.problems.append(Problem("usb-error", t("doctor.usb_error", detail=f"{type(exc).__name__}: {exc}"),
                                           "sudo apt-get install -y libusb-1.0-0"))
        return
    except ImportError as exc:  # nfcpy or its libusb1 binding missing from this environment
        report.problems.append(Problem("usb-error", t("doctor.usb_error", detail=f"{type(exc).__name__}: {exc}"),
                                       install_command("nfcpy libusb1")))
        return
    except Exception as exc:  # an nfcpy bug or a half-broken device: reported, never a traceback
        report.problems.append(Problem("usb-error", t("doctor.usb_error", detail=f"{type(exc).__name__}: {exc}"), ""))
        return
    if found:
        report.readers.append(Reader("usb", "usb", found))
    elif usb:
        report.problems.append(Problem("usb-unopened", t("doctor.usb_unopened", name=usb[0].name), ""))


def _check_serial(probes: Probes, root: bool, report: Report) -> None:
    ports = _safe(probes.serial_ports, [])
    if not ports:
        report.notes.append(t("doctor.no_serial"))
        return
    groups = _safe(probes.groups, set())
    readable = []
    for port in ports:
        if not root and not probes.access(port.device, os.R_OK | os.W_OK):
            fix = "sudo usermod -aG dialout $USER  # then log out and in" if "dialout" not in groups else ""
            report.problems.append(Problem("serial-permission",
                                           t("doctor.serial_permission", path=port.device), fix))
        else:
            readable.append(port)
    answers: dict[str, object] = {}

    def listen(port: SerialPort) -> None:
        try:
            answers[port.device] = probes.listen(port.device)
        except Exception as exc:  # busy (held by another program), vanished, not a tty...
            answers[port.device] = exc

    # All ports at once: the whole listen takes one HELLO period, not one per port.
    threads = [threading.Thread(target=listen, args=(p,), daemon=True) for p in readable]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HELLO_WAIT + 2)
    for port in readable:
        answer = answers.get(port.device)
        if isinstance(answer, Exception):
            busy = isinstance(answer, OSError) and answer.errno in (errno.EBUSY, errno.EAGAIN)
            busy = busy or "lock" in str(answer).lower()
            if busy:
                report.problems.append(Problem("serial-busy", t("doctor.serial_busy", path=port.device),
                                               f"sudo fuser -v {port.device}"))
            else:
                report.notes.append(t("doctor.serial_error", path=port.device, detail=str(answer)))
        elif answer is not None:
            hello = answer
            report.readers.append(Reader("hub", f"hub:{port.device}", t(
                "doctor.hub_name", firmware=getattr(hello, "firmware", "?"), seats=getattr(hello, "seats", "?"))))
        else:
            name = port.device.rsplit("/", 1)[-1].removeprefix("tty")
            report.notes.append(t("doctor.serial_other", path=port.device, desc=port.description or "?",
                                  pn532=f"tty:{name}:pn532"))


def _check_raspberry_pi(probes: Probes, report: Report) -> None:
    if not _safe(probes.pi_model, "").startswith("Raspberry Pi"):
        return
    try:
        cmdline = probes.cmdline.read_text()
    except OSError:
        cmdline = ""
    if any(f"console={name}" in cmdline for name in ("serial0", "ttyAMA0", "ttyS0")):
        report.problems.append(Problem("pi-serial-console", t("doctor.pi_console"),
                                       "sudo raspi-config nonint do_serial_cons 1 && sudo reboot"))
    if not probes.serial0.exists():
        report.problems.append(Problem("pi-uart", t("doctor.pi_uart"),
                                       "sudo raspi-config nonint do_serial_hw 0 && sudo reboot"))


def _loaded_modules(path: Path) -> set[str] | None:
    try:
        text = path.read_text()
    except OSError:
        return None
    return {line.split(" ", 1)[0] for line in text.splitlines() if line.strip()}


def _safe(probe: Callable, default):
    try:
        return probe()
    except Exception:  # a probe that fails tells us nothing; the other checks still run
        return default


def render(report: Report) -> str:
    lines = [t("doctor.title")]
    for reader in report.readers:
        lines.append("  ✔ " + t("doctor.reader", name=reader.name, path=reader.path))
    for problem in report.problems:
        lines.append("  ✘ " + problem.message)
        if problem.fix:
            lines.append("      " + t("doctor.fix", command=problem.fix))
    for note in report.notes:
        lines.append("  · " + note)
    lines.append(t("doctor.ready") if report.ok else t("doctor.none"))
    return "\n".join(lines)
