"""HTTPS for the phones (issue 23, item 6): ``serve --cert --key`` with a certificate made by a
throwaway CA (trustme); a client trusting that CA reads the table and opens the socket over TLS,
from the page's own https origin, and a plain-HTTP request to the TLS port gets nothing."""

from __future__ import annotations

import json
import os
import signal
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

trustme = pytest.importorskip("trustme")

pytestmark = pytest.mark.timeout(120)


def test_serve_over_https_with_a_trusted_certificate(tmp_path: Path) -> None:
    import asyncio

    import aiohttp

    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.cert_chain_pems[0].write_to_path(cert_file)
    cert.private_key_pem.write_to_path(key_file)
    proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--game", "res-arcana", "--players",
                             "Ann,Bob", "--port", "0", "--json", "--journal", str(tmp_path / "games.sqlite3"),
                             "--cert", str(cert_file), "--key", str(key_file)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        invitation = json.loads(proc.stdout.readline())
        url = invitation["url"]
        assert url.startswith("https://127.0.0.1:")
        trusted = ssl.create_default_context()
        ca.configure_trust(trusted)
        spectator = invitation["spectator"].split("#t=")[1]
        request = urllib.request.Request(url + "/api/table", headers={"Authorization": "Bearer " + spectator})
        with urllib.request.urlopen(request, timeout=30, context=trusted) as r:
            assert json.loads(r.read())["game"] == "res-arcana"
        with pytest.raises(urllib.error.URLError):  # nobody who does not trust the CA is fooled
            urllib.request.urlopen(url + "/api/table", timeout=30, context=ssl.create_default_context())

        async def socket() -> dict:
            async with aiohttp.ClientSession() as http:
                token = invitation["seats"][0]["token"]
                ws = await http.ws_connect(f"wss://127.0.0.1:{url.rsplit(':', 1)[1]}/ws?token={token}",
                                           ssl=trusted, headers={"Origin": url})
                hello = json.loads((await ws.receive(timeout=20)).data)
                await ws.close()
                return hello

        assert asyncio.run(socket())["type"] == "hello"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_certificate_without_its_key_is_a_clear_refusal(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "companion", "serve", "--game", "vtes", "--players", "Ann,Bob",
                           "--port", "0", "--journal", str(tmp_path / "g.sqlite3"),
                           "--cert", str(tmp_path / "none.pem")],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "LANG": "fr_FR.UTF-8"})
    assert done.returncode == 2 and "Traceback" not in done.stderr and "--key" in done.stderr
