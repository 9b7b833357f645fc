"""Causes behind a loud failure that live elsewhere (issue 21 items 1 and 4): an admission webhook
whose back end is down, a metrics server an autoscaler cannot read, a dependency still loading,
and failures the cluster declares itself (a rollout past its deadline, a refused image pull)."""

import pytest

from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.kubectl import Pod
from reasoning.layered.kubernetes.metrics_api import is_metrics_server
from reasoning.layered.kubernetes.webhooks import failed_webhook
from reasoning.observations import IncidentBrief, Investigation, PlannedCall

from .answers import NS, answer, describe, events, pod_logs, table
from .test_explaining_objects import deployments, pods, services


def investigation(service: str, *observations) -> Investigation:
    incident = IncidentBrief(
        title=f"{service} failing",
        service=service,
        severity="sev2",
        symptoms=(f"{service} in namespace {NS} fails",),
        window_start="2031-03-02T11:00:00Z",
        window_end="2031-03-02T12:00:00Z",
    )
    return Investigation(incident=incident, tools=[], observations=list(observations))


def found(inv: Investigation) -> dict[str, kubernetes.Finding]:
    return {
        f.component: f for f in kubernetes.diagnose(inv, Facts.read(inv.observations))
    }


def asked(inv: Investigation) -> set[tuple]:
    def call(tool: str, arguments: dict, why: str) -> PlannedCall:
        return PlannedCall("kubernetes", "kubernetes", tool, arguments, why)

    calls = kubernetes.plan(inv, Facts.read(inv.observations), call, max_details=30)
    return {
        (
            c.tool,
            c.arguments.get("kind"),
            c.arguments.get("namespace"),
            c.arguments.get("name"),
        )
        for c in calls
        if c
    }


def elsewhere(kind: str, namespace: str, *rows: tuple[str, ...]) -> object:
    arguments: dict[str, object] = {"kind": kind, "namespace": namespace, "wide": True}
    if kind == "pods":
        arguments["show_labels"] = True
    return answer("get_resources", arguments, table(*rows))


# --- admission webhooks --------------------------------------------------------------------------

HOOK = (
    'Error creating: Internal error occurred: failed calling webhook "check.gatekeep.example": '
    'failed to call webhook: Post "https://gate-hook.policy-sys.svc:443/check?timeout=10s": '
    'no endpoints available for service "gate-hook"'
)
POD_COLUMNS = ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS")


def webhook_cluster() -> list:
    return [
        pods(
            (
                "ledger-api-6d8f9c7b5-aaaaa",
                "1/1",
                "Running",
                "0",
                "4d",
                "app=ledger-api",
            )
        ),
        deployments(("ledger-api", "1/3")),
        services("ledger-api"),
        events(("Warning", "FailedCreate", "ReplicaSet/ledger-api-6d8f9c7b5", HOOK)),
        elsewhere(
            "pods",
            "policy-sys",
            POD_COLUMNS,
            (
                "gate-hook-7c9d8b6f5-qqqqq",
                "0/1",
                "CrashLoopBackOff",
                "7 (1m ago)",
                "30m",
                "10.1.0.9",
                "node-b",
                "app=gate-hook",
            ),
        ),
        elsewhere(
            "services",
            "policy-sys",
            ("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"),
            (
                "gate-hook",
                "ClusterIP",
                "172.30.9.9",
                "<none>",
                "443/TCP",
                "90d",
                "app=gate-hook",
            ),
        ),
        answer(
            "get_resources",
            {"kind": "endpoints", "namespace": "policy-sys"},
            table(("NAME", "ENDPOINTS", "AGE"), ("gate-hook", "<none>", "90d")),
        ),
    ]


def test_a_webhook_call_names_its_service_and_namespace():
    hook = failed_webhook(HOOK)
    assert hook is not None
    assert (hook.webhook, hook.service, hook.namespace) == (
        "check.gatekeep.example",
        "gate-hook",
        "policy-sys",
    )
    assert (
        failed_webhook("Error creating: pods is forbidden: exceeded quota: q1") is None
    )


