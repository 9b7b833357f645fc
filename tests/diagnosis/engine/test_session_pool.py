"""The worker's MCP session pool (issue 19 item 1) with real stdio servers and real diagnoses.

Diagnoses run as a threads-pool worker runs them: each in its own thread with its own event
loop (runner.run_task), sharing the process's pool (diagnosis.engine.server_pool). The server
is tests/diagnosis/engine/servers/timed_health.py: its log says which process started,
finished or saw the cancel of which service's call.
"""

import itertools
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from django.urls import reverse

from diagnosis import runner, services
from diagnosis.engine import server_pool
from diagnosis.models import DiagnosisTask, Role, SpanState, ToolCallSpan
from diagnosis.registry import ServerEntry
from tests import factories
from tests.diagnosis.engine import support
from tests.livestack import free_port, redis_url_with_db, stop, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SERVER = "tests.diagnosis.engine.servers.timed_health"
PID = "agentops.server.pid"
_users = itertools.count()


def _registry(tmp_path: Path, **environments: str) -> Path:
    """A registry file with one environment per keyword: its metrics server's extra lines."""
    lines = [f'default_environment = "{next(iter(environments))}"']
    for name, table in environments.items():
        lines += [
            f"[environments.{name}]",
            f'description = "{name}"',
            f"[environments.{name}.servers.metrics]",
            table,
            'tools = ["service_health"]',
            "call_timeout = 120",
        ]
    path = tmp_path / "servers.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _command(log: Path, *args: str) -> str:
    extra = "".join(f', "{a}"' for a in args)
    return f'command = ["{{python}}", "-m", "{SERVER}", "--log", "{log}"{extra}]'


def _open(tenant, **fields) -> DiagnosisTask:
    principal = support.responder(tenant, username=f"responder-{next(_users)}")
    return support.open_incident(tenant, principal=principal, **fields)[1]


def _lines(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def _run_all(tasks: list[DiagnosisTask]) -> list[str | None]:
    """Run the tasks at once, each in its own thread (its own event loop), to their ends."""
    outcome: list[str | None] = [None] * len(tasks)

    def one(index: int) -> None:
        outcome[index] = runner.run_task(str(tasks[index].id))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(tasks))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=180)
    return outcome


def _health_spans(task: DiagnosisTask) -> list[ToolCallSpan]:
    return list(ToolCallSpan.objects.filter(task=task, tool_name="service_health"))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_two_diagnoses_at_once_share_one_server_process(tmp_path, settings):
    log = tmp_path / "calls.log"
    settings.AGENTOPS_SERVERS = str(
        _registry(tmp_path, timed=_command(log, "--seconds", "1"))
    )
    tenant = factories.make_tenant("pool-share")
    first = _open(tenant, service="checkout")
    second = _open(tenant, service="payments")

    assert _run_all([first, second]) == ["succeeded", "succeeded"]

    spans = _health_spans(first) + _health_spans(second)
    assert {s.task_id for s in spans} == {first.pk, second.pk}
    assert all(s.state == SpanState.OK for s in spans)
    pids = {s.attributes[PID] for s in spans}
    assert len(pids) == 1, pids  # one server process answered both diagnoses
    started = {line.split()[-1] for line in _lines(log) if line.startswith("started")}
    assert started == {str(p) for p in pids}
    [row] = server_pool.current_pool().snapshot()
    assert (row["server"], row["pid"], row["starts"]) == ("metrics", pids.pop(), 1)
    # Both borrowed it; both waited for its one start at once (two misses), or one came later.
    assert row["hits"] + row["misses"] == 2


def test_a_server_killed_between_diagnoses_is_replaced(tmp_path, settings):
    log = tmp_path / "calls.log"
    settings.AGENTOPS_SERVERS = str(_registry(tmp_path, timed=_command(log)))
    tenant = factories.make_tenant("pool-kill")
    first = _open(tenant)
    assert _run_all([first]) == ["succeeded"]
    [killed] = {s.attributes[PID] for s in _health_spans(first)}
    os.kill(killed, signal.SIGKILL)
    wait_for(lambda: not _alive(killed), timeout=10, what="the server to die")

    second = _open(tenant)
    assert _run_all([second]) == ["succeeded"]

    spans = _health_spans(second)
    assert spans and all(s.state == SpanState.OK for s in spans)
    replaced = {s.attributes[PID] for s in spans}
    assert len(replaced) == 1 and killed not in replaced


