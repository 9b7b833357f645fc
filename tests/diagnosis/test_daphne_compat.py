"""diagnosis.streaming.daphne_compat under a real Daphne: behind an application's send it finds
Twisted's request on a plain TCP transport, and a direct write reaches the client in order. A
failure here means Daphne (or Twisted) changed: adapt the adapters, then move the pin."""

import importlib.metadata
import json
import sys
from pathlib import Path

import httpx

from diagnosis.streaming import daphne_compat
from tests.diagnosis.test_streaming_support import Process, free_port

DAPHNE = f"Daphne {importlib.metadata.version('daphne')}"
BASE_DIR = Path(__file__).resolve().parents[2]


def test_a_real_daphne_send_leads_to_its_twisted_request_and_socket():
    port = free_port()
    daphne = str(Path(sys.executable).with_name("daphne"))
    proc = Process(
        [
            daphne,
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "tests.diagnosis.daphne_compat_app:application",
        ],
        env={
            "PYTHONPATH": str(BASE_DIR),
            "DJANGO_SETTINGS_MODULE": "agentops.settings",
        },
    )
    try:
        proc.wait_for_line("Listening on TCP address")
        response = httpx.get(f"http://127.0.0.1:{port}/", timeout=10)
    finally:
        proc.stop()
    first, _, rest = response.text.partition("\n")
    assert json.loads(first) == {
        "request": "daphne.http_protocol",
        "tcp_transport": "Server",
        "direct_write": True,
    }, (
        f"{DAPHNE} no longer sends through partial(handle_reply, WebRequest) over tcp.Server"
    )
    assert rest == "direct\n", (
        f"{DAPHNE}: the direct write did not reach the client in order"
    )


def test_no_request_behind_a_send_that_is_not_daphnes():
    async def send(message):
        pass

    assert daphne_compat.twisted_request(send) is None
