"""The actions server: destructive annotations, exactly-once per idempotency key (also across processes),
key conflicts, status after an unknown outcome, and argument errors."""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys

import pytest
from mcp.client import Client

import mcpclient
from mcpservers.actions.ledger import Ledger
from mcpservers.actions.server import build_server
from tests.mcpservers._support import ROOT, error_text, structured

NOW = 1_764_511_200.0


@pytest.fixture
def ledger(tmp_path) -> Ledger:
    return Ledger(tmp_path / "state" / "ledger.jsonl")


def _server(ledger: Ledger):
    return build_server(ledger, max_replicas=10, clock=lambda: NOW)


@pytest.mark.anyio
async def test_write_tools_are_annotated_destructive_and_idempotent(ledger) -> None:
    async with Client(_server(ledger)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    for name in ("restart_workload", "scale_workload"):
        assert tools[name].annotations.destructive_hint is True
        assert tools[name].annotations.read_only_hint is False
        assert tools[name].annotations.idempotent_hint is True
        assert "idempotency_key" in tools[name].input_schema["required"]
    assert tools["get_action_status"].annotations.read_only_hint is True
    assert (
        tools["scale_workload"].input_schema["properties"]["replicas"]["maximum"] == 10
    )


@pytest.mark.anyio
async def test_repeated_key_returns_first_result_and_acts_once(ledger) -> None:
    args = {
        "namespace": "shop",
        "name": "checkout",
        "idempotency_key": "inc-1:restart:shop/checkout:1",
    }
    async with Client(_server(ledger)) as client:
        first = structured(await client.call_tool("restart_workload", args))
        second = structured(await client.call_tool("restart_workload", args))
    assert first["replayed"] is False
    assert second["replayed"] is True
    assert {k: v for k, v in second.items() if k != "replayed"} == {
        k: v for k, v in first.items() if k != "replayed"
    }
    assert len(ledger.records()) == 1
    assert first["result"]["restart_generation"] == 1


@pytest.mark.anyio
async def test_new_key_acts_again_and_state_follows_the_ledger(ledger) -> None:
    async with Client(_server(ledger)) as client:
        one = structured(
            await client.call_tool(
                "scale_workload",
                {
                    "namespace": "shop",
                    "name": "api",
                    "replicas": 3,
                    "idempotency_key": "inc-2:scale:1",
                },
            )
        )
        two = structured(
            await client.call_tool(
                "scale_workload",
                {
                    "namespace": "shop",
                    "name": "api",
                    "replicas": 5,
                    "idempotency_key": "inc-2:scale:2",
                },
            )
        )
        r1 = structured(
            await client.call_tool(
                "restart_workload",
                {
                    "namespace": "shop",
                    "name": "api",
                    "idempotency_key": "inc-2:restart:1",
                },
            )
        )
        r2 = structured(
            await client.call_tool(
                "restart_workload",
                {
                    "namespace": "shop",
                    "name": "api",
                    "idempotency_key": "inc-2:restart:2",
                },
            )
        )
    assert one["result"]["previous_replicas"] is None
    assert two["result"] == {
        "previous_replicas": 3,
        "replicas": 5,
        "message": "shop/api scaled to 5",
    }
    assert (r1["result"]["restart_generation"], r2["result"]["restart_generation"]) == (
        1,
        2,
    )
    assert [r["seq"] for r in ledger.records()] == [1, 2, 3, 4]


@pytest.mark.anyio
async def test_key_reused_for_another_action_is_refused(ledger) -> None:
    async with Client(_server(ledger)) as client:
        structured(
            await client.call_tool(
                "scale_workload",
                {
                    "namespace": "shop",
                    "name": "api",
                    "replicas": 3,
                    "idempotency_key": "inc-3:key:1",
                },
            )
        )
        message = error_text(
            await client.call_tool(
                "scale_workload",
                {
                    "namespace": "shop",
                    "name": "api",
                    "replicas": 4,
                    "idempotency_key": "inc-3:key:1",
                },
            )
        )
    assert "already used" in message
    assert "use a new key" in message
    assert len(ledger.records()) == 1


@pytest.mark.anyio
async def test_action_status_answers_did_it_happen(ledger) -> None:
    args = {
        "namespace": "shop",
        "name": "checkout",
        "idempotency_key": "inc-4:restart:1",
    }
    async with Client(_server(ledger)) as client:
        before = structured(
            await client.call_tool(
                "get_action_status", {"idempotency_key": "inc-4:restart:1"}
            )
        )
        done = structured(await client.call_tool("restart_workload", args))
        after = structured(
            await client.call_tool(
                "get_action_status", {"idempotency_key": "inc-4:restart:1"}
            )
        )
    assert before["found"] is False
    assert before["status"] == "not_performed"
    assert "safe" in before["meaning"]
    assert after["found"] is True
    assert after["record"]["seq"] == done["seq"]
    assert after["record"]["performed_at"] == "2025-11-30T14:00:00.000Z"


@pytest.mark.anyio
async def test_ledger_survives_a_new_server_process(ledger) -> None:
    args = {
        "namespace": "shop",
        "name": "checkout",
        "idempotency_key": "inc-5:restart:1",
    }
    async with Client(_server(ledger)) as client:
        structured(await client.call_tool("restart_workload", args))
    async with Client(_server(Ledger(ledger.path))) as client:
        again = structured(await client.call_tool("restart_workload", args))
    assert again["replayed"] is True


def test_torn_last_line_counts_as_not_performed(ledger) -> None:
    ledger.path.write_text(
        '{"idempotency_key": "k1", "action": "restart", "namespace": "a", "name": "b", "params": {}, "performed_at": "t", "status": "done"}\n{"idempotency_key": "k2", "act'
    )
    assert [r["idempotency_key"] for r in ledger.records()] == ["k1"]
    assert ledger.find("k2") is None


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        (
            "restart_workload",
            {"namespace": "Shop", "name": "api", "idempotency_key": "inc-6:r:1"},
            "not a Kubernetes namespace",
        ),
        (
            "restart_workload",
            {"namespace": "shop", "name": "api_v2", "idempotency_key": "inc-6:r:1"},
            "not a Kubernetes workload name",
        ),
        (
            "restart_workload",
            {"namespace": "shop", "name": "api", "idempotency_key": "short"},
            "must be 8-200 characters",
        ),
        (
            "scale_workload",
            {
                "namespace": "shop",
                "name": "api",
                "replicas": 11,
                "idempotency_key": "inc-6:s:1",
            },
            "less than or equal to 10",
        ),
        (
            "scale_workload",
            {
                "namespace": "shop",
                "name": "api",
                "replicas": -1,
                "idempotency_key": "inc-6:s:1",
            },
            "greater than or equal to 0",
        ),
        (
            "scale_workload",
            {"namespace": "shop", "name": "api", "idempotency_key": "inc-6:s:1"},
            "replicas",
        ),
    ],
)
async def test_bad_arguments_are_tool_errors_and_do_nothing(
    ledger, tool: str, arguments: dict, expected: str
) -> None:
    async with Client(_server(ledger)) as client:
        message = error_text(await client.call_tool(tool, arguments))
    assert expected in message
    assert ledger.records() == []


