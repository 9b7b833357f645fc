"""The kubernetes server's snapshot back end: every normalisation of a kubectl command line, the
narrower answers cut from broader captured ones, and what it says when nothing was captured.

The captured texts are real kubectl output (kubectl 1.37 in front of tests/mcpservers/kubeapi.py).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from mcp.client import Client

from mcpservers.kubernetes.commands import (
    UnsupportedLine,
    normalize_selector,
    parse_command_line,
)
from mcpservers.kubernetes.kinds import KINDS, find_kind
from mcpservers.kubernetes.server import build_server
from mcpservers.kubernetes.snapshot import SnapshotBackend, SnapshotError, load_snapshot
from mcpservers.kubernetes.tables import parse_table, render_table
from tests.mcpservers._support import ROOT

PODS_WIDE_LABELS = """\
NAME                          READY   STATUS             RESTARTS      AGE   IP          NODE     NOMINATED NODE   READINESS GATES   LABELS
frontend-5d8b9c7f4-abcde      1/1     Running            0             10h   10.0.1.14   node-1   <none>           <none>            app=frontend,pod-template-hash=5d8b9c7f4
frontend-5d8b9c7f4-fghij      1/1     Running            0             10h   10.0.2.21   node-2   <none>           <none>            app=frontend,pod-template-hash=5d8b9c7f4
cartservice-7f9c5d6b8-x2x4q   0/1     CrashLoopBackOff   42 (9h ago)   10h   10.0.1.17   node-1   <none>           <none>            app=cartservice,pod-template-hash=7f9c5d6b8
payments-84d7c6f5b9-q7w2e     0/1     Pending            0             9h    <none>      <none>   <none>           <none>            app=payments,pod-template-hash=84d7c6f5b9
"""
# What kubectl prints for the narrower questions (real kubectl output, for comparison).
PODS_PLAIN = """\
NAME                          READY   STATUS             RESTARTS      AGE
frontend-5d8b9c7f4-abcde      1/1     Running            0             10h
frontend-5d8b9c7f4-fghij      1/1     Running            0             10h
cartservice-7f9c5d6b8-x2x4q   0/1     CrashLoopBackOff   42 (9h ago)   10h
payments-84d7c6f5b9-q7w2e     0/1     Pending            0             9h
"""
CART_POD_ROW = """\
NAME                          READY   STATUS             RESTARTS      AGE
cartservice-7f9c5d6b8-x2x4q   0/1     CrashLoopBackOff   42 (9h ago)   10h
"""
EVENTS = """\
LAST SEEN            TYPE      REASON             OBJECT                            MESSAGE
10h                  Normal    Pulled             Pod/frontend-5d8b9c7f4-abcde      Container image "gcr.io/shop/frontend:v1.8.2" already present on machine
9h (x42 over 10h)    Normal    Pulled             Pod/cartservice-7f9c5d6b8-x2x4q   Container image "gcr.io/shop/cartservice:v2.4.0" already present on machine
9h (x611 over 10h)   Warning   BackOff            Pod/cartservice-7f9c5d6b8-x2x4q   Back-off restarting failed container cartservice in pod cartservice-7f9c5d6b8-x2x4q_shop(823bf94b)
8h (x17 over 9h)     Warning   FailedCreate       ReplicaSet/checkout-6c5f8d9b7     Error creating: pods "checkout-6c5f8d9b7-" is forbidden: exceeded quota: compute-quota, requested: requests.cpu=500m, used: requests.cpu=1900m, limited: requests.cpu=2
8h (x37 over 9h)     Warning   FailedScheduling   Pod/payments-84d7c6f5b9-q7w2e     0/3 nodes are available: 2 Insufficient cpu.
"""
# kubectl events --for pod/cartservice-7f9c5d6b8-x2x4q, as kubectl printed it.
CART_EVENTS = """\
LAST SEEN            TYPE      REASON    OBJECT                            MESSAGE
9h (x42 over 10h)    Normal    Pulled    Pod/cartservice-7f9c5d6b8-x2x4q   Container image "gcr.io/shop/cartservice:v2.4.0" already present on machine
9h (x611 over 10h)   Warning   BackOff   Pod/cartservice-7f9c5d6b8-x2x4q   Back-off restarting failed container cartservice in pod cartservice-7f9c5d6b8-x2x4q_shop(823bf94b)
"""
GET_EVENTS = """\
LAST SEEN   TYPE      REASON             OBJECT                            MESSAGE
9h          Warning   BackOff            pod/cartservice-7f9c5d6b8-x2x4q   Back-off restarting failed container cartservice
8h          Warning   FailedScheduling   pod/payments-84d7c6f5b9-q7w2e     0/3 nodes are available: 2 Insufficient cpu.
"""
DEPLOY_WIDE = """\
NAME          READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS    IMAGES                           SELECTOR
frontend      2/2     2            2           30h   frontend      gcr.io/shop/frontend:v1.8.2      app=frontend
cartservice   0/1     1            0           30h   cartservice   gcr.io/shop/cartservice:v2.4.0   app=cartservice
"""
DESCRIBE_TWO = """\
Name:             frontend-5d8b9c7f4-abcde
Namespace:        shop
Status:           Running
Events:           <none>


