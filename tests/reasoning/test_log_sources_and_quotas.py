"""Log sources are never culprits (`log_sources`) and a spent cloud quota blames what could not grow
(`account_quota`). Names and wordings invented."""

import pytest

from reasoning.layered.account_quota import QUOTA_SPENT, quota_subject
from reasoning.layered.log_sources import is_host_log_line, is_log_source
from tests.reasoning.test_planner import World, health
from tests.reasoning.test_unread_services import _every, _run, _with
from tests.reasoning.test_warnings_and_changes import FAILING, group, lines, logged

NFS_LINE = "nfs: server vol-7a7b8c9d.files.example.net not responding, timed out"
ALARM = 'ALARM: "vol-7a7b8c9d-ThroughputCredits" below threshold: credits 0.0'


SYMPTOM = "pick list 88 not ready after 120s; picker idle"


def _world(source, line, *, count=30, before=0, extra=()):
    return World(
        {
            ("service_health", "pick-web"): health("pick-web", "unhealthy", FAILING),
            ("top_errors", "pick-web"): logged(
                "pick-web", errors=[group(SYMPTOM, count=900)]
            ),
            ("top_errors", ""): _every(
                _with("pick-web", SYMPTOM, count=900),
                _with(source, line, count=count, before=before),
                *extra,
            ),
            ("top_errors", source): logged(
                source, errors=[group(line, count=count, before=before)]
            ),
            ("search_logs", ""): lines(),
        }
    )


def test_log_source_names():
    for name in ("kernel", "syslog", "systemd", "journald", "auditd", "Kernel"):
        assert is_log_source(name)
    for name in ("kernel-builder", "checkout", "sysadmin-bot"):
        assert not is_log_source(name)


@pytest.mark.rule("board.log-sources")
@pytest.mark.parametrize("source", ["kernel", "syslog", "journald"])
def test_a_log_source_is_never_the_culprit_the_server_its_lines_name_is(source):
    _, report = _run(
        _world(source, NFS_LINE, extra=[_with("metering", ALARM, count=2)])
    )

    assert all(
        h.component != source for h in report.hypotheses if h.status != "ruled_out"
    )
    heir = next(h for h in report.hypotheses if h.component == "vol-7a7b8c9d")
    assert heir.status != "ruled_out"
    assert any("not responding" in e.fact for e in heir.evidence)
    assert any("ThroughputCredits" in e.fact for e in heir.evidence)


# A host's log file named like a service: a log stream only when its lines read as a host's.
HOST_CRON_LINES = [
    "ip-10-0-3-7 CRON[2231]: (root) CMD (run-parts /etc/cron.hourly)",
    "Mar  3 10:01:02 pick-node-4 CRON[77]: pam_unix(cron:session): session opened",
    "<78>Mar  3 10:01:02 pick-node-4 crond[991]: (root) FAILED to open PAM session",
    "2030-01-01T09:59:01.120Z pick-node-4 CRON[4410]: (CRON) error (grandchild failed)",
]
SERVICE_CRON_LINES = [
    "dispatch of job slip-rebuild failed: SlipLockError: slip table locked by tenant 7",
    "scheduler tick 44 missed: queue[3]: 900 jobs behind",
    "job nightly-slips[3] failed after 3 attempts",
    'level=error msg="trigger load failed" err="yaml: line 4: did not find expected key"',
]


def test_a_hosts_log_named_like_a_service_is_a_log_source_only_by_its_lines():
    for name in ("cron", "messages", "audit", "journal"):
        assert not is_log_source(name)
        assert not is_log_source(name, SERVICE_CRON_LINES)
        assert is_log_source(name, [*SERVICE_CRON_LINES, HOST_CRON_LINES[0]])
    for line in HOST_CRON_LINES:
        assert is_host_log_line(line), line
    for line in SERVICE_CRON_LINES:
        assert not is_host_log_line(line), line


CRON_OWN = (
    "dispatch of job slip-rebuild failed: SlipLockError: slip table locked by tenant 7"
)


@pytest.mark.rule("board.log-sources")
def test_a_scheduler_service_named_cron_with_its_own_errors_can_be_the_culprit():
    _, report = _run(_world("cron", CRON_OWN, count=700))

    cron = next(h for h in report.hypotheses if h.component == "cron")
    assert cron.status != "ruled_out"
    assert report.top.component == "cron"


