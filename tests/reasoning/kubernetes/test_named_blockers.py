"""An object a workload's own refusal names (a LimitRange, the namespace's Pod Security level, a
Secret's key, a quota, a policy, the network plugin's agent) is the fault; the workload its victim."""

import pytest

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes import blockers
from reasoning.layered.kubernetes.cluster import Cluster

from .test_infrastructure import (
    asked,
    call,
    deployments,
    describe,
    diagnosed,
    events,
    listing,
    logs,
    namespaces,
    nodes,
    pods,
)

NS = "atlas"
SYSTEM = "kube-system"


def _cluster(
    message,
    *extra,
    reason="FailedCreate",
    target="ReplicaSet/orbit-api-5c8d7f9b6",
    pod_status="Running",
):
    return [
        namespaces(NS, SYSTEM),
        nodes(("node-a", "Ready")),
        pods(
            NS,
            (
                "orbit-api-5c8d7f9b6-x2x9q",
                "0/1",
                pod_status,
                "0",
                "node-a",
                "app=orbit-api",
            ),
        ),
        deployments(NS, ("orbit-api", "0/2")),
        events(NS, ("Warning", reason, target, message)),
        *extra,
    ]


LIMIT_RATIO = (
    'Error creating: pods "orbit-api-5c8d7f9b6-" is forbidden: cpu max limit to request '
    "ratio per Container is 3, but provided ratio is 8.000000"
)
LIMIT_RANGES = listing(
    "limitranges",
    NS,
    ("NAME", "CREATED AT"),
    ("overcommit-cap", "2026-11-30T08:00:00Z"),
)
LIMIT_DESCRIBED = describe(
    "limitrange",
    NS,
    "overcommit-cap",
    "Name:       overcommit-cap\nNamespace:  atlas\n"
    "Type        Resource  Min  Max  Default Request  Default Limit  Max Limit/Request Ratio\n"
    "----        --------  ---  ---  ---------------  -------------  -----------------------\n"
    "Container   cpu       -    -    -                -              3\n",
)


@pytest.mark.rule("k8s.refusal-names-blocker")
def test_a_limit_range_the_refusal_cites_is_the_fault_and_the_workload_its_victim():
    found = diagnosed(
        *_cluster(LIMIT_RATIO, LIMIT_RANGES, LIMIT_DESCRIBED), service="orbit-api"
    )

    blocker = found["limitrange/overcommit-cap"]
    assert (blocker.layer, blocker.stage, blocker.reason) == (
        layers.PLATFORM,
        "admission",
        "FailedCreate",
    )
    assert blocker.explains == ["deployment/orbit-api"]
    assert blocker.is_relevant
    assert found["deployment/orbit-api"].victim_of == "limitrange/overcommit-cap"
    facts = [fact for _, fact in blocker.evidence]
    assert any("ratio per Container is 3" in f for f in facts)
    assert any(f.startswith("describe limitrange overcommit-cap") for f in facts)


@pytest.mark.rule("k8s.refusal-names-blocker")
def test_of_several_limit_ranges_the_one_that_bounds_the_cited_resource_is_named():
    message = (
        'Error creating: pods "orbit-api-5c8d7f9b6-" is forbidden: maximum memory usage per '
        "Container is 1Gi, but limit is 4Gi"
    )
    ranges = listing(
        "limitranges",
        NS,
        ("NAME", "CREATED AT"),
        ("cpu-floor", "2026-01-01T00:00:00Z"),
        ("mem-ceiling", "2026-11-30T08:00:00Z"),
    )
    cpu = describe("limitrange", NS, "cpu-floor", "Container   cpu   100m   -\n")
    mem = describe("limitrange", NS, "mem-ceiling", "Container   memory   -   1Gi\n")
    found = diagnosed(*_cluster(message, ranges, cpu, mem), service="orbit-api")

    assert "limitrange/mem-ceiling" in found
    assert "limitrange/cpu-floor" not in found


@pytest.mark.rule("k8s.refusal-names-blocker")
def test_a_limit_range_not_listed_leaves_the_workload_blamed():
    found = diagnosed(*_cluster(LIMIT_RATIO), service="orbit-api")

    assert not any(c.startswith("limitrange") for c in found)
    assert found["deployment/orbit-api"].victim_of is None


