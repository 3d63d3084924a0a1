"""HTTPS for the boards: ``venue --cert --key`` serves the organiser's and the TV's pages over TLS
(the organiser's token no longer crosses the room's network in clear), the notices over wss. The
certificate is made by a throwaway CA (trustme); a client that does not trust it is refused, and
plain HTTP to the TLS port gets nothing."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import ssl
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from tests.venue.helpers import ROOT, needs_mosquitto

trustme = pytest.importorskip("trustme")

pytestmark = [needs_mosquitto, pytest.mark.timeout(120)]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), COMPANION_LANG="fr")


def test_the_boards_over_https_and_wss(tmp_path):
    import aiohttp

    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.cert_chain_pems[0].write_to_path(cert_file)
    cert.private_key_pem.write_to_path(key_file)
    proc = subprocess.Popen([sys.executable, "-m", "companion", "venue", "--event", "Soirée TLS", "--json",
                             "--port", "0", "--mqtt-port", "0", "--folder", str(tmp_path / "event"), "--tables", "2",
                             "--cert", str(cert_file), "--key", str(key_file)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    try:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        info = json.loads(line)
        assert info["board"].startswith("https://127.0.0.1:") and info["public"].startswith("https://127.0.0.1:")
        base = info["public"].rsplit("/", 1)[0]
        token = info["board"].split("token=")[1]
        trusted = ssl.create_default_context()
        ca.configure_trust(trusted)
        with urllib.request.urlopen(f"{base}/api/organiser?token={token}", timeout=30, context=trusted) as r:
            assert json.loads(r.read())["token_ok"] is True
        with urllib.request.urlopen(f"{base}/organiser", timeout=30, context=trusted) as r:
            assert "/static/board.js" in r.read().decode()
        with pytest.raises(urllib.error.URLError):  # a client that does not trust the CA is not fooled
            urllib.request.urlopen(f"{base}/api/public", timeout=30, context=ssl.create_default_context())
        with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):  # no plain HTTP on that port
            urllib.request.urlopen(base.replace("https://", "http://") + "/api/public", timeout=30)

        async def notices() -> dict:
            async with aiohttp.ClientSession() as http:
                ws = await http.ws_connect(base.replace("https://", "wss://") + f"/ws?token={token}", ssl=trusted)
                hello = json.loads((await ws.receive(timeout=20)).data)
                await ws.close()
                return hello

        assert asyncio.run(notices()) == {"type": "hello", "organiser": True}
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_certificate_without_its_key_is_a_clear_refusal(tmp_path):
    done = subprocess.run([sys.executable, "-m", "companion", "venue", "--event", "Soirée TLS", "--port", "0",
                           "--mqtt-port", "0", "--folder", str(tmp_path / "event"),
                           "--cert", str(tmp_path / "none.pem")],
                          capture_output=True, text=True, timeout=60, env=_env())
    assert done.returncode == 2 and "Traceback" not in done.stderr and "--key" in done.stderr
    assert not (tmp_path / "event" / "broker" / "mosquitto.pid").exists()  # refused before any broker starts
