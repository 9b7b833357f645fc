"""Round one's broad read (issue 21 item 1): one multi-kind `kubectl get` of a namespace, split
into the per-kind tables the rules read; one-kind lists only for what it could not answer."""

from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.kubectl import asked_kinds, kind_parts, resource
from reasoning.layered.kubernetes.reads import SURVEY_KINDS, takes_kind_list
from reasoning.observations import (
    IncidentBrief,
    Investigation,
    Observation,
    PlannedCall,
    ToolInfo,
)

from .answers import NS, answer, listing, table

WIDGETS = table(
    ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
    ("deployment.apps/widgets", "0/2", "2", "0", "4d", "app=widgets"),
    ("deployment.apps/gizmo-api", "1/1", "1", "1", "4d", "app=gizmo-api"),
)
GIZMO_SERVICES = table(
    ("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"),
    (
        "service/widgets",
        "ClusterIP",
        "10.1.0.4",
        "<none>",
        "9090/TCP",
        "4d",
        "app=widgets",
    ),
)
TEXT = WIDGETS + "\n" + GIZMO_SERVICES


def _multi(
    kinds: list[str], text: str, result: dict[str, object] | None = None
) -> Observation:
    obs = answer("get_resources", {"kinds": kinds, "namespace": NS, "wide": True}, text)
    if result is not None:
        return Observation(**{**obs.__dict__, "result": result})
    return obs


def test_the_kinds_a_call_asked_come_from_kinds_or_kubectls_comma_list() -> None:
    assert asked_kinds({"kinds": ["deploy", "svc"]}) == ["deployments", "services"]
    assert asked_kinds({"kind": "po,hpa"}) == ["pods", "horizontalpodautoscalers"]
    assert asked_kinds({"kind": "pods"}) == ["pods"]
    assert resource("horizontalpodautoscaler.autoscaling") == "horizontalpodautoscalers"
    assert resource("endpointslice.discovery.k8s.io") == "endpointslices"


def test_a_multi_kind_text_is_split_by_its_rows_kind_prefix() -> None:
    parts = {
        p.resource: p
        for p in kind_parts(_multi(["deployments", "services", "jobs"], TEXT))
    }
    assert [r["NAME"] for r in parts["deployments"].rows] == ["widgets", "gizmo-api"]
    assert parts["deployments"].prefix == "deployment.apps/"
    assert parts["services"].rows[0]["SELECTOR"] == "app=widgets"
    # kubectl prints nothing for a kind with no object; a text-only answer cannot tell a gap.
    assert not parts["jobs"].is_found and parts["jobs"].is_captured


def test_the_servers_per_kind_parts_say_what_was_not_captured() -> None:
    result = {
        "found": True,
        "kinds": {
            "deployments": {
                "found": True,
                "source": "derived",
                "rows": [{"NAME": "widgets", "READY": "0/2"}],
            },
            "services": {"found": False, "source": "captured"},
            "ingresses": {"found": False, "source": "not_captured"},
        },
    }
    parts = {
        p.resource: p
        for p in kind_parts(
            _multi(["deployments", "services", "ingresses"], WIDGETS, result)
        )
    }
    assert parts["deployments"].rows == ({"NAME": "widgets", "READY": "0/2"},)
    assert not parts["services"].is_found and parts["services"].is_captured
    assert not parts["ingresses"].is_captured


def test_the_cluster_reads_each_kind_as_if_listed_alone() -> None:
    obs = _multi(["deployments", "services", "cronjobs"], TEXT)
    cluster = Cluster.read([obs])
    assert cluster.names("deployments", NS) == ["widgets", "gizmo-api"]
    assert cluster.service_selector(NS, "widgets") == {"app": "widgets"}
    table_ = cluster.table("deployments", NS)
    assert table_ is not None
    assert table_.line("widgets").startswith("deployment.apps/widgets 0/2")
    # Listed by the broad read (none there): no one-kind list is worth asking.
    assert not cluster.wants_list("cronjobs", NS, wide=False)
    assert not cluster.wants_list("deployments", NS, wide=True)
    assert cluster.wants_list("persistentvolumeclaims", NS, wide=False)


