"""Shared plumbing: secret masking, time windows, the HTTP guard (as ASGI), and the command line."""

from __future__ import annotations

import httpx
import pytest

from mcpservers._common import (
    GuardMiddleware,
    TimeArgumentError,
    mask_secrets,
    parse_duration,
    parse_time,
    parse_window,
)
from mcpservers._common.cli import UsageError, parse_hostport, scenario_dir
from tests.mcpservers._support import DEMO

NOW = 1_764_511_200.0  # 2025-11-30T14:00:00Z


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("Authorization: Bearer eyJhbGciOi.abc.def123", "eyJhbGciOi.abc.def123"),
        ("retry with bearer 9f8e7d6c5b4a3f2e1d0c", "9f8e7d6c5b4a3f2e1d0c"),
        ("login failed password=hunter2 user=bob", "hunter2"),
        ('{"user": "bob", "password": "p@ss \\"w0rd"}', "p@ss"),
        ("DATABASE_URL=postgres://app:s3cr3tpw@db:5432/shop", "s3cr3tpw"),
        ("using key AKIAIOSFODNN7EXAMPLE for s3", "AKIAIOSFODNN7EXAMPLE"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI/K7MDENG",
        ),
        ("X-Api-Key: 0123456789abcdef", "0123456789abcdef"),
        ("client_secret='abc def ghi'", "abc def ghi"),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl",
            "eyJzdWIiOiIxMjM0In0",
        ),
        (
            "token ghp_0123456789abcdefghijABCDEFGHIJ012345 leaked",
            "ghp_0123456789abcdefghij",
        ),
        ("slack xoxb-1234567890-abcdefghij", "xoxb-1234567890"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
            "MIIEpAIBAAKCAQEA",
        ),
        ("session_id=7f3a9c2e1b; path=/", "7f3a9c2e1b"),
        # a harmless "key: " in front must not hide the secret pair that follows it
        ("db connect failed: password=hunter2", "hunter2"),
        ("error: token=abcdef123456", "abcdef123456"),
    ],
)
def test_mask_secrets_hides_the_secret(line: str, secret: str) -> None:
    masked = mask_secrets(line)
    assert secret not in masked
    assert "***" in masked


@pytest.mark.parametrize(
    "line",
    [
        "GET /cart 200 in 35ms",
        "upstream connect error to 10.0.3.4:443: x509: certificate has expired",
        "pool exhausted after 30000ms: 50/50 connections in use",
        "timeout=30s retries=3 tokenizer ready",
    ],
)
def test_mask_secrets_leaves_ordinary_lines_alone(line: str) -> None:
    assert mask_secrets(line) == line


def test_mask_secrets_keeps_json_valid_shape() -> None:
    assert (
        mask_secrets('{"password": "x", "user": "u"}')
        == '{"password": "***", "user": "u"}'
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("now", NOW),
        ("now-15m", NOW - 900),
        ("-2h", NOW - 7200),
        ("now-1h30m", NOW - 5400),
        ("2025-11-30T13:00:00Z", NOW - 3600),
        ("2025-11-30T15:00:00+01:00", NOW),
        ("2025-11-30 13:00:00", NOW - 3600),  # naive → UTC
        ("1764507600", NOW - 3600),
        (1764507600, NOW - 3600),
    ],
)
def test_parse_time_accepts_documented_forms(value, expected: float) -> None:
    assert parse_time(value, now=NOW) == expected


@pytest.mark.parametrize("value", ["yesterday", "now-5x", "", "-1", "nan"])
def test_parse_time_rejects_garbage_with_the_accepted_forms(value: str) -> None:
    with pytest.raises(TimeArgumentError, match=r"RFC 3339|duration"):
        parse_time(value, now=NOW)


def test_parse_window_rejects_reversed_range() -> None:
    with pytest.raises(TimeArgumentError, match="must be before end"):
        parse_window("now", "now-1h", now=NOW, max_seconds=3600)


def test_parse_window_rejects_range_over_limit_and_suggests_one() -> None:
    with pytest.raises(
        TimeArgumentError, match=r"longer than the 6h limit.*start=now-6h"
    ):
        parse_window("now-6h1s", "now", now=NOW, max_seconds=6 * 3600)


def test_parse_window_accepts_exactly_the_limit() -> None:
    assert (
        parse_window("now-6h", "now", now=NOW, max_seconds=6 * 3600).seconds == 6 * 3600
    )


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("30s", 30), ("5m", 300), ("1h30m", 5400), ("15", 15), (2.5, 2.5)],
)
def test_parse_duration(value, seconds: float) -> None:
    assert parse_duration(value) == seconds


@pytest.mark.parametrize("value", ["0s", "-5m", "fast", "5 minutes"])
def test_parse_duration_rejects_non_positive_or_unknown(value: str) -> None:
    with pytest.raises(TimeArgumentError):
        parse_duration(value)


# --- HTTP guard, driven as ASGI ------------------------------------------------------------------


async def _echo_app(scope, receive, send) -> None:
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/plain")],
        }
    )
    await send({"type": "http.response.body", "body": b"echo:" + body})


