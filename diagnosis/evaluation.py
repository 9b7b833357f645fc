"""Scenario evaluation (issue 9 item 13): drive each scenario through the HTTP API, score the report.

A scenario folder holds incident.json and expected.json (root_cause_layer, root_cause_component:
the accepted names, root_cause_signal). It counts only when its task succeeded and the top
hypothesis has the expected layer and an accepted component and cites a span whose stored
result carries the signal. The driver is an API client like any other: it opens the demo
incident, denies every approval the diagnosis asks for (an evaluation never acts on systems),
and reads the snapshot and the trace. `manage.py evaluate` and bench/engine.py use it.
"""

import asyncio
import io
import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from django.core.management import call_command
from django.utils import timezone

from diagnosis.models import ApiToken
from diagnosis.principals import token_hash
from diagnosis.registry import demo_environments
from diagnosis.states import TERMINAL, TaskState
from reasoning import layers

TERMINAL_STATES = frozenset(str(s) for s in TERMINAL)
POLL_SECONDS = 0.2
# After a timeout's cancel: how long the task gets to reach a terminal state.
CANCEL_GRACE_SECONDS = 10.0
DENY_REASON = "evaluation run: no action is taken on systems"


@dataclass(frozen=True)
class Scenario:
    folder: str
    environment: str  # the demo environment's neutral name
    expected_layer: str
    components: tuple[str, ...]
    signal: str
    # Kubernetes scenarios: the lifecycle stage and Kubernetes reason (reported, not scored).
    stage: str | None = None
    reason: str | None = None


@dataclass
class Run:
    """What the API showed of one scenario's diagnosis."""

    scenario: Scenario
    task_id: str | None = None
    state: str = "not_started"
    report: dict[str, Any] = field(default_factory=dict)
    spans: list[dict[str, Any]] = field(default_factory=list)
    created_at: float = 0.0  # time.time() just before the create request
    wall_s: float = 0.0  # create request to terminal state (or to giving up)
    denied: int = 0  # approvals this driver denied
    error: str | None = None


@dataclass(frozen=True)
class Score:
    counted: bool
    rank: int | None  # 1-based rank of the right answer among hypotheses not ruled out
    found_layer: str | None
    found_component: str | None
    signal_span: (
        str | None
    )  # the cited span (its span_id) whose result carries the signal
    why: str  # "" when counted


# --- scenarios -----------------------------------------------------------------------------------


def load_scenarios(root: Path) -> list[Scenario]:
    """The scenarios under `root` that have an expected answer, by folder name.

    Raises:
        ValueError: a folder's incident.json or expected.json is unusable.
    """
    out = []
    for env in demo_environments(root):
        assert env.scenario is not None
        path = root / env.scenario / "expected.json"
        if not path.is_file():
            continue
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            layer = layers.normalize(doc["root_cause_layer"])
            components = doc["root_cause_component"]
            if isinstance(components, str):
                components = [components]
            signal = doc["root_cause_signal"]
            stage, reason = doc.get("root_cause_stage"), doc.get("root_cause_reason")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path}: unusable: {exc!r}") from exc
        if layer is None or not isinstance(signal, str) or not signal:
            raise ValueError(f"{path}: needs a known root_cause_layer and a signal")
        if not all(isinstance(c, str) for c in components):
            raise ValueError(f"{path}: root_cause_component must be names")
        if not all(v is None or isinstance(v, str) for v in (stage, reason)):
            raise ValueError(
                f"{path}: root_cause_stage and root_cause_reason are strings"
            )
        out.append(
            Scenario(
                folder=env.scenario,
                environment=env.name,
                expected_layer=layer,
                components=tuple(components),
                signal=signal,
                stage=stage,
                reason=reason,
            )
        )
    return sorted(out, key=lambda s: s.folder)


