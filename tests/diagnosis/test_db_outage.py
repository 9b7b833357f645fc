"""PostgreSQL itself goes away (issue 23 items 2, 3): a private server of the test's own
(tests/pgproc.py) is restarted (`pg_ctl restart -m fast`) during a demo diagnosis run by a
threads-pool worker, or stopped for a while; the diagnosis and the work after it still run.

The test's own Django connection is pointed at that server for the test (and back after), so
factories, services and the asserts read the database the worker writes."""

import contextlib
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from django.db import DatabaseError, InterfaceError, OperationalError, connection

from diagnosis import services
from diagnosis.events import TERMINAL_EVENTS, EventKind
from diagnosis.models import DiagnosisTask, SpanState, TaskEvent, ToolCallSpan
from diagnosis.states import TaskState, is_terminal
from tests import factories
from tests.diagnosis.engine import support
from tests.livestack import log_tail, start_logged, stop
from tests.livestack import wait_for as _wait_for
from tests.pgproc import PostgresProcess
from tests.redisproc import RedisProcess

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BASE_DIR = Path(__file__).resolve().parents[2]
DATABASE = "agentops_outage"


@pytest.fixture
def private_pg(transactional_db, tmp_path):
    """A migrated database on a PostgreSQL of this test's own; Django's default points at it."""
    # Not under tmp_path: every pytest session (other runs' too) makes pytest-of-<user> 0700
    # again, and the server runs as another user when the tests run as root.
    pg = PostgresProcess(Path(tempfile.mkdtemp(prefix="agentops-pgfault-")) / "pg")
    pg.start()
    try:
        url = pg.create_database(DATABASE)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=BASE_DIR,
            env={**_base_env(), "DATABASE_URL": url},
            check=True,
            capture_output=True,
            timeout=120,
        )
        saved = dict(connection.settings_dict)
        connection.close()
        connection.settings_dict.update(
            NAME=DATABASE, HOST="127.0.0.1", PORT=str(pg.port), USER="postgres"
        )
        connection.settings_dict["PASSWORD"] = ""
        connection.settings_dict["OPTIONS"] = {}
        try:
            yield pg, url
        finally:
            with contextlib.suppress(DatabaseError):
                connection.close()
            connection.settings_dict.clear()
            connection.settings_dict.update(saved)
    finally:
        pg.cleanup()
        shutil.rmtree(pg.directory.parent, ignore_errors=True)


def _base_env() -> dict[str, str]:
    import os

    return {**os.environ, "PYTHONUNBUFFERED": "1"}


def _read(fn):
    """fn() on the test's connection; None while the server is away (the connection is reset)."""
    try:
        return fn()
    except (OperationalError, InterfaceError) as exc:
        _read_errors.append(repr(exc))
        with contextlib.suppress(DatabaseError):
            connection.close()
        return None


_read_errors: list[str] = []


def wait_for(predicate, *, timeout: float, what: str):
    try:
        return _wait_for(predicate, timeout=timeout, what=what)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; last read errors: {_read_errors[-3:]}") from None


def _worker(env, tmp_path, name: str, *, concurrency: int = 4):
    log = tmp_path / f"{name}.log"
    proc = start_logged(
        ["celery", "-A", "agentops", "worker", "--pool=threads",
         f"--concurrency={concurrency}", "-n", f"{name}@%h", "--without-gossip",
         "--without-mingle", "--loglevel=INFO"],
        env,
        log,
    )  # fmt: skip
    return proc, log


def _enqueue(broker_url: str, task_id) -> None:
    """Send diagnosis_run to the test's broker (the on_commit enqueue went to the run's)."""
    from agentops.celery import app

    with app.connection_for_write(broker_url) as conn:
        app.send_task(
            "diagnosis.tasks.diagnosis_run", args=[str(task_id)], connection=conn
        )


def _env(url: str, broker: RedisProcess, **extra: str) -> dict[str, str]:
    return {
        **_base_env(),
        "DATABASE_URL": url,
        "REDIS_URL": broker.url,
        "CELERY_BROKER_URL": broker.url,
        "DIAGNOSIS_LEASE_SECONDS": "5",
        "DIAGNOSIS_REAPER_INTERVAL_SECONDS": "0.5",
        **extra,
    }


def _restart(pg: PostgresProcess) -> float:
    try:
        return pg.restart()
    except subprocess.CalledProcessError as exc:
        raise AssertionError(
            f"pg_ctl restart failed: {exc.stderr!r}\n{log_tail(pg.log)}"
        ) from None


def _ended(task_id):
    task = _read(lambda: DiagnosisTask.objects.get(pk=task_id))
    return task if task is not None and is_terminal(task.state) else None


def _count(task_id, kind: str) -> int:
    return (
        _read(lambda: TaskEvent.objects.filter(task_id=task_id, type=kind).count()) or 0
    )


