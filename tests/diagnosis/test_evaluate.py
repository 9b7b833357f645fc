"""manage.py evaluate: Daphne, a threads-pool worker and the stdio MCP servers as real children on
the test database; the bundled scenarios all count, another folder runs through a registry of its
own, and the scoring rules on hand-made reports."""

import asyncio
import dataclasses
import io
import json
import re
import shutil
import time
from pathlib import Path

import httpx
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from diagnosis import evaluation
from diagnosis.models import ApiToken, DiagnosisTask
from diagnosis.registry import bundled_scenarios_dir, demo_environment_name
from tests.livestack import redis_url_with_db

BROKER_DB = 10
SCENARIOS = sorted(
    p.parent.name for p in bundled_scenarios_dir().glob("*/expected.json")
)
MIN_COUNTED = 23
live = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def private_broker(settings):
    url = redis_url_with_db(BROKER_DB)
    settings.REDIS_URL = settings.CELERY_BROKER_URL = url
    return url


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_evaluate_json_counts_the_bundled_scenarios(private_broker):
    """Issue 13's bar: at least 23 of the 25 bundled scenarios right, each with cited evidence."""
    out = io.StringIO()
    err = io.StringIO()
    try:
        call_command(
            "evaluate",
            "--json",
            "--min-counted",
            str(MIN_COUNTED),
            stdout=out,
            stderr=err,
        )
    except CommandError as exc:
        raise AssertionError(f"{exc}\n{out.getvalue()}\n{err.getvalue()}") from exc
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    *scenarios, last = lines
    assert [s["scenario"] for s in scenarios] == SCENARIOS
    counted = [s for s in scenarios if s["counted"]]
    assert len(counted) >= MIN_COUNTED, [s for s in scenarios if not s["counted"]]
    for s in scenarios:
        assert s["environment"] == demo_environment_name(s["scenario"])
        assert s["tool_calls"] > 0 and s["wall_s"] > 0, s
        assert len(s["hypotheses"]) <= 3
        for h in s["hypotheses"]:
            assert set(h) == {"layer", "stage", "reason", "component", "confidence"}
    for s in counted:
        assert s["state"] == "succeeded" and s["rank"] == 1 and s["why"] is None, s
        top = s["hypotheses"][0]
        assert top["layer"] == s["expected"]["layer"]
        assert top["component"] in s["expected"]["components"]
        assert re.fullmatch(r"[0-9a-f]{16}", s["signal_span"]), s  # an OpenTelemetry id
    totals = last["totals"]
    assert totals["scenarios"] == len(SCENARIOS)
    assert totals["counted"] == len(counted)
    assert totals["top3_hits"] >= totals["counted"]
    # Through the API, as the evaluation tenant; its token is revoked once the run is over.
    assert DiagnosisTask.objects.filter(tenant__slug="evaluation").count() == len(
        SCENARIOS
    )
    assert not ApiToken.objects.filter(
        membership__tenant__slug="evaluation", revoked_at__isnull=True
    ).exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_evaluate_another_folder_prints_each_scenario_and_fails_on_a_miss(
    private_broker, tmp_path
):
    for name in ("dns-nxdomain", "tls-expired"):
        shutil.copytree(bundled_scenarios_dir() / name, tmp_path / name)
    # The diagnosis of tls-expired is right; this copy expects another answer.
    expected = tmp_path / "tls-expired" / "expected.json"
    doc = json.loads(expected.read_text())
    doc["root_cause_layer"] = "connect"
    expected.write_text(json.dumps(doc))
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as refused:
        call_command("evaluate", "--scenarios", str(tmp_path), stdout=out, stderr=err)
    printed = f"{out.getvalue()}\n{err.getvalue()}"
    assert refused.value.returncode == 1, (refused.value, printed)
    # A failed evaluation keeps the children's logs (and the registry file it gave them).
    kept = Path(err.getvalue().split("children's logs kept in ", 1)[1].strip())
    try:
        assert (kept / "web.log").is_file()
        assert "scenarios_dir" in (kept / "servers.toml").read_text()
    finally:
        shutil.rmtree(kept)
    lines = out.getvalue().splitlines()
    assert len(lines) == 5, printed
    header, dns, tls, last, top3 = lines
    assert header.split()[:7] == [
        "scenario",
        "expected",
        "found",
        "stage",
        "rank",
        "calls",
        "wall",
    ]
    assert dns.split()[:6] == [
        "dns-nxdomain",
        "dns",
        "dns",
        "api.payments.internal",
        "-",
        "1",
    ]
    assert dns.endswith("ok"), printed
    assert tls.split()[:3] == ["tls-expired", "connect", "tls"]
    assert tls.split()[5] == "-" and "not the root cause" in tls
    assert last == "1/2"
    assert top3 == "top-3 hits: 1/2"


