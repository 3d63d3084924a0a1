"""``doctor`` with a fake system (a /proc/modules file, fake USB bus and groups) and a real hub
firmware speaking on a pty: every problem comes with its fix; a hub is found by listening only."""

from __future__ import annotations

import errno
import json
import os
import select
import sys
import threading
import time
import tty
from dataclasses import replace
from pathlib import Path

import pytest

from companion import doctor
from companion.doctor import Probes, SerialPort, UsbDevice, diagnose, install_command, listen_for_hello, render

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "hardware" / "firmware"))
import hubcore  # noqa: E402

pytestmark = pytest.mark.timeout(30)


@pytest.fixture(autouse=True)
def french():
    from companion import i18n

    before = i18n.language()
    i18n.set_language("fr")
    yield
    i18n.set_language(before)


def quiet_system(tmp_path: Path, **changes) -> Probes:
    """A machine with libusb, no grabbing module, no pcscd, no reader, no serial port."""
    modules = tmp_path / "modules"
    modules.write_text("snd_hda_intel 57344 3 - Live 0x0000000000000000\nusbhid 65536 0 - Live 0x0\n")
    base = Probes(
        proc_modules=modules,
        cmdline=tmp_path / "cmdline",
        find_library=lambda name: "libusb-1.0.so.0",
        usb_devices=lambda: [],
        serial_ports=lambda: [],
        open_nfcpy_usb=lambda: None,
        listen=lambda device: None,
        processes=lambda: {"systemd", "bash"},
        groups=lambda: {"users"},
        access=lambda path, mode: True,
        is_root=lambda: False,
        pi_model=lambda: "",
        serial0=tmp_path / "serial0",
    )
    return replace(base, **changes)


def keys(report) -> list[str]:
    return [p.key for p in report.problems]


def test_a_healthy_machine_without_a_reader_fails_with_a_clear_report(tmp_path: Path) -> None:
    report = diagnose(quiet_system(tmp_path))
    assert report.problems == [] and not report.ok
    text = render(report)
    assert "Aucun lecteur utilisable" in text and "Aucun lecteur NFC USB" in text


def test_every_problem_comes_with_its_fix(tmp_path: Path) -> None:
    modules = tmp_path / "modules-with-nfc"
    modules.write_text("port100 24576 0 - Live 0x0\nnfc 126976 1 port100, Live 0x0\nusbhid 1 0 - Live 0x0\n")
    acr = UsbDevice("072f", "2200", "/dev/bus/usb/001/007")
    probes = quiet_system(
        tmp_path, proc_modules=modules, find_library=lambda name: None, usb_devices=lambda: [acr],
        processes=lambda: {"pcscd", "bash"}, serial_ports=lambda: [SerialPort("/dev/ttyUSB0", "CP2102")],
        access=lambda path, mode: False,
    )
    report = diagnose(probes)
    assert keys(report) == ["libusb", "kernel-modules", "pcscd", "usb-permission", "serial-permission"]
    fixes = {p.key: p.fix for p in report.problems}
    assert fixes["libusb"] == "sudo apt-get install -y libusb-1.0-0"
    assert fixes["kernel-modules"].startswith("sudo modprobe -r nfc port100 && ")
    assert "blacklist pn533_usb" in fixes["kernel-modules"] and "/etc/modprobe.d/" in fixes["kernel-modules"]
    assert "systemctl disable pcscd.socket" in fixes["pcscd"]
    assert 'ATTRS{idVendor}=="072f", ATTRS{idProduct}=="2200"' in fixes["usb-permission"]
    assert "udevadm trigger" in fixes["usb-permission"]
    assert fixes["serial-permission"].startswith("sudo usermod -aG dialout $USER")
    assert any("ACR122U" in n for n in report.notes)
    text = render(report)
    assert text.count("Pour corriger :") == 5 and not report.ok


def test_nfcpy_errors_are_reported_never_raised(tmp_path: Path) -> None:
    def missing_libusb():
        raise FileNotFoundError(errno.ENOENT, "libusb-1.0.so.0: cannot open shared object file")

    def busy():
        raise OSError(errno.EBUSY, "Resource busy")

    def no_device():
        raise OSError(errno.ENODEV, "No such device")

    assert keys(diagnose(quiet_system(tmp_path, open_nfcpy_usb=missing_libusb))) == ["usb-error"]
    assert keys(diagnose(quiet_system(tmp_path, open_nfcpy_usb=busy))) == ["usb-busy"]
    assert keys(diagnose(quiet_system(tmp_path, open_nfcpy_usb=no_device))) == []

    def no_binding():
        raise ImportError("missing usb1 module, try 'pip install libusb1'")

    report = diagnose(quiet_system(tmp_path, open_nfcpy_usb=no_binding))
    assert keys(report) == ["usb-error"] and report.problems[0].fix == install_command("nfcpy libusb1")


def test_the_fix_installs_with_what_this_python_has(monkeypatch, tmp_path: Path) -> None:
    """The venv ``make setup`` makes has no pip (uv installs there): "python -m pip install" was
    advice that failed with "No module named pip"."""
    import importlib.util
    import shutil
    import sys

    real = importlib.util.find_spec
    python = sys.executable
    assert install_command("nfcpy libusb1") == (f"{python} -m pip install nfcpy libusb1" if real("pip")
                                                 else install_command("nfcpy libusb1"))
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pip" else real(name, *a))
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    monkeypatch.setattr(shutil, "which", lambda name: "/opt/uv/bin/uv" if name == "uv" else None)
    assert install_command("nfcpy libusb1") == f"/opt/uv/bin/uv pip install --python {python} nfcpy libusb1"
    beside = tmp_path / "bin" / "uv"
    beside.parent.mkdir()
    beside.write_text("#!/bin/sh\n")
    beside.chmod(0o755)
    assert install_command("-e /src") == f"{beside} pip install --python {python} -e /src"
    beside.unlink()
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert install_command("nfcpy") == f"{python} -m ensurepip && {python} -m pip install nfcpy"


