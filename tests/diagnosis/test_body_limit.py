"""Bodies over their limit get 413 and the JSON error before they are read (agentops.body_limit).

Over real HTTP against Daphne, on a raw socket: the request declares (or streams) far more than
the limit and sends only a little; the answer must come, and the connection close, while the
client still owes the rest. Every wait is bounded by the socket timeout.
"""

import asyncio
import json
import socket

import pytest
from django.conf import settings

from agentops.body_limit import BodyLimitMiddleware
from diagnosis.api.validation import ALERT_MAX_BODY_BYTES, MAX_BODY_BYTES
from tests.diagnosis.daphneproc import daphne

pytestmark = pytest.mark.slow
MiB = 1024 * 1024


@pytest.fixture(scope="module")
def server():
    with daphne() as (_base, port):
        yield port


def _exchange(
    port, head: bytes, body: bytes = b""
) -> tuple[int, dict[str, str], bytes]:
    """Send `head` and `body`, then read until the server closes; (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(head + body)
        received = b""
        while chunk := sock.recv(65536):  # socket.timeout if the server waits for more
            received += chunk
    raw_head, _, content = received.partition(b"\r\n\r\n")
    status_line, *lines = raw_head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines)}
    return int(status_line.split()[1]), headers, content


def _head(path: str, *fields: str) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", *fields, "", ""]
    return "\r\n".join(lines).encode()


@pytest.mark.fault("API request declaring a 100 MiB body", kind="limit")
def test_a_declared_100_mib_api_body_is_refused_before_it_is_sent(
    server, reliability_record
):
    head = _head(
        "/api/incidents",
        "Content-Type: application/json",
        f"Content-Length: {100 * MiB}",
    )

    status, headers, body = _exchange(server, head, b'{"title": "')

    assert status == 413
    assert headers["content-type"] == "application/json"
    assert headers["connection"] == "close"
    assert "default-src 'self'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert json.loads(body) == {
        "error": f"request body over {MAX_BODY_BYTES} bytes",
        "code": "too_large",
        "limit": MAX_BODY_BYTES,
    }
    reliability_record(
        observed="413 with the API's JSON error and Connection: close after 11 bytes of body; "
        "the rest was never read; security headers present",
        figures={
            "declared_bytes": 100 * MiB,
            "limit_bytes": MAX_BODY_BYTES,
            "status": 413,
        },
    )


@pytest.mark.fault("Page form POST declaring a body over Django's limit", kind="limit")
def test_a_page_body_over_the_django_limit_is_refused_before_it_is_sent(
    server, reliability_record
):
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    head = _head(
        "/accounts/login/",
        "Content-Type: application/x-www-form-urlencoded",
        f"Content-Length: {limit + 1}",
    )

    status, _headers, body = _exchange(server, head, b"username=a")

    assert status == 413
    assert json.loads(body)["limit"] == limit
    reliability_record(
        observed="413 before the body was read",
        figures={"limit_bytes": limit, "status": 413},
    )


@pytest.mark.fault("Chunked API body that runs past the limit", kind="limit")
def test_a_chunked_body_is_cut_off_at_the_limit(server, reliability_record):
    head = _head(
        "/api/incidents", "Content-Type: application/json", "Transfer-Encoding: chunked"
    )
    chunk = b"x" * 8192
    # Past the limit, and no closing 0-length chunk: the client is still sending.
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(chunk), chunk)
        for _ in range(MAX_BODY_BYTES // len(chunk) + 1)
    )

    status, _headers, body = _exchange(server, head, chunks)

    assert status == 413
    assert json.loads(body)["code"] == "too_large"
    reliability_record(
        observed="413 too_large once the chunks passed the limit, the connection closed with "
        "the client still sending",
        figures={
            "sent_bytes": len(chunks),
            "limit_bytes": MAX_BODY_BYTES,
            "status": 413,
        },
    )


def test_a_body_within_the_limit_still_reaches_the_api(server):
    payload = b"{}"
    head = _head(
        "/api/incidents",
        "Content-Type: application/json",
        f"Content-Length: {len(payload)}",
        "Connection: close",
    )

    status, _headers, body = _exchange(server, head, payload)

    assert status == 401  # authentication, after the body was read: the app ran
    assert json.loads(body)["code"]


def test_alert_bodies_have_their_own_larger_limit(server):
    # An Alertmanager group of a few hundred alerts is well over the API's 64 KiB.
    payload = b'{"pad": "' + b"x" * (4 * MAX_BODY_BYTES) + b'"}'
    head = _head(
        "/api/alerts/alertmanager",
        "Content-Type: application/json",
        f"Content-Length: {len(payload)}",
        "Connection: close",
    )

    status, _headers, _body = _exchange(server, head, payload)

    assert status == 401  # read whole, then refused for want of a token
    over = _head(
        "/api/alerts/pagerduty",
        "Content-Type: application/json",
        f"Content-Length: {ALERT_MAX_BODY_BYTES + 1}",
    )
    status, _headers, body = _exchange(server, over, b"{")
    assert status == 413
    assert json.loads(body)["limit"] == ALERT_MAX_BODY_BYTES


# --- the ASGI middleware, for servers that hand the app the headers first ---------------


def _scope(path="/api/incidents", headers=()):
    return {"type": "http", "path": path, "method": "POST", "headers": list(headers)}


def _run(middleware, scope, messages):
    sent = []

    async def receive():
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    asyncio.run(asyncio.wait_for(middleware(scope, receive, send), 5))
    return sent


def test_middleware_refuses_a_declared_length_without_calling_the_app():
    async def app(scope, receive, send):
        raise AssertionError("the app must not run")

    sent = _run(
        BodyLimitMiddleware(app, limit=lambda path: 10),
        _scope(headers=[(b"content-length", b"11")]),
        [],
    )

    assert sent[0]["status"] == 413
    assert json.loads(sent[1]["body"])["limit"] == 10


def test_middleware_cuts_a_chunked_body_off_at_the_limit():
    seen = []

    async def app(scope, receive, send):
        while (message := await receive())["type"] == "http.request":
            seen.append(message["body"])
            if not message.get("more_body"):
                break
        seen.append(message["type"])
        await send({"type": "http.response.start", "status": 200, "headers": []})

    chunk = {"type": "http.request", "body": b"x" * 6, "more_body": True}
    sent = _run(
        BodyLimitMiddleware(app, limit=lambda path: 10),
        _scope(headers=[(b"transfer-encoding", b"chunked")]),
        [dict(chunk), dict(chunk), dict(chunk)],
    )

    assert seen == [b"x" * 6, "http.disconnect"]
    assert [m.get("status") for m in sent] == [413, None]  # the app's 200 is dropped


def test_middleware_passes_send_through_untouched_within_the_limit():
    seen = []

    async def app(scope, receive, send):
        seen.append(send)

    async def send(message):
        pass

    async def receive():
        return {"type": "http.request", "body": b"{}"}

    middleware = BodyLimitMiddleware(app, limit=lambda path: 10)
    asyncio.run(middleware(_scope(headers=[(b"content-length", b"2")]), receive, send))

    assert seen == [
        send
    ]  # the SSE app finds Daphne's request behind this very callable