def registry_text(root: Path) -> str:
    """A registry file whose demo environments are the scenarios under `root` (and nothing else),
    with the bundled file's timeouts."""
    # A JSON string is a valid TOML basic string.
    return (
        "[defaults]\nconnect_timeout = 20\ncall_timeout = 30\nmax_concurrency = 4\n\n"
        f"[demo]\nscenarios_dir = {json.dumps(str(root.resolve()))}\n"
    )


# --- the evaluator's identity --------------------------------------------------------------------


def evaluator_token_create(*, tenant: str, username: str) -> str:
    """A new API token of an approver `username` in `tenant` (both made when absent); its secret.

    Raises:
        CommandError: `username` already has another role in `tenant`.
    """
    out = io.StringIO()
    call_command(
        "create_api_token",
        tenant=tenant,
        user=username,
        role="approver",
        name="evaluate",
        stdout=out,
    )
    return out.getvalue().strip().splitlines()[-1]


def evaluator_token_revoke(*, secret: str) -> None:
    ApiToken.objects.filter(token_hash=token_hash(secret)).update(
        revoked_at=timezone.now()
    )


# --- the driver ----------------------------------------------------------------------------------


async def _create(
    client: httpx.AsyncClient, scenario: Scenario, *, deadline: float
) -> httpx.Response:
    """Open the scenario's demo incident; over the tenant's quota (429) ask again after the
    server's Retry-After, as any client should, until `deadline`."""
    loop = asyncio.get_running_loop()
    while True:
        response = await client.post(
            "/api/incidents/demo", json={"environment": scenario.environment}
        )
        if response.status_code != 429:
            return response
        try:
            wait = max(1.0, float(response.headers.get("Retry-After", "1")))
        except ValueError:
            wait = 1.0
        if loop.time() + wait > deadline:
            return response
        await asyncio.sleep(wait)


async def run_scenario(
    client: httpx.AsyncClient,
    scenario: Scenario,
    *,
    timeout: float,
    poll: float = POLL_SECONDS,
) -> Run:
    """Open the scenario's demo incident and follow its task to the end over the API.

    A task that is still going after `timeout` seconds is cancelled. Never raises for what the
    server answers: a refusal or a transport error is the Run's `error`.
    """
    run = Run(scenario=scenario)
    loop = asyncio.get_running_loop()
    run.created_at = time.time()
    started = loop.time()
    try:
        response = await _create(client, scenario, deadline=started + timeout)
        if response.status_code != 201:
            run.error = f"create: HTTP {response.status_code} {response.text[:300]}"
            return run
        run.task_id = str(response.json()["task"]["id"])
        task = await _follow(client, run, deadline=started + timeout, poll=poll)
        run.wall_s = loop.time() - started
        run.state = str(task.get("state", "unknown"))
        run.report = task.get("report") or {}
        trace = await client.get(f"/api/tasks/{run.task_id}/trace")
        if trace.status_code == 200:
            run.spans = list(trace.json().get("spans", []))
            await _fetch_cited_results(client, run)
        else:
            run.error = f"trace: HTTP {trace.status_code}"
    except (httpx.HTTPError, ValueError, KeyError) as exc:
        run.wall_s = loop.time() - started
        run.error = f"{type(exc).__name__}: {exc}"[:300]
    return run


async def _fetch_cited_results(client: httpx.AsyncClient, run: Run) -> None:
    """Give the top hypothesis' cited spans their full stored result when the trace's preview
    (its first characters) does not show the signal: a signal may sit deep in a long answer."""
    ranked = standing(run.report)
    cited = (
        {e.get("span_id") for e in (ranked[0].get("evidence") or [])}
        if ranked
        else set()
    )
    for span in run.spans:
        if span.get("span_id") not in cited or run.scenario.signal in (
            span.get("result_preview") or ""
        ):
            continue
        response = await client.get(f"/api/tasks/{run.task_id}/spans/{span['span_id']}")
        if response.status_code == 200:
            span["result"] = response.json().get("result")


