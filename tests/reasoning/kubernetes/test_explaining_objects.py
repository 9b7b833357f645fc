"""The quiet objects that explain a loud failure (issue 21 items 1 and 4): a NetworkPolicy that
leaves a caller out, an autoscaler held at its maximum, a cron job's failing jobs; the victims they
explain rank below them, and a fault over before the incident's window is stale."""

import pytest

from reasoning.layered import kubernetes
from reasoning.layered.analysis import Analysis
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.logs import Edge, log_edges, target_port
from reasoning.layered.kubernetes.policies import admits, read_policy
from reasoning.observations import IncidentBrief, Investigation, PlannedCall

from .answers import NS, answer, describe, events, listing, pod_logs

POD_HEADER = ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS")


def pods(*rows: tuple[str, str, str, str, str, str]) -> object:
    """Pods as (name, ready, status, restarts, age, labels)."""
    return listing(
        "pods",
        POD_HEADER,
        *(
            (name, ready, status, restarts, age, f"10.9.0.{i}", "node-a", labels)
            for i, (name, ready, status, restarts, age, labels) in enumerate(rows, 1)
        ),
    )


def services(*names: str) -> object:
    return listing(
        "services",
        ("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"),
        *(
            (n, "ClusterIP", f"172.30.0.{i}", "<none>", "8080/TCP", "90d", f"app={n}")
            for i, n in enumerate(names, 1)
        ),
    )


def deployments(*rows: tuple[str, str]) -> object:
    return listing(
        "deployments",
        ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
        *((name, ready, "1", "1", "90d", f"app={name}") for name, ready in rows),
    )


def investigation(service: str, *observations, window_h: int = 1) -> Investigation:
    incident = IncidentBrief(
        title=f"{service} failing",
        service=service,
        severity="sev2",
        symptoms=(f"{service} in namespace {NS} answers errors",),
        window_start=f"2031-03-02T{12 - window_h:02d}:00:00Z",
        window_end="2031-03-02T12:00:00Z",
    )
    return Investigation(incident=incident, tools=[], observations=list(observations))


def found(inv: Investigation) -> dict[str, kubernetes.Finding]:
    return {
        f.component: f for f in kubernetes.diagnose(inv, Facts.read(inv.observations))
    }


# --- NetworkPolicy -------------------------------------------------------------------------------

POLICY = """\
Name:         tax-engine-ingress
Namespace:    shop
Created on:   Sun, 02 Mar 2031 11:40:00 +0000
Spec:
  PodSelector:     app=tax-engine
  Allowing ingress traffic:
    To Port: 8080/TCP
    From:
      PodSelector: app=report-runner
  Not affecting egress traffic
  Policy Types: Ingress
"""
TIMING_OUT = (
    'level=error msg="tax call failed" err="Post \\"http://tax-engine.shop.svc:8080/v2/quote\\": '
    'dial tcp 172.30.0.2:8080: i/o timeout"\n'
)


def policy_cluster(policy_text: str = POLICY) -> list:
    return [
        pods(
            (
                "invoice-api-6d8f9c7b5-aaaaa",
                "0/1",
                "CrashLoopBackOff",
                "6 (1m ago)",
                "2d",
                "app=invoice-api",
            ),
            (
                "tax-engine-5b7c8d9f6-bbbbb",
                "1/1",
                "Running",
                "0",
                "9d",
                "app=tax-engine",
            ),
            (
                "report-runner-7f6e5d4c3-ccccc",
                "1/1",
                "Running",
                "0",
                "9d",
                "app=report-runner",
            ),
        ),
        deployments(
            ("invoice-api", "0/1"), ("tax-engine", "1/1"), ("report-runner", "1/1")
        ),
        services("invoice-api", "tax-engine"),
        events(
            (
                "Warning",
                "Unhealthy",
                "Pod/invoice-api-6d8f9c7b5-aaaaa",
                "Liveness probe failed: HTTP probe failed with statuscode: 503",
            ),
            (
                "Warning",
                "BackOff",
                "Pod/invoice-api-6d8f9c7b5-aaaaa",
                "Back-off restarting failed container",
            ),
        ),
        pod_logs("invoice-api-6d8f9c7b5-aaaaa", TIMING_OUT, previous=True),
        listing(
            "networkpolicies",
            ("NAME", "POD-SELECTOR", "AGE"),
            ("deny-all", "<none>", "90d"),
            ("tax-engine-ingress", "app=tax-engine", "20m"),
        ),
        describe("networkpolicy", "tax-engine-ingress", policy_text),
    ]


