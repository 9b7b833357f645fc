"""``python -m mcpclient``: tools and call against stdio and HTTP targets; errors with their layer."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mcpclient.__main__ import main

from .conftest import PEER


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpclient", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_call_over_stdio(capsys):
    argv = [
        "--protocol-version",
        "2025-06-18",
        "call",
        "--",
        sys.executable,
        str(PEER),
        "add",
        '{"a": 2, "b": 3}',
    ]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["structured_content"] == {"result": 5}


def test_python_dash_m_runs_and_prints_errors_with_their_layer(sdk_http_json_url):
    out = run("call", sdk_http_json_url, "add", '{"a": "x"}')
    assert out.returncode == 1
    assert "error [tool_validation] ToolValidationError" in out.stderr


def test_tools_over_http(sdk_http_json_url, capsys):
    assert main(["--header", "X-A: b", "tools", sdk_http_json_url]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["protocol_version"] == "2026-07-28" and len(listing["tools"]) == 7


def test_errors_are_printed_with_their_layer(capsys):
    assert main(["--timeout", "5", "tools", "http://127.0.0.1:9/mcp"]) == 1
    assert "error [transport] ConnectError" in capsys.readouterr().err


def test_legacy_sse_flag(sdk_sse_url, capsys):
    assert main(["--legacy-sse", "call", sdk_sse_url, "echo", '{"text": "old"}']) == 0
    assert json.loads(capsys.readouterr().out)["content"][0]["text"] == "old"


@pytest.mark.parametrize(
    "argv",
    [
        ["tools"],
        ["call", "http://x/mcp", "tool"],
        ["call", "http://x/mcp", "tool", "{not json"],
        ["tools", "http://x/mcp", "extra"],
    ],
)
def test_bad_usage_exits_with_a_message(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2


def test_a_stdio_call_with_too_few_words_is_a_usage_error():
    with pytest.raises(SystemExit):
        main(["call", "--", "server"])