Name:             cartservice-7f9c5d6b8-x2x4q
Namespace:        shop
Status:           Running
Events:
  Type     Reason   Age                 From     Message
  ----     ------   ----                ----     -------
  Warning  BackOff  9h (x611 over 10h)  kubelet  Back-off restarting failed container cartservice
"""
YAML_LIST = """\
apiVersion: v1
items:
- apiVersion: v1
  data:
    LOG_LEVEL: info
  kind: ConfigMap
  metadata:
    name: cart-config
    namespace: shop
- apiVersion: v1
  data:
    mode: fast
  kind: ConfigMap
  metadata:
    name: other
    namespace: shop
kind: List
metadata:
  resourceVersion: ""
"""
CART_CONFIG_YAML = """\
apiVersion: v1
data:
  LOG_LEVEL: info
kind: ConfigMap
metadata:
  name: cart-config
  namespace: shop
"""
LOGS = "".join(f"2026-03-02T02:29:{i:02d}.000Z INFO line {i}\n" for i in range(50))


def _server(snapshot: dict[str, str], tmp_path, **kwargs):
    path = tmp_path / "kubernetes.json"
    path.write_text(json.dumps(snapshot))
    entries, unreachable = load_snapshot(path)
    return build_server(
        SnapshotBackend(entries, source=str(path)), **kwargs
    ), unreachable


async def _call(snapshot: dict[str, str], tmp_path, tool: str, arguments: dict):
    server, _ = _server(snapshot, tmp_path)
    async with Client(server) as client:
        return await client.call_tool(tool, arguments)


def _text(result) -> str:
    assert not result.is_error, result.content[0].text
    return result.content[0].text


# --- one command line, many spellings ---------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        "kubectl get pods -n shop -o wide --show-labels",
        "kubectl get pods --show-labels -o wide -n shop",  # flag order
        "kubectl -n shop get pods -o wide --show-labels",  # global flag before the verb
        "kubectl get pods --namespace shop -o wide --show-labels",
        "kubectl get pods --namespace=shop -o wide --show-labels",
        "kubectl get pods -nshop -owide --show-labels",
        "kubectl get po -n shop --output=wide --show-labels",
        "kubectl get pod -n shop --output wide --show-labels=true",
        "kubectl get Pods -n shop -o wide --show-labels",
        "kubectl --context prod get pods -n shop -o wide --show-labels",
        "  kubectl   get pods -n shop -o wide   --show-labels ",
    ],
)
@pytest.mark.anyio
async def test_every_spelling_of_the_command_answers_the_same_call(
    key, tmp_path
) -> None:
    result = await _call(
        {key: PODS_WIDE_LABELS},
        tmp_path,
        "get_resources",
        {"kind": "pods", "namespace": "shop", "wide": True, "show_labels": True},
    )
    assert _text(result) == PODS_WIDE_LABELS
    assert result.structured_content["source"] == "captured"
    assert result.structured_content["found"] is True


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.resource)
def test_every_name_of_a_kind_reduces_to_one_command_line(kind) -> None:
    namespace = "" if not kind.is_namespaced else " -n shop"
    lines = {
        parse_command_line(f"kubectl get {alias}{namespace}").command.line()
        for alias in (
            kind.resource,
            kind.singular,
            kind.kind,
            kind.kind.lower(),
            *kind.short,
        )
    }
    if kind.group:
        lines.add(
            parse_command_line(
                f"kubectl get {kind.resource}.{kind.group}{namespace}"
            ).command.line()
        )
    assert len(lines) == 1, lines
    if kind.resource == "events":
        assert lines == {"kubectl get events -n shop"}


@pytest.mark.parametrize(
    ("short", "tool_kind"),
    [
        ("po", "pods"),
        ("svc", "services"),
        ("deploy", "deployments"),
        ("rs", "replicasets"),
        ("ep", "endpoints"),
        ("sa", "serviceaccounts"),
        ("cm", "configmaps"),
        ("pvc", "persistentvolumeclaims"),
        ("pv", "persistentvolume"),
        ("sc", "storageclass"),
        ("no", "node"),
    ],
)
@pytest.mark.anyio
async def test_short_kind_names_in_keys_answer_plural_and_singular_tool_kinds(
    short, tool_kind, tmp_path
) -> None:
    text = "NAME   AGE\nthing  1d\n"
    kind = find_kind(short)
    key = f"kubectl get {short}" + (" -n shop" if kind.is_namespaced else "")
    result = await _call(
        {key: text}, tmp_path, "get_resources", {"kind": tool_kind, "namespace": "shop"}
    )
    assert _text(result) == text
    assert result.structured_content["command"] == f"kubectl get {kind.resource}" + (
        " -n shop" if kind.is_namespaced else ""
    )


@pytest.mark.parametrize(
    "key",
    [
        "kubectl get pods -n shop -l app=cartservice,tier=backend",
        "kubectl get pods -n shop -l 'tier=backend, app==cartservice'",
        "kubectl get pods -n shop --selector=tier=backend,app=cartservice",
        "kubectl get pods -lapp=cartservice,tier=backend -n shop",
    ],
)
@pytest.mark.anyio
async def test_label_selector_is_normalised(key, tmp_path) -> None:
    result = await _call(
        {key: CART_POD_ROW},
        tmp_path,
        "get_resources",
        {
            "kind": "po",
            "namespace": "shop",
            "selector": "tier = backend,app=cartservice",
        },
    )
    assert _text(result) == CART_POD_ROW
    assert (
        result.structured_content["command"]
        == "kubectl get pods -n shop -l app=cartservice,tier=backend"
    )


def test_selector_grammar() -> None:
    assert normalize_selector("env in (b, a),!canary,app") == "app,!canary,env in (a,b)"
    assert normalize_selector("app!=web") == "app!=web"
    with pytest.raises(ValueError, match="not a label requirement"):
        normalize_selector("app=$(rm -rf /)")


@pytest.mark.parametrize(
    "key",
    [
        "kubectl get cm cart-config -n shop -o yaml",
        "kubectl get configmap/cart-config -n shop -oyaml",
        "kubectl get configmaps cart-config --namespace=shop --output=yaml",
    ],
)
@pytest.mark.anyio
async def test_yaml_output_spellings(key, tmp_path) -> None:
    result = await _call(
        {key: CART_CONFIG_YAML},
        tmp_path,
        "get_yaml",
        {"kind": "configmap", "name": "cart-config", "namespace": "shop"},
    )
    assert _text(result) == CART_CONFIG_YAML


@pytest.mark.anyio
async def test_sort_by_is_a_trailing_filter_and_noted(tmp_path) -> None:
    result = await _call(
        {"kubectl get pods -n shop --sort-by=.status.startTime": PODS_PLAIN},
        tmp_path,
        "get_resources",
        {"kind": "pods", "namespace": "shop"},
    )
    assert _text(result) == PODS_PLAIN
    assert result.structured_content["source"] == "captured"
    assert "--sort-by=.status.startTime" in result.structured_content["notes"][0]


@pytest.mark.anyio
async def test_piped_tail_is_a_partial_answer_and_says_so(tmp_path) -> None:
    tail = "".join(PODS_PLAIN.splitlines(keepends=True)[-2:])
    result = await _call(
        {"kubectl get pods -n shop | tail -n 2": tail},
        tmp_path,
        "get_resources",
        {"kind": "pods", "namespace": "shop"},
    )
    assert _text(result) == tail
    assert "only part of the output" in result.structured_content["notes"][0]


@pytest.mark.parametrize(
    "key",
    [
        "kubectl logs cartservice-7f9c5d6b8-x2x4q -n shop -c cartservice --previous --tail=200",
        "kubectl logs -p cartservice-7f9c5d6b8-x2x4q -n shop -c cartservice --tail 200",
        "kubectl logs pod/cartservice-7f9c5d6b8-x2x4q --namespace shop --container=cartservice --previous=true --tail=200",
        "kubectl logs cartservice-7f9c5d6b8-x2x4q -n shop -c cartservice -p | tail -n 200",
    ],
)
@pytest.mark.anyio
async def test_logs_spellings(key, tmp_path) -> None:
    result = await _call(
        {key: LOGS},
        tmp_path,
        "pod_logs",
        {
            "pod": "cartservice-7f9c5d6b8-x2x4q",
            "namespace": "shop",
            "container": "cartservice",
            "previous": True,
        },
    )
    assert _text(result) == LOGS


@pytest.mark.parametrize(
    "key",
    [
        "kubectl events -n shop --for pod/cartservice-7f9c5d6b8-x2x4q",
        "kubectl events --for=Pod/cartservice-7f9c5d6b8-x2x4q --namespace shop",
        "kubectl events -n shop --for po/cartservice-7f9c5d6b8-x2x4q",
        "kubectl get events -n shop --field-selector involvedObject.kind=Pod,involvedObject.name=cartservice-7f9c5d6b8-x2x4q",
    ],
)
@pytest.mark.anyio
async def test_events_for_one_object_spellings(key, tmp_path) -> None:
    result = await _call(
        {key: CART_EVENTS},
        tmp_path,
        "events",
        {"namespace": "shop", "for_object": "pod/cartservice-7f9c5d6b8-x2x4q"},
    )
    assert _text(result) == CART_EVENTS
    assert result.structured_content["source"] == "captured"


# --- narrower answers from broader ones -------------------------------------------------------


@pytest.mark.anyio
async def test_one_pod_row_from_the_namespace_list_keeps_the_header_as_kubectl_prints_it(
    tmp_path,
) -> None:
    result = await _call(
        {"kubectl get pods -n shop -o wide --show-labels": PODS_WIDE_LABELS},
        tmp_path,
        "get_resources",
        {"kind": "po", "namespace": "shop", "name": "cartservice-7f9c5d6b8-x2x4q"},
    )
    assert _text(result) == CART_POD_ROW
    data = result.structured_content
    assert data["source"] == "derived"
    assert data["derived_from"] == "kubectl get pods -n shop -o wide --show-labels"
    assert data["rows"] == [
        {
            "NAME": "cartservice-7f9c5d6b8-x2x4q",
            "READY": "0/1",
            "STATUS": "CrashLoopBackOff",
            "RESTARTS": "42 (9h ago)",
            "AGE": "10h",
        }
    ]


@pytest.mark.anyio
async def test_plain_table_is_cut_from_the_wide_one_byte_for_byte(tmp_path) -> None:
    result = await _call(
        {"kubectl get pods -n shop -o wide --show-labels": PODS_WIDE_LABELS},
        tmp_path,
        "get_resources",
        {"kind": "pods", "namespace": "shop"},
    )
    assert _text(result) == PODS_PLAIN


@pytest.mark.anyio
async def test_wide_without_labels_and_labels_without_wide(tmp_path) -> None:
    snapshot = {"kubectl get pods -n shop -o wide --show-labels": PODS_WIDE_LABELS}
    wide = _text(
        await _call(
            snapshot,
            tmp_path,
            "get_resources",
            {"kind": "pods", "namespace": "shop", "wide": True},
        )
    )
    assert wide.splitlines()[0].endswith("READINESS GATES")
    assert "LABELS" not in wide
    labels = _text(
        await _call(
            snapshot,
            tmp_path,
            "get_resources",
            {"kind": "pods", "namespace": "shop", "show_labels": True},
        )
    )
    assert labels.splitlines()[0].split() == [
        "NAME",
        "READY",
        "STATUS",
        "RESTARTS",
        "AGE",
        "LABELS",
    ]


@pytest.mark.anyio
async def test_selector_answered_from_a_list_with_labels(tmp_path) -> None:
    result = await _call(
        {"kubectl get pods -n shop -o wide --show-labels": PODS_WIDE_LABELS},
        tmp_path,
        "get_resources",
        {"kind": "pods", "namespace": "shop", "selector": "app in (frontend)"},
    )
    names = [row["NAME"] for row in result.structured_content["rows"]]
    assert names == ["frontend-5d8b9c7f4-abcde", "frontend-5d8b9c7f4-fghij"]
    assert _text(result).splitlines()[0].split() == [
        "NAME",
        "READY",
        "STATUS",
        "RESTARTS",
        "AGE",
    ]


@pytest.mark.anyio
async def test_a_wider_table_cannot_answer_a_plain_question_unless_the_wide_columns_are_appended(
    tmp_path,
) -> None:
    # `kubectl get events -o wide` puts SUBOBJECT and SOURCE before MESSAGE: nothing can be cut away.
    result = await _call(
        {"kubectl get deploy -n shop -o wide": DEPLOY_WIDE},
        tmp_path,
        "get_resources",
        {"kind": "deploy", "namespace": "shop"},
    )
    assert _text(result).splitlines()[0].split() == [
        "NAME",
        "READY",
        "UP-TO-DATE",
        "AVAILABLE",
        "AGE",
    ]
    result = await _call(
        {"kubectl get deploy -n shop": DEPLOY_WIDE.replace("CONTAINERS", "X")},
        tmp_path,
        "get_resources",
        {"kind": "deploy", "namespace": "shop", "wide": True},
    )
    assert result.structured_content["source"] == "not_captured"


@pytest.mark.anyio
async def test_one_objects_events_from_the_namespace_events(tmp_path) -> None:
    result = await _call(
        {"kubectl events -n shop": EVENTS},
        tmp_path,
        "events",
        {"namespace": "shop", "for_object": "pod/cartservice-7f9c5d6b8-x2x4q"},
    )
    assert _text(result) == CART_EVENTS
    assert result.structured_content["derived_from"] == "kubectl events -n shop"
    assert [row["REASON"] for row in result.structured_content["rows"]] == [
        "Pulled",
        "BackOff",
    ]


@pytest.mark.anyio
async def test_events_from_kubectl_get_events_with_sort_by(tmp_path) -> None:
    snapshot = {"kubectl get events -n shop --sort-by=.lastTimestamp": GET_EVENTS}
    result = await _call(
        snapshot,
        tmp_path,
        "events",
        {"namespace": "shop", "for_object": "replicaset/checkout-6c5f8d9b7"},
    )
    assert _text(result) == "No events found in shop namespace.\n"
    assert result.structured_content["found"] is False
    result = await _call(
        snapshot,
        tmp_path,
        "events",
        {"namespace": "shop", "for_object": "pod/payments-84d7c6f5b9-q7w2e"},
    )
    assert _text(result).splitlines()[1].split()[2] == "FailedScheduling"
    assert any(
        "not sorted by time" in note for note in result.structured_content["notes"]
    )


@pytest.mark.anyio
async def test_one_object_from_describe_of_all(tmp_path) -> None:
    result = await _call(
        {"kubectl describe pods -n shop": DESCRIBE_TWO},
        tmp_path,
        "describe",
        {"kind": "pod", "name": "cartservice-7f9c5d6b8-x2x4q", "namespace": "shop"},
    )
    text = _text(result)
    assert text.startswith("Name:             cartservice-7f9c5d6b8-x2x4q\n")
    assert text.endswith("Back-off restarting failed container cartservice\n")
    assert "frontend" not in text
    missing = await _call(
        {"kubectl describe pods -n shop": DESCRIBE_TWO},
        tmp_path,
        "describe",
        {"kind": "pod", "name": "gone", "namespace": "shop"},
    )
    assert _text(missing) == 'Error from server (NotFound): pods "gone" not found\n'
    assert missing.structured_content["source"] == "derived"


@pytest.mark.anyio
async def test_one_object_yaml_from_a_list_yaml(tmp_path) -> None:
    result = await _call(
        {"kubectl get cm -n shop -o yaml": YAML_LIST},
        tmp_path,
        "get_yaml",
        {"kind": "cm", "name": "cart-config", "namespace": "shop"},
    )
    assert _text(result) == CART_CONFIG_YAML


@pytest.mark.anyio
async def test_log_tail_from_a_longer_capture_and_default_container(tmp_path) -> None:
    snapshot = {
        "kubectl logs cartservice-7f9c5d6b8-x2x4q -n shop -c cartservice --previous --tail=1000": LOGS
    }
    result = await _call(
        snapshot,
        tmp_path,
        "pod_logs",
        {
            "pod": "cartservice-7f9c5d6b8-x2x4q",
            "namespace": "shop",
            "previous": True,
            "tail": 5,
        },
    )
    assert _text(result) == "".join(LOGS.splitlines(keepends=True)[-5:])
    assert result.structured_content["lines"] == 5
    # A tail longer than what was captured cannot be cut from it.
    longer = {
        "kubectl logs cartservice-7f9c5d6b8-x2x4q -n shop -c cartservice --previous --tail=10": LOGS
    }
    result = await _call(
        longer,
        tmp_path,
        "pod_logs",
        {
            "pod": "cartservice-7f9c5d6b8-x2x4q",
            "namespace": "shop",
            "previous": True,
            "tail": 200,
        },
    )
    assert result.structured_content["source"] == "not_captured"


@pytest.mark.anyio
async def test_current_logs_are_not_taken_from_previous_ones(tmp_path) -> None:
    snapshot = {"kubectl logs cartservice-7f9c5d6b8-x2x4q -n shop --previous": LOGS}
    result = await _call(
        snapshot,
        tmp_path,
        "pod_logs",
        {"pod": "cartservice-7f9c5d6b8-x2x4q", "namespace": "shop"},
    )
    assert result.structured_content["source"] == "not_captured"


# --- nothing captured -------------------------------------------------------------------------


@pytest.mark.anyio
async def test_uncaptured_object_answers_like_kubectl_marked_not_captured(
    tmp_path,
) -> None:
    result = await _call(
        {"kubectl get pods -n other": PODS_PLAIN},
        tmp_path,
        "describe",
        {"kind": "deploy", "name": "cartservice", "namespace": "shop"},
    )
    assert not result.is_error
    assert (
        result.content[0].text
        == 'Error from server (NotFound): deployments.apps "cartservice" not found\n'
    )
    assert "not captured" in result.content[1].text
    assert result.structured_content["source"] == "not_captured"
    assert result.structured_content["found"] is False
    listing = await _call(
        {}, tmp_path, "get_resources", {"kind": "pvc", "namespace": "shop"}
    )
    assert listing.content[0].text == "No resources found in shop namespace.\n"
    events = await _call({}, tmp_path, "events", {"namespace": "shop"})
    assert events.content[0].text == "No events found in shop namespace.\n"
    logs = await _call({}, tmp_path, "pod_logs", {"pod": "x", "namespace": "shop"})
    assert logs.content[0].text == 'Error from server (NotFound): pods "x" not found\n'


@pytest.mark.anyio
async def test_object_missing_from_a_complete_list_is_not_found_without_the_not_captured_mark(
    tmp_path,
) -> None:
    snapshot = {
        "kubectl get secrets -n shop": "NAME       TYPE     DATA   AGE\ndb-creds   Opaque   2      30h\n"
    }
    for tool, arguments in (
        (
            "get_resources",
            {"kind": "secret", "namespace": "shop", "name": "redis-creds"},
        ),
        ("describe", {"kind": "secret", "namespace": "shop", "name": "redis-creds"}),
        ("get_yaml", {"kind": "secret", "namespace": "shop", "name": "redis-creds"}),
    ):
        result = await _call(snapshot, tmp_path, tool, arguments)
        assert (
            result.content[0].text
            == 'Error from server (NotFound): secrets "redis-creds" not found\n'
        )
        assert len(result.content) == 1
        assert result.structured_content["source"] == "derived"
    empty = await _call(
        {"kubectl get pods -n shop": "No resources found in shop namespace.\n"},
        tmp_path,
        "pod_logs",
        {"pod": "x", "namespace": "shop"},
    )
    assert empty.structured_content["source"] == "derived"
    assert empty.structured_content["found"] is False


@pytest.mark.anyio
async def test_a_row_missing_from_a_selector_list_is_not_a_conclusion(tmp_path) -> None:
    result = await _call(
        {"kubectl get pods -n shop -l app=frontend": PODS_PLAIN},
        tmp_path,
        "get_resources",
        {"kind": "pods", "namespace": "shop", "name": "absent"},
    )
    assert result.structured_content["source"] == "not_captured"
    found = await _call(
        {"kubectl get pods -n shop -l app=frontend": PODS_PLAIN},
        tmp_path,
        "get_resources",
        {"kind": "pods", "namespace": "shop", "name": "payments-84d7c6f5b9-q7w2e"},
    )
    assert found.structured_content["source"] == "derived"


@pytest.mark.anyio
async def test_cluster_scoped_kinds_ignore_the_namespace(tmp_path) -> None:
    nodes = "NAME     STATUS     ROLES    AGE   VERSION\nnode-1   Ready      <none>   40h   v1.31.4\nnode-3   NotReady   <none>   40h   v1.31.4\n"
    result = await _call(
        {"kubectl get nodes": nodes},
        tmp_path,
        "get_resources",
        {"kind": "no", "namespace": "shop", "name": "node-3"},
    )
    assert (
        _text(result)
        == "NAME     STATUS     ROLES    AGE   VERSION\nnode-3   NotReady   <none>   40h   v1.31.4\n"
    )
    assert result.structured_content["command"] == "kubectl get nodes node-3"


@pytest.mark.anyio
async def test_json_captures_give_structured_objects(tmp_path) -> None:
    listing = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "a", "labels": {"app": "x"}},
                "spec": {
                    "containers": [
                        {
                            "name": "c",
                            "env": [{"name": "API_TOKEN", "value": "tok-1234567890"}],
                        }
                    ]
                },
            },
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "b", "labels": {"app": "y"}},
            },
        ],
    }
    snapshot = {
        "kubectl get pods -n shop -o json": json.dumps(listing),
        "kubectl get pods -n shop": "NAME   AGE\na      1d\nb      1d\n",
    }
    result = await _call(
        snapshot,
        tmp_path,
        "get_resources",
        {"kind": "pods", "namespace": "shop", "selector": "app=x"},
    )
    assert (
        result.structured_content["source"] == "not_captured"
    )  # no LABELS column to filter on
    one = await _call(
        snapshot,
        tmp_path,
        "get_resources",
        {"kind": "pods", "namespace": "shop", "name": "a"},
    )
    assert one.structured_content["object"]["metadata"]["name"] == "a"
    assert (
        one.structured_content["object"]["spec"]["containers"][0]["env"][0]["value"]
        == "***"
    )
    every = await _call(
        snapshot, tmp_path, "get_resources", {"kind": "pods", "namespace": "shop"}
    )
    assert [i["metadata"]["name"] for i in every.structured_content["items"]] == [
        "a",
        "b",
    ]


# --- the tables themselves --------------------------------------------------------------------


def test_render_reproduces_kubectl_tables_including_trailing_padding() -> None:
    quota = (
        "NAME                          AGE   REQUEST                                                         LIMIT\n"
        "resourcequota/compute-quota   30h   pods: 4/10, requests.cpu: 1900m/2, requests.memory: 512Mi/4Gi   \n"
    )
    for text in (PODS_WIDE_LABELS, PODS_PLAIN, EVENTS, DEPLOY_WIDE, quota):
        table = parse_table(text)
        assert table is not None
        assert render_table(table) == text


def test_hand_written_tables_with_uneven_padding_are_read() -> None:
    table = parse_table("NAME  READY  STATUS\ncart-x  0/1  CrashLoopBackOff\n")
    assert table is not None
    assert table.records() == [
        {"NAME": "cart-x", "READY": "0/1", "STATUS": "CrashLoopBackOff"}
    ]


# --- the file ---------------------------------------------------------------------------------


def test_keys_no_tool_asks_are_reported_not_fatal(tmp_path) -> None:
    _, unreachable = _server(
        {
            "kubectl top pods -n shop": "x",
            "kubectl get deploy,svc cart -n shop": "y",
            "kubectl get pods -n shop": PODS_PLAIN,
        },
        tmp_path,
    )
    assert [key for key, _ in unreachable] == [
        "kubectl top pods -n shop",
        "kubectl get deploy,svc cart -n shop",
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "must be a JSON object"),
        ("{not json", "not JSON"),
        ('{"kubectl get pods -n shop": 3}', "must be a string"),
        ('{"ls -la": "x"}', "keys are kubectl command lines"),
    ],
)
def test_malformed_snapshot_stops_the_start(content, message, tmp_path) -> None:
    path = tmp_path / "kubernetes.json"
    path.write_text(content)
    with pytest.raises(SnapshotError, match=message):
        load_snapshot(path)
    proc = subprocess.run(
        [sys.executable, "-m", "mcpservers.kubernetes", "--snapshot", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.startswith("mcpservers.kubernetes: error: ")
        and message in proc.stderr
    )
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "line",
    [
        "kubectl get pods -n shop -o jsonpath='{.items}'",
        "kubectl exec -it x -- sh",
        "kubectl get pods -n shop | awk '{print $1}'",
        "kubectl get pods a b -n shop",
    ],
)
def test_lines_outside_the_tools_are_unsupported(line) -> None:
    with pytest.raises(UnsupportedLine):
        parse_command_line(line)
