"""Jobs and cron jobs: a hung run holding its schedule, a failed job, a suspended schedule."""

import pytest

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.jobs import (
    SCHEMA_MISSING,
    job_faults,
    schedule_interval,
)
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.kubernetes.reads import failed_job_logs
from reasoning.observations import PlannedCall

from .answers import cited, events, listing, pod_logs, pods

CRON_COLUMNS = ("NAME", "SCHEDULE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE")
JOB_COLUMNS = ("NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE")
SKIPPED = "Not starting job because prior execution is running and concurrency policy is Forbid"


def cronjobs(*rows: tuple[str, str, str, str, str]) -> object:
    """As (name, schedule, suspend, active, last schedule)."""
    return listing("cronjobs", CRON_COLUMNS, *((*row, "90d") for row in rows))


def jobs(*rows: tuple[str, str, str, str]) -> object:
    """As (name, status, completions, duration)."""
    return listing("jobs", JOB_COLUMNS, *((*row, row[3]) for row in rows))


def faults(*answers, path=None, words=()):
    return job_faults(
        Cluster.read(list(answers)), "shop", path or Path(resolved=True), set(words)
    )


@pytest.mark.rule("k8s.cron-jobs")
def test_a_run_far_past_its_usual_duration_holds_a_forbid_schedule():
    skipped = events(("Warning", "JobAlreadyActive", "CronJob/invoice-sync", SKIPPED))
    listed = jobs(
        ("invoice-sync-28100010", "Complete", "1/1", "3m2s"),
        ("invoice-sync-28100020", "Running", "0/1", "4h10m"),
    )
    found = faults(
        cronjobs(("invoice-sync", "*/10 * * * *", "False", "1", "4h10m")),
        listed,
        skipped,
        pods(("invoice-sync-28100020-x7b2k", "1/1", "Running", "0")),
        path=Path(resolved=False),
    )
    assert [(f.component, f.stage, f.reason, f.layer) for f in found] == [
        ("cronjob/invoice-sync", "runtime", "JobAlreadyActive", layers.APPLICATION)
    ]
    f = found[0]
    assert f.is_relevant  # the incident's service is no workload here
    assert "invoice-sync-28100020 hangs: active for 4.2 h" in f.statement
    assert "concurrency policy is Forbid" in f.statement
    assert any("JobAlreadyActive" in fact for fact in cited(f.evidence, skipped))
    assert cited(f.evidence, listed) == [
        "get jobs: invoice-sync-28100020 Running 0/1 4h10m 4h10m"
    ]


@pytest.mark.rule("k8s.cron-jobs")
def test_a_long_run_without_skips_shown_is_running_long_and_relevant_by_words():
    found = faults(
        cronjobs(("ledger-rollup", "0 * * * *", "False", "1", "5h")),
        jobs(("ledger-rollup-28100000", "Running", "0/1", "5h")),
        words={"Nightly", "rollups", "missing"},
    )
    assert [(f.component, f.reason, f.is_relevant) for f in found] == [
        ("cronjob/ledger-rollup", "JobRunningLong", True)
    ]


def test_a_run_within_its_usual_time_is_no_fault():
    found = faults(
        cronjobs(("ledger-rollup", "0 * * * *", "False", "1", "20m")),
        jobs(
            ("ledger-rollup-28099940", "Complete", "1/1", "25m"),
            ("ledger-rollup-28100000", "Running", "0/1", "20m"),
        ),
    )
    assert found == []


@pytest.mark.rule("k8s.cron-jobs")
def test_a_job_past_its_deadline_fails_its_cron_job_off_the_path():
    found = faults(
        cronjobs(("report-mailer", "30 6 * * *", "False", "0", "3h")),
        jobs(("report-mailer-28099650", "Failed", "0/1", "1h")),
        events(
            (
                "Warning",
                "DeadlineExceeded",
                "Job/report-mailer-28099650",
                "Job was active longer than specified deadline",
            )
        ),
        path=Path(resolved=False),
    )
    assert [(f.component, f.reason, f.is_relevant) for f in found] == [
        ("cronjob/report-mailer", "DeadlineExceeded", False)
    ]


@pytest.mark.rule("k8s.cron-jobs")
def test_a_suspended_schedule_that_has_not_run_for_intervals():
    found = faults(
        cronjobs(("cache-warm", "*/5 * * * *", "True", "0", "2h")),
        path=Path(workloads=["cronjob/cache-warm"], resolved=True),
    )
    assert [(f.component, f.reason, f.is_relevant) for f in found] == [
        ("cronjob/cache-warm", "Suspended", True)
    ]
    assert "scheduled every 5 min, its last run 2.0 h ago" in found[0].statement


@pytest.mark.parametrize(
    ("schedule", "seconds"),
    [
        ("*/15 * * * *", 900),
        ("7 * * * *", 3600),
        ("0 */6 * * *", 21600),
        ("0 3 * * *", 86400),
        ("@hourly", 3600),
        ("0 9 * * 1-5", None),
    ],
)
def test_schedule_intervals(schedule, seconds):
    assert schedule_interval(schedule) == seconds


