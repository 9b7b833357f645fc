"""Event reasons no stage read before (issue 21 classes 1 and 4), read from one table: a sandbox
whose network cannot be set up, a volume still attached to another node, pods preempted for a
workload of higher priority. Each blames the object the message names, and its victims rank below."""

import pytest

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes import event_reasons
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import STAGE_LAYERS
from reasoning.layered.kubernetes.preemption import preemption_faults
from reasoning.layered.kubernetes.stages.startup import startup
from reasoning.layered.kubernetes.view import workload_view
from reasoning.layered.kubernetes.volumes import volume_faults
from reasoning.observations import IncidentBrief, Investigation, PlannedCall

from .answers import NS, answer, cited, describe, events, listing

POD_HEADER = ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS")


def pods(*rows: tuple[str, str, str, str], ns: str = NS) -> object:
    """Pods as (name, status, age, node), labelled with their workload (the name less two parts)."""
    return answer(
        "get_resources",
        {"kind": "pods", "namespace": ns, "wide": True, "show_labels": True},
        _table(
            POD_HEADER,
            *(
                (
                    name,
                    "1/1" if status == "Running" else "0/1",
                    status,
                    "0",
                    age,
                    "<none>" if status != "Running" else f"10.7.0.{i}",
                    node,
                    f"app={name.rsplit('-', 2)[0]}",
                )
                for i, (name, status, age, node) in enumerate(rows, 1)
            ),
        ),
    )


