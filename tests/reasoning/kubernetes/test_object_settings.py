"""Objects whose settings, not their logs, stop or throttle work: an autoscaler's target far past
sane, a stopped job the failures name, the settings and annotations a describe shows."""

import pytest

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.jobs import job_faults
from reasoning.layered.kubernetes.object_settings import (
    config_values,
    names_work,
    per_pod_key_faults,
    setting_lines,
    setting_reads,
    stopped_work_named,
    target_metrics,
    unscalable_faults,
)
from reasoning.layered.kubernetes.path import Path
from reasoning.observations import Observation, PlannedCall

from .answers import NS, cited, describe, events, listing, pod_logs, pods
from .test_multi_kind import _investigation, _multi, _plan

HPA_COLUMNS = ("NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE")
CRON_COLUMNS = ("NAME", "SCHEDULE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE")
JOB_COLUMNS = ("NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE")
DEADLINE = "Job was active longer than specified deadline"


def autoscalers(*rows: tuple[str, str, str, str, str, str]) -> Observation:
    """As (name, reference, targets, min, max, replicas)."""
    return listing("horizontalpodautoscalers", HPA_COLUMNS, *((*r, "2d") for r in rows))


def call(tool, arguments, why):
    return PlannedCall("kubernetes", "kube", tool, arguments, why)


# --- an autoscaler whose target keeps a busy workload at its minimum ------------------------------

HPA_DESCRIBED = """Name:                                                  quote-engine
Namespace:                                             shop
Annotations:                                           acme.dev/change: CR-5512
Reference:                                             Deployment/quote-engine
Metrics:                                               ( current / target )
  resource cpu on pods  (as a percentage of request):  280% (700m) / 750%
Min replicas:                                          2
Max replicas:                                          30
"""


@pytest.mark.rule("k8s.autoscaler-target-out-of-range")
def test_a_target_far_past_sane_keeps_a_busy_workload_at_its_minimum():
    listed = autoscalers(
        ("quote-engine", "Deployment/quote-engine", "cpu: 280%/750%", "2", "30", "2"),
        ("storefront", "Deployment/storefront", "cpu: 40%/70%", "2", "10", "2"),
    )
    described = describe("horizontalpodautoscaler", "quote-engine", HPA_DESCRIBED)
    found = unscalable_faults(
        Cluster.read([listed, described]),
        NS,
        Path(workloads=["deployment/quote-engine"], resolved=True),
    )
    assert [(f.component, f.stage, f.reason, f.layer) for f in found] == [
        (
            "horizontalpodautoscaler/quote-engine",
            "performance",
            "TargetOutOfRange",
            layers.APPLICATION,
        )
    ]
    f = found[0]
    assert f.is_relevant and f.explains == ["deployment/quote-engine"]
    assert "targets 750% cpu utilization" in f.statement
    assert cited(f.evidence, listed) == [
        "get horizontalpodautoscalers: quote-engine Deployment/quote-engine cpu: 280%/750% 2 30 2 2d"
    ]
    facts = cited(f.evidence, described)
    assert any("acme.dev/change: CR-5512" in fact for fact in facts)
    assert any("280% (700m) / 750%" in fact for fact in facts)


@pytest.mark.rule("k8s.autoscaler-target-out-of-range")
def test_off_the_path_it_is_relevant_when_the_target_logs_slow_requests():
    listed = autoscalers(
        ("quote-engine", "Deployment/quote-engine", "cpu: 280%/750%", "2", "30", "2")
    )
    found = unscalable_faults(
        Cluster.read(
            [
                listed,
                listing(
                    "deployments",
                    ("NAME", "READY", "SELECTOR"),
                    ("quote-engine", "2/2", "app=quote-engine"),
                ),
                pods(("quote-engine-5d9f7-abcde", "1/1", "Running", "0")),
                pod_logs("quote-engine-5d9f7-abcde", "WARN slow request ms=2100\n"),
            ]
        ),
        NS,
        Path(resolved=True),
    )
    assert [f.is_relevant for f in found] == [True]


