"""Secrets in a demo scenario's logs reach no sink of a real diagnosis, and top_errors' grouping
keys reach them unmasked: Daphne and a Celery worker on the test database, the bundled logs
server over stdio, a scenario folder of our own whose error lines carry tests/reasoning/corpus.py.

Every place the diagnosis writes is grepped for every secret: the spans table, the span API and
the trace, the events table and the SSE stream, the report (JSON and Markdown), the artifact
files and the web and worker logs.
"""

import json
import re
from pathlib import Path

import httpx
import pytest

from diagnosis.events import TERMINAL_EVENTS
from diagnosis.models import DiagnosisTask, TaskEvent, ToolCallSpan
from diagnosis.registry import demo_environment_name
from mcpservers.logs.server import error_signature
from reasoning.masking import MASK
from tests import factories
from tests.livestack import wait_for, web_and_worker
from tests.reasoning.corpus import SECRETS

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BROKER_DB = 14
SLUG = "secrets-in-logs"
SERVICE = "ledger-sync"
GROUPS = 8  # under the logs server's 10 top_errors groups, so every one is returned
# What each group's error line says before its secrets (no digits: they would be grouped away).
HEADS = (
    "vault login failed",
    "backup job rejected",
    "callback refused",
    "config reload failed",
    "upstream auth error",
    "db connect failed",
    "key load failed",
    "token exchange failed",
)


DSN = next(case for case in SECRETS if case.shape == "dsn")


def _needles(secret: str) -> list[str]:
    """The secret's long alphanumeric runs: a leak of any part of it shows (a cookie header's
    second cookie, a key's second half), the names around it (`sessionid=`) do not count."""
    return re.findall(r"[A-Za-z0-9]{10,}", secret)


def _messages() -> list[str]:
    """GROUPS error messages, each holding every GROUPS-th corpus secret."""
    chunks: list[list[str]] = [[] for _ in range(GROUPS)]
    for index, case in enumerate(SECRETS):
        chunks[index % GROUPS].append(case.text)
    return [
        f"{head}: " + "\n".join(chunk)
        for head, chunk in zip(HEADS, chunks, strict=True)
    ]


def _scenario(root: Path) -> Path:
    folder = root / SLUG
    folder.mkdir(parents=True)
    (folder / "incident.json").write_text(
        json.dumps(
            {
                "title": "Ledger sync failing",
                "service": SERVICE,
                "severity": "sev2",
                "symptoms": ["ledger-sync jobs fail since the credentials rotation"],
                "started_offset_s": -1800,
                "window": {"start_offset_s": -3000, "end_offset_s": 0},
            }
        )
    )
    lines = [
        {
            "offset_s": -1700 + 40 * group + repeat,
            "service": SERVICE,
            "level": "error",
            "message": message,
            "labels": {"pod": f"{SERVICE}-7c9f-x2kq9", "dsn": DSN.text},
        }
        for group, message in enumerate(_messages())
        for repeat in range(GROUPS - group)  # distinct counts: a stable ranking
    ]
    (folder / "logs.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines)
    )
    return folder


@pytest.fixture
def stack(live_db_env, tmp_path):
    root = tmp_path / "scenarios"
    _scenario(root)
    registry = tmp_path / "servers.toml"
    registry.write_text(f"[demo]\nscenarios_dir = {json.dumps(str(root))}\n")
    artifacts = tmp_path / "artifacts"
    logs = tmp_path / "logs"
    logs.mkdir()
    env = {
        **live_db_env,
        "AGENTOPS_SERVERS": str(registry),
        "AGENTOPS_ARTIFACTS_DIR": str(artifacts),
        # top_errors' answer is larger: it goes to an artifact file, the small ones stay inline.
        "DIAGNOSIS_RESULT_INLINE_BYTES": "4096",
    }
    with web_and_worker(
        env, broker_db=BROKER_DB, log_dir=logs, loglevel="INFO"
    ) as base:
        yield base, artifacts, logs


def _sse(http: httpx.Client, task_id: str) -> str:
    body: list[str] = []
    with http.stream(
        "GET", f"/api/tasks/{task_id}/events", headers={"Accept": "text/event-stream"}
    ) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            body.append(line)
            if (
                line.startswith("event:")
                and line.split(":", 1)[1].strip() in TERMINAL_EVENTS
            ):
                break
    return "\n".join(body)