@pytest.mark.rule("k8s.network-policy", "k8s.explained-victims")
def test_a_policy_that_leaves_a_timing_out_caller_out_is_the_cause_and_the_caller_its_victim():
    faults = found(investigation("invoice-api", *policy_cluster()))

    policy = faults["networkpolicy/tax-engine-ingress"]
    assert (policy.stage, policy.reason, policy.layer) == (
        "service_routing",
        "NetworkPolicy",
        "connect",
    )
    assert policy.is_relevant and policy.explains == ["deployment/invoice-api"]
    assert any("app=report-runner" in fact for _, fact in policy.evidence)
    assert any("i/o timeout" in fact for _, fact in policy.evidence)
    assert (
        faults["deployment/invoice-api"].victim_of == "networkpolicy/tax-engine-ingress"
    )
    # The namespace-wide deny is not named: the policy meant to admit callers is.
    assert "networkpolicy/deny-all" not in faults


def test_a_policy_that_admits_the_caller_is_no_fault():
    admitting = POLICY.replace("app=report-runner", "app=invoice-api")
    faults = found(investigation("invoice-api", *policy_cluster(admitting)))

    assert "networkpolicy/tax-engine-ingress" not in faults
    assert faults["deployment/invoice-api"].victim_of is None


def test_policy_peers_read_from_the_describe():
    policy = read_policy("p", POLICY, NS)
    assert policy.selector == {"app": "tax-engine"}
    assert not admits(policy, {"app": "invoice-api"})
    assert admits(policy, {"app": "report-runner", "tier": "batch"})
    anyone = read_policy(
        "p",
        POLICY.replace("      PodSelector: app=report-runner\n", "").replace(
            "From:", "From: <any> (traffic not restricted by source)"
        ),
        NS,
    )
    assert admits(anyone, {"app": "invoice-api"})
    other_ns = read_policy(
        "p",
        POLICY.replace(
            "PodSelector: app=report-runner", "NamespaceSelector: team=finance"
        ),
        NS,
    )
    assert admits(other_ns, {"app": "invoice-api"})  # undecided: no finding on a guess


def call(tool, arguments, why):
    return PlannedCall("kubernetes", "kubernetes", tool, dict(arguments), why)


def asked(inv: Investigation) -> set[tuple]:
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    return {
        (c.tool, c.arguments.get("kind"), c.arguments.get("name")) for c in calls if c
    }


def test_the_policies_are_read_when_a_caller_cannot_connect_to_ready_pods():
    observations = policy_cluster()[:5]  # no policy read yet
    wanted = asked(investigation("invoice-api", *observations))
    assert ("get_resources", "networkpolicies", None) in wanted

    with_list = asked(investigation("invoice-api", *policy_cluster()[:6]))
    assert ("describe", "networkpolicy", "tax-engine-ingress") in with_list
    assert ("describe", "networkpolicy", "deny-all") not in with_list


def test_no_policy_is_read_when_the_callee_is_down():
    observations = policy_cluster()[:5]
    observations[0] = pods(
        (
            "invoice-api-6d8f9c7b5-aaaaa",
            "0/1",
            "CrashLoopBackOff",
            "6 (1m ago)",
            "2d",
            "app=invoice-api",
        ),
        (
            "tax-engine-5b7c8d9f6-bbbbb",
            "0/1",
            "CrashLoopBackOff",
            "4 (2m ago)",
            "9d",
            "app=tax-engine",
        ),
    )
    wanted = asked(investigation("invoice-api", *observations))
    assert ("get_resources", "networkpolicies", None) not in wanted


# --- HorizontalPodAutoscaler ---------------------------------------------------------------------

HPA_DESCRIBE = """\
Name:                        pricer
Namespace:                   shop
Reference:                   Deployment/pricer
Min replicas:                2
Max replicas:                4
Conditions:
  Type            Status  Reason            Message
  ----            ------  ------            -------
  AbleToScale     True    ReadyForNewScale  recommended size matches current size
  ScalingLimited  True    TooManyReplicas   the desired replica count is more than the maximum replica count
"""
SLOW_CALLS = "ERROR GET /quote 504 upstream pricer timed out after 3000ms (GET http://pricer.shop.svc:8080/v1/price)\n"