@pytest.mark.rule("k8s.admission-webhook")
def test_the_webhooks_back_end_is_blamed_and_the_refused_workload_is_its_victim():
    faults = found(investigation("ledger-api", *webhook_cluster()))

    hook = faults["deployment/gate-hook"]
    assert (hook.stage, hook.reason, hook.layer) == (
        "admission",
        "FailedCreate",
        "platform",
    )
    assert hook.is_relevant
    assert any("failed calling webhook" in fact for _, fact in hook.evidence)
    assert any("gate-hook <none>" in fact for _, fact in hook.evidence)
    assert faults["deployment/ledger-api"].victim_of == "deployment/gate-hook"


def test_the_webhooks_namespace_is_read_when_a_create_fails_calling_it():
    wanted = asked(investigation("ledger-api", *webhook_cluster()[:4]))
    assert ("get_resources", "services", "policy-sys", None) in wanted
    assert ("get_resources", "endpoints", "policy-sys", None) in wanted
    wanted = asked(investigation("ledger-api", *webhook_cluster()))
    assert ("describe", "pod", "policy-sys", "gate-hook-7c9d8b6f5-qqqqq") in wanted


# --- the metrics API ----------------------------------------------------------------------------

BLIND = "failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API"


def metrics_cluster(server_ready: str = "0/1") -> list:
    return [
        pods(
            (
                "basket-api-5c6d7e8f9-aaaaa",
                "1/1",
                "Running",
                "0",
                "4d",
                "app=basket-api",
            )
        ),
        deployments(("basket-api", "1/1")),
        services("basket-api"),
        events(
            (
                "Warning",
                "FailedGetResourceMetric",
                "HorizontalPodAutoscaler/basket-api",
                BLIND,
            )
        ),
        elsewhere(
            "pods",
            "kube-system",
            POD_COLUMNS,
            (
                "metrics-server-6b7c8d9f5-zzzzz",
                server_ready,
                "Running",
                "0",
                "30m",
                "10.1.0.7",
                "node-c",
                "k8s-app=metrics-server",
            ),
        ),
    ]


def test_a_metrics_server_is_known_by_its_name_or_labels():
    def pod(name: str, labels: dict[str, str] | None) -> Pod:
        return Pod(name, "kube-system", (1, 1), "Running", 0, "", "", labels, "")

    assert is_metrics_server(pod("metrics-server-abc", None))
    assert is_metrics_server(
        pod("x-1", {"app.kubernetes.io/name": "prometheus-adapter"})
    )
    assert not is_metrics_server(pod("payments-metrics-1", {"app": "payments"}))


@pytest.mark.rule("k8s.metrics-api")
def test_an_autoscaler_that_cannot_read_metrics_blames_the_unready_metrics_server():
    faults = found(investigation("basket-api", *metrics_cluster()))

    server = faults["deployment/metrics-server"]
    assert (server.stage, server.reason, server.layer) == (
        "performance",
        "FailedGetResourceMetric",
        "platform",
    )
    assert server.is_relevant
    assert "deployment/basket-api" in server.explains
    assert any("FailedGetResourceMetric" in fact for _, fact in server.evidence)


@pytest.mark.rule("k8s.metrics-api")
def test_with_the_metrics_server_ready_the_blind_autoscaler_itself_is_named():
    faults = found(investigation("basket-api", *metrics_cluster(server_ready="1/1")))
    assert "deployment/metrics-server" not in faults
    assert faults["horizontalpodautoscaler/basket-api"].layer == "platform"


@pytest.mark.rule("k8s.metrics-api")
def test_an_autoscaler_blind_because_its_targets_pods_do_not_start_is_their_victim():
    no_metrics = (
        "failed to get cpu utilization: did not receive metrics for targeted pods (pods "
        "might be unready)"
    )
    cluster = [
        pods(
            ("cart-sync-7f8e9d6c5-bbbbb", "1/1", "Running", "0", "4d", "app=cart-sync"),
            (
                "cart-sync-7f8e9d6c5-ccccc",
                "0/1",
                "Init:ImagePullBackOff",
                "0",
                "6m",
                "app=cart-sync",
            ),
        ),
        deployments(("cart-sync", "1/2")),
        events(
            (
                "Warning",
                "Failed",
                "Pod/cart-sync-7f8e9d6c5-ccccc",
                "Error: ImagePullBackOff",
            ),
            (
                "Warning",
                "FailedGetResourceMetric",
                "HorizontalPodAutoscaler/cart-sync",
                no_metrics,
            ),
        ),
    ]
    faults = found(investigation("cart-sync", *cluster))

    hpa = faults["horizontalpodautoscaler/cart-sync"]
    assert hpa.victim_of == "deployment/cart-sync"
    assert hpa.explains == []
    assert faults["deployment/cart-sync"].victim_of is None