@pytest.mark.parametrize(
    "targets_and_replicas",
    [
        ("cpu: 280%/90%", "2"),  # a sane target: the autoscaler scales
        ("cpu: 60%/750%", "2"),  # pods under their request: no load waits
        ("cpu: 280%/750%", "5"),  # above its minimum: it does scale
        ("cpu: <unknown>/750%", "2"),  # no metric: the metrics rules' business
        ("cpu: 180%/250%", "2"),  # a high target, still within reach
    ],
)
def test_look_alikes_of_an_out_of_range_target_are_no_fault(targets_and_replicas):
    targets, replicas = targets_and_replicas
    listed = autoscalers(
        ("quote-engine", "Deployment/quote-engine", targets, "2", "30", replicas)
    )
    found = unscalable_faults(
        Cluster.read([listed]), NS, Path(workloads=["deployment/quote-engine"])
    )
    assert found == []


def test_the_targets_cell_is_read_in_both_kubectl_formats():
    assert target_metrics("cpu: 310%/900%, memory: 40%/80%") == [
        ("cpu", 310, 900),
        ("memory", 40, 80),
    ]
    assert target_metrics("310%/900%") == [("resource", 310, 900)]
    assert target_metrics("<unknown>/80%") == [("resource", None, 80)]


@pytest.mark.timeout(60)
def test_hostile_autoscaler_cells_and_describes_stay_bounded():
    cell = "cpu: " + "9" * 5000 + "%/" + "9" * 5000 + "%" + ", x: 1%/2%" * 20000
    listed = autoscalers(("big", "Deployment/big", cell, "1", "2", "1"))
    text = "Annotations: " + "a/b: c\n  " * 50000 + "Suspend: True\n" * 1000
    found = unscalable_faults(
        Cluster.read([listed, describe("horizontalpodautoscaler", "big", text)]),
        NS,
        Path(),
    )
    assert len(found) <= 1
    assert len(setting_lines(describe("cronjob", "big", text))) <= 5000


# --- what a describe says the object is set to, and who set it -----------------------------------

CRON_DESCRIBED = """Name:                          invoice-mailer
Namespace:                     shop
Labels:                        app.kubernetes.io/instance=billing
Annotations:                   ops.acme.dev/paused-by: OPS-77 db failover (j.doe)
                               argocd.argoproj.io/sync-wave: 2
Schedule:                      15 4 * * *
Suspend:                       True
Last Schedule Time:            Sun, 29 Nov 2026 04:15:00 +0000
"""


@pytest.mark.rule("k8s.cron-jobs")
def test_a_suspended_cron_job_cites_its_described_setting_and_annotation():
    described = describe("cronjob", "invoice-mailer", CRON_DESCRIBED)
    found = job_faults(
        Cluster.read(
            [
                listing(
                    "cronjobs",
                    CRON_COLUMNS,
                    ("invoice-mailer", "15 4 * * *", "True", "0", "9d", "300d"),
                ),
                described,
            ]
        ),
        NS,
        Path(resolved=True),
        set(),
    )
    assert [f.reason for f in found] == ["Suspended"]
    facts = cited(found[0].evidence, described)
    assert facts == [
        "describe cronjob invoice-mailer: Annotations: ops.acme.dev/paused-by: OPS-77 db failover (j.doe)",
        "describe cronjob invoice-mailer: argocd.argoproj.io/sync-wave: 2",
        "describe cronjob invoice-mailer: Suspend: True",
    ]


def test_setting_lines_skip_an_empty_annotation_block():
    text = "Name: x\nAnnotations:  <none>\nLabels: a=b\nSuspend: False\n"
    assert setting_lines(describe("cronjob", "x", text)) == ["Suspend: False"]
    assert setting_lines(None) == []


# --- a stopped job is relevant when what fails names its work ------------------------------------


def _stopped(component: str, reason: str) -> Finding:
    return Finding("runtime", reason, component, layers.APPLICATION, "stopped", NS)


@pytest.mark.rule("k8s.stopped-job-named")
def test_a_failure_naming_the_jobs_work_by_abbreviation_makes_it_relevant():
    found = [
        _stopped("job/vendor-settle-manual-3", "DeadlineExceeded"),
        _stopped("cronjob/invoice-mailer", "Suspended"),
    ]
    stopped_work_named(
        found,
        [
            ("", "Finance: no statements for yesterday"),
            (
                "portal",
                "SettleStatusError: 2026-12-06 not settled; invoice-mailer pending",
            ),
        ],
    )
    assert [f.is_relevant for f in found] == [True, True]
    assert (
        found[0].chain[0]
        == "portal names vendor-settle-manual-3's work ('settlestatuserror')"
    )