@pytest.mark.fault(
    "PostgreSQL restarted (pg_ctl restart -m fast) twice during a demo diagnosis",
    kind="fault",
)
def test_postgres_restarts_during_a_diagnosis_and_the_diagnosis_succeeds(
    private_pg, tmp_path, reliability_record
):
    pg, url = private_pg
    with RedisProcess(tmp_path / "redis") as broker:
        env = _env(url, broker)
        worker, log = _worker(env, tmp_path, "pgrestart")
        tenant = factories.make_tenant("pgrestart")
        _, task = support.open_demo_incident(tenant, "dns-nxdomain")
        task_id = task.pk
        _enqueue(broker.url, task_id)
        restarts: list[float] = []
        try:
            for calls in (1, 3):
                wait_for(
                    lambda calls=calls: (
                        _count(task_id, EventKind.TOOL_STARTED) >= calls
                        or _ended(task_id)
                    ),
                    timeout=90,
                    what=f"{calls} tool calls",
                )
                if _ended(task_id):
                    break
                restarts.append(_restart(pg))
            final = wait_for(
                lambda: _ended(task_id), timeout=60, what="the diagnosis to end"
            )
            assert worker.poll() is None, log_tail(log)
        finally:
            stop(worker)
        assert final.state == TaskState.SUCCEEDED, (
            f"{final.state}: {final.error_layer}/{final.error_code}: "
            f"{final.error_message}\n{log_tail(log)}"
        )
    assert len(restarts) == 2, "the diagnosis ended before the second restart"
    spans = list(ToolCallSpan.objects.filter(task_id=task_id))
    assert [s.span_id for s in spans if s.state == SpanState.STARTED] == []
    events = list(TaskEvent.objects.filter(task_id=task_id).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    kinds = [e.type for e in events]
    assert sum(k in TERMINAL_EVENTS for k in kinds) == 1
    # Each call's events once: a retried write whose COMMIT went through is not repeated.
    per_span = [
        (e.type, e.data["span_id"])
        for e in events
        if e.type
        in (EventKind.TOOL_STARTED, EventKind.TOOL_COMPLETED, EventKind.TOOL_FAILED)
    ]
    assert len(per_span) == len(set(per_span))
    ended = {span for kind, span in per_span if kind != EventKind.TOOL_STARTED}
    assert {span for kind, span in per_span if kind == EventKind.TOOL_STARTED} == ended
    reliability_record(
        observed="the worker's writes (spans, events, report, lease) reconnected and went on; "
        "the diagnosis succeeded, no span left started, each event once and gap-free",
        figures={
            "restarts": len(restarts),
            "unavailable_s": round(max(restarts), 2),
            "attempt": final.attempt,
            "spans": len(spans),
            "events": len(events),
        },
    )


def _timed_task(tenant, steps):
    return factories.make_incident(tenant, plan_args={"steps": steps})[1].pk


@pytest.mark.fault(
    "PostgreSQL stopped 10 s under a threads-pool worker (one diagnosis running), then back",
    kind="fault",
)
def test_worker_claims_and_runs_work_after_a_postgres_stop(
    private_pg, tmp_path, reliability_record
):
    pg, url = private_pg
    with RedisProcess(tmp_path / "redis") as broker:
        env = _env(url, broker)
        # Two threads: every thread of the pool meets the outage and the work after it.
        worker, log = _worker(env, tmp_path, "pgstop", concurrency=2)
        tenant = factories.make_tenant("pgstop")
        running = _timed_task(tenant, [0.2] * 20)
        _enqueue(broker.url, running)
        try:
            wait_for(
                lambda: _count(running, EventKind.AGENT_COMPLETED) >= 2,
                timeout=120,
                what="the worker to run two steps",
            )
            pg.stop()
            # A delivery while the database is away: its claim cannot be made and says so.
            refused = "00000000-0000-4000-8000-000000000001"
            _enqueue(broker.url, refused)
            time.sleep(10)
            pg.start()
            # Its runner could not re-queue the interrupted diagnosis while the database
            # was away; once its lease expires the reaper does (beat's task, run here).
            wait_for(
                lambda: (
                    _read(services.diagnosis_reap) is not None
                    and _read(lambda: DiagnosisTask.objects.get(pk=running).state)
                    != TaskState.RUNNING
                ),
                timeout=60,
                what="the interrupted diagnosis to be re-queued",
            )
            after = [_timed_task(tenant, [0.05]) for _ in range(4)]
            for task_id in [running, *after]:
                _enqueue(broker.url, task_id)  # a duplicate delivery finds it claimed
            finals = [
                wait_for(
                    lambda task_id=task_id: _ended(task_id),
                    timeout=120,
                    what=f"task {task_id} to end",
                )
                for task_id in [running, *after]
            ]
            assert worker.poll() is None, log_tail(log)
        finally:
            stop(worker)
    text = log.read_text(errors="replace")
    assert [f.state for f in finals] == [TaskState.SUCCEEDED] * 5, log_tail(log)
    assert finals[0].attempt == 2  # the outage outlasted the retries: re-queued once
    assert f"claim of task {refused} failed" in text, log_tail(log)
    assert not ToolCallSpan.objects.filter(state=SpanState.STARTED).exists()
    events = list(TaskEvent.objects.filter(task_id=running).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert sum(e.type in TERMINAL_EVENTS for e in events) == 1
    reliability_record(
        observed="the running diagnosis's attempt ended re-queued (not failed) and ran again; "
        "a claim during the outage logged its failure; every task created after the "
        "outage was claimed and succeeded",
        figures={
            "outage_s": 10,
            "attempt": finals[0].attempt,
            "tasks_after": len(after),
        },
    )
