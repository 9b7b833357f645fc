"""/metrics and the worker's exporter (issue 12 item 2): who may scrape, the series and their
labels, and a real Prometheus scraping a real Daphne and a real Celery worker after real
requests, a real SSE stream and a real (engine-free, timed-plan) diagnosis."""

import contextlib
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from diagnosis import lifecycle, tracing
from diagnosis.models import DiagnosisTask, Role
from diagnosis.observability import exposition, metrics
from diagnosis.observability.collectors import stream_lag
from diagnosis.observability.worker import observe_delivery
from diagnosis.principals import ALL_SCOPES
from diagnosis.states import TaskState
from diagnosis.streaming import hub as hub_module
from tests import factories
from tests.livestack import (
    free_port,
    redis_url_with_db,
    stop,
    wait_for,
    wait_for_other_sessions_to_close,
)
from tests.prometheusproc import running_prometheus

METRICS_TOKEN = "mt_9f2c41d7a0b84e5f9c3e2a1b"
BROKER_DB = 13


def _samples(text: str) -> dict[tuple[str, frozenset], float]:
    """{(sample name, labels): value} of an exposition."""
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return out


def _value(text: str, name: str, **labels: str) -> float:
    return _samples(text).get((name, frozenset(labels.items())), 0.0)


def _scrape(client) -> str:
    response = client.get(
        "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
    )
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return response.content.decode()


@pytest.fixture
def scrape_token(settings):
    settings.METRICS_TOKEN = METRICS_TOKEN
    settings.METRICS_ALLOWED_IPS = []


# --- access ------------------------------------------------------------------------------------


