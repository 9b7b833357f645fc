"""get_resources of several kinds in one call (issue 21 item 1: broad reads made cheap): one
`kubectl get k1,k2,… -n NS` on the live back end (the real kubectl against kubeapi.py's fake API
server), the same text from a snapshot's one-kind answers, each kind's rows structured, bad kind
lists refused with the field and the reason before kubectl runs.
"""

from __future__ import annotations

import json

import pytest
from mcp.client import Client

from mcpservers.kubernetes.commands import parse_command_line
from mcpservers.kubernetes.kinds import MAX_KINDS, ArgumentRefused, kinds_arg
from mcpservers.kubernetes.live import LiveBackend, find_kubectl
from mcpservers.kubernetes.server import build_server
from mcpservers.kubernetes.snapshot import SnapshotBackend, load_snapshot
from mcpservers.kubernetes.tables import (
    parse_table,
    render_table,
    table_blocks,
    with_name_prefix,
    without_name_prefix,
)
from tests.mcpservers.kubeapi import FakeKubeAPI

# Kinds with objects in kubeapi.py's `shop`, one without (statefulsets), and secrets.
KINDS = [
    "pods",
    "deployments",
    "statefulsets",
    "services",
    "ingresses",
    "horizontalpodautoscalers",
    "configmaps",
    "secrets",
]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("kube")
    api = FakeKubeAPI().start()
    kubeconfig = api.kubeconfig(tmp / "kubeconfig", context="fake")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KUBECACHEDIR", str(tmp / "cache"))
        yield api, kubeconfig
    api.stop()


def _live(cluster, **kwargs):
    _, kubeconfig = cluster
    backend = LiveBackend(
        kubectl=find_kubectl(),
        kubeconfig=str(kubeconfig),
        context="fake",
        request_timeout=10,
    )
    return build_server(backend, **kwargs)


def _snapshot(snapshot: dict[str, str], tmp_path):
    path = tmp_path / "kubernetes.json"
    path.write_text(json.dumps(snapshot))
    entries, _ = load_snapshot(path)
    return build_server(SnapshotBackend(entries, source=str(path)))


async def _call(server, arguments):
    async with Client(server) as client:
        return await client.call_tool("get_resources", arguments)


def _ok(result):
    assert not result.is_error, result.content[0].text
    return result.content[0].text, result.structured_content


@pytest.mark.anyio
async def test_one_kubectl_get_answers_every_kind_each_in_its_table(cluster) -> None:
    api = cluster[0]
    before = len(api.requests)
    text, data = _ok(
        await _call(_live(cluster), {"kinds": KINDS, "namespace": "shop", "wide": True})
    )
    assert data["command"] == (
        "kubectl get pods,deployments,statefulsets,services,ingresses,"
        "horizontalpodautoscalers,configmaps,secrets -n shop -o wide"
    )
    blocks = table_blocks(text)
    # One table per kind with objects, in the order asked, a blank line between.
    assert [b.splitlines()[1].split("/")[0] for b in blocks] == [
        "pod",
        "deployment.apps",
        "service",
        "ingress.networking.k8s.io",
        "horizontalpodautoscaler.autoscaling",
        "configmap",
        "secret",
    ]
    assert "\n\nNAME " in text
    assert (
        "deployment.apps/cartservice" in text
    )  # a Secret's value is not scrubbed elsewhere
    kinds = data["kinds"]
    assert list(kinds) == KINDS
    assert kinds["statefulsets"]["found"] is False
    deployments = kinds["deployments"]
    assert deployments["command"] == "kubectl get deployments -n shop -o wide"
    assert [r["NAME"] for r in deployments["rows"]][:2] == ["frontend", "cartservice"]
    assert {i["kind"] for i in deployments["items"]} == {"Deployment"}
    secret = kinds["secrets"]["items"][0]
    assert set(secret["data"].values()) == {"***"}
    assert "rows" not in data and "items" not in data
    # Two kubectl runs in all (the table, the objects), each asking the API server once per kind.
    gets = [r for r in api.requests[before:] if "/namespaces/shop/" in r]
    assert len(gets) == 2 * len(KINDS)


@pytest.mark.anyio
async def test_the_comma_form_is_kubectls_own(cluster) -> None:
    text, data = _ok(
        await _call(_live(cluster), {"kind": "po,svc", "namespace": "shop"})
    )
    assert data["command"] == "kubectl get pods,services -n shop"
    assert text.startswith("NAME ") and "\nservice/frontend " in text
    assert list(data["kinds"]) == ["pods", "services"]


@pytest.mark.anyio
async def test_no_object_of_any_kind_is_kubectls_message(cluster) -> None:
    text, data = _ok(
        await _call(
            _live(cluster),
            {"kinds": ["statefulsets", "limitranges"], "namespace": "shop"},
        )
    )
    assert text == "No resources found in shop namespace.\n"
    assert data["found"] is False
    assert {k: v["found"] for k, v in data["kinds"].items()} == {
        "statefulsets": False,
        "limitranges": False,
    }


@pytest.mark.anyio
async def test_a_snapshot_of_one_kind_answers_prints_the_same_multi_kind_text(
    cluster, tmp_path
) -> None:
    live = _live(cluster)
    flags = {"namespace": "shop", "wide": True, "show_labels": True}
    captured: dict[str, str] = {}
    for kind in KINDS:
        text, data = _ok(await _call(live, {"kind": kind, **flags}))
        captured[data["command"]] = text
    live_text, live_data = _ok(await _call(live, {"kinds": KINDS, **flags}))
    text, data = _ok(
        await _call(_snapshot(captured, tmp_path), {"kinds": KINDS, **flags})
    )
    assert text == live_text
    assert data["source"] == "derived"
    for kind in KINDS:
        assert data["kinds"][kind]["found"] == live_data["kinds"][kind]["found"]
        assert data["kinds"][kind].get("rows") == live_data["kinds"][kind].get("rows")