def hpa_cluster(replicas: str = "4") -> list:
    return [
        pods(
            ("quote-web-5c6d7e8f9-aaaaa", "1/1", "Running", "0", "4d", "app=quote-web"),
            ("pricer-6f7a8b9c1-bbbbb", "1/1", "Running", "0", "9d", "app=pricer"),
            ("pricer-6f7a8b9c1-ccccc", "0/1", "Running", "0", "20m", "app=pricer"),
            (
                "ledger-sync-7a8b9c1d2-ddddd",
                "1/1",
                "Running",
                "1 (5h ago)",
                "9d",
                "app=ledger-sync",
            ),
        ),
        deployments(("quote-web", "1/1"), ("pricer", "1/2"), ("ledger-sync", "1/1")),
        services("quote-web", "pricer", "ledger-sync"),
        events(
            (
                "Warning",
                "Unhealthy",
                "Pod/pricer-6f7a8b9c1-ccccc",
                'Readiness probe failed: Get "http://10.9.0.3:8080/ready": context deadline exceeded',
            ),
        ),
        pod_logs("quote-web-5c6d7e8f9-aaaaa", SLOW_CALLS),
        listing(
            "horizontalpodautoscalers",
            ("NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"),
            ("pricer", "Deployment/pricer", "cpu: 190%/70%", "2", "4", replicas, "90d"),
        ),
        describe("horizontalpodautoscaler", "pricer", HPA_DESCRIBE),
    ]


@pytest.mark.rule("k8s.autoscaler-at-max", "k8s.explained-victims")
def test_an_autoscaler_at_its_maximum_behind_a_slow_target_is_the_cause():
    faults = found(investigation("quote-web", *hpa_cluster()))

    hpa = faults["horizontalpodautoscaler/pricer"]
    assert (hpa.stage, hpa.reason, hpa.layer) == (
        "performance",
        "ScalingLimited",
        "platform",
    )
    assert hpa.is_relevant
    assert any("ScalingLimited True" in fact for _, fact in hpa.evidence)
    assert any("timed out" in fact for _, fact in hpa.evidence)
    assert faults["deployment/pricer"].victim_of == "horizontalpodautoscaler/pricer"


def test_an_autoscaler_with_room_left_is_no_fault():
    observations = hpa_cluster(replicas="3")
    observations[-1] = describe(
        "horizontalpodautoscaler",
        "pricer",
        HPA_DESCRIBE.replace("ScalingLimited  True", "ScalingLimited  False"),
    )
    assert "horizontalpodautoscaler/pricer" not in found(
        investigation("quote-web", *observations)
    )


def test_the_autoscalers_are_read_when_a_callee_answers_too_slowly():
    wanted = asked(investigation("quote-web", *hpa_cluster()[:5]))
    assert ("get_resources", "horizontalpodautoscalers", None) in wanted
    wanted = asked(investigation("quote-web", *hpa_cluster()[:6]))
    assert ("describe", "horizontalpodautoscaler", "pricer") in wanted


# --- stale faults --------------------------------------------------------------------------------


@pytest.mark.rule("k8s.stale")
def test_a_restart_before_the_window_with_every_pod_ready_now_is_stale():
    stale = found(investigation("quote-web", *hpa_cluster(), window_h=1))
    assert stale["deployment/ledger-sync"].is_stale
    # Within a longer window: ready for far longer than any crash back-off, the crash is over.
    over = found(investigation("quote-web", *hpa_cluster(), window_h=6))
    assert over["deployment/ledger-sync"].is_stale
    recent = hpa_cluster()
    recent[0] = pods(
        ("quote-web-5c6d7e8f9-aaaaa", "1/1", "Running", "0", "4d", "app=quote-web"),
        (
            "ledger-sync-7a8b9c1d2-ddddd",
            "1/1",
            "Running",
            "1 (4m ago)",
            "9d",
            "app=ledger-sync",
        ),
    )
    current = found(investigation("quote-web", *recent, window_h=6))
    assert not current["deployment/ledger-sync"].is_stale
    # A workload with a pod not ready now is never stale.
    assert not stale["deployment/pricer"].is_stale


# --- Jobs and CronJobs ---------------------------------------------------------------------------

JOB_LOG = "INFO  rolling up invoices\nERROR upload failed: 403 Forbidden writing gs://acme-rollups/2031-03-02\n"


def job_cluster() -> list:
    return [
        pods(
            ("web-5c6d7e8f9-aaaaa", "1/1", "Running", "0", "4d", "app=web"),
            (
                "nightly-rollup-31007160-x1y2z",
                "0/1",
                "Error",
                "0",
                "70m",
                "job-name=nightly-rollup-31007160",
            ),
            (
                "nightly-rollup-31007220-k3m4n",
                "0/1",
                "Error",
                "0",
                "8m",
                "batch.kubernetes.io/job-name=nightly-rollup-31007220,job-name=nightly-rollup-31007220",
            ),
        ),
        deployments(("web", "1/1")),
        events(
            (
                "Warning",
                "BackoffLimitExceeded",
                "Job/nightly-rollup-31007160",
                "Job has reached the specified backoff limit",
            )
        ),
    ]