def test_a_kind_not_answered_wide_is_asked_plain_unless_kubectl_prints_it_the_same() -> (
    None
):
    result = {
        "kinds": {
            "persistentvolumeclaims": {"found": False, "source": "not_captured"},
            "networkpolicies": {"found": False, "source": "not_captured"},
        }
    }
    cluster = Cluster.read(
        [
            _multi(
                ["persistentvolumeclaims", "networkpolicies"],
                "No resources found\n",
                result,
            )
        ]
    )
    assert cluster.wants_list("persistentvolumeclaims", NS, wide=False)
    assert not cluster.wants_list("persistentvolumeclaims", NS, wide=True)
    assert not cluster.wants_list("networkpolicies", NS, wide=False)


def _investigation(*observations: Observation, kinds: bool) -> Investigation:
    schema = {
        "properties": {"kind": {}, "namespace": {}, **({"kinds": {}} if kinds else {})}
    }
    tools = [
        ToolInfo(
            "kube",
            name,
            "",
            schema if name == "get_resources" else {},
            True,
            False,
            False,
        )
        for name in ("get_resources", "describe", "pod_logs", "events", "get_yaml")
    ]
    incident = IncidentBrief(
        title="widgets failing",
        service="widgets",
        severity="sev2",
        symptoms=(f"widgets in namespace {NS} answers errors",),
    )
    return Investigation(
        incident=incident, tools=tools, observations=list(observations)
    )


def _plan(inv: Investigation) -> list[PlannedCall]:
    def call(tool: str, arguments: dict[str, object], why: str) -> PlannedCall:
        return PlannedCall("kubernetes", "kube", tool, arguments, why)

    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    return [c for c in calls if c is not None and c.tool == "get_resources"]


def test_round_one_lists_every_kind_of_the_namespace_in_one_read() -> None:
    inv = _investigation(kinds=True)
    assert takes_kind_list(inv)
    gets = _plan(inv)
    broad = [c for c in gets if "kinds" in c.arguments]
    assert [c.arguments for c in broad] == [
        {"kinds": list(SURVEY_KINDS), "namespace": NS, "wide": True}
    ]
    assert not [c for c in gets if c.arguments.get("kind") == "deployments"]


def test_without_a_kind_list_the_lists_are_read_one_by_one() -> None:
    inv = _investigation(kinds=False)
    assert not takes_kind_list(inv)
    kinds = [c.arguments.get("kind") for c in _plan(inv)]
    assert "deployments" in kinds and "services" in kinds
    assert not any("kinds" in c.arguments for c in _plan(inv))


def test_after_the_broad_read_only_what_it_could_not_answer_is_listed() -> None:
    result = {
        "kinds": {
            kind: (
                {"found": False, "source": "not_captured"}
                if kind == "persistentvolumeclaims"
                else {"found": False, "source": "captured"}
            )
            for kind in SURVEY_KINDS
        }
    }
    broad = _multi(
        list(SURVEY_KINDS), "No resources found in shop namespace.\n", result
    )
    inv = _investigation(broad, kinds=True)
    kinds = [c.arguments.get("kind") for c in _plan(inv) if "kinds" not in c.arguments]
    assert "persistentvolumeclaims" in kinds
    assert "deployments" not in kinds and "services" not in kinds
    assert not any("kinds" in c.arguments for c in _plan(inv))


def test_a_failed_broad_read_falls_back_to_one_kind_lists() -> None:
    failed = Observation(
        **{
            **_multi(list(SURVEY_KINDS), "").__dict__,
            "is_ok": False,
            "text": "kinds: refused",
        }
    )
    kinds = [c.arguments.get("kind") for c in _plan(_investigation(failed, kinds=True))]
    assert "deployments" in kinds and "ingresses" in kinds


def test_a_listing_of_one_kind_still_reads_as_before() -> None:
    cluster = Cluster.read(
        [
            listing(
                "deployments",
                ("NAME", "READY", "SELECTOR"),
                ("widgets", "0/2", "app=widgets"),
            )
        ]
    )
    assert cluster.names("deployments", NS) == ["widgets"]
    assert cluster.table("deployments", NS) is not None