def test_evaluate_refuses_a_folder_without_scenarios(tmp_path):
    with pytest.raises(CommandError, match="no scenario"):
        call_command("evaluate", "--scenarios", str(tmp_path))


# --- scoring ---------------------------------------------------------------------------------

SCENARIO = evaluation.Scenario(
    folder="tls-expired",
    environment="demo-000000",
    expected_layer="tls",
    components=("api.payments.internal", "payments-api"),
    signal="certificate_expired",
)


def _hypothesis(layer, component, *spans, status="confirmed"):
    return {
        "layer": layer,
        "component": component,
        "status": status,
        "confidence": 0.9,
        "stage": None,
        "reason": None,
        "evidence": [{"span_id": s} for s in spans],
    }


def _run(hypotheses, spans, state="succeeded"):
    return evaluation.Run(
        scenario=SCENARIO,
        task_id="t",
        state=state,
        report={"hypotheses": hypotheses, "tool_calls": len(spans)},
        spans=spans,
        wall_s=1.0,
    )


# Evidence cites a span's span_id; its row id ("id" in the trace) is another value.
SIGNAL_SPAN = {
    "id": "row-1",
    "span_id": "s1",
    "state": "ok",
    "result_preview": '{"reason": "certificate_expired"}',
}
OTHER_SPAN = {
    "id": "row-2",
    "span_id": "s2",
    "state": "ok",
    "result_preview": '{"reason": "none"}',
}


def test_score_counts_a_right_top_hypothesis_citing_the_signal():
    score = evaluation.score(
        _run(
            [_hypothesis("tls", "payments-api", "s2", "s1")], [SIGNAL_SPAN, OTHER_SPAN]
        )
    )
    assert score.counted and score.rank == 1 and score.signal_span == "s1"


@pytest.mark.parametrize(
    ("hypotheses", "spans", "state", "rank", "why"),
    [
        # Right layer and component, but what it cites never showed the signal.
        ([_hypothesis("tls", "payments-api", "s2")], [SIGNAL_SPAN, OTHER_SPAN], "succeeded", 1, "carries"),
        # A failed span's text does not count, even with the signal in it.
        ([_hypothesis("tls", "payments-api", "s1")], [{**SIGNAL_SPAN, "state": "error"}], "succeeded", 1, "carries"),
        # The right answer second: ranked, not counted.
        ([_hypothesis("dns", "payments-api", "s1"), _hypothesis("tls", "payments-api", "s1")], [SIGNAL_SPAN], "succeeded", 2, "not the root cause"),
        # Right layer, a component not among the accepted names.
        ([_hypothesis("tls", "checkout", "s1")], [SIGNAL_SPAN], "succeeded", None, "not the root cause"),
        # A ruled-out hypothesis is no answer, wherever it sorts.
        ([_hypothesis("tls", "payments-api", "s1", status="ruled_out")], [SIGNAL_SPAN], "succeeded", None, "no hypothesis"),
        # A task that did not succeed does not count, whatever its partial report says.
        ([_hypothesis("tls", "payments-api", "s1")], [SIGNAL_SPAN], "timed_out", 1, "task timed_out"),
    ],
)  # fmt: skip
def test_score_misses(hypotheses, spans, state, rank, why):
    score = evaluation.score(_run(hypotheses, spans, state))
    assert not score.counted
    assert score.rank == rank
    assert why in score.why


def test_score_reads_the_full_result_when_the_preview_lacks_the_signal():
    span = {
        "id": "row-1",
        "span_id": "s1",
        "state": "ok",
        "result_preview": "{...",
        "result": {"x": "certificate_expired"},
    }
    assert evaluation.score(
        _run([_hypothesis("tls", "payments-api", "s1")], [span])
    ).counted