def test_a_failing_jobs_pods_belong_to_its_cron_job():
    cluster = Cluster.read(job_cluster())
    assert (
        cluster.owner(NS, "pod", "nightly-rollup-31007220-k3m4n")
        == "cronjob/nightly-rollup"
    )
    assert (
        cluster.owner(NS, "job", "nightly-rollup-31007160") == "cronjob/nightly-rollup"
    )
    assert cluster.owner(NS, "pod", "web-5c6d7e8f9-aaaaa") == "deployment/web"


def test_a_cron_job_whose_job_reached_its_backoff_limit_is_named_by_its_kind():
    observations = [*job_cluster(), pod_logs("nightly-rollup-31007220-k3m4n", JOB_LOG)]
    faults = found(investigation("web", *observations))

    job = faults["cronjob/nightly-rollup"]
    assert (job.stage, job.reason) == ("runtime", "BackoffLimitExceeded")
    assert any("403 Forbidden" in fact for _, fact in job.evidence)
    assert "deployment/nightly-rollup" not in faults


def test_the_newest_failed_pod_of_a_job_is_read_with_its_current_logs_and_the_jobs_listed():
    calls = kubernetes.plan(
        investigation("web", *job_cluster()), Facts.read(job_cluster()), call
    )
    logs = [c.arguments for c in calls if c and c.tool == "pod_logs"]
    assert {
        "pod": "nightly-rollup-31007220-k3m4n",
        "namespace": NS,
        "tail": 200,
    } in logs
    wanted = {
        (c.tool, c.arguments.get("kind"), c.arguments.get("name")) for c in calls if c
    }
    assert {
        ("get_resources", "cronjobs", None),
        ("get_resources", "jobs", None),
    } <= wanted
    assert ("describe", "job", "nightly-rollup-31007160") in wanted


# --- one replica of several ----------------------------------------------------------------------

BAD_REPLICA = (
    'level=error msg="PUT /v3/sessions/77 500" err="ECONNRESET writing to 10.9.0.9:11211"\n'
    'level=info msg="GET /livez 200"\n'
)
GOOD_REPLICA = (
    'level=info msg="PUT /v3/sessions/78 204"\n'
    'level=info msg="memcached pool reset after topology change"\n'
)


def replica_cluster(*logs) -> list:
    return [
        pods(
            (
                "session-svc-7d6c5b4a3-aaaaa",
                "1/1",
                "Running",
                "0",
                "2d",
                "app=session-svc",
            ),
            (
                "session-svc-7d6c5b4a3-bbbbb",
                "1/1",
                "Running",
                "0",
                "2d",
                "app=session-svc",
            ),
            (
                "session-svc-7d6c5b4a3-ccccc",
                "1/1",
                "Running",
                "0",
                "2d",
                "app=session-svc",
            ),
        ),
        deployments(("session-svc", "3/3")),
        services("session-svc"),
        events(),
        *logs,
    ]


@pytest.mark.rule("k8s.replica-failing")
def test_one_replica_failing_while_a_sibling_serves_names_the_pod():
    observations = replica_cluster(
        pod_logs("session-svc-7d6c5b4a3-aaaaa", BAD_REPLICA),
        pod_logs("session-svc-7d6c5b4a3-bbbbb", GOOD_REPLICA),
    )
    faults = found(investigation("session-svc", *observations))

    replica = faults["pod/session-svc-7d6c5b4a3-aaaaa"]
    assert (replica.stage, replica.reason, replica.layer) == (
        "runtime",
        "ReplicaFailing",
        "application",
    )
    assert replica.is_relevant
    assert any("ECONNRESET" in fact for _, fact in replica.evidence)


def test_every_replica_failing_is_not_one_replicas_fault():
    observations = replica_cluster(
        pod_logs("session-svc-7d6c5b4a3-aaaaa", BAD_REPLICA),
        pod_logs("session-svc-7d6c5b4a3-bbbbb", BAD_REPLICA),
    )
    faults = found(investigation("session-svc", *observations))
    assert not any(c.startswith("pod/") for c in faults)


def test_a_failing_replicas_sibling_is_read_to_tell():
    first = replica_cluster(pod_logs("session-svc-7d6c5b4a3-aaaaa", BAD_REPLICA))
    calls = kubernetes.plan(
        investigation("session-svc", *first), Facts.read(first), call
    )
    logs = [c.arguments.get("pod") for c in calls if c and c.tool == "pod_logs"]
    assert "session-svc-7d6c5b4a3-bbbbb" in logs

    quiet = replica_cluster(pod_logs("session-svc-7d6c5b4a3-aaaaa", GOOD_REPLICA))
    calls = kubernetes.plan(
        investigation("session-svc", *quiet), Facts.read(quiet), call
    )
    logs = [c.arguments.get("pod") for c in calls if c and c.tool == "pod_logs"]
    assert "session-svc-7d6c5b4a3-bbbbb" not in logs