# --- a failed schema migration and the workload it prepares --------------------------------------

MIGRATION_JOBS = ("NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE", "IMAGES")
APP_DEPLOYMENTS = ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "IMAGES")
MISSING = "ERROR handler: GET /v1/invoices/ failed: pq: column invoices.tax_region does not exist"


def migration_cluster(job: str, image: str):
    """A failed job whose pod is gone from the list, and billing-api's pods logging the column."""
    listed_jobs = listing(
        "jobs",
        MIGRATION_JOBS,
        (job, "Failed", "0/1", "9m", "9m", image),
    )
    apps = listing(
        "deployments",
        APP_DEPLOYMENTS,
        ("billing-api", "2/2", "2", "2", "200d", "registry.example/acme/billing:7.2.0"),
        ("ledger-ui", "1/1", "1", "1", "200d", "registry.example/acme/ledger-ui:3.1.0"),
    )
    listed_pods = pods(
        ("billing-api-5f6d7c8b9-q2w3e", "1/1", "Running", "0"),
        ("ledger-ui-7c8d9e6f5-a1s2d", "1/1", "Running", "0"),
    )
    warned = events(
        ("Normal", "SuccessfulCreate", f"Job/{job}", f"Created pod: {job}-x8k2p"),
        (
            "Warning",
            "BackoffLimitExceeded",
            f"Job/{job}",
            "Job has reached the specified backoff limit",
        ),
    )
    job_logs = pod_logs(
        f"{job}-x8k2p",
        "Applying 0087_tax_region...\nERROR: canceling statement due to lock timeout\n",
    )
    app_logs = pod_logs("billing-api-5f6d7c8b9-q2w3e", f"INFO started\n{MISSING}\n")
    return (
        [listed_jobs, apps, listed_pods, warned, job_logs, app_logs],
        app_logs,
        job_logs,
    )


@pytest.mark.rule("k8s.cron-jobs")
@pytest.mark.parametrize(
    ("job", "image"),
    [
        ("billing-api-migrate-7-2-0", "registry.example/acme/migrator:1.0"),
        ("schema-upgrade-7-2-0", "registry.example/acme/billing:7.2.0"),
    ],
)
def test_a_failed_migration_blames_the_job_and_cites_the_apps_missing_column(
    job, image
):
    observations, app_logs, job_logs = migration_cluster(job, image)
    found = faults(
        *observations, path=Path(workloads=["deployment/billing-api"], resolved=True)
    )
    assert [(f.component, f.reason) for f in found] == [
        (f"job/{job}", "BackoffLimitExceeded")
    ]
    f = found[0]
    assert f.explains == ["deployment/billing-api"]
    assert cited(f.evidence, app_logs) == [
        f"logs billing-api-5f6d7c8b9-q2w3e: {MISSING}"
    ]
    assert any("lock timeout" in fact for fact in cited(f.evidence, job_logs))
    assert "deployment/billing-api runs code that needs the schema" in f.statement


def test_an_app_without_schema_errors_is_not_thefailed_job_logs_victim():
    observations, _, _ = migration_cluster(
        "billing-api-migrate-7-2-0", "registry.example/acme/migrator:1.0"
    )
    quiet = pod_logs("billing-api-5f6d7c8b9-q2w3e", "INFO GET /v1/invoices/ 200\n")
    observations[-1] = quiet
    (f,) = faults(*observations)
    assert f.explains == []
    assert cited(f.evidence, quiet) == []


@pytest.mark.parametrize(
    "line",
    [
        'ERROR:  relation "shipments" does not exist at character 15',
        "sqlite3.OperationalError: no such table: audit_log",
        "pymysql.err.OperationalError: (1054, \"Unknown column 'tier' in 'field list'\")",
        "psycopg.errors.UndefinedColumn: column users.locale does not exist",
    ],
)
def test_schema_objects_missing_as_databases_say_it(line):
    assert SCHEMA_MISSING.search(line)


def test_a_missing_value_is_no_schema_object():
    assert not SCHEMA_MISSING.search("user 42 does not exist")


@pytest.mark.rule("k8s.cron-jobs")
def test_a_failed_job_has_its_gone_pods_and_its_apps_logs_read():
    observations, _, _ = migration_cluster(
        "billing-api-migrate-7-2-0", "registry.example/acme/migrator:1.0"
    )
    cluster = Cluster.read(observations[:4])
    calls = failed_job_logs(
        cluster,
        "shop",
        lambda tool, arguments, why: PlannedCall(
            "kubernetes", "kubernetes", tool, dict(arguments), why
        ),
    )
    assert [(c.tool, c.arguments["pod"]) for c in calls] == [
        ("pod_logs", "billing-api-migrate-7-2-0-x8k2p"),
        ("pod_logs", "billing-api-5f6d7c8b9-q2w3e"),
    ]