def test_metrics_are_off_until_a_token_or_an_allowlist_is_set(client, db, settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_IPS = []

    response = client.get("/metrics")

    assert response.status_code == 403
    assert response.json()["code"] == "metrics_disabled"
    assert "METRICS_TOKEN" in response.json()["error"]


def test_metrics_without_or_with_a_wrong_token_is_401_json(client, db, scrape_token):
    missing = client.get("/metrics")
    wrong = client.get("/metrics", headers={"Authorization": "Bearer not-the-token"})
    basic = client.get("/metrics", headers={"Authorization": f"Basic {METRICS_TOKEN}"})

    for response in (missing, wrong, basic):
        assert response.status_code == 401
        assert response["Content-Type"] == "application/json"
        assert response.json()["code"] == "not_authenticated"
        assert response["WWW-Authenticate"].startswith("Bearer")
    assert METRICS_TOKEN not in missing.content.decode()


def test_metrics_with_the_token_answers_the_exposition(client, db, scrape_token):
    text = _scrape(client)

    assert "# TYPE agentops_http_requests_total counter" in text
    assert "agentops_metrics_database_up 1.0" in text


def test_metrics_other_methods_are_405(client, db, scrape_token):
    response = client.post(
        "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
    )
    assert response.status_code == 405
    assert response["Allow"] == "GET"


@pytest.mark.parametrize(
    ("remote", "allowed"),
    [
        ("10.1.2.3", True),
        ("::ffff:10.9.9.9", True),
        ("fd00::7", True),
        ("192.168.1.5", False),
        ("not-an-address", False),
    ],
)
def test_allowlist_admits_addresses_inside_it(client, db, settings, remote, allowed):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_IPS = ["10.0.0.0/8", "fd00::/8"]

    response = client.get("/metrics", REMOTE_ADDR=remote)

    assert response.status_code == (200 if allowed else 403)
    if not allowed:
        assert response.json()["code"] == "permission_denied"


def test_a_wrong_token_is_refused_even_from_an_allowed_address(client, db, settings):
    settings.METRICS_TOKEN = METRICS_TOKEN
    settings.METRICS_ALLOWED_IPS = ["127.0.0.1"]

    wrong = client.get("/metrics", headers={"Authorization": "Bearer nope"})
    none = client.get("/metrics")

    assert wrong.status_code == 401
    assert none.status_code == 200  # the test client's REMOTE_ADDR is 127.0.0.1


def test_a_forwarded_for_header_does_not_get_past_the_allowlist(client, db, settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_IPS = ["10.0.0.0/8"]

    response = client.get(
        "/metrics", REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR="10.0.0.1"
    )

    assert response.status_code == 403


def test_a_bad_allowlist_entry_is_an_error_not_an_open_door():
    with pytest.raises(ValueError, match="does not appear to be"):
        exposition.check_access(
            authorization=None,
            remote_addr="10.0.0.1",
            token="",
            allowed_ips=["10.0.0.0/33"],
        )


# --- the series ----------------------------------------------------------------------------------


def test_http_requests_are_labelled_by_route_pattern_not_path(
    client, db, scrape_token, token
):
    task_id = uuid.uuid4()
    before = _scrape(client)
    labels = {"route": "/api/tasks/<str:task_id>", "method": "GET", "status": "404"}

    for _ in range(2):
        response = client.get(
            f"/api/tasks/{task_id}", headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status_code == 404
    client.get(f"/no/such/page/{task_id}")
    after = _scrape(client)

    assert _value(after, "agentops_http_requests_total", **labels) == (
        _value(before, "agentops_http_requests_total", **labels) + 2
    )
    duration = {"route": "/api/tasks/<str:task_id>", "method": "GET"}
    assert (
        _value(after, "agentops_http_request_duration_seconds_count", **duration) >= 2
    )
    assert (
        _value(
            after,
            "agentops_http_requests_total",
            route="(unmatched)",
            method="GET",
            status="404",
        )
        >= 1
    )
    assert str(task_id) not in after


def test_tasks_by_state_and_approvals_waiting_come_from_the_database(
    client, tenant, scrape_token
):
    before = _scrape(client)
    factories.make_incident(tenant)
    factories.make_approval(tenant)
    after = _scrape(client)

    def delta(name, **labels):
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert delta("agentops_tasks", state="queued") == 1
    assert delta("agentops_tasks", state="waiting_approval") == 1
    assert delta("agentops_approvals_pending") == 1
    assert _value(after, "agentops_tasks_oldest_queued_age_seconds") >= 0
    # Terminal states are the worker's counter, not a gauge that only grows.
    assert not [
        key
        for key in _samples(after)
        if key[0] == "agentops_tasks" and ("state", "succeeded") in key[1]
    ]


def test_sse_counters_are_the_streams_own(client, db, scrape_token):
    from diagnosis.streaming.metrics import METRICS

    text = _scrape(client)
    samples = _samples(text)

    for field, value in METRICS.snapshot().items():
        name = (
            f"agentops_sse_{field}"
            if field == "streams_open"
            else f"agentops_sse_{field}_total"
        )
        assert samples[(name, frozenset())] == value
    assert ("agentops_sse_stream_lag_max_events", frozenset()) in samples


@pytest.mark.anyio
async def test_stream_lag_is_how_far_a_stream_is_behind_its_feed(anyio_backend):
    hub = hub_module.get_hub()
    try:
        sub = hub_module.Subscriber("t-1", "user", deadline=0)
        sub.last = 3
        feed = hub_module.Feed("t-1", subscribers={sub}, high=10)
        hub.feeds["t-1"] = feed
        hub.streams.add(sub)
        sub.frames.extend([object(), object()])  # two frames pushed, not yet written

        assert stream_lag() == (7, 2)
    finally:
        hub.streams.clear()
        hub.feeds.clear()
        await hub.reader.aclose()


def test_tool_call_hook_records_outcome_layer_latency_retries_and_breaker():
    labels = ("metrics", "query_metric", "error", "transport")
    calls = metrics.TOOL_CALLS.labels(*labels)
    duration = metrics.TOOL_DURATION.labels("metrics", "query_metric", "error")
    retries = metrics.TOOL_RETRIES.labels("metrics", "query_metric")
    before = (calls._value.get(), duration._sum.get(), retries._value.get())

    metrics.tool_call_finished(
        server="metrics",
        tool="query_metric",
        state="error",
        error_layer="transport",
        latency_ms=1500.0,
        retries=2,
        breaker_state="open",
    )

    assert calls._value.get() == before[0] + 1
    assert duration._sum.get() == pytest.approx(before[1] + 1.5)
    assert retries._value.get() == before[2] + 2
    assert metrics.BREAKER.labels("metrics", "open")._value.get() == 1
    assert metrics.BREAKER.labels("metrics", "closed")._value.get() == 0


def test_tool_call_hook_names_a_success_layer_none_and_never_raises():
    ok = metrics.TOOL_CALLS.labels("logs", "search", "ok", "none")
    before = ok._value.get()

    metrics.tool_call_finished(
        server="logs",
        tool="search",
        state="ok",
        error_layer="",
        latency_ms=None,
        retries=0,
    )
    # Garbage in (the hook runs in the engine's hot path): nothing raised.
    metrics.tool_call_finished(
        server=None,
        tool=object(),
        state="ok",
        error_layer="",
        latency_ms="x",
        retries=0,  # type: ignore[arg-type]
    )

    assert ok._value.get() == before + 1


def test_tool_series_are_capped(monkeypatch):
    monkeypatch.setattr(metrics, "_tool_pairs", set())
    monkeypatch.setattr(metrics, "MAX_TOOL_SERIES", 2)
    other = metrics.TOOL_CALLS.labels("capped", metrics.OTHER, "ok", "none")
    before = other._value.get()

    for tool in ("a", "b", "c", "d"):
        metrics.tool_call_finished(
            server="capped",
            tool=tool,
            state="ok",
            error_layer="",
            latency_ms=1,
            retries=0,
        )

    assert other._value.get() == before + 2
    assert metrics._tool_pairs == {("capped", "a"), ("capped", "b")}


def _hist_count(histogram, *labels) -> float:
    child = histogram.labels(*labels) if labels else histogram
    return sum(bucket.get() for bucket in child._buckets)


def test_a_delivery_that_claims_and_ends_a_task_records_each_timing_once(
    transactional_db, tenant
):
    _incident, task = factories.make_incident(tenant)
    after_seq = DiagnosisTask.objects.get(pk=task.pk).last_seq
    claimed = lifecycle.diagnosis_claim(task_id=task.pk, owner="host-a:41:0123abcd")
    tracing.span_start(
        task_id=task.pk,
        span_id="ab" * 8,
        attempt=1,
        agent="metrics",
        server_name="metrics",
        transport="stdio",
        tool_name="query_metric",
        arguments_redacted={},
        arguments_hash="0" * 64,
        replay_key="k",
        deadline=None,
        principal="",
        granted_scopes=[],
    )
    lifecycle.diagnosis_transition(task=claimed, to=TaskState.SUCCEEDED)
    before = (
        _hist_count(metrics.QUEUE_DELAY),
        metrics.TASKS_FINISHED.labels("succeeded")._value.get(),
        _hist_count(metrics.TASK_DURATION, "succeeded"),
        _hist_count(metrics.FIRST_TOOL_CALL),
    )

    for _ in range(2):  # a duplicate delivery's postrun sees the same rows
        observe_delivery(
            task_id=str(task.pk),
            after_seq=after_seq,
            result="succeeded",
            worker_prefix="host-a:41:",
        )

    assert _hist_count(metrics.QUEUE_DELAY) == before[0] + 1
    assert metrics.TASKS_FINISHED.labels("succeeded")._value.get() == before[1] + 1
    assert _hist_count(metrics.TASK_DURATION, "succeeded") == before[2] + 1
    assert _hist_count(metrics.FIRST_TOOL_CALL) == before[3] + 1


def test_a_delivery_that_did_not_claim_or_end_the_task_records_nothing(
    transactional_db, tenant
):
    _incident, task = factories.make_incident(tenant)
    after_seq = DiagnosisTask.objects.get(pk=task.pk).last_seq
    lifecycle.diagnosis_claim(task_id=task.pk, owner="other-host:7:ffff0000")
    before = (
        _hist_count(metrics.QUEUE_DELAY),
        metrics.TASKS_FINISHED.labels("succeeded")._value.get(),
    )

    # Another worker claimed it; this delivery's run_task returned None.
    observe_delivery(
        task_id=str(task.pk),
        after_seq=after_seq,
        result=None,
        worker_prefix="host-a:41:",
    )

    assert _hist_count(metrics.QUEUE_DELAY) == before[0]
    assert metrics.TASKS_FINISHED.labels("succeeded")._value.get() == before[1]


def test_worker_exporter_takes_the_same_token(settings):
    settings.METRICS_TOKEN = METRICS_TOKEN
    settings.METRICS_ALLOWED_IPS = []
    server = exposition.start_worker_exporter(address="127.0.0.1", port=0)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/metrics"
        refused = httpx.get(url, timeout=5)
        scraped = httpx.get(
            url, headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=5
        )
    finally:
        server.shutdown()
        server.server_close()

    assert refused.status_code == 401
    assert refused.json()["code"] == "not_authenticated"
    assert scraped.status_code == 200
    assert "agentops_mcp_tool_calls_total" in scraped.text
    # The database gauges are the web's alone.
    assert "agentops_tasks{" not in scraped.text


def test_multiprocess_mode_reads_the_folder(tmp_path, monkeypatch):
    # A prefork worker's children write their series to PROMETHEUS_MULTIPROC_DIR; the
    # exporter then answers what the folder holds, whatever this process counted.
    script = (
        "import os\n"
        "from prometheus_client import Counter\n"
        "c = Counter('agentops_child_calls', 'x', ['server'])\n"
        "c.labels('metrics').inc(3)\n"
    )
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=60)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))

    from prometheus_client import generate_latest

    text = generate_latest(exposition.exposition_registry(web=False)).decode()

    assert 'agentops_child_calls_total{server="metrics"} 3.0' in text