@pytest.mark.rule("k8s.refusal-names-blocker")
def test_the_namespaces_pod_security_level_refuses_a_stateful_sets_pods():
    message = (
        'create Pod ledger-db-0 in StatefulSet ledger-db failed error: pods "ledger-db-0" is '
        'forbidden: violates PodSecurity "baseline:v1.30": hostPath volumes (volume "dev")'
    )
    cluster = [
        namespaces(NS),
        nodes(("node-a", "Ready")),
        pods(NS),
        listing(
            "statefulsets", NS, ("NAME", "READY", "AGE"), ("ledger-db", "0/1", "40d")
        ),
        events(NS, ("Warning", "FailedCreate", "StatefulSet/ledger-db", message)),
        describe(
            "namespace",
            NS,
            NS,
            "Name:   atlas\nLabels: pod-security.kubernetes.io/enforce=baseline\n",
        ),
    ]
    found = diagnosed(*cluster, service="ledger-db")

    blocker = found[f"namespace/{NS}"]
    assert blocker.layer == layers.PLATFORM
    assert "statefulset/ledger-db" in blocker.explains
    assert any("enforce=baseline" in fact for _, fact in blocker.evidence)


@pytest.mark.rule("k8s.refusal-names-blocker")
@pytest.mark.parametrize(
    ("message", "component"),
    [
        (
            "Error: couldn't find key SMTP_TOKEN in ConfigMap atlas/mailer-settings",
            "configmap/mailer-settings",
        ),
        (
            "Error: couldn't find key api-key in Secret atlas/geo-vendor",
            "secret/geo-vendor",
        ),
        ('Error: secret "orbit-tls-bundle" not found', "secret/orbit-tls-bundle"),
    ],
)
def test_a_secret_or_config_map_the_container_cannot_read_is_the_fault(
    message, component
):
    found = diagnosed(
        *_cluster(
            message,
            reason="Failed",
            target="Pod/orbit-api-5c8d7f9b6-x2x9q",
            pod_status="CreateContainerConfigError",
        ),
        service="orbit-api",
    )

    blocker = found[component]
    assert (blocker.layer, blocker.stage) == (layers.PLATFORM, "startup")
    assert found["deployment/orbit-api"].victim_of == component
    # The victim's evidence (its pod's row) is the blocker's too.
    assert any("CreateContainerConfigError" in fact for _, fact in blocker.evidence)


@pytest.mark.rule("k8s.refusal-names-blocker")
@pytest.mark.parametrize(
    ("message", "component"),
    [
        (
            'pods "orbit-api-5c8d7f9b6-" is forbidden: exceeded quota: team-cap, requested: '
            "pods=1, used: pods=20, limited: pods=20",
            "resourcequota/team-cap",
        ),
        (
            'admission webhook "validate.kyverno.svc-fail" denied the request: resource '
            "Pod/atlas/orbit-api-5c8d7f9b6-x2 was blocked due to the following policies "
            "require-probes: check-liveness: 'validation error: a liveness probe is required'",
            "clusterpolicy/require-probes",
        ),
        (
            'admission webhook "validation.gatekeeper.sh" denied the request: '
            '[must-have-owner] you must provide labels: {"owner"}',
            "must-have-owner",
        ),
        (
            'pods "orbit-api-5c8d7f9b6-" is forbidden: ValidatingAdmissionPolicy \'trusted-'
            "registries' with binding 'trusted-registries-prod' denied request: image not allowed",
            "validatingadmissionpolicy/trusted-registries",
        ),
        (
            'pods "orbit-api-5c8d7f9b6-" is forbidden: no PriorityClass with name '
            "tier-gold was found",
            "priorityclass/tier-gold",
        ),
        (
            'pods "orbit-api-5c8d7f9b6-" is forbidden: pod rejected: RuntimeClass "kata" '
            "not found",
            "runtimeclass/kata",
        ),
        (
            'pods "orbit-api-5c8d7f9b6-" is forbidden: error looking up service account '
            'atlas/orbit: serviceaccount "orbit" not found',
            "serviceaccount/orbit",
        ),
    ],
)
def test_every_kind_a_refusal_names_is_named_by_one_table(message, component):
    found = diagnosed(*_cluster(message), service="orbit-api")

    assert found[component].explains == ["deployment/orbit-api"]
    assert found["deployment/orbit-api"].victim_of == component


@pytest.mark.rule("k8s.refusal-names-blocker")
def test_the_network_plugins_agent_whose_logs_say_the_addresses_ran_out_is_the_fault():
    message = (
        "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network "
        'for sandbox "4c1d": plugin type="calico" failed (add): failed to request IPv4 addresses: '
        "failed to allocate for range 0: no IP addresses available in range set"
    )
    cluster = _cluster(
        message,
        pods(
            SYSTEM,
            (
                "calico-node-7hq2m",
                "1/1",
                "Running",
                "0",
                "node-a",
                "k8s-app=calico-node",
            ),
        ),
        logs(
            SYSTEM,
            "calico-node-7hq2m",
            "2026-12-07 10:01:02 [WARNING] ipam: block affinity full, no IP addresses "
            "available in range set 10.40.0.0/26\n",
            previous=False,
        ),
        reason="FailedCreatePodSandBox",
        target="Pod/orbit-api-5c8d7f9b6-x2x9q",
        pod_status="ContainerCreating",
    )
    found = diagnosed(*cluster, service="orbit-api")

    blocker = found["calico-node"]
    assert blocker.layer == layers.PLATFORM
    assert found["deployment/orbit-api"].victim_of == "calico-node"
    assert any("range set 10.40.0.0/26" in fact for _, fact in blocker.evidence)


