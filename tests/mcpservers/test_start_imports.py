"""A stdio start of each bundled server imports no more than it needs (cost: bench/server_start.py).

Each server runs as `python -m mcpservers.<name>` would (`runpy`, `__name__ == "__main__"`),
answers `initialize` and `tools/list` on real pipes, stops at end of input, and then reports which
modules it loaded and whether cyclic GC is back on.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from tests.mcpservers._support import ROOT, START_TIMEOUT_S

SCENARIO = str(ROOT / "mcpservers" / "scenarios" / "k8s-db-auth-crashloop")

# What a stdio start must not load, and what loads it on first use instead:
#   httpx: logs' Loki and metrics' Prometheus back ends (with its CLI extras, ~0.3 s of CPU);
#   rich, pygments: the SDK's log handler when rich is installed (prepare_start() declines it);
#   cryptography.x509: netcheck's certificate reader, on the first TLS probe.
HEAVY = ("httpx", "rich", "pygments", "cryptography.x509")

SERVERS = {
    "actions": ["--ledger", "{tmp}/ledger.jsonl"],
    "kubernetes": ["--scenario", SCENARIO],
    "logs": ["--scenario", SCENARIO],
    "metrics": ["--scenario", SCENARIO],
    "netcheck": ["--allow-net", "127.0.0.1/32", "--allow", "127.0.0.1"],
    "runbooks": ["--scenario", SCENARIO],
}

_RUN_AND_REPORT = """\
import gc, json, runpy, sys
sys.argv = sys.argv[1:]  # [module, *arguments], as `python -m module arguments` sees them
try:
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
finally:
    with open(REPORT, "w") as f:
        loaded = [name for name, module in sys.modules.items() if module is not None]
        json.dump({"modules": loaded, "gc": gc.isenabled()}, f)
"""

_MESSAGES = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


@pytest.mark.parametrize("name", sorted(SERVERS))
def test_stdio_start_imports_no_heavy_module(name, tmp_path):
    report = tmp_path / "report.json"
    args = [a.replace("{tmp}", str(tmp_path)) for a in SERVERS[name]]
    code = _RUN_AND_REPORT.replace("REPORT", repr(str(report)))
    proc = subprocess.Popen(
        [sys.executable, "-c", code, f"mcpservers.{name}", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers = []
    watchdog = threading.Timer(START_TIMEOUT_S, proc.kill)  # bounds every read below
    watchdog.start()
    try:
        # One request at a time, and end of input only after the last answer: the SDK stops
        # at end of input without answering what is still in flight.
        for message in _MESSAGES:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            if "id" in message:
                answers.append(json.loads(proc.stdout.readline() or "{}"))
        _, stderr = proc.communicate(
            timeout=START_TIMEOUT_S
        )  # closes stdin: the server stops
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()
    assert [a.get("id") for a in answers] == [1, 2], stderr
    assert answers[1]["result"]["tools"], answers[1]
    loaded = json.loads(report.read_text())
    heavy = [m for m in HEAVY if m in loaded["modules"]]
    assert heavy == [], f"a stdio start of {name} imported {heavy}"
    assert "mcp" in loaded["modules"]  # the report did come from a real SDK start
    assert loaded["gc"] is True, "run() must turn cyclic GC back on"