# --- a real Prometheus ---------------------------------------------------------------------------


@contextlib.contextmanager
def _prometheus(tmp: Path, config: str):
    if shutil.which("prometheus") is None:
        pytest.skip(
            "prometheus not installed; scripts/setup.d/20-prometheus.sh installs Debian's prometheus"
        )
    (tmp / "prometheus.yml").write_text(config)
    with running_prometheus(tmp / "prometheus.yml", tmp / "data") as (base, log):
        yield base, log


def _query(base: str, promql: str) -> dict[frozenset, float]:
    response = httpx.get(f"{base}/api/v1/query", params={"query": promql}, timeout=5)
    response.raise_for_status()
    return {
        frozenset(item["metric"].items()): float(item["value"][1])
        for item in response.json()["data"]["result"]
    }


def _only(result: dict[frozenset, float]) -> float | None:
    return next(iter(result.values())) if len(result) == 1 else None


def _start(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    with log.open("wb") as out:
        return subprocess.Popen(
            argv,
            env=env,
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def _read_stream(base: str, task_id: str, api_token: str) -> tuple[list[str], str]:
    """The task's SSE stream to its end: (event types, last id)."""
    kinds, last_id = [], ""
    with httpx.stream(
        "GET",
        f"{base}/api/tasks/{task_id}/events",
        headers={"Authorization": f"Bearer {api_token}"},
        timeout=httpx.Timeout(60, connect=5),
    ) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("event: "):
                kinds.append(line.removeprefix("event: "))
            elif line.startswith("id: "):
                last_id = line.removeprefix("id: ")
    return kinds, last_id


@pytest.mark.slow
def test_prometheus_scrapes_web_and_worker_after_real_traffic(live_db_env, tmp_path):
    tenant = factories.make_tenant("scraped")
    member = factories.make_member(tenant, role=Role.ADMIN)
    api_token = factories.make_token(member, scopes=ALL_SCOPES)
    redis_url = redis_url_with_db(BROKER_DB)
    web_port, worker_port = free_port(), free_port()
    env = {
        **live_db_env,
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "DIAGNOSIS_TEST_PLANS": "1",
        "METRICS_TOKEN": METRICS_TOKEN,
        "METRICS_WORKER_PORT": str(worker_port),
        "LOG_FORMAT": "json",
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    bin_dir = Path(sys.executable).parent
    web = _start(
        [
            str(bin_dir / "daphne"),
            "-b",
            "127.0.0.1",
            "-p",
            str(web_port),
            "agentops.asgi:application",
        ],
        env,
        tmp_path / "web.log",
    )
    worker = _start(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "agentops",
            "worker",
            "--pool=threads",
            "--concurrency=2",
            "-n",
            f"scraped{BROKER_DB}@%h",
            "--without-gossip",
            "--without-mingle",
            "--loglevel=INFO",
        ],
        env,
        tmp_path / "worker.log",
    )
    base = f"http://127.0.0.1:{web_port}"
    auth = {"Authorization": f"Bearer {api_token}"}

    def answers(url: str, **kwargs) -> bool:
        try:
            return httpx.get(url, timeout=1, **kwargs).status_code in {200, 401}
        except httpx.TransportError:
            return False

    try:
        wait_for(lambda: answers(f"{base}/healthz"), timeout=60, what="daphne")
        wait_for(
            lambda: answers(f"http://127.0.0.1:{worker_port}/metrics"),
            timeout=60,
            what="the worker's exporter",
        )
        # Unauthenticated scrapes are refused with JSON, on both.
        for url in (f"{base}/metrics", f"http://127.0.0.1:{worker_port}/metrics"):
            refused = httpx.get(url, timeout=5)
            assert refused.status_code == 401, refused.text
            assert refused.json()["code"] == "not_authenticated"

        created = httpx.post(
            f"{base}/api/incidents",
            json={
                "title": "scraped",
                "service": "checkout",
                "severity": "sev2",
                "plan": "timed",
                "plan_args": {"steps": [0.2, 0.2]},
            },
            headers=auth,
            timeout=10,
        )
        assert created.status_code == 201, created.text
        task_id = created.json()["task"]["id"]
        assert (
            httpx.get(
                f"{base}/api/tasks/{uuid.uuid4()}", headers=auth, timeout=5
            ).status_code
            == 404
        )
        kinds, last_id = _read_stream(base, task_id, api_token)
        assert kinds[-1] == "task_completed", kinds
        # A reconnect whose cursor covers the finished task: 204.
        again = httpx.get(
            f"{base}/api/tasks/{task_id}/events",
            headers={**auth, "Last-Event-ID": last_id},
            timeout=10,
        )
        assert again.status_code == 204
        snapshot = httpx.get(f"{base}/api/tasks/{task_id}", headers=auth, timeout=5)
        assert snapshot.json()["state"] == "succeeded"

        config = (
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            "scrape_configs:\n"
            + "".join(
                f"  - job_name: {job}\n"
                f"    authorization: {{type: Bearer, credentials: {METRICS_TOKEN}}}\n"
                f"    static_configs: [{{targets: ['127.0.0.1:{port}']}}]\n"
                for job, port in (("web", web_port), ("worker", worker_port))
            )
        )
        with _prometheus(tmp_path, config) as (prom, _log):
            expected = {
                'up{job="web"}': 1,
                'up{job="worker"}': 1,
                'agentops_http_requests_total{job="web",route="/api/incidents",method="POST",status="201"}': 1,
                'agentops_http_requests_total{job="web",route="/api/tasks/<str:task_id>",method="GET",status="404"}': 1,
                'agentops_http_requests_total{job="web",route="/api/tasks/<str:task_id>",method="GET",status="200"}': 1,
                'agentops_http_request_duration_seconds_count{job="web",route="/api/incidents",method="POST"}': 1,
                'agentops_sse_streams_opened_total{job="web"}': 1,
                'agentops_sse_reconnects_with_cursor_total{job="web"}': 1,
                'agentops_sse_no_content_total{job="web"}': 1,
                'agentops_sse_events_sent_total{job="web"}': len(kinds),
                'agentops_metrics_database_up{job="web"}': 1,
                'agentops_tasks_finished_total{job="worker",state="succeeded"}': 1,
                'agentops_task_duration_seconds_count{job="worker",state="succeeded"}': 1,
                'agentops_task_queue_delay_seconds_count{job="worker"}': 1,
            }
            observed: dict[str, float | None] = {}

            def all_there() -> bool:
                for promql in expected:
                    observed[promql] = _only(_query(prom, promql))
                return all(
                    observed[q] is not None and observed[q] >= want
                    for q, want in expected.items()
                )

            try:
                wait_for(all_there, timeout=60, what="the series in Prometheus")
            except AssertionError:
                raise AssertionError(json.dumps(observed, indent=1)) from None

            # Exact where the traffic is known.
            assert (
                observed[
                    'agentops_tasks_finished_total{job="worker",state="succeeded"}'
                ]
                == 1
            )
            assert observed['agentops_sse_no_content_total{job="web"}'] == 1
            # The steps slept 0.4 s in all: a lower bound only.
            duration = _only(
                _query(prom, 'agentops_task_duration_seconds_sum{job="worker"}')
            )
            assert duration is not None and duration >= 0.4
            # Bounded labels: no raw path, the task's id in no series.
            assert (
                _query(prom, f'{{__name__=~"agentops_.+", route=~".*{task_id}.*"}}')
                == {}
            )
            states = {
                dict(labels)["state"]
                for labels in _query(prom, 'agentops_tasks{job="web"}')
            }
            assert states == {"queued", "running", "waiting_approval", "cancelling"}
            # The database gauges come from the web only; the worker has none.
            assert _query(prom, 'agentops_tasks{job="worker"}') == {}
            for name in (
                "agentops_sse_streams_open",
                "agentops_sse_stream_lag_max_events",
                "agentops_sse_slow_client_cutoffs_total",
                "agentops_approvals_pending",
            ):
                assert _only(_query(prom, f'{name}{{job="web"}}')) is not None, name
    finally:
        stop(web)
        stop(worker)
        wait_for_other_sessions_to_close()
    # The worker logged JSON lines (Django's LOGGING, not Celery's format).
    lines = [
        json.loads(line)
        for line in (tmp_path / "worker.log").read_text().splitlines()
        if line.startswith("{")
    ]
    assert any(line["logger"].startswith("celery") for line in lines), lines[:5]
    # Celery's own line about the run carries the task's context (bound by task_prerun).
    [done] = [
        line
        for line in lines
        if line["logger"] == "celery.app.trace" and "succeeded" in line["message"]
    ]
    assert (done["task_id"], done["tenant"], done["trace_id"]) == (
        task_id,
        "scraped",
        tracing.task_trace_id(DiagnosisTask.objects.get(pk=task_id)),
    )


@pytest.mark.slow
def test_prometheus_scrapes_the_tool_call_series_with_their_labels(tmp_path, settings):
    """The hook the executor calls, as Prometheus sees it through the worker's exporter."""
    settings.METRICS_TOKEN = METRICS_TOKEN
    metrics.tool_call_finished(
        server="logs",
        tool="search_logs",
        state="error",
        error_layer="tool_backend",
        latency_ms=250.0,
        retries=1,
        breaker_state="half_open",
    )
    server = exposition.start_worker_exporter(address="127.0.0.1", port=0)
    port = server.server_address[1]
    config = (
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
        "scrape_configs:\n"
        "  - job_name: worker\n"
        f"    authorization: {{type: Bearer, credentials: {METRICS_TOKEN}}}\n"
        f"    static_configs: [{{targets: ['127.0.0.1:{port}']}}]\n"
    )
    try:
        with _prometheus(tmp_path, config) as (prom, _log):
            queries = [
                'agentops_mcp_tool_calls_total{server="logs",tool="search_logs",outcome="error",error_layer="tool_backend"}',
                'agentops_mcp_tool_call_duration_seconds_bucket{server="logs",tool="search_logs",outcome="error",le="0.25"}',
                'agentops_mcp_tool_call_retries_total{server="logs",tool="search_logs"}',
                'agentops_mcp_circuit_breaker_state{server="logs",state="half_open"}',
            ]

            def scraped():
                values = [_only(_query(prom, q)) for q in queries]
                return values if all(v is not None and v >= 1 for v in values) else None

            found = wait_for(scraped, timeout=30, what="the tool call series")
            assert all(v >= 1 for v in found)
            assert (
                _only(
                    _query(
                        prom,
                        'agentops_mcp_circuit_breaker_state{server="logs",state="open"}',
                    )
                )
                == 0
            )
    finally:
        server.shutdown()
        server.server_close()
