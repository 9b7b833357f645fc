"""The kinds that rewrite or route other objects without a pod of their own (issue 21 class 1):
IngressClasses (cluster-scoped: which controller serves an Ingress naming it) and
VerticalPodAutoscalers (a custom resource that resizes a workload's pods). Served by the fake API
as a cluster prints them, read by the real kubectl (the live path), captured where they matter,
answered from a snapshot, their credentials masked like any kind's.

The fixture is the tests' `shop` namespace plus an IngressClass, a second Ingress naming a class
no IngressClass has, a VerticalPodAutoscaler in Auto mode and a pod carrying its annotations.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from mcp.client import Client

from mcpservers.kubernetes.commands import parse_command_line
from mcpservers.kubernetes.kinds import ArgumentRefused, find_kind, kinds_arg
from mcpservers.kubernetes.live import LiveBackend, find_kubectl
from mcpservers.kubernetes.redaction import redact_object
from mcpservers.kubernetes.server import build_server
from mcpservers.kubernetes.snapshot import SnapshotBackend, load_snapshot
from tests.mcpservers._support import ROOT
from tests.mcpservers.kubeapi import FIXTURES, FakeKubeAPI

CART = "cartservice-7f9c5d6b8-x2x4q"

INGRESS_CLASS = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "IngressClass",
    "metadata": {
        "name": "nginx",
        "uid": "u-ingc-nginx",
        "resourceVersion": "1200",
        "creationTimestamp": "2026-01-02T00:00:00Z",
        "annotations": {"ingressclass.kubernetes.io/is-default-class": "false"},
    },
    "spec": {"controller": "k8s.io/ingress-nginx"},
}
VPA = {
    "apiVersion": "autoscaling.k8s.io/v1",
    "kind": "VerticalPodAutoscaler",
    "metadata": {
        "name": "cartservice",
        "namespace": "shop",
        "uid": "u-vpa-cart",
        "resourceVersion": "1201",
        "creationTimestamp": "2026-02-01T00:00:00Z",
        "annotations": {"owner": "team-cart password=hunter2-vpa"},
    },
    "spec": {
        "targetRef": {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": "cartservice",
        },
        "updatePolicy": {"updateMode": "Auto"},
    },
    "status": {
        "recommendation": {
            "containerRecommendations": [
                {
                    "containerName": "cartservice",
                    "target": {"cpu": "90m", "memory": "200Mi"},
                }
            ]
        },
        "conditions": [
            {
                "type": "RecommendationProvided",
                "status": "True",
                "lastTransitionTime": "2026-03-01T00:00:00Z",
            }
        ],
    },
}


def _fixture(tmp):
    data = json.loads((FIXTURES / "shop.json").read_text())
    objects = data["objects"]
    ingress = next(o for o in objects if o["kind"] == "Ingress")
    typo = copy.deepcopy(ingress)
    typo["metadata"].update(name="admin", uid="u-admin")
    typo["spec"]["ingressClassName"] = "ngx"
    typo["status"] = {"loadBalancer": {}}
    cart = next(o for o in objects if o["metadata"]["name"] == CART)
    cart["metadata"]["annotations"] = {
        "vpaObservedContainers": "cartservice",
        "vpaUpdates": "Pod resources updated by cartservice: container 0: memory limit",
    }
    objects += [INGRESS_CLASS, VPA, typo]
    path = tmp / "controllers.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("kube")
    api = FakeKubeAPI(_fixture(tmp)).start()
    kubeconfig = api.kubeconfig(tmp / "kubeconfig", context="fake")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KUBECACHEDIR", str(tmp / "cache"))
        yield api, kubeconfig, tmp
    api.stop()


def _live(cluster):
    _, kubeconfig, _ = cluster
    return build_server(
        LiveBackend(
            kubectl=find_kubectl(),
            kubeconfig=str(kubeconfig),
            context="fake",
            request_timeout=10,
        )
    )


async def _call(server, tool, arguments):
    async with Client(server) as client:
        result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    return result.content[0].text, result.structured_content


def test_the_kinds_are_named_as_kubectl_names_them() -> None:
    vpa = find_kind("vpa")
    assert vpa is not None and vpa.resource == "verticalpodautoscalers"
    assert vpa.is_namespaced and vpa.group == "autoscaling.k8s.io"
    assert find_kind("verticalpodautoscalers.autoscaling.k8s.io") is vpa
    assert find_kind("vpa.v1.autoscaling.k8s.io") is vpa
    classes = find_kind("ingressclass")
    assert classes is not None and not classes.is_namespaced
    assert find_kind("ingressclasses.networking.k8s.io") is classes
    assert parse_command_line("kubectl get vpa -n shop").command.line() == (
        "kubectl get verticalpodautoscalers -n shop"
    )
    # Cluster-scoped: one key whatever namespace was asked, never in a namespaced multi-kind read.
    assert parse_command_line("kubectl get ingressclasses -n shop").command.line() == (
        "kubectl get ingressclasses"
    )
    with pytest.raises(ArgumentRefused, match="ingressclasses has no namespace"):
        kinds_arg(["ingresses", "ingressclasses"])


@pytest.mark.anyio
async def test_the_live_path_reads_ingress_classes_and_vertical_autoscalers(
    cluster,
) -> None:
    server = _live(cluster)
    text, data = await _call(
        server, "get_resources", {"kind": "ingressclasses", "namespace": "shop"}
    )
    assert data["command"] == "kubectl get ingressclasses"
    assert [(r["NAME"], r["CONTROLLER"]) for r in data["rows"]] == [
        ("nginx", "k8s.io/ingress-nginx")
    ]
    text, _ = await _call(
        server,
        "describe",
        {"kind": "ingressclass", "name": "nginx", "namespace": "shop"},
    )
    assert "k8s.io/ingress-nginx" in text and "is-default-class: false" in text
    _, data = await _call(server, "get_resources", {"kind": "ing", "namespace": "shop"})
    assert {r["NAME"]: (r["CLASS"], r["ADDRESS"]) for r in data["rows"]} == {
        "shop": ("nginx", "34.120.8.15"),
        "admin": ("ngx", ""),
    }
    text, data = await _call(
        server, "get_resources", {"kind": "vpa", "namespace": "shop"}
    )
    assert data["command"] == "kubectl get verticalpodautoscalers -n shop"
    row = data["rows"][0]
    assert (row["NAME"], row["MODE"], row["MEM"], row["PROVIDED"]) == (
        "cartservice",
        "Auto",
        "200Mi",
        "True",
    )
    assert "hunter2-vpa" not in json.dumps(data["items"])  # masked like any kind's
    text, _ = await _call(
        server, "describe", {"kind": "vpa", "name": "cartservice", "namespace": "shop"}
    )
    assert "Auto" in text and "200Mi" in text
    assert "hunter2-vpa" not in text


def test_a_vpa_object_is_masked_like_any_kind() -> None:
    masked = redact_object({"kind": "List", "items": [VPA]})
    assert "hunter2-vpa" not in json.dumps(masked)
    assert masked["items"][0]["spec"]["updatePolicy"] == {"updateMode": "Auto"}


@pytest.fixture(scope="module")
def captured(cluster):
    _, kubeconfig, tmp = cluster
    out = tmp / "kubernetes.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcpservers.kubernetes",
            "capture",
            "-n",
            "shop",
            "-o",
            str(out),
            "--objects",
            "--kubeconfig",
            str(kubeconfig),
            "--context",
            "fake",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return out


def test_capture_lists_the_classes_and_the_autoscalers_that_resized_pods(
    captured,
) -> None:
    snapshot = json.loads(captured.read_text())
    assert "nginx" in snapshot["kubectl get ingressclasses"]
    assert "cartservice" in snapshot["kubectl get verticalpodautoscalers -n shop"]
    assert (
        "Auto"
        in snapshot["kubectl describe verticalpodautoscalers cartservice -n shop"]
    )
    assert "hunter2-vpa" not in captured.read_text()
    _, unreachable = load_snapshot(captured)
    assert unreachable == []


def test_capture_skips_the_custom_resource_where_no_pod_was_resized() -> None:
    from mcpservers.kubernetes.capture import vpa_managed

    assert not vpa_managed({"pods": [{"metadata": {"name": "a"}}], "events": []})
    assert vpa_managed({"pods": [], "events": [{"reason": "EvictedByVPA"}]})
    assert vpa_managed(
        {
            "pods": [
                {"metadata": {"annotations": {"vpaUpdates": "Pod resources updated"}}}
            ]
        }
    )


@pytest.mark.anyio
async def test_a_snapshot_answers_the_new_kinds_by_any_alias(tmp_path) -> None:
    path = tmp_path / "kubernetes.json"
    path.write_text(
        json.dumps(
            {
                "kubectl get verticalpodautoscalers -n shop": (
                    "NAME          MODE   CPU   MEM     PROVIDED   AGE\n"
                    "cartservice   Auto   90m   200Mi   True       30d\n"
                ),
                "kubectl get ingressclasses": (
                    "NAME    CONTROLLER             PARAMETERS   AGE\n"
                    "nginx   k8s.io/ingress-nginx   <none>       60d\n"
                ),
            }
        )
    )
    entries, unreachable = load_snapshot(path)
    assert unreachable == []
    server = build_server(SnapshotBackend(entries, source=str(path)))
    _, data = await _call(server, "get_resources", {"kind": "vpa", "namespace": "shop"})
    assert data["rows"][0]["MEM"] == "200Mi"
    _, data = await _call(
        server, "get_resources", {"kind": "ingressclass", "namespace": "other"}
    )
    assert data["rows"][0]["NAME"] == "nginx"