def _client(**options) -> httpx.AsyncClient:
    app = GuardMiddleware(_echo_app, **options)
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000"
    )


@pytest.mark.anyio
async def test_guard_passes_body_through_intact() -> None:
    async with _client(token="t0ken", max_request_bytes=100) as client:
        response = await client.post(
            "/mcp", content=b"hello", headers={"Authorization": "Bearer t0ken"}
        )
    assert response.status_code == 200
    assert response.text == "echo:hello"


@pytest.mark.anyio
async def test_guard_counts_streamed_body_without_content_length() -> None:
    async def chunks():
        for _ in range(11):
            yield b"x" * 10

    async with _client(max_request_bytes=100) as client:
        response = await client.post("/mcp", content=chunks())
    assert response.status_code == 413


@pytest.mark.anyio
async def test_guard_accepts_body_at_exactly_the_limit() -> None:
    async with _client(max_request_bytes=100) as client:
        response = await client.post("/mcp", content=b"x" * 100)
    assert response.status_code == 200


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("origin", "status"),
    [
        ("http://localhost:5173", 200),
        ("http://127.0.0.1", 200),
        ("http://[::1]:8080", 200),
        ("https://ops.example.com", 200),  # listed
        ("https://evil.example", 403),
        ("http://169.254.169.254", 403),
        ("null", 403),
    ],
)
async def test_guard_origin_check(origin: str, status: int) -> None:
    async with _client(allowed_origins=["https://ops.example.com"]) as client:
        response = await client.post("/mcp", content=b"{}", headers={"Origin": origin})
    assert response.status_code == status


@pytest.mark.anyio
async def test_guard_rejects_foreign_host_when_bound_to_loopback() -> None:
    async with _client(check_host=True) as client:
        response = await client.post(
            "/mcp", content=b"{}", headers={"Host": "attacker.example:8000"}
        )
    assert response.status_code == 421


@pytest.mark.anyio
async def test_guard_token_uses_bearer_scheme_only() -> None:
    async with _client(token="t0ken") as client:
        basic = await client.post(
            "/mcp", content=b"{}", headers={"Authorization": "Basic t0ken"}
        )
        missing = await client.post("/mcp", content=b"{}")
    assert basic.status_code == missing.status_code == 401
    assert missing.headers["www-authenticate"] == 'Bearer realm="mcpservers"'


# --- command line ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("127.0.0.1:8000", ("127.0.0.1", 8000)),
        ("[::1]:0", ("::1", 0)),
        ("localhost:9", ("localhost", 9)),
    ],
)
def test_parse_hostport(value: str, expected: tuple[str, int]) -> None:
    assert parse_hostport(value) == expected


@pytest.mark.parametrize("value", ["8000", "127.0.0.1", "host:99999", "::1:80"])
def test_parse_hostport_rejects(value: str) -> None:
    import argparse

    with pytest.raises(argparse.ArgumentTypeError):
        parse_hostport(value)


def test_unknown_scenario_names_the_place_looked(tmp_path) -> None:
    with pytest.raises(UsageError, match="not found"):
        scenario_dir(str(tmp_path / "missing"))


@pytest.mark.parametrize(
    ("module", "args", "message"),
    [
        (
            "mcpservers.logs.__main__",
            ["--scenario", "no-such-scenario"],
            "scenario 'no-such-scenario' not found",
        ),
        (
            "mcpservers.metrics.__main__",
            ["--file", "/nonexistent/metrics.json"],
            "cannot read",
        ),
        ("mcpservers.runbooks.__main__", ["--dir", "/nonexistent"], "not a directory"),
        (
            "mcpservers.logs.__main__",
            ["--scenario", str(DEMO), "--token-env", "T"],
            "apply only with --http",
        ),
        ("mcpservers.logs.__main__", ["--http", "nohost"], "expected HOST:PORT"),
        (
            "mcpservers.metrics.__main__",
            [
                "--scenario",
                str(DEMO),
                "--http",
                "127.0.0.1:0",
                "--token-env",
                "MCPSERVERS_TEST_UNSET_TOKEN",
            ],
            "MCPSERVERS_TEST_UNSET_TOKEN is unset or empty",
        ),
        (
            "mcpservers.actions.__main__",
            ["--max-replicas", "0"],
            "--max-replicas must be at least 1",
        ),
    ],
)
def test_bad_command_line_exits_2_with_one_line(
    module: str, args: list[str], message: str, capsys
) -> None:
    import importlib

    main = importlib.import_module(module).main
    with pytest.raises(SystemExit) as exited:
        main(args)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_openmetrics_command_writes_scenario_series(capsys) -> None:
    from mcpservers.metrics.openmetrics import main

    main(["--scenario", str(DEMO)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "# EOF"
    assert any(
        line.startswith('db_pool_max{service="checkout"} 50.0 ') for line in lines
    )


def test_common_imports_neither_the_sdk_nor_uvicorn() -> None:
    # netcheck and the scenarios use _common from code that must stay importable without the SDK.
    import subprocess
    import sys

    code = "import sys, mcpservers._common; print(sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'uvicorn', 'starlette'}))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert out.stdout.strip() == "[]"