@pytest.mark.rule("k8s.refusal-names-blocker")
def test_an_image_that_cannot_be_pulled_names_no_other_object():
    message = 'Failed to pull image "registry.example.org/orbit/api:7.1": toomanyrequests: rate limit'
    found = diagnosed(
        *_cluster(
            message,
            reason="Failed",
            target="Pod/orbit-api-5c8d7f9b6-x2x9q",
            pod_status="ImagePullBackOff",
        ),
        service="orbit-api",
    )

    assert found["deployment/orbit-api"].victim_of is None
    assert set(found) == {"deployment/orbit-api"}


@pytest.mark.rule("k8s.refusal-names-blocker")
def test_the_named_objects_are_read_to_confirm_them():
    refusals = events(
        NS,
        ("Warning", "FailedCreate", "ReplicaSet/orbit-api-5c8d7f9b6", LIMIT_RATIO),
        (
            "Warning",
            "FailedCreate",
            "Job/orbit-backfill",
            'pods "x" is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot',
        ),
        (
            "Warning",
            "Failed",
            "Pod/orbit-api-5c8d7f9b6-x2x9q",
            "Error: couldn't find key token in Secret atlas/orbit-creds",
        ),
    )
    first = blockers.reads(Cluster.read([refusals]), NS, call)
    assert {
        ("get_resources", "limitranges", NS, None),
        ("describe", "namespace", NS, NS),
        ("describe", "secret", NS, "orbit-creds"),
    } <= asked(first)

    second = blockers.reads(Cluster.read([refusals, LIMIT_RANGES]), NS, call)
    assert ("describe", "limitrange", NS, "overcommit-cap") in asked(second)
    assert ("get_resources", "limitranges", NS, None) not in asked(second)


@pytest.mark.rule("k8s.refusal-names-blocker")
@pytest.mark.timeout(60)
def test_a_huge_odd_refusal_does_not_hang_or_crash():
    odd = (
        "forbidden: "
        + "a-" * 40_000
        + ' couldn\'t find key \x00 in Secret /"" '
        + "exceeded quota: "
        + "-" * 5000
        + " maximum cpu usage per Container is "
        + 'violates PodSecurity "'
        + "x" * 10_000
    )
    cluster = _cluster(odd) + _cluster("x" * 200_000, reason="FailedCreatePodSandBox")
    found = diagnosed(*cluster, service="orbit-api")
    assert "deployment/orbit-api" in found
    blockers.reads(Cluster.read(cluster), NS, call)
    assert Facts.read([]).errors == {}


@pytest.mark.rule("k8s.refusal-names-blocker")
def test_a_mounted_config_maps_missing_key_names_the_config_map_behind_the_volume():
    message = (
        'MountVolume.SetUp failed for volume "routes" : configmap references non-existent '
        "config key: routes.json"
    )
    pod = describe(
        "pod",
        NS,
        "orbit-api-5c8d7f9b6-x2x9q",
        "Name:         orbit-api-5c8d7f9b6-x2x9q\nNamespace:    atlas\n"
        "Volumes:\n  routes:\n    Type:      ConfigMap (a volume populated by a ConfigMap)\n"
        "    Name:      orbit-routing\n    Optional:  false\nQoS Class:    Burstable\n",
    )
    found = diagnosed(
        *_cluster(
            message,
            pod,
            reason="FailedMount",
            target="Pod/orbit-api-5c8d7f9b6-x2x9q",
            pod_status="ContainerCreating",
        ),
        service="orbit-api",
    )

    blocker = found["configmap/orbit-routing"]
    assert found["deployment/orbit-api"].victim_of == "configmap/orbit-routing"
    assert any("volume routes is orbit-routing" in fact for _, fact in blocker.evidence)


@pytest.mark.rule("k8s.refusal-names-blocker")
def test_the_operator_object_that_writes_the_secret_joins_its_evidence():
    cluster = _cluster(
        "Error: couldn't find key DSN in Secret atlas/orbit-db",
        events(
            NS,
            ("Normal", "Updated", "ExternalSecret/orbit-db", "Updated Secret"),
        ),
        reason="Failed",
        target="Pod/orbit-api-5c8d7f9b6-x2x9q",
        pod_status="CreateContainerConfigError",
    )
    # Both event lists are the namespace's: the second is read as one object's.
    cluster[-1].arguments["for_object"] = "ExternalSecret/orbit-db"
    blocker = diagnosed(*cluster, service="orbit-api")["secret/orbit-db"]

    assert "externalsecret/orbit-db" in blocker.keywords
    assert "written by externalsecret/orbit-db" in blocker.statement