@pytest.mark.rule("board.log-sources")
def test_a_hosts_cron_log_is_still_no_culprit_the_server_its_lines_name_is():
    line = (
        "pick-node-4 CRON[2231]: (root) CMD (rsync /srv/picks"
        " vol-7a7b8c9d.files.example.net:/b) nfs: server not responding, timed out"
    )
    _, report = _run(_world("cron", line, extra=[_with("metering", ALARM, count=2)]))

    assert all(
        h.component != "cron" for h in report.hypotheses if h.status != "ruled_out"
    )
    heir = next(h for h in report.hypotheses if h.component == "vol-7a7b8c9d")
    assert heir.status != "ruled_out"


@pytest.mark.rule("board.log-sources")
@pytest.mark.timeout(60)
def test_hostile_host_log_lines_finish():
    for text in (
        "a " * 100_000 + "[1]: x",
        "Mar  3 10:01:02 " + "a" * 200_000 + " x[1]: y",
        "<1>" + "[ " * 100_000,
        "x" * 300 + "[1]: " * 40_000,
    ):
        is_host_log_line(text)
    assert not is_log_source("cron", ["a " * 100_000] * 50)


QUOTA_LINES = [
    "shop-nodes: Launching a new EC2 instance. Status Reason: You have requested more vCPU"
    " capacity than your current vCPU limit of 256 allows. Launching EC2 instance failed.",
    "instance group batch-pool-b failed to grow: QUOTA_EXCEEDED: Quota 'CPUS' exceeded."
    "  Limit: 96.0 in region europe-west4.",
    "scale set web-vmss-2 scale-out failed: OperationNotAllowed: Operation could not be completed"
    " as it results in exceeding approved standardDSv3Family Cores quota.",
    "function resize-thumbs throttled: ConcurrentInvocationLimitExceeded (account concurrency"
    " limit 1000)",
    "node group gpu-ng-1: InsufficientFreeAddressesInSubnet: subnet-0aa has no free IP addresses",
]


def test_quota_refusals_in_several_providers_words_are_recognised():
    for line in QUOTA_LINES:
        assert QUOTA_SPENT.search(line), line
    assert quota_subject(QUOTA_LINES[0]) == "shop-nodes"
    assert quota_subject(QUOTA_LINES[1]) == "batch-pool-b"
    assert quota_subject(QUOTA_LINES[2]) == "web-vmss-2"
    assert quota_subject(QUOTA_LINES[3]) == "resize-thumbs"
    assert quota_subject(QUOTA_LINES[4]) == "gpu-ng-1"
    for healthy in (
        "rate limit 100 rps reached for tenant 4",
        "write failed: Disk quota exceeded",
        "user quota of 5 projects reached",
        "scaled web from 4 to 6 replicas",
    ):
        assert not QUOTA_SPENT.search(healthy), healthy


@pytest.mark.rule("board.account-quota")
@pytest.mark.parametrize("line", QUOTA_LINES[:3])
def test_a_spent_quota_blames_the_group_it_could_not_grow(line):
    _, report = _run(_world("cloud-activity", line, count=6))

    assert report.top.layer == "platform"
    assert report.top.component == quota_subject(line)
    assert any("cloud-activity" in e.fact for e in report.top.evidence)


@pytest.mark.rule("board.account-quota")
def test_a_quota_refusal_already_logged_before_the_window_blames_nothing():
    _, report = _run(_world("cloud-activity", QUOTA_LINES[0], count=6, before=40))

    assert not any(h.layer == "platform" for h in report.hypotheses)


@pytest.mark.timeout(60)
def test_huge_inputs_are_read_in_bounded_time():
    text = "vcpu " * 40000 + "quota '" + "A" * 200000
    QUOTA_SPENT.search(text[:4000])
    quota_subject("node group " + "a-" * 100000)
    assert is_log_source("kernel" + " " * 200000) is True


def test_a_saas_quota_status_is_no_cloud_capacity_quota():
    assert not QUOTA_SPENT.search(
        'POST https://api.sender.example/v1 200 {"status":"quota_exceeded"}'
    )
    assert not QUOTA_SPENT.search(
        "Quota exceeded for quota metric 'Read requests' of service sheets"
    )
