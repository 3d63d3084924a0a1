"""The venue's own Mosquitto: its config, password and ACL files in the event's folder, started on
a port, stopped by its PID.

Mosquitto does the MQTT (Debian package ``mosquitto``); this module only writes its files and
runs it. Passwords are hashed by ``mosquitto_passwd -U`` (never by hand). Queued QoS 1 messages
survive a broker restart because persistence is on and clients keep their sessions.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from companion.venue import tlspin, topics

INSTALL_HINT = "sudo apt-get install -y mosquitto"


class BrokerMissing(RuntimeError):
    """Mosquitto is not installed: the message says exactly what to install."""


class BrokerFailed(RuntimeError):
    """Mosquitto did not start (its log's last lines are in the message)."""


def find_mosquitto() -> tuple[str, str]:
    """Paths of ``mosquitto`` and ``mosquitto_passwd`` (Debian puts the broker in /usr/sbin)."""
    path = os.environ.get("PATH", "") + os.pathsep + "/usr/sbin" + os.pathsep + "/usr/local/sbin"
    broker = shutil.which("mosquitto", path=path)
    passwd = shutil.which("mosquitto_passwd", path=path)
    if not broker or not passwd:
        raise BrokerMissing(INSTALL_HINT)
    return broker, passwd


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@dataclass
class Credentials:
    """Who may connect: the hub and one user per table, with their passwords (kept in the event
    folder, readable by the organiser only)."""

    hub: str
    tables: dict[int, str] = field(default_factory=dict)

    @classmethod
    def load_or_make(cls, path: Path, tables: int) -> Credentials:
        creds = cls(hub=secrets.token_urlsafe(16))
        if path.exists():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                creds = cls(hub=str(data["hub"]), tables={int(k): str(v) for k, v in data["tables"].items()})
            except (ValueError, KeyError, TypeError, AttributeError):
                pass  # an unreadable file: new passwords (tables enrol again)
        for n in range(1, tables + 1):
            creds.tables.setdefault(n, secrets.token_urlsafe(12))
        path.write_text(json.dumps({"hub": creds.hub, "tables": creds.tables}), encoding="utf-8")
        os.chmod(path, 0o600)
        return creds


class Broker:
    """A Mosquitto for one event, its files under ``folder``."""

    def __init__(self, folder: str | Path, event: str, tables: int, port: int = 0, host: str = "127.0.0.1",
                 tls: tuple[str, str] | None = None, local_port: int = 0) -> None:
        self.folder = Path(folder)
        self.event = event
        self.tables = tables
        self.host = host
        self.port = port or free_port("127.0.0.1" if host in ("0.0.0.0", "::") else host)
        # With a certificate (PEM, key) the room's listener speaks only TLS; the hub itself talks in
        # clear on a second listener bound to loopback, which nothing off this machine reaches.
        self.tls = (str(Path(tls[0]).resolve()), str(Path(tls[1]).resolve())) if tls else None
        self.pin = tlspin.file_fingerprint(self.tls[0]) if self.tls else None
        self.local_port = (local_port or free_port()) if self.tls else self.port
        self.proc: subprocess.Popen[bytes] | None = None
        self.adopted: int | None = None  # the PID of a broker left by a previous hub
        self.folder.mkdir(parents=True, exist_ok=True)
        self.credentials = Credentials.load_or_make(self.folder / "credentials.json", tables)

    @property
    def config_path(self) -> Path:
        return self.folder / "mosquitto.conf"

    @property
    def log_path(self) -> Path:
        return self.folder / "mosquitto.log"

    def write_files(self) -> None:
        """Config, password file (hashed by mosquitto_passwd) and ACL."""
        _, passwd = find_mosquitto()
        data = self.folder / "mosquitto-data"
        data.mkdir(exist_ok=True)
        pw = self.folder / "passwd"
        lines = [f"hub:{self.credentials.hub}"] + [f"{topics.table_user(n)}:{p}"
                                                  for n, p in sorted(self.credentials.tables.items())]
        pw.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.chmod(pw, 0o600)
        subprocess.run([passwd, "-U", str(pw)], check=True, capture_output=True)
        (self.folder / "acl").write_text(topics.acl(self.event, self.tables), encoding="utf-8")
        conf = [
            "per_listener_settings false",
            "allow_anonymous false",
            f"password_file {pw}",
            f"acl_file {self.folder / 'acl'}",
            "persistence true",
            f"persistence_location {data}/",
            "autosave_interval 1",
            f"log_dest file {self.log_path}",
            "max_queued_messages 100000",
            # Sessions of tables that went away are kept for a day: their queued results wait.
            "persistent_client_expiration 1d",
            f"listener {self.port} {self.host}",
        ]
        if self.tls:
            conf += [f"certfile {self.tls[0]}", f"keyfile {self.tls[1]}", "tls_version tlsv1.2",
                     f"listener {self.local_port} 127.0.0.1"]
        if os.geteuid() == 0:
            conf.insert(0, "user root")  # as root Mosquitto would switch to `mosquitto`, who cannot write here
        self.config_path.write_text("\n".join(conf) + "\n", encoding="utf-8")

    def start(self, timeout: float = 10.0) -> None:
        broker, _ = find_mosquitto()
        self.write_files()
        self.proc = subprocess.Popen([broker, "-c", str(self.config_path)], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        (self.folder / "mosquitto.pid").write_text(str(self.proc.pid), encoding="utf-8")
        deadline = time.monotonic() + timeout
        connect_host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = (self.proc.stderr.read() if self.proc.stderr else b"").decode(errors="replace")
                raise BrokerFailed(err.strip() or self._log_tail())
            try:
                with socket.create_connection((connect_host, self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise BrokerFailed(self._log_tail())

    def adopt(self) -> bool:
        """Take over the Mosquitto a previous hub of this event left running (a hub killed with
        kill -9 leaves its broker up, still queueing the tables' entries). True if there is one."""
        try:
            pid = int((self.folder / "mosquitto.pid").read_text(encoding="utf-8"))
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError):
            return False
        if str(self.config_path).encode() not in cmdline:
            return False
        try:
            running = self.config_path.read_text(encoding="utf-8")
        except OSError:
            return False
        if self.tls is not None:
            # the room's TLS listener first, then the hub's loopback one (write_files' order)
            listeners = re.findall(r"^listener (\d+) (\S+)$", running, re.M)
            if f"certfile {self.tls[0]}" not in running or len(listeners) != 2 or listeners[1][1] != "127.0.0.1":
                _stop_pid(pid, kill=False)  # left without this certificate: started again with it
                return False
            self.local_port = int(listeners[1][0])
        elif "certfile" in running:
            _stop_pid(pid, kill=False)
            return False
        self.adopted = pid
        return True

    def start_or_adopt(self, timeout: float = 10.0) -> bool:
        """Start the broker, or adopt the one already running for this event; True if adopted."""
        if self.adopt():
            return True
        self.start(timeout)
        return False

    def reload(self) -> None:
        """Rewrite the password and ACL files and have Mosquitto read them again (SIGHUP)."""
        self.write_files()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGHUP)

    def stop(self, kill: bool = False) -> None:
        """Stop it by its PID (SIGTERM lets it save its persistence; ``kill``: SIGKILL)."""
        proc, self.proc = self.proc, None
        adopted, self.adopted = self.adopted, None
        if adopted is not None:
            _stop_pid(adopted, kill)
            return
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        if proc.stderr:
            proc.stderr.close()

    @property
    def running(self) -> bool:
        if self.adopted is not None:
            return Path(f"/proc/{self.adopted}").exists()
        return self.proc is not None and self.proc.poll() is None

    def url(self, public_host: str | None = None) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{public_host or self.host}:{self.port}"

    def table_url(self, table: int, public_host: str | None = None) -> str:
        """Table N's enrolment: its user and password, and with TLS the certificate's pin."""
        url = (f"{'mqtts' if self.tls else 'mqtt'}://{topics.table_user(table)}:{self.credentials.tables[table]}"
               f"@{public_host or self.host}:{self.port}/{topics.event_slug(self.event)}")
        return f"{url}?pin={self.pin}" if self.pin else url

    def _log_tail(self) -> str:
        try:
            return "\n".join(self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-5:])
        except OSError:
            return "mosquitto did not start"


def _stop_pid(pid: int, kill: bool) -> None:
    """Stop a broker this process did not start (adopted), by its PID, and wait for it to go."""
    try:
        os.kill(pid, signal.SIGKILL if kill else signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        try:
            # a zombie of ours would stay in /proc; an adopted broker is not our child
            with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                if f.read().split(")")[-1].split()[0] == "Z":
                    return
        except OSError:
            return
        time.sleep(0.05)