PODS = """\
NAME          READY   STATUS             RESTARTS   AGE
gizmo-6f-x1   0/1     CrashLoopBackOff   7          1h
"""
ENDPOINTS = """\
NAME    ENDPOINTS   AGE
gizmo   <none>      3d
"""


@pytest.mark.anyio
async def test_a_kind_the_snapshot_lacks_is_left_out_and_said(tmp_path) -> None:
    server = _snapshot(
        {
            "kubectl get pods -n tools": PODS,
            "kubectl get endpoints -n tools": ENDPOINTS,
        },
        tmp_path,
    )
    text, data = _ok(
        await _call(
            server,
            {
                "kinds": ["pods", "jobs", "endpoints"],
                "namespace": "tools",
                "wide": False,
            },
        )
    )
    assert text == (
        "NAME              READY   STATUS             RESTARTS   AGE\n"
        "pod/gizmo-6f-x1   0/1     CrashLoopBackOff   7          1h\n"
        "\n"
        "NAME              ENDPOINTS   AGE\n"
        "endpoints/gizmo   <none>      3d\n"
    )
    assert data["kinds"]["jobs"]["source"] == "not_captured"
    assert data["kinds"]["pods"]["source"] == "captured"
    assert any("not captured: jobs" in note for note in data["notes"])
    # Endpoints print no wide column: the plain answer is the wide one too.
    _, wide = _ok(
        await _call(
            server, {"kinds": ["pods", "endpoints"], "namespace": "tools", "wide": True}
        )
    )
    assert wide["kinds"]["endpoints"]["found"] is True
    assert wide["kinds"]["pods"]["source"] == "not_captured"


@pytest.mark.anyio
async def test_a_captured_multi_kind_command_is_answered_as_captured(tmp_path) -> None:
    joined = (
        "NAME              READY   STATUS             RESTARTS   AGE\n"
        "pod/gizmo-6f-x1   0/1     CrashLoopBackOff   7          1h\n"
        "\n"
        "NAME              ENDPOINTS   AGE\n"
        "endpoints/gizmo   <none>      3d\n"
    )
    server = _snapshot({"kubectl get po,ep -n tools": joined}, tmp_path)
    text, data = _ok(
        await _call(server, {"kind": "pods,endpoints", "namespace": "tools"})
    )
    assert text == joined
    assert data["source"] == "captured"
    assert data["kinds"]["endpoints"]["rows"] == [
        {"NAME": "gizmo", "ENDPOINTS": "<none>", "AGE": "3d"}
    ]


def test_a_multi_kind_command_line_reads_back() -> None:
    parsed = parse_command_line("kubectl get deploy,svc --namespace=tools -owide")
    command = parsed.command
    assert [k.resource for k in command.kinds] == ["deployments", "services"]
    assert command.line() == "kubectl get deployments,services -n tools -o wide"
    assert parse_command_line("kubectl get svc -n tools").command.kinds == ()


def test_kind_tables_gain_and_lose_the_kind_prefix() -> None:
    table = parse_table(ENDPOINTS)
    assert table is not None
    prefixed = with_name_prefix(table, "endpoints/")
    assert prefixed.rows[0][0] == "endpoints/gizmo"
    assert render_table(without_name_prefix(prefixed)) == ENDPOINTS


@pytest.mark.parametrize(
    ("arguments", "hint"),
    [
        ({"kinds": ["pods", "po"]}, "kinds: 'po' repeats pods"),
        ({"kinds": ["pods"] * (MAX_KINDS + 1)}, f"at most {MAX_KINDS} items"),
        (
            {"kind": ",".join(["pods"] * (MAX_KINDS + 1))},
            f"at most {MAX_KINDS} in one call",
        ),
        (
            {"kinds": ["pods", "widgets"]},
            "kinds: kind 'widgets' is not one this server reads",
        ),
        ({"kinds": ["pods", "nodes"]}, "kinds: nodes has no namespace"),
        ({"kinds": ["pods", ""]}, "kinds: give one or more kinds"),
        ({"kind": "pods,,svc"}, "kinds: give one or more kinds"),
        ({"kind": "pods,svc --all-namespaces"}, "is not one this server reads"),
        ({"kind": "pods", "kinds": ["svc"]}, "kind: give `kind` or `kinds`, not both"),
        ({}, "kind: name a kind"),
        (
            {"kinds": ["pods", "svc"], "name": "gizmo"},
            "name: one object's name is asked of one kind",
        ),
    ],
)
@pytest.mark.anyio
async def test_bad_kind_lists_are_refused_before_kubectl_runs(
    cluster, arguments, hint
) -> None:
    api = cluster[0]
    before = len(api.requests)
    result = await _call(_live(cluster), {"namespace": "shop", **arguments})
    assert result.is_error
    assert hint in result.content[0].text
    assert "Traceback" not in result.content[0].text
    assert len(api.requests) == before


def test_kinds_keep_the_order_asked() -> None:
    assert [k.resource for k in kinds_arg(["svc,deploy", "hpa"])] == [
        "services",
        "deployments",
        "horizontalpodautoscalers",
    ]
    with pytest.raises(ArgumentRefused, match="kinds:"):
        kinds_arg([])