_WORKER = """
import json, sys
from pathlib import Path
from mcpservers.actions.ledger import Ledger
outcome = Ledger(Path(sys.argv[1])).perform(
    key=sys.argv[2], action="restart", namespace="shop", name="api", params={},
    apply=lambda history: {"restart_generation": len(history) + 1}, now="t",
)
print(json.dumps({"seq": outcome.record["seq"], "replayed": outcome.replayed}))
"""


def _race(ledger: Ledger, keys: list[str]) -> list[dict]:
    """Run one process per key; they all queue on the lock we hold, then race when we let go."""
    ledger.lock_path.touch()
    with ledger.lock_path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", _WORKER, str(ledger.path), key],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                text=True,
            )
            for key in keys
        ]
        fcntl.flock(lock, fcntl.LOCK_UN)
    results = []
    for proc in procs:
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0
        results.append(json.loads(out))
    return results


def test_concurrent_processes_with_one_key_act_exactly_once(ledger) -> None:
    results = _race(ledger, ["inc-7:restart:1"] * 6)
    assert sum(not r["replayed"] for r in results) == 1
    assert {r["seq"] for r in results} == {1}
    assert len(ledger.records()) == 1


def test_concurrent_processes_with_distinct_keys_lose_no_append(ledger) -> None:
    results = _race(ledger, [f"inc-8:restart:{i}" for i in range(6)])
    assert sorted(r["seq"] for r in results) == [1, 2, 3, 4, 5, 6]
    assert sorted(r["result"]["restart_generation"] for r in ledger.records()) == [
        1,
        2,
        3,
        4,
        5,
        6,
    ]


@pytest.mark.anyio
async def test_exit_after_write_records_the_action_and_leaves_the_caller_unknowing(
    tmp_path,
) -> None:
    """The fault knob: a real child writes its ledger, then exits before answering."""
    path = tmp_path / "ledger.jsonl"
    command = [
        *(sys.executable, "-m", "mcpservers.actions", "--ledger", str(path)),
        "--exit-after-write",
    ]
    key = "inc-6:restart:shop/checkout:1"
    args = {"namespace": "shop", "name": "checkout", "idempotency_key": key}
    server = mcpclient.StdioServer(command=command, cwd=str(ROOT))
    async with mcpclient.connect(server, timeout=30) as session:
        with pytest.raises(mcpclient.McpError) as lost:
            await session.call_tool(
                "restart_workload", args, timeout=30, idempotent=False
            )
    assert lost.value.outcome_unknown is True
    assert [r["idempotency_key"] for r in Ledger(path).records()] == [key]
    # A new process (the knob on: it only exits after a new write) says it happened.
    async with mcpclient.connect(server, timeout=30) as session:
        status = await session.call_tool(
            "get_action_status", {"idempotency_key": key}, timeout=30
        )
    assert status.structured_content is not None
    assert (
        status.structured_content["found"],
        status.structured_content["status"],
    ) == (
        True,
        "done",
    )