async def _follow(
    client: httpx.AsyncClient, run: Run, *, deadline: float, poll: float
) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    cancelled = False
    denied: set[str] = set()
    while True:
        response = await client.get(f"/api/tasks/{run.task_id}")
        response.raise_for_status()
        task: dict[str, Any] = response.json()
        state = task["state"]
        if state in TERMINAL_STATES:
            return task
        if state == TaskState.WAITING_APPROVAL:
            for approval in task.get("approvals", []):
                if approval["status"] == "pending" and approval["id"] not in denied:
                    await _deny(client, approval["id"])
                    denied.add(approval["id"])
                    run.denied += 1
        if not cancelled and loop.time() >= deadline:
            cancelled = True
            run.error = "timed out; cancelled"
            await client.post(f"/api/tasks/{run.task_id}/cancel", json={})
            deadline = loop.time() + CANCEL_GRACE_SECONDS
        elif cancelled and loop.time() >= deadline:
            return task
        await asyncio.sleep(poll)


async def _deny(client: httpx.AsyncClient, approval_id: str) -> None:
    response = await client.post(
        f"/api/approvals/{approval_id}/decision",
        json={"decision": "deny", "reason": DENY_REASON},
    )
    # 409: decided or expired meanwhile; the task moves on either way.
    if response.status_code not in (200, 409):
        response.raise_for_status()


async def run_all(
    base_url: str,
    secret: str,
    scenarios: Sequence[Scenario],
    *,
    concurrency: int,
    timeout: float,
    poll: float = POLL_SECONDS,
) -> list[Run]:
    """Every scenario, `concurrency` at a time; the runs in the scenarios' order."""
    gate = asyncio.Semaphore(max(1, concurrency))
    async with httpx.AsyncClient(
        base_url=base_url,
        headers={"Authorization": f"Bearer {secret}"},
        timeout=30,
    ) as client:

        async def one(scenario: Scenario) -> Run:
            async with gate:
                return await run_scenario(client, scenario, timeout=timeout, poll=poll)

        return list(await asyncio.gather(*(one(s) for s in scenarios)))


# --- scoring and output --------------------------------------------------------------------------


def _written(signal: str) -> tuple[str, ...]:
    """`signal` as it reads in plain text, inside a JSON string, and inside a JSON string's JSON
    text (a logs answer is JSON, so a quote or newline in a log line is escaped once or twice)."""
    once = json.dumps(signal, ensure_ascii=False)[1:-1]
    twice = json.dumps(once, ensure_ascii=False)[1:-1]
    return tuple(dict.fromkeys((signal, once, twice)))


def carries(span: dict[str, Any], signal: str) -> bool:
    """Whether a trace span's stored result (its preview, or the result itself) shows `signal`.

    The result is read as its JSON text and as its text values: a log line's `msg="…"` or a
    non-ASCII character is escaped in JSON, where a signal copied from the line would not match."""
    forms = _written(signal)
    preview = span.get("result_preview") or ""
    if any(form in preview for form in forms):
        return True
    result = span.get("result")
    if result is None:
        return False
    texts = [json.dumps(result, ensure_ascii=False), *_texts(result)]
    return any(form in text for text in texts for form in forms)