def test_a_cron_job_the_incident_names_in_words_is_on_its_path():
    observations = [*job_cluster(), pod_logs("nightly-rollup-31007220-k3m4n", JOB_LOG)]
    inv = investigation("web", *observations)
    assert not found(inv)["cronjob/nightly-rollup"].is_relevant

    named = Investigation(
        incident=IncidentBrief(
            title="web shows yesterday's totals",
            service="web",
            severity="sev3",
            symptoms=(f"the nightly rollup in namespace {NS} has not run",),
        ),
        tools=[],
        observations=observations,
    )
    assert found(named)["cronjob/nightly-rollup"].is_relevant


@pytest.mark.rule("k8s.stale", "board.kubernetes")
def test_a_stale_fault_ranks_below_the_current_cause():
    inv = investigation("quote-web", *hpa_cluster(), window_h=1)
    candidates = Analysis(inv, Facts.read(inv.observations)).candidates.values()
    by_component = {c.component: c for c in candidates}

    stale = by_component["deployment/ledger-sync"]
    assert stale.status == "likely" and "none restarted recently" in stale.statement
    assert by_component["horizontalpodautoscaler/pricer"].confidence > stale.confidence
    assert (
        by_component["deployment/pricer"].confidence
        < by_component["horizontalpodautoscaler/pricer"].confidence
    )


def test_the_survey_reads_the_explaining_objects_of_a_namespace_it_reads():
    namespaces = answer(
        "get_resources",
        {"kind": "namespaces", "namespace": "default"},
        "NAME   STATUS   AGE\nshop   Active   400d\n",
    )
    inv = Investigation(
        incident=IncidentBrief(
            title="invoices cannot be issued",
            service="billing",
            severity="sev2",
            symptoms=(),
            starting_services=("invoice-api",),
        ),
        tools=[],
        observations=[namespaces, *policy_cluster()[:5]],
    )
    calls = kubernetes.survey(inv, Facts.read(inv.observations), call)
    wanted = {(c.tool, c.arguments.get("kind")) for c in calls if c}
    assert ("get_resources", "networkpolicies") in wanted


CLUSTER_PORTS = """\
Name:         ledger-peers
Namespace:    shop
Spec:
  PodSelector:     app.kubernetes.io/name=ledger
  Allowing ingress traffic:
    To Port: 7000/TCP
    To Port: 9100/TCP
    From:
      NamespaceSelector: kubernetes.io/metadata.name=shop
    From:
      NamespaceSelector: kubernetes.io/metadata.name=observability
    ----------
    To Port: 7443/TCP
    From:
      PodSelector: app=ledger-admin
  Not affecting egress traffic
  Policy Types: Ingress
"""


@pytest.mark.rule("k8s.network-policy")
def test_a_policy_rule_admits_only_its_own_ports():
    policy = read_policy("ledger-peers", CLUSTER_PORTS, NS)
    ledger = {"app.kubernetes.io/name": "ledger"}
    # Every pod of its own namespace on the client ports, not on the replicas' gossip port.
    assert admits(policy, ledger, "7000") and admits(policy, {"app": "x"}, "9100")
    assert not admits(policy, ledger, "7001")
    # The second rule: its port for its own source only.
    assert admits(policy, {"app": "ledger-admin"}, "7443")
    assert not admits(policy, {"app": "x"}, "7443")
    # A port not read from the line: the rules' sources decide, as before.
    assert admits(policy, ledger)


@pytest.mark.rule("k8s.network-policy")
def test_a_replica_dialling_its_peers_is_read_as_a_peer_edge_with_its_port():
    peers: list[Edge] = []
    text = (
        "[WRN] cluster link to 10.9.0.12:7001 failed: dial tcp 10.9.0.12:7001: i/o timeout\n"
        "[INF] listening on 10.9.0.11:7000\n"
    )
    edges = log_edges(
        "statefulset/ledger",
        None,
        text,
        ["ledger"],
        NS,
        {"10.9.0.12": "ledger", "10.9.0.11": "ledger"},
        peers,
    )
    assert edges == []
    assert [(e.target, e.service, target_port(e)) for e in peers] == [
        ("10.9.0.12", "ledger", "7001")
    ]