@pytest.mark.fault(
    "Secrets in 47 shapes (flags, env, URL-encoded, JSON, YAML, headers, DSNs, PEM, cloud keys) in the logs a diagnosis reads",
    kind="limit",
)
def test_no_secret_reaches_any_sink_and_signatures_arrive_unmasked(
    stack, reliability_record
):
    base, artifacts, logs = stack
    tenant = factories.make_tenant("masking")
    token = factories.make_token(factories.make_member(tenant))
    with httpx.Client(
        base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30
    ) as http:
        created = http.post(
            "/api/incidents",
            json={
                "title": "Ledger sync failing",
                "service": SERVICE,
                "severity": "sev2",
                "symptoms": "ledger-sync jobs fail since the credentials rotation",
                "environment": demo_environment_name(SLUG),
            },
        )
        assert created.status_code == 201, created.text
        incident_id, task_id = created.json()["id"], created.json()["task"]["id"]
        final = wait_for(
            lambda: (
                (t := http.get(f"/api/tasks/{task_id}").json())["state"]
                in {"succeeded", "failed", "cancelled"}
                and t
            ),
            timeout=120,
            what="the diagnosis to end",
        )
        spans = list(
            ToolCallSpan.objects.filter(task_id=task_id).order_by("started_at")
        )
        sinks = {
            "task API": json.dumps(final),
            "incident API": http.get(f"/api/incidents/{incident_id}").text,
            "trace API": http.get(f"/api/tasks/{task_id}/trace").text,
            "span API": json.dumps(
                [
                    http.get(f"/api/tasks/{task_id}/spans/{span.id}").json()
                    for span in spans
                ]
            ),
            "report.md": http.get(f"/api/tasks/{task_id}/report.md").text,
            "SSE stream": _sse(http, task_id),
        }
    sinks["spans table"] = json.dumps(
        list(ToolCallSpan.objects.filter(task_id=task_id).values()), default=str
    )
    sinks["events table"] = json.dumps(
        list(TaskEvent.objects.filter(task_id=task_id).values()), default=str
    )
    sinks["report"] = json.dumps(DiagnosisTask.objects.get(pk=task_id).report)
    files = sorted(p for p in artifacts.rglob("*") if p.is_file())
    sinks["artifact files"] = "\n".join(p.read_text(errors="replace") for p in files)
    for log in sorted(logs.iterdir()):
        sinks[log.name] = log.read_text(errors="replace")

    top_errors = [s for s in spans if s.tool_name == "top_errors"]
    assert final["state"] == "succeeded", final
    assert top_errors and files, (spans, files)
    assert all(_needles(case.secret) for case in SECRETS)
    leaks = {
        name: [
            f"{case.shape}: {needle}"
            for case in SECRETS
            for needle in _needles(case.secret)
            if needle in text
        ]
        for name, text in sinks.items()
    }
    assert {name: found for name, found in leaks.items() if found} == {}
    # The greps looked at real content: the masked lines, the stream to its end, the logs.
    assert all(MASK in sinks[name] for name in ("span API", "artifact files"))
    assert "task_completed" in sinks["SSE stream"]
    assert "top_errors" in sinks["events table"]
    assert sinks["worker.log"] and sinks["web.log"]

    # The grouping keys, as the logs server made them: in the span (its preview, in the table and
    # the API) and in the artifact that holds its whole result.
    expected = [error_signature(message)[:1000] for message in _messages()]
    span = top_errors[0]
    stored = json.loads(
        (artifacts / span.result_uri.removeprefix("artifacts:")).read_text()
    )
    top = (stored.get("structured") or stored)["top"]
    assert [group["signature"] for group in top] == expected
    preview = json.loads(sinks["span API"])[spans.index(span)]["result_preview"]
    assert json.dumps(expected[0])[1:-1] in preview, preview
    assert json.dumps(expected[0])[1:-1] in span.result_preview
    # The report names what the planner read around the secrets (the host of a masked DSN):
    # masking kept the surroundings.
    assert "db-1.internal" in sinks["report"] and "db-1.internal" in sinks["report.md"]

    reliability_record(
        observed="no secret of the corpus in the spans table, span API, trace, events, SSE, "
        "report (JSON and Markdown), artifact files or web/worker logs; every top_errors "
        "group's signature arrived as the logs server made it",
        figures={
            "secrets": len(SECRETS),
            "sinks": len(sinks),
            "leaks": 0,
            "signatures": len(expected),
            "spans": len(spans),
        },
    )