def _texts(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys and values, at any depth."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def standing(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's hypotheses that are not ruled out, in the report's rank order."""
    return [h for h in report.get("hypotheses") or [] if h.get("status") != "ruled_out"]


def score(run: Run) -> Score:
    scenario = run.scenario
    ranked = standing(run.report)

    def is_right(h: dict[str, Any]) -> bool:
        return (
            layers.normalize(h.get("layer")) == scenario.expected_layer
            and h.get("component") in scenario.components
        )

    rank = next((i for i, h in enumerate(ranked, 1) if is_right(h)), None)
    top = ranked[0] if ranked else None
    layer = top.get("layer") if top else None
    component = top.get("component") if top else None

    def miss(why: str) -> Score:
        return Score(
            counted=False,
            rank=rank,
            found_layer=layer,
            found_component=component,
            signal_span=None,
            why=why,
        )

    if run.error and run.state not in TERMINAL_STATES:
        return miss(run.error)
    if run.state != TaskState.SUCCEEDED:
        return miss(f"task {run.state}")
    if top is None:
        return miss("no hypothesis")
    if rank != 1:
        return miss("top hypothesis is not the root cause")
    # Evidence cites a span by its OpenTelemetry span_id (the trace's `span_id`, not its `id`).
    spans = {s.get("span_id"): s for s in run.spans}
    for evidence in top.get("evidence") or []:
        span = spans.get(evidence.get("span_id"))
        if span and span.get("state") == "ok" and carries(span, scenario.signal):
            return Score(
                counted=True,
                rank=rank,
                found_layer=layer,
                found_component=component,
                signal_span=str(span["span_id"]),
                why="",
            )
    return miss(f"no cited span carries {scenario.signal!r}")


def tool_calls(run: Run) -> int:
    value = run.report.get("tool_calls")
    return value if isinstance(value, int) and value else len(run.spans)


def table(runs: Sequence[Run]) -> str:
    """One line per scenario and a last line `k/n`."""
    rows = [("scenario", "expected", "found", "stage", "rank", "calls", "wall", "note")]
    counted = top3 = 0
    for run in runs:
        s = score(run)
        counted += s.counted
        top3 += s.rank is not None and s.rank <= 3
        found = f"{s.found_layer or '-'} {s.found_component or '-'}"
        ranked = standing(run.report)
        stage = "/".join(
            str(ranked[0].get(key))
            for key in ("stage", "reason")
            if ranked and ranked[0].get(key)
        )
        rows.append(
            (
                run.scenario.folder,
                run.scenario.expected_layer,
                found,
                stage or "-",
                str(s.rank) if s.rank else "-",
                str(tool_calls(run)),
                f"{run.wall_s:.1f}s",
                "ok" if s.counted else s.why,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(r[:-1], widths, strict=True))
        + "  "
        + r[-1]
        for r in rows
    ]
    return "\n".join(
        [*lines, f"{counted}/{len(runs)}", f"top-3 hits: {top3}/{len(runs)}"]
    )


def run_to_dict(run: Run) -> dict[str, Any]:
    s = score(run)
    return {
        "scenario": run.scenario.folder,
        "environment": run.scenario.environment,
        "task_id": run.task_id,
        "state": run.state,
        "counted": s.counted,
        "why": s.why or None,
        "expected": {
            "layer": run.scenario.expected_layer,
            "components": list(run.scenario.components),
            "signal": run.scenario.signal,
            "stage": run.scenario.stage,
            "reason": run.scenario.reason,
        },
        "rank": s.rank,
        "signal_span": s.signal_span,
        "hypotheses": [
            {
                "layer": h.get("layer"),
                "stage": h.get("stage"),
                "reason": h.get("reason"),
                "component": h.get("component"),
                "confidence": h.get("confidence"),
            }
            for h in standing(run.report)[:3]
        ],
        "tool_calls": tool_calls(run),
        "approvals_denied": run.denied,
        "wall_s": round(run.wall_s, 2),
    }


def totals(runs: Sequence[Run], *, elapsed_s: float) -> dict[str, Any]:
    scores = [score(r) for r in runs]
    n = len(runs)
    top3 = sum(1 for s in scores if s.rank is not None and s.rank <= 3)
    counted = sum(s.counted for s in scores)
    return {
        "scenarios": n,
        "counted": counted,
        "top1_rate": round(counted / n, 3) if n else 0.0,
        "top3_hits": top3,
        "top3_rate": round(top3 / n, 3) if n else 0.0,
        "elapsed_s": round(elapsed_s, 2),
    }