def test_a_blind_autoscaler_has_its_conditions_and_the_metrics_server_read():
    wanted = asked(investigation("basket-api", *metrics_cluster()))
    assert ("describe", "horizontalpodautoscaler", NS, "basket-api") in wanted
    assert (
        "describe",
        "pod",
        "kube-system",
        "metrics-server-6b7c8d9f5-zzzzz",
    ) in wanted


# --- a dependency still loading -----------------------------------------------------------------


def loading_cluster(line: str) -> list:
    return [
        pods(
            ("quiz-api-5c6d7e8f9-aaaaa", "0/1", "Running", "0", "4d", "app=quiz-api"),
            ("score-cache-0", "1/1", "Running", "0", "20m", "app=score-cache"),
        ),
        deployments(("quiz-api", "0/1")),
        answer(
            "get_resources",
            {"kind": "statefulsets", "namespace": NS, "wide": True},
            table(("NAME", "READY", "AGE"), ("score-cache", "1/1", "90d")),
        ),
        services("quiz-api", "score-cache"),
        events(
            (
                "Warning",
                "Unhealthy",
                "Pod/quiz-api-5c6d7e8f9-aaaaa",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            )
        ),
        pod_logs("quiz-api-5c6d7e8f9-aaaaa", line),
        pod_logs("score-cache-0", "* Loading RDB\n* Loading: 41.00%\n"),
    ]


@pytest.mark.rule("k8s.dependency-loading")
def test_a_dependency_its_caller_says_is_loading_is_the_cause():
    line = "WARN ready check: cache score-cache:6379 PING failed: LOADING dataset in memory\n"
    faults = found(investigation("quiz-api", *loading_cluster(line)))

    cache = faults["statefulset/score-cache"]
    assert (cache.stage, cache.reason, cache.layer) == (
        "runtime",
        "Loading",
        "application",
    )
    assert any("LOADING" in fact for _, fact in cache.evidence)
    assert any("Loading: 41.00%" in fact for _, fact in cache.evidence)
    assert faults["deployment/quiz-api"].victim_of == "statefulset/score-cache"


@pytest.mark.rule("k8s.dependency-loading")
def test_a_dependency_refusing_for_another_reason_is_not_loading():
    line = "WARN ready check: cache score-cache:6379 PING failed: NOAUTH Authentication required\n"
    assert "statefulset/score-cache" not in found(
        investigation("quiz-api", *loading_cluster(line))
    )


# --- failures the cluster declares --------------------------------------------------------------

STUCK = """\
Name:                   badge-svc
Namespace:              shop
Conditions:
  Type           Status  Reason
  ----           ------  ------
  Available      True    MinimumReplicasAvailable
  Progressing    False   ProgressDeadlineExceeded
"""


def stuck_cluster(progressing: str = STUCK) -> list:
    return [
        pods(
            ("badge-svc-7f8e9d6c5-aaaaa", "1/1", "Running", "0", "9d", "app=badge-svc"),
            (
                "badge-svc-5a4b3c2d1-bbbbb",
                "0/1",
                "Running",
                "0",
                "30m",
                "app=badge-svc",
            ),
        ),
        deployments(("badge-svc", "1/2")),
        services("badge-svc"),
        events(
            (
                "Warning",
                "Unhealthy",
                "Pod/badge-svc-5a4b3c2d1-bbbbb",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            )
        ),
        describe("deployment", "badge-svc", progressing),
    ]


@pytest.mark.rule("k8s.declared-failure")
def test_a_rollout_past_its_deadline_is_confirmed_whatever_the_incident_names():
    faults = found(investigation("members", *stuck_cluster()))
    stuck = faults["deployment/badge-svc"]
    assert stuck.is_relevant
    assert any("ProgressDeadlineExceeded" in fact for _, fact in stuck.evidence)


@pytest.mark.rule("k8s.declared-failure")
def test_a_rollout_still_progressing_stays_a_lead_off_the_path():
    faults = found(
        investigation(
            "members",
            *stuck_cluster(
                STUCK.replace(
                    "False   ProgressDeadlineExceeded", "True    ReplicaSetUpdated"
                )
            ),
        )
    )
    assert not faults["deployment/badge-svc"].is_relevant


