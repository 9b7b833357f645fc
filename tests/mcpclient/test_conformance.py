"""The official MCP conformance suite (npm @modelcontextprotocol/conformance, on Node 22) against our client.

For each client scenario the suite starts a scenario server and runs ``peers/conformance_client.py <url>``
(our client as the program under test), then scores what it saw in ``checks.json``. Its servers listen on
every interface, so each run happens in a private network namespace with only loopback. The runs are
made in one module fixture, PARALLEL at a time; each test reads one run's results. The auth scenarios'
client configures mcpclient's OAuth (the suite plays the authorization server; its consent is a redirect).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .peers.conformance import FORCED_VERSION, Run, collect, start
from .peers.conformance_client import REFUSALS

if TYPE_CHECKING:
    import subprocess
    from pathlib import Path

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
    # Issue 22 item 3: elicitation answered with the schema's defaults (SEP-1034), MRTR request state.
    "elicitation-sep1034-client-defaults@2025-11-25": (
        "elicitation-sep1034-client-defaults",
        "2025-11-25",
        [],
    ),
    "sep-2322-client-request-state@2026-07-28": (
        "sep-2322-client-request-state",
        "2026-07-28",
        [],
    ),
}


# The auth/* scenarios (issue 22): scenario -> the versions the suite names for it. Extensions run at
# 2026-07-28 with --force. Not here: DPoP (auth/dpop, auth/dpop-nonce), enterprise-managed
# authorization and workload-identity JWT bearer, which mcpclient does not implement.
AUTH = {
    "auth/metadata-default": ("2025-11-25", "2026-07-28"),
    "auth/metadata-var1": ("2025-11-25", "2026-07-28"),
    "auth/metadata-var2": ("2025-11-25", "2026-07-28"),
    "auth/metadata-var3": ("2025-11-25", "2026-07-28"),
    "auth/basic-cimd": ("2025-11-25", "2026-07-28"),
    "auth/scope-from-www-authenticate": ("2025-11-25", "2026-07-28"),
    "auth/scope-from-scopes-supported": ("2025-11-25", "2026-07-28"),
    "auth/scope-omitted-when-undefined": ("2025-11-25", "2026-07-28"),
    "auth/scope-step-up": ("2025-11-25", "2026-07-28"),
    "auth/scope-retry-limit": ("2025-11-25", "2026-07-28"),
    "auth/token-endpoint-auth-basic": ("2025-06-18", "2025-11-25", "2026-07-28"),
    "auth/token-endpoint-auth-post": ("2025-06-18", "2025-11-25", "2026-07-28"),
    "auth/token-endpoint-auth-none": ("2025-06-18", "2025-11-25", "2026-07-28"),
    "auth/pre-registration": ("2025-11-25", "2026-07-28"),
    "auth/2025-03-26-oauth-metadata-backcompat": ("2025-03-26",),
    "auth/2025-03-26-oauth-endpoint-fallback": ("2025-03-26",),
    "auth/resource-mismatch": ("2026-07-28",),
    "auth/offline-access-scope": ("2026-07-28",),
    "auth/offline-access-not-supported": ("2026-07-28",),
    "auth/authorization-server-migration": ("2026-07-28",),
    "auth/iss-supported": ("2026-07-28",),
    "auth/iss-not-advertised": ("2026-07-28",),
    "auth/iss-supported-missing": ("2026-07-28",),
    "auth/iss-wrong-issuer": ("2026-07-28",),
    "auth/iss-unexpected": ("2026-07-28",),
    "auth/iss-normalized": ("2026-07-28",),
    "auth/metadata-issuer-mismatch": ("2026-07-28",),
}
AUTH_EXTENSIONS = ("auth/client-credentials-basic", "auth/client-credentials-jwt")
for _scenario, _versions in AUTH.items():
    for _version in _versions:
        RUNS[f"{_scenario}@{_version}"] = (_scenario, _version, [])
FORCED = set()
for _scenario in AUTH_EXTENSIONS:
    RUNS[f"{_scenario}@{FORCED_VERSION}"] = (_scenario, FORCED_VERSION, [])
    FORCED.add(f"{_scenario}@{FORCED_VERSION}")
# Runs at once: each is a Node process and our client, on a shared machine.
PARALLEL = 8
# 59 runs, PARALLEL at a time, all made by the first test's fixture: more than the default 300 s
# when the machine is busy.
pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Run]:
    results: dict[str, Run] = {}
    pending = list(RUNS.items())
    active: list[tuple[str, subprocess.Popen[str], Path]] = []
    while pending or active:
        while pending and len(active) < PARALLEL:
            run_id, (scenario, version, flags) = pending.pop(0)
            out = tmp_path_factory.mktemp(scenario.replace("/", "-"))
            proc = start(scenario, version, flags, out, force=run_id in FORCED)
            active.append((run_id, proc, out))
        run_id, proc, out = active.pop(0)
        results[run_id] = collect(proc, out)
    return results


@pytest.mark.parametrize("run_id", list(RUNS))
def test_client_scenario_passes(runs, run_id):
    run = runs[run_id]
    problems = run.problems()
    assert not problems, "\n".join(problems) + "\n" + run.summary()
    if scenario_of(run_id) == "json-schema-ref-no-deref":
        assert "validated locally, sent" in run.driver_output, run.summary()
    if scenario_of(run_id) in REFUSALS:
        assert "refused as expected" in run.driver_output, run.summary()


def scenario_of(run_id: str) -> str:
    return RUNS[run_id][0]
