"""Jobs and cron jobs: a hung run holding its schedule, a failed job, a suspended schedule."""

import pytest

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.jobs import job_faults, schedule_interval
from reasoning.layered.kubernetes.path import Path

from .answers import cited, events, listing, pods

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