def pull_cluster(message: str) -> list:
    return [
        pods(
            (
                "feed-cron-6d5c4b3a2-aaaaa",
                "0/1",
                "ImagePullBackOff",
                "0",
                "20m",
                "app=feed-cron",
            )
        ),
        deployments(("feed-cron", "0/1")),
        events(("Warning", "Failed", "Pod/feed-cron-6d5c4b3a2-aaaaa", message)),
    ]


@pytest.mark.rule("k8s.declared-failure")
def test_an_image_pull_the_registry_refuses_for_authorization_is_confirmed():
    refused = 'Failed to pull image "reg.example/feed:1": failed to authorize: 401 Unauthorized'
    faults = found(investigation("newsfeed", *pull_cluster(refused)))
    assert faults["deployment/feed-cron"].is_relevant
    missing = 'Failed to pull image "reg.example/feed:1": not found: manifest unknown'
    faults = found(investigation("newsfeed", *pull_cluster(missing)))
    assert not faults["deployment/feed-cron"].is_relevant


TIMED_OUT_HOOK = (
    'Error creating: Internal error occurred: failed calling webhook "check.gatekeep.example": '
    'failed to call webhook: Post "https://gate-hook.policy-sys.svc:443/check?timeout=10s": '
    "context deadline exceeded"
)


def _healthy_backend(observations: list) -> list:
    """The webhook cluster with the back end's pod Running and ready, and the call timing out."""
    out = []
    for obs in observations:
        text = obs.text.replace("0/1", "1/1").replace("CrashLoopBackOff", "Running")
        text = text.replace("7 (1m ago)", "0").replace(
            "<none>      90d", "10.1.0.9:8443"
        )
        text = text.replace(HOOK, TIMED_OUT_HOOK)
        out.append(answer(obs.tool, obs.arguments, text))
    return out


@pytest.mark.rule("k8s.admission-webhook")
def test_a_timed_out_call_to_a_healthy_back_end_names_the_webhook():
    faults = found(investigation("ledger-api", *_healthy_backend(webhook_cluster())))

    hook = faults["check.gatekeep.example"]
    assert hook.layer == "platform" and hook.is_relevant
    assert any("context deadline exceeded" in fact for _, fact in hook.evidence)
    assert (
        "deployment/gate-hook" not in faults
        or not faults["deployment/gate-hook"].explains
    )


# --- an event-driven autoscaler whose scaler cannot read its source -------------------------------

SCALER_BROKEN = (
    "error getting stream length for redis-streams://jobs-redis:6379/render-jobs: "
    "NOGROUP No such key 'render-jobs' or consumer group 'renderers'"
)


def scaler_cluster(reason: str = "KEDAScalerFailed") -> list:
    return [
        pods(
            ("thumb-api-5c6d7e8f9-aaaaa", "1/1", "Running", "0", "4d", "app=thumb-api")
        ),
        deployments(("thumb-api", "1/1"), ("renderer", "0/0")),
        services("thumb-api"),
        answer(
            "get_resources",
            {"kind": "horizontalpodautoscalers", "namespace": NS, "wide": True},
            table(
                (
                    "NAME",
                    "REFERENCE",
                    "TARGETS",
                    "MINPODS",
                    "MAXPODS",
                    "REPLICAS",
                    "AGE",
                ),
                (
                    "keda-hpa-render-queue",
                    "Deployment/renderer",
                    "<unknown>/10 (avg)",
                    "1",
                    "30",
                    "0",
                    "90d",
                ),
            ),
        ),
        events(("Warning", reason, "ScaledObject/render-queue", SCALER_BROKEN)),
    ]


@pytest.mark.rule("k8s.scaler-failed")
def test_a_scaled_object_whose_scaler_cannot_read_its_stream_is_the_platform_fault():
    faults = found(investigation("renderer", *scaler_cluster()))

    scaler = faults["scaledobject/render-queue"]
    assert scaler.layer == "platform"
    assert "deployment/renderer" in scaler.explains
    assert any("NOGROUP" in fact for _, fact in scaler.evidence)


def test_a_scaled_object_event_of_another_reason_is_not_a_failed_scaler():
    faults = found(
        investigation("renderer", *scaler_cluster("KEDAScaleTargetActivated"))
    )
    assert "scaledobject/render-queue" not in faults