@pytest.mark.rule("k8s.stopped-job-named")
def test_a_jobs_own_lines_or_a_running_job_do_not_count():
    own = _stopped("cronjob/invoice-mailer", "Suspended")
    healthy = _stopped("cronjob/stock-sync", "JobRunningLong")
    stopped_work_named(
        [own, healthy],
        [
            ("invoice-mailer", "invoice-mailer: nothing to send"),
            ("shop", "stock sync lagging"),
        ],
    )
    assert not own.is_relevant and not healthy.is_relevant


def test_short_or_generic_name_words_match_only_whole():
    assert names_work("fx-snap", "fxsnapshot missing") is None
    assert names_work("nightly-job-7", "nightly job failed") is None
    assert names_work("ledger-recon", "ReconStatusError: not reconciled") == (
        "reconstatuserror"
    )
    assert names_work("ledger-recon", "reco ledge balanced") is None
    assert names_work("ledger-recon", "the ledger is stale") == "ledger"


@pytest.mark.timeout(60)
def test_hostile_failure_text_stays_bounded():
    found = [_stopped(f"cronjob/{'a' * 300}-{i}", "Suspended") for i in range(50)]
    stopped_work_named(found, [("svc", "b" * 1_000_000 + " zzzz" * 100000)] * 5)
    assert not any(f.is_relevant for f in found)


# --- what is described, and the plain lists the survey could not give -----------------------------


def test_the_objects_whose_settings_stop_work_are_described():
    cluster = Cluster.read(
        [
            listing(
                "cronjobs",
                CRON_COLUMNS,
                ("invoice-mailer", "15 4 * * *", "True", "0", "9d", "300d"),
                ("stock-sync", "*/5 * * * *", "True", "0", "3m", "300d"),
            ),
            listing(
                "jobs",
                JOB_COLUMNS,
                ("vendor-settle-manual-3", "Failed", "0/1", "60m", "61m"),
            ),
            events(
                ("Warning", "DeadlineExceeded", "Job/vendor-settle-manual-3", DEADLINE)
            ),
            autoscalers(
                (
                    "quote-engine",
                    "Deployment/quote-engine",
                    "cpu: 280%/750%",
                    "2",
                    "30",
                    "2",
                )
            ),
        ]
    )
    calls = [c for c in setting_reads(cluster, NS, call) if c is not None]
    assert [(c.arguments["kind"], c.arguments["name"]) for c in calls] == [
        ("cronjob", "invoice-mailer"),
        ("job", "vendor-settle-manual-3"),
        ("horizontalpodautoscaler", "quote-engine"),
    ]


def test_kinds_the_survey_could_not_list_wide_are_listed_plain():
    result = {
        "kinds": {
            "cronjobs": {"found": False, "source": "not_captured"},
            "jobs": {"found": False, "source": "captured"},
        }
    }
    broad = _multi(
        ["cronjobs", "jobs"], "No resources found in shop namespace.\n", result
    )
    inv = _investigation(broad, kinds=True)
    again = [c.arguments for c in _plan(inv) if c.arguments.get("wide") is not True]
    assert {"kinds": ["cronjobs"], "namespace": NS} in again
    assert not [a for a in again if "jobs" in a.get("kinds", ())]
    assert Facts.read(inv.observations) is not None


def test_a_kind_the_plain_read_could_not_answer_either_is_not_asked_again():
    result = {"kinds": {"cronjobs": {"found": False, "source": "not_captured"}}}
    broad = _multi(["cronjobs"], "No resources found in shop namespace.\n", result)
    plain = Observation(
        **{
            **broad.__dict__,
            "span_id": "plain-1",
            "arguments": {"kinds": ["cronjobs"], "namespace": NS},
        }
    )
    inv = _investigation(broad, plain, kinds=True)
    assert not [c for c in _plan(inv) if c.arguments.get("kinds") == ["cronjobs"]]


# --- a ConfigMap setting that gives each replica keys of its own ----------------------------------