def test_a_hanging_server_does_not_block_diagnoses_that_do_not_call_it(
    tmp_path, settings
):
    hung_log, quick_log = tmp_path / "hung.log", tmp_path / "quick.log"
    settings.AGENTOPS_SERVERS = str(
        _registry(
            tmp_path,
            hung=_command(hung_log, "--hang", "checkout"),
            quick=_command(quick_log),
        )
    )
    tenant = factories.make_tenant("pool-hang")
    hung = _open(tenant, environment="hung", service="checkout")
    outcome: list[str | None] = []
    worker = threading.Thread(
        target=lambda: outcome.append(runner.run_task(str(hung.id)))
    )
    worker.start()
    try:
        wait_for(
            lambda: any(
                line.startswith("started checkout") for line in _lines(hung_log)
            ),
            timeout=60,
            what="the hanging call",
        )
        other = _open(tenant, environment="quick", service="checkout")
        assert _run_all([other]) == ["succeeded"]
        # The other diagnosis ended while the hung call was still in flight.
        assert [s.state for s in _health_spans(hung)] == [SpanState.STARTED]
        assert all(s.state == SpanState.OK for s in _health_spans(other))
    finally:
        services.diagnosis_cancel(task=DiagnosisTask.objects.get(pk=hung.pk))
        worker.join(timeout=60)
    assert outcome == ["cancelled"]


def test_cancel_of_one_of_two_diagnoses_sharing_a_session_leaves_the_other_call_running(
    tmp_path, settings
):
    log = tmp_path / "calls.log"
    settings.AGENTOPS_SERVERS = str(
        _registry(tmp_path, timed=_command(log, "--seconds", "4"))
    )
    tenant = factories.make_tenant("pool-cancel")
    cancelled = _open(tenant, service="checkout")
    kept = _open(tenant, service="payments")
    outcome: dict[str, str | None] = {}
    threads = [
        threading.Thread(
            target=lambda t=t: outcome.__setitem__(
                str(t.id), runner.run_task(str(t.id))
            )
        )
        for t in (cancelled, kept)
    ]
    for thread in threads:
        thread.start()
    try:
        wait_for(
            lambda: (
                {line.split()[1] for line in _lines(log) if line.startswith("started")}
                >= {"checkout", "payments"}
            ),
            timeout=60,
            what="both calls in flight",
        )
        services.diagnosis_cancel(task=DiagnosisTask.objects.get(pk=cancelled.pk))
    finally:
        for thread in threads:
            thread.join(timeout=120)

    assert outcome == {str(cancelled.id): "cancelled", str(kept.id): "succeeded"}
    lines = _lines(log)
    pids = {line.split()[-1] for line in lines}
    assert len(pids) == 1, lines  # one session, one process
    assert any(line.startswith("cancelled checkout") for line in lines), lines
    assert any(line.startswith("finished payments") for line in lines), lines
    assert not any(line.startswith("cancelled payments") for line in lines), lines
    [stopped] = [s for s in _health_spans(cancelled) if s.state != SpanState.OK]
    assert stopped.state == SpanState.CANCELLED
    kept_spans = _health_spans(kept)
    assert kept_spans and all(s.state == SpanState.OK for s in kept_spans)


def test_tenants_with_different_server_credentials_never_share_a_session(
    tmp_path, settings, monkeypatch
):
    log = tmp_path / "calls.log"
    monkeypatch.setenv("TIMED_HEALTH_TOKEN", "one-secret")
    settings.AGENTOPS_SERVERS = str(
        _registry(tmp_path, creds=_command(log) + '\nenv = ["TIMED_HEALTH_TOKEN"]')
    )
    first_tenant = factories.make_tenant("pool-acme")
    second_tenant = factories.make_tenant("pool-globex")
    first = _open(first_tenant)
    second = _open(second_tenant)
    assert _run_all([first]) == ["succeeded"]
    assert _run_all([second]) == [
        "succeeded"
    ]  # the first one's session is idle, pooled

    [first_pid] = {s.attributes[PID] for s in _health_spans(first)}
    [second_pid] = {s.attributes[PID] for s in _health_spans(second)}
    assert first_pid != second_pid
    tokens = [line for line in _lines(log) if line.startswith("token")]
    assert tokens == [f"token one-secret {first_pid}", f"token one-secret {second_pid}"]