def test_a_usb_reader_that_opens_is_usable(tmp_path: Path) -> None:
    rcs380 = UsbDevice("054c", "06c3", "/dev/bus/usb/001/004")
    report = diagnose(quiet_system(tmp_path, usb_devices=lambda: [rcs380],
                                   open_nfcpy_usb=lambda: "SONY RC-S380/P NFC Port-100 v1.11 at usb:001:004"))
    assert report.ok and [(r.kind, r.path) for r in report.readers] == [("usb", "usb")]
    # Running as root: no permission problem is invented.
    report = diagnose(quiet_system(tmp_path, usb_devices=lambda: [rcs380], is_root=lambda: True,
                                   access=lambda path, mode: False))
    assert "usb-permission" not in keys(report)


def test_raspberry_pi_uart_checks(tmp_path: Path) -> None:
    (tmp_path / "cmdline").write_text("console=serial0,115200 console=tty1 root=PARTUUID=1234-02 rootwait\n")
    report = diagnose(quiet_system(tmp_path, pi_model=lambda: "Raspberry Pi 4 Model B Rev 1.4"))
    assert keys(report) == ["pi-serial-console", "pi-uart"]
    assert report.problems[0].fix == "sudo raspi-config nonint do_serial_cons 1 && sudo reboot"


class HubOnPty:
    """The hub firmware's logic speaking on a pty, recording whatever the other side writes."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.hub = hubcore.Hub(4, lambda text: os.write(self.master, text.encode()), 0, 0xBEEF)
        self.heard = b""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.02)
            if ready:
                self.heard += os.read(self.master, 256)
            self.hub.tick(int(time.monotonic() * 1000))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        os.close(self.master)
        os.close(self.slave)


def test_a_hub_is_found_by_listening_only(tmp_path: Path) -> None:
    hub = HubOnPty()
    silent_master, silent_slave = os.openpty()
    tty.setraw(silent_master)
    try:
        ports = [SerialPort(hub.path, "Board in FS mode"), SerialPort(os.ttyname(silent_slave), "CH340")]
        # The hub's first HELLO goes by before the doctor listens (opening a port drops what
        # waited in it): the hub is heard at its next one, 2 s on, well after both ports opened.
        deadline = time.monotonic() + 10  # a guard against a hang only
        while not hub.hub.greeted:
            assert time.monotonic() < deadline, "the hub never said HELLO"
            time.sleep(0.01)
        listening: list[tuple[str, str]] = []  # ("start" | "end", port), in the order they happened
        lock = threading.Lock()

        def listen(device: str) -> object:  # the real listener, its start and end recorded
            with lock:
                listening.append(("start", device))
            try:
                return listen_for_hello(device)
            finally:
                with lock:
                    listening.append(("end", device))

        report = diagnose(quiet_system(tmp_path, serial_ports=lambda: ports, listen=listen))
        # Ports are listened to together: each one's listening began before any had ended.
        first_end = next(i for i, (what, _) in enumerate(listening) if what == "end")
        assert sorted(port for what, port in listening[:first_end]) == sorted(p.device for p in ports)
        assert sorted(listening[first_end:]) == [("end", p) for p in sorted(p.device for p in ports)]
        assert report.ok and [(r.kind, r.path) for r in report.readers] == [("hub", f"hub:{hub.path}")]
        assert "1.0.0" in report.readers[0].name and "4" in report.readers[0].name
        assert any("CH340" in n and "pn532" in n for n in report.notes)
        assert hub.heard == b""  # not one byte written to either port
        assert not select.select([silent_master], [], [], 0)[0]
    finally:
        hub.close()
        os.close(silent_master)
        os.close(silent_slave)


def test_a_port_held_by_another_program_is_reported(tmp_path: Path) -> None:
    import serial

    hub = HubOnPty()
    holder = serial.Serial(hub.path, 115200, exclusive=True)
    try:
        report = diagnose(quiet_system(tmp_path, serial_ports=lambda: [SerialPort(hub.path)],
                                       listen=listen_for_hello))
        assert keys(report) == ["serial-busy"] and report.problems[0].fix == f"sudo fuser -v {hub.path}"
    finally:
        holder.close()
        hub.close()


def test_command_exit_status_and_json(tmp_path: Path, monkeypatch, capsys) -> None:
    from companion.cli import main

    hub = HubOnPty()
    try:
        monkeypatch.setattr(doctor, "Probes", lambda: quiet_system(
            tmp_path, serial_ports=lambda: [SerialPort(hub.path)], listen=listen_for_hello))
        assert main(["doctor", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["ok"] is True and out["readers"][0]["path"] == f"hub:{hub.path}"
    finally:
        hub.close()
    monkeypatch.setattr(doctor, "Probes", lambda: quiet_system(tmp_path))
    assert main(["--lang", "en", "doctor"]) == 1
    assert "No usable reader" in capsys.readouterr().out