@pytest.mark.parametrize(
    "line",
    [
        'level=info msg="Desired change: DELETE certificate_expired A" owner=x',
        "certificate_expired → rejected",
    ],
)
def test_score_reads_a_signal_the_results_json_escapes(line):
    # The signal is copied from the line as the service wrote it; the stored result's JSON
    # escapes its quotes and non-ASCII characters.
    scenario = dataclasses.replace(SCENARIO, signal=line.split(" owner")[0])
    span = {
        "id": "row-1",
        "span_id": "s1",
        "state": "ok",
        "result_preview": "{...",
        "result": {"lines": [{"msg": line}]},
    }
    run = dataclasses.replace(
        _run([_hypothesis("tls", "payments-api", "s1")], [span]), scenario=scenario
    )
    assert evaluation.score(run).counted
    # ... and a signal the result does not hold is still not found.
    missing = dataclasses.replace(scenario, signal='msg="Desired change: CREATE')
    assert not evaluation.score(dataclasses.replace(run, scenario=missing)).counted


def test_expected_layers_are_normalized(tmp_path):
    shutil.copytree(
        bundled_scenarios_dir() / "pool-exhaustion", tmp_path / "pool-exhaustion"
    )
    (scenario,) = evaluation.load_scenarios(tmp_path)
    assert scenario.expected_layer == "application"  # expected.json says "app"
    assert scenario.environment == demo_environment_name("pool-exhaustion")


def _quota_server(refusals: int):
    """An API that refuses the first `refusals` creates with 429 + Retry-After: 1."""
    calls: list[float] = []

    def handle(request: httpx.Request) -> httpx.Response:
        calls.append(time.monotonic())
        if len(calls) <= refusals:
            return httpx.Response(
                429,
                headers={"Retry-After": "1"},
                json={"error": "too many incidents opened; retry in 1 s"},
            )
        return httpx.Response(201, json={"task": {"id": "t-1"}})

    return httpx.MockTransport(handle), calls


def test_the_driver_asks_again_after_retry_after_when_over_the_quota(tmp_path):
    transport, calls = _quota_server(refusals=2)
    scenario = evaluation.Scenario(
        folder=str(tmp_path),
        environment="demo-x",
        expected_layer="application",
        components=("a",),
        signal="s",
    )

    async def go():
        async with httpx.AsyncClient(
            transport=transport, base_url="http://t"
        ) as client:
            loop = asyncio.get_running_loop()
            return await evaluation._create(client, scenario, deadline=loop.time() + 30)

    response = asyncio.run(go())
    assert response.status_code == 201
    assert len(calls) == 3
    assert calls[1] - calls[0] >= 0.9 and calls[2] - calls[1] >= 0.9


def test_the_driver_gives_up_on_the_quota_at_its_deadline(tmp_path):
    transport, calls = _quota_server(refusals=100)
    scenario = evaluation.Scenario(
        folder=str(tmp_path),
        environment="demo-x",
        expected_layer="application",
        components=("a",),
        signal="s",
    )

    async def go():
        async with httpx.AsyncClient(
            transport=transport, base_url="http://t"
        ) as client:
            loop = asyncio.get_running_loop()
            return await evaluation._create(
                client, scenario, deadline=loop.time() + 1.5
            )

    response = asyncio.run(go())
    assert response.status_code == 429
    assert len(calls) == 2


def test_score_finds_a_signal_with_quotes_inside_a_json_answer():
    # A logs answer is JSON: a quote in the line is escaped in the preview, twice in the result.
    signal = 'refusing writes to "ledger" until it is vacuumed'
    line = json.dumps({"message": f"FATAL: {signal}"})
    span = {"id": "row-1", "span_id": "s1", "state": "ok", "result_preview": line}
    scenario = evaluation.Scenario(
        folder="x",
        environment="demo-000000",
        expected_layer="tls",
        components=("payments-api",),
        signal=signal,
    )
    run = _run([_hypothesis("tls", "payments-api", "s1")], [span])
    assert evaluation.score(dataclasses.replace(run, scenario=scenario)).counted
    # The same words in the full result only (a text field holding JSON).
    deep = {**span, "result_preview": "{...", "result": {"text": line}}
    run = _run([_hypothesis("tls", "payments-api", "s1")], [deep])
    assert evaluation.score(dataclasses.replace(run, scenario=scenario)).counted
    # Other words do not count.
    assert not evaluation.carries(span, 'refusing writes to "orders"')