def _table(*rows: tuple[str, ...]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return (
        "\n".join(
            "   ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            for row in rows
        )
        + "\n"
    )


def deployments(*names: str, ns: str = NS) -> object:
    return answer(
        "get_resources",
        {"kind": "deployments", "namespace": ns, "wide": True},
        _table(
            ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
            *((n, "1/2", "2", "1", "90d", f"app={n}") for n in names),
        ),
    )


def namespace_events(ns: str, *rows: tuple[str, str, str, str, str]) -> object:
    """`kubectl events -n <ns>` as (last seen, type, reason, object, message)."""
    return answer(
        "events",
        {"namespace": ns},
        _table(("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"), *rows),
    )


def investigation(service: str, *observations) -> Investigation:
    incident = IncidentBrief(
        title=f"{service} failing",
        service=service,
        severity="sev2",
        symptoms=(f"{service} in namespace {NS} answers errors",),
        window_start="2031-03-02T11:00:00Z",
        window_end="2031-03-02T12:00:00Z",
    )
    return Investigation(incident=incident, tools=[], observations=list(observations))


def call(tool, arguments, why):
    return PlannedCall("kubernetes", "kubernetes", tool, dict(arguments), why)


def found(inv: Investigation) -> dict[str, kubernetes.Finding]:
    return {
        f.component: f for f in kubernetes.diagnose(inv, Facts.read(inv.observations))
    }


# --- the table --------------------------------------------------------------------------------


def test_every_reason_blocks_a_known_stage_and_blames_a_known_object():
    for reason, reading in event_reasons.READINGS.items():
        assert reading.stage in STAGE_LAYERS, reason
        assert reading.blames in event_reasons.BLAMES, reason
    # An attach failure is why a mount times out: it comes first.
    startup_reasons = event_reasons.reasons_at("startup")
    assert startup_reasons.index("FailedAttachVolume") < startup_reasons.index(
        "FailedMount"
    )


@pytest.mark.parametrize(
    ("message", "words"),
    [
        (
            'Multi-Attach error for volume "pvc-0a1b" Volume is already exclusively '
            "attached to one node and can't be attached to another",
            "the volume is still attached to another node",
        ),
        (
            'Failed to create pod sandbox: plugin type="calico" failed (add): '
            "ipam: no IP addresses available in range set: 10.12.0.0/24",
            "pod IP addresses exhausted",
        ),
        (
            "container runtime network not ready: cni plugin not initialized",
            "the network plugin is not ready",
        ),
        ("Back-off restarting failed container app", ""),
    ],
)
def test_a_message_says_its_trouble_in_a_few_words(message, words):
    cause = event_reasons.cause_of(message)
    assert (cause[1] if cause else "") == words


# --- a sandbox that cannot be set up ------------------------------------------------------------

SANDBOX = (
    "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for "
    'sandbox "9f1e": plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to '
    "assign an IP address to container"
)
CNI_LOG = (
    '{"level":"error","msg":"AllocENI: error assigning private IP addrs: '
    'InsufficientFreeAddressesInSubnet: not enough free addresses (subnet-77aa10bb22cc)"}\n'
    '{"level":"debug","msg":"IP address pool stats: total 10, assigned 10"}\n'
)


def quoter(status: str, *warnings: tuple[str, str], logs: bool = False):
    pod = "quoter-6b7c8d9e5f-q2w3e"
    observations = [
        deployments("quoter"),
        pods(
            (pod, status, "9m", "node-b"),
            ("quoter-6b7c8d9e5f-r4t5y", "Running", "3d", "node-a"),
        ),
        events(*(("Warning", reason, f"Pod/{pod}", msg) for reason, msg in warnings)),
    ]
    if logs:
        observations.append(
            answer(
                "pod_logs",
                {"pod": "cni-agent-x7k2p", "namespace": "kube-system", "tail": 200},
                CNI_LOG,
            )
        )
    return workload_view(Cluster.read(observations), NS, "deployment/quoter")


@pytest.mark.rule("k8s.startup")
def test_a_sandbox_without_a_pod_ip_blocks_the_workload_at_startup():
    v = quoter("ContainerCreating", ("FailedCreatePodSandBox", SANDBOX), logs=True)
    f = startup(v)
    assert f is not None
    assert (f.stage, f.reason, f.component, f.layer) == (
        "startup",
        "FailedCreatePodSandBox",
        "deployment/quoter",
        layers.PLATFORM,
    )
    assert "pod IP addresses exhausted" in f.statement
    # The pod that waits is cited, not its running sibling.
    rows = [fact for _, fact in f.evidence if fact.startswith("get pods:")]
    assert rows and all("q2w3e" in row for row in rows)
    assert cited(f.evidence, v.by_reason["FailedCreatePodSandBox"][0].obs)
    # The network plugin's own log says the same trouble: it joins, with the subnet it names.
    assert any("InsufficientFreeAddressesInSubnet" in fact for _, fact in f.evidence)
    assert "subnet-77aa10bb22cc" in f.keywords


def test_a_sandbox_warning_on_a_running_pod_passes():
    assert startup(quoter("Running", ("FailedCreatePodSandBox", SANDBOX))) is None


@pytest.mark.rule("k8s.startup")
def test_an_attach_failure_names_the_reason_before_the_mount_that_times_out():
    f = startup(
        quoter(
            "ContainerCreating",
            (
                "FailedMount",
                "Unable to attach or mount volumes: unmounted volumes=[cache]: "
                "timed out waiting for the condition",
            ),
            (
                "FailedAttachVolume",
                'Multi-Attach error for volume "pvc-5e6f" Volume is already exclusively '
                "attached to one node and can't be attached to another",
            ),
        )
    )
    assert f is not None and f.reason == "FailedAttachVolume"
    assert "still attached to another node" in f.statement


# --- a volume still attached to another node -------------------------------------------------------

VOLUME = "pvc-1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
MULTI_ATTACH = (
    f'Multi-Attach error for volume "{VOLUME}" Volume is already exclusively attached to one '
    "node and can't be attached to another"
)


def ledger_cluster(*, claim_listed: bool = True) -> list:
    observations = [
        deployments("ledger-store", "ledger-web"),
        pods(
            ("ledger-store-5d6e7f8a9b-old01", "Terminating", "12d", "node-down"),
            ("ledger-store-5d6e7f8a9b-new02", "ContainerCreating", "20m", "node-up"),
            ("ledger-web-7a8b9c0d1e-web01", "Running", "3d", "node-up"),
        ),
        events(
            (
                "Warning",
                "FailedAttachVolume",
                "Pod/ledger-store-5d6e7f8a9b-new02",
                MULTI_ATTACH,
            ),
        ),
        answer(
            "get_resources",
            {"kind": "persistentvolumes"},
            _table(
                ("NAME", "CAPACITY", "ACCESS MODES", "STATUS", "CLAIM", "AGE"),
                (VOLUME, "50Gi", "RWO", "Bound", f"{NS}/ledger-data", "90d"),
            ),
        ),
    ]
    if claim_listed:
        observations.append(
            listing(
                "persistentvolumeclaims",
                ("NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "AGE"),
                ("ledger-data", "Bound", VOLUME, "50Gi", "RWO", "90d"),
            )
        )
    return observations


@pytest.mark.rule("k8s.volume-attach")
@pytest.mark.parametrize("claim_listed", [True, False])
def test_a_volume_still_attached_elsewhere_blames_its_claim(claim_listed):
    cluster = Cluster.read(ledger_cluster(claim_listed=claim_listed))
    [f] = volume_faults(cluster, NS)
    assert (f.stage, f.reason, f.component, f.layer) == (
        "startup",
        "FailedAttachVolume",
        "persistentvolumeclaim/ledger-data",
        layers.PLATFORM,
    )
    assert f.explains == ["deployment/ledger-store"]
    assert "still attached to another node" in f.statement
    assert any("Multi-Attach error" in fact for _, fact in f.evidence)


def test_the_claim_outranks_the_workload_that_waits_for_it():
    faults = found(investigation("ledger-store", *ledger_cluster()))
    claim = faults["persistentvolumeclaim/ledger-data"]
    assert claim.is_relevant and claim.victim_of is None
    assert faults["deployment/ledger-store"].victim_of == claim.component


def test_an_attach_failure_without_a_waiting_pod_or_a_known_claim_blames_no_claim():
    running = ledger_cluster()
    running[1] = pods(
        ("ledger-store-5d6e7f8a9b-new02", "Running", "20m", "node-up"),
    )
    assert volume_faults(Cluster.read(running), NS) == []
    unknown = ledger_cluster(claim_listed=False)[
        :3
    ]  # neither claims nor volumes listed
    assert volume_faults(Cluster.read(unknown), NS) == []


def test_the_claim_a_warning_blames_is_described():
    inv = investigation("ledger-store", *ledger_cluster())
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    wanted = {
        (c.tool, c.arguments.get("kind"), c.arguments.get("name")) for c in calls if c
    }
    assert ("describe", "persistentvolumeclaim", "ledger-data") in wanted
    # The waiting pod is described, not the one being deleted.
    assert ("describe", "pod", "ledger-store-5d6e7f8a9b-new02") in wanted
    assert ("describe", "pod", "ledger-store-5d6e7f8a9b-old01") not in wanted


# --- preemption -----------------------------------------------------------------------------------


def preemption_cluster(by: str = "pod 3b1f0c2e-aaaa-4bbb-8ccc-0123456789ab") -> list:
    return [
        deployments("quote-api", "quote-web"),
        pods(
            ("quote-api-6c7d8e9f0a-keep1", "Running", "6d", "node-c"),
            ("quote-api-6c7d8e9f0a-wait1", "Pending", "14m", "<none>"),
            ("quote-web-4a5b6c7d8e-web01", "Running", "6d", "node-a"),
        ),
        namespace_events(
            NS,
            (
                "14m",
                "Normal",
                "Preempted",
                "Pod/quote-api-6c7d8e9f0a-gone1",
                f"Preempted by {by} on node node-a",
            ),
            (
                "1m (x7 over 14m)",
                "Warning",
                "FailedScheduling",
                "Pod/quote-api-6c7d8e9f0a-wait1",
                "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes "
                "are available: 3 No preemption victims found for incoming pod.",
            ),
        ),
        deployments("index-builder", ns="batch"),
        pods(
            ("index-builder-7f8e9d0c1b-run01", "Running", "14m", "node-a"),
            ("nightly-report-2b3c4d5e6f-old01", "Running", "40d", "node-a"),
            ns="batch",
        ),
    ]


@pytest.mark.rule("k8s.preemption")
@pytest.mark.parametrize(
    "by",
    [
        # Today's scheduler names the preemptor by its uid: the pod that started there since.
        "pod 3b1f0c2e-aaaa-4bbb-8ccc-0123456789ab",
        # Older schedulers name it namespace/name.
        "batch/index-builder-7f8e9d0c1b-run01",
    ],
)
def test_pods_preempted_blame_the_preemptor_not_the_workload_that_waits(by):
    faults = found(investigation("quote-api", *preemption_cluster(by)))
    preemptor = faults["deployment/index-builder"]
    assert (preemptor.stage, preemptor.reason, preemptor.layer) == (
        "scheduling",
        "Preempted",
        layers.PLATFORM,
    )
    assert preemptor.namespace == "batch"
    assert preemptor.is_relevant
    assert any("Preempted by" in fact for _, fact in preemptor.evidence)
    waiting = faults["deployment/quote-api"]
    assert (waiting.reason, waiting.victim_of) == (
        "FailedScheduling",
        "deployment/index-builder",
    )


def test_a_preemption_no_pod_started_since_can_explain_blames_no_one():
    observations = preemption_cluster()
    observations[-1] = pods(
        ("nightly-report-2b3c4d5e6f-old01", "Running", "40d", "node-a"),
        ns="batch",
    )
    assert preemption_faults(Cluster.read(observations), NS) == []


def test_two_workloads_that_started_there_since_leave_the_preemptor_unknown():
    observations = preemption_cluster()
    observations[-1] = pods(
        ("index-builder-7f8e9d0c1b-run01", "Running", "14m", "node-a"),
        ("feature-job-3c4d5e6f7a-run02", "Running", "13m", "node-a"),
        ns="batch",
    )
    assert preemption_faults(Cluster.read(observations), NS) == []


@pytest.mark.rule("k8s.volume-attach")
def test_the_claims_other_user_says_where_the_volume_is_held():
    observations = ledger_cluster()
    observations += [
        describe(
            "persistentvolumeclaim",
            "ledger-data",
            "Name:          ledger-data\n"
            f"Namespace:     {NS}\n"
            "Status:        Bound\n"
            f"Volume:        {VOLUME}\n"
            "Used By:       ledger-store-5d6e7f8a9b-new02\n"
            "               ledger-store-5d6e7f8a9b-old01\n"
            "Events:        <none>\n",
        ),
        answer(
            "get_resources",
            {"kind": "nodes", "wide": True},
            _table(
                ("NAME", "STATUS", "ROLES", "AGE", "VERSION"),
                ("node-down", "NotReady", "<none>", "80d", "v1.31.2"),
                ("node-up", "Ready", "<none>", "80d", "v1.31.2"),
            ),
        ),
    ]
    [f] = volume_faults(Cluster.read(observations), NS)
    assert (
        "held by pod ledger-store-5d6e7f8a9b-old01 (Terminating) on node node-down "
        "(NotReady)" in f.statement
    )
    assert any(
        fact.startswith("get nodes: node-down NotReady") for _, fact in f.evidence
    )
    assert any(
        "used by ledger-store-5d6e7f8a9b-new02" in fact for _, fact in f.evidence
    )


@pytest.mark.rule("k8s.preemption")
def test_the_preemptors_pod_is_described_and_its_priority_class_kept():
    inv = investigation("quote-api", *preemption_cluster())
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    assert any(
        c.tool == "describe"
        and c.arguments.get("name") == "index-builder-7f8e9d0c1b-run01"
        and c.arguments.get("namespace") == "batch"
        for c in calls
        if c
    )
    described = answer(
        "describe",
        {"kind": "pod", "name": "index-builder-7f8e9d0c1b-run01", "namespace": "batch"},
        "Name:                 index-builder-7f8e9d0c1b-run01\n"
        "Namespace:            batch\n"
        "Priority:             900000\n"
        "Priority Class Name:  bulk-urgent\n",
    )
    [f] = preemption_faults(Cluster.read([*preemption_cluster(), described]), NS)
    assert "bulk-urgent" in f.keywords
    assert cited(f.evidence, described)