def test_pool_keys_follow_environment_entry_and_credentials():
    plain = ServerEntry(name="metrics", transport="stdio", command=("x",))
    secret = ServerEntry(
        name="metrics", transport="stdio", command=("x",), env=("TOKEN",)
    )
    key = server_pool.pool_key
    # Without credentials: one session for every tenant of the environment.
    assert key("prod", plain, tenant="a", environ={}) == key(
        "prod", plain, tenant="b", environ={}
    )
    assert key("prod", plain, tenant="a", environ={}) != key(
        "stage", plain, tenant="a", environ={}
    )
    # With credentials: per tenant, and per value of the secret.
    assert key("prod", secret, tenant="a", environ={"TOKEN": "1"}) != key(
        "prod", secret, tenant="b", environ={"TOKEN": "1"}
    )
    assert key("prod", secret, tenant="a", environ={"TOKEN": "1"}) != key(
        "prod", secret, tenant="a", environ={"TOKEN": "2"}
    )
    assert key("prod", secret, tenant="a", environ={"TOKEN": "1"}) == key(
        "prod", secret, tenant="a", environ={"TOKEN": "1", "OTHER": "x"}
    )
    # A service account's OAuth client secret is a credential too.
    from diagnosis.registry import OAuthConfig

    oauth = ServerEntry(
        name="grafana",
        transport="http",
        url="https://mcp.example.com/mcp",
        oauth=OAuthConfig(
            grant="client_credentials", client_id_env="CID", client_secret_env="CSECRET"
        ),
    )
    both = {"CID": "ops", "CSECRET": "s1"}
    assert key("prod", oauth, tenant="a", environ=both) != key(
        "prod", oauth, tenant="b", environ=both
    )
    assert key("prod", oauth, tenant="a", environ=both) != key(
        "prod", oauth, tenant="a", environ={**both, "CSECRET": "s2"}
    )


# -- a real worker --------------------------------------------------------------------------

BROKER_DB = 9
METRICS_TOKEN = "pool-metrics-token"


def _enqueue(env: dict[str, str], task_id: object) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "agentops",
            "call",
            "diagnosis.tasks.diagnosis_run",
            "--args",
            f'["{task_id}"]',
        ],
        env=env,
        check=True,
        capture_output=True,
        timeout=60,
    )


def _operations(client) -> str:
    response = client.get(reverse("diagnosis:operations"))
    assert response.status_code == 200
    return response.content.decode()


def _processes_naming(text: str) -> list[int]:
    """Pids of live processes whose command line contains `text`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in cmdline:
            found.append(int(entry.name))
    return found


def test_a_real_worker_shares_a_server_and_its_warm_shutdown_closes_every_session(
    live_db_env, tmp_path, settings, client
):
    log = tmp_path / "calls.log"
    registry = _registry(tmp_path, timed=_command(log, "--seconds", "6"))
    settings.AGENTOPS_SERVERS = str(registry)
    redis_url = redis_url_with_db(BROKER_DB)
    metrics_port = free_port()
    env = {
        **live_db_env,
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "AGENTOPS_SERVERS": str(registry),
        "METRICS_TOKEN": METRICS_TOKEN,
        "METRICS_WORKER_PORT": str(metrics_port),
        "MCP_POOL_IDLE_SECONDS": "4",  # the pool publishes its status every second
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    settings.REDIS_URL = redis_url  # the operations page reads the pool status there
    tenant = factories.make_tenant("pool-worker")
    client.force_login(factories.make_member(tenant, role=Role.ADMIN).user)
    tasks = [_open(tenant, service=service) for service in ("checkout", "payments")]
    for task in tasks:
        _enqueue(env, task.id)
    worker = subprocess.Popen(
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
            f"pool{BROKER_DB}@%h",
            "--without-gossip",
            "--without-mingle",
            "--loglevel=WARNING",
        ],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "worker.log").open("wb"),
    )
    try:
        wait_for(
            lambda: (
                {line.split()[1] for line in _lines(log) if line.startswith("started")}
                >= {"checkout", "payments"}
            ),
            timeout=180,
            what="both diagnoses' calls in flight in the worker",
        )
        started_by = {
            line.split()[-1] for line in _lines(log) if line.startswith("started")
        }
        # The operations page shows the worker's pooled session (published to Redis).
        page = wait_for(
            lambda: (
                any(
                    f"<td>{p}</td>" in (text := _operations(client)) for p in started_by
                )
                and text
            ),
            timeout=30,
            what="the operations page to show the pooled session",
        )
        assert "<td>timed</td><td>metrics</td>" in page
        scraped = httpx.get(
            f"http://127.0.0.1:{metrics_port}/metrics",
            headers={"Authorization": f"Bearer {METRICS_TOKEN}"},
            timeout=10,
        ).text
        # Warm shutdown while both calls run: the diagnoses finish, then the pool closes.
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=120) == 0, (tmp_path / "worker.log").read_text()
    finally:
        stop(worker)
    assert 'agentops_mcp_pool_sessions{server="metrics",state="in_use"} 1.0' in scraped
    assert (
        'agentops_mcp_server_start_seconds_count{server="metrics",transport="stdio"} 1.0'
        in scraped
    )
    assert 'agentops_mcp_pool_borrows_total{result="miss",server="metrics"}' in scraped
    assert sorted(
        DiagnosisTask.objects.filter(pk__in=[t.pk for t in tasks]).values_list(
            "state", flat=True
        )
    ) == ["succeeded", "succeeded"]
    pids = {s.attributes[PID] for t in tasks for s in _health_spans(t)}
    assert len(pids) == 1, pids  # one server process for both, in a real worker
    [pid] = pids
    assert not _alive(pid)
    assert _processes_naming(str(log)) == []  # no server child left behind