CONFIG_DESCRIBED = """Name:         pricing-env
Namespace:    shop
Annotations:  acme.dev/pr: #4410 env cleanup

Data
====
SESSION_TTL:
----
900
SESSION_KEY_PREFIX:
----
pricing:$(POD_NAME):
MEMCACHE_ADDR:
----
memcache.shop.svc:11211

BinaryData
====
"""
DEPLOYMENT_DESCRIBED = """Name:                   pricing-api
Namespace:              shop
Pod Template:
  Containers:
   pricing-api:
    Environment:
      SESSION_KEY_PREFIX:  pricing:$(POD_NAME):
    Environment Variables from:
      pricing-env  ConfigMap  Optional: false
"""


def _config_cluster(text: str, *, deployment: bool = True) -> Cluster:
    return Cluster.read(
        [
            listing(
                "configmaps",
                ("NAME", "DATA", "AGE"),
                ("kube-root-ca.crt", "1", "400d"),
                ("pricing-env", "3", "40m"),
            ),
            listing(
                "deployments",
                ("NAME", "READY", "SELECTOR"),
                ("pricing-api", "6/6", "app=pricing-api"),
            ),
            describe("configmap", "pricing-env", text),
            *(
                [describe("deployment", "pricing-api", DEPLOYMENT_DESCRIBED)]
                if deployment
                else []
            ),
        ]
    )


@pytest.mark.rule("k8s.configmap-per-pod-shared-key")
def test_a_shared_key_prefix_that_expands_per_pod_is_the_configmaps_fault():
    cluster = _config_cluster(CONFIG_DESCRIBED)
    found = per_pod_key_faults(
        cluster, NS, Path(workloads=["deployment/pricing-api"], resolved=True)
    )
    assert [(f.component, f.reason, f.layer, f.is_relevant) for f in found] == [
        ("configmap/pricing-env", "PerPodSharedKey", layers.APPLICATION, True)
    ]
    f = found[0]
    assert f.explains == ["deployment/pricing-api"]
    facts = [fact for _, fact in f.evidence]
    assert (
        "describe configmap pricing-env: SESSION_KEY_PREFIX: pricing:$(POD_NAME):"
        in facts
    )
    assert (
        "describe configmap pricing-env: Annotations: acme.dev/pr: #4410 env cleanup"
        in facts
    )
    assert (
        "describe deployment pricing-api: SESSION_KEY_PREFIX: pricing:$(POD_NAME):"
        in facts
    )
    assert config_values(cluster.describe("configmaps", NS, "pricing-env")) == {
        "SESSION_TTL": "900",
        "SESSION_KEY_PREFIX": "pricing:$(POD_NAME):",
        "MEMCACHE_ADDR": "memcache.shop.svc:11211",
    }


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("POD_IDENTITY", "$(POD_NAME)"),  # a per-pod value where one is meant
        ("SESSION_KEY_PREFIX", "pricing:v2:"),  # a shared prefix
        ("SESSION_KEY_PREFIX", "pricing:$(RELEASE):"),  # expands alike in every pod
    ],
)
def test_look_alikes_of_a_per_pod_shared_key_are_no_fault(key, value):
    text = CONFIG_DESCRIBED.replace("SESSION_KEY_PREFIX", key).replace(
        "pricing:$(POD_NAME):", value
    )
    found = per_pod_key_faults(
        _config_cluster(text, deployment=False), NS, Path(resolved=False)
    )
    assert found == []


def test_off_the_path_a_resolved_incident_does_not_take_the_configmap():
    found = per_pod_key_faults(
        _config_cluster(CONFIG_DESCRIBED, deployment=False),
        NS,
        Path(workloads=["deployment/checkout"], resolved=True),
    )
    assert [f.is_relevant for f in found] == [False]


def test_a_recently_written_configmap_is_described():
    cluster = Cluster.read(
        [
            listing(
                "configmaps",
                ("NAME", "DATA", "AGE"),
                ("kube-root-ca.crt", "1", "40m"),
                ("pricing-env", "3", "40m"),
                ("old-env", "3", "90d"),
            )
        ]
    )
    calls = [c for c in setting_reads(cluster, NS, call) if c is not None]
    assert [(c.arguments["kind"], c.arguments["name"]) for c in calls] == [
        ("configmap", "pricing-env")
    ]


@pytest.mark.timeout(60)
def test_hostile_configmap_data_stays_bounded():
    text = "Data\n====\n" + "K_KEY:\n----\n" + "$(HOSTNAME" * 200000 + "\n----\n" * 5000
    found = per_pod_key_faults(
        _config_cluster(text, deployment=False), NS, Path(resolved=False)
    )
    assert len(found) <= 1
