"""The Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) and MRTR input rounds, against a
real HTTP server (servers/tasks_http.py, uvicorn on 127.0.0.1): call_tool follows a task with
tasks/get at the server's poll interval, answers its input with tasks/update, cancels it with
tasks/cancel when the caller cancels or the deadline passes, and returns the final result."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import httpx
import pytest

import mcpclient
from mcpclient._elicit import input_responses, with_defaults

from .conftest import SERVERS

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def tasks_url() -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, str(SERVERS / "tasks_http.py")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("PORT "), f"server did not start: {line!r}"
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout:
            proc.stdout.close()


async def server_log(base: str) -> list[dict[str, Any]]:
    async with httpx.AsyncClient() as http:
        for _ in range(50):  # the server may still be answering the last request
            try:
                response = await http.get(f"{base}/log")
                return list(response.json())
            except httpx.ConnectError:  # pragma: no cover - a slow start
                await asyncio.sleep(0.1)
    raise AssertionError("no log")  # pragma: no cover


def for_task(log: list[dict[str, Any]], task_id: str | None) -> list[dict[str, Any]]:
    return [entry for entry in log if entry.get("taskId") == task_id]


async def accept(message: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {}


async def test_a_task_is_followed_to_its_result_and_recorded(tasks_url):
    records: list[mcpclient.CallRecord] = []
    async with mcpclient.connect(
        mcpclient.HttpServer(url=f"{tasks_url}/mcp"), observer=records.append
    ) as client:
        assert client.protocol_version == "2026-07-28"
        await client.list_tools()
        result = await client.call_tool("slow_compute", {"seconds": 0.3})
        assert result.text == "computed 0.3"
        assert not result.is_error
        plain = await client.call_tool("greet", {"name": "x"})
        assert plain.text == "hello x"
    calls = [record for record in records if record.method == "tools/call"]
    assert [record.tool for record in calls] == ["slow_compute", "greet"]
    task_call, plain_call = calls
    assert task_call.task_id and task_call.outcome == "ok"
    assert task_call.task_states == ["working", "completed"]
    assert task_call.result_size and task_call.latency_ms >= 250
    assert plain_call.task_id is None and plain_call.task_states == []
    # No record per poll: the task-backed call is one record.
    assert {record.method for record in records} == {"tools/list", "tools/call"}
    log = await server_log(tasks_url)
    polls = [e for e in log if e["method"] == "tasks/get" and e.get("status")]
    # Polled at about the server's 40 ms hint over 0.3 s: several polls, not a busy loop.
    assert 2 <= len(polls) <= 20


async def test_on_task_hears_each_status_as_the_call_follows_the_task(tasks_url):
    heard: list[tuple[str, str, str | None]] = []
    heard_async: list[str] = []

    async def hear_async(task_id: str, status: str, message: str | None) -> None:
        heard_async.append(status)

    def broken(task_id: str, status: str, message: str | None) -> None:
        raise RuntimeError("a caller's bug")

    async with mcpclient.connect(
        mcpclient.HttpServer(url=f"{tasks_url}/mcp")
    ) as client:
        await client.call_tool(
            "slow_compute",
            {"seconds": 0.2},
            on_task=lambda *status: heard.append(status),
        )
        await client.call_tool("slow_compute", {"seconds": 0.05}, on_task=hear_async)
        # A callback that fails is logged; the call goes on to its result.
        result = await client.call_tool(
            "slow_compute", {"seconds": 0.05}, on_task=broken
        )
        await asyncio.sleep(0)  # the async callback's last run
    assert result.text == "computed 0.05"
    task_id = heard[0][0]
    assert task_id and all(entry[0] == task_id for entry in heard)
    # The CreateTaskResult has no message; tasks/get has one while working (heard once).
    assert [entry[1:] for entry in heard] == [
        ("working", None),
        ("working", "computing 0.2"),
        ("completed", None),
    ]
    assert heard_async == ["working", "working", "completed"]


async def test_input_required_is_answered_with_tasks_update(tasks_url):
    async with mcpclient.connect(
        mcpclient.HttpServer(url=f"{tasks_url}/mcp"), elicit=accept
    ) as client:
        result = await client.call_tool("confirm_delete", {"filename": "a.txt"})
    assert result.text == "deleted a.txt"
    updates = [e for e in await server_log(tasks_url) if e["method"] == "tasks/update"]
    # The handler gave nothing: the schema's default was sent (SEP-1034).
    assert updates[-1]["inputResponses"] == {
        "confirm": {"action": "accept", "content": {"confirmed": True}}
    }


async def test_input_required_without_a_handler_fails_and_cancels_the_task(tasks_url):
    records: list[mcpclient.CallRecord] = []
    async with mcpclient.connect(
        mcpclient.HttpServer(url=f"{tasks_url}/mcp"), observer=records.append
    ) as client:
        with pytest.raises(mcpclient.CapabilityError):
            await client.call_tool("confirm_delete", {"filename": "b.txt"})
    record = records[-1]
    assert record.outcome == "error" and record.task_states == ["input_required"]
    log = await server_log(tasks_url)
    assert [e["method"] for e in for_task(log, record.task_id)][-1] == "tasks/cancel"


async def test_a_failed_task_raises_task_failed(tasks_url):
    async with mcpclient.connect(
        mcpclient.HttpServer(url=f"{tasks_url}/mcp")
    ) as client:
        with pytest.raises(mcpclient.TaskFailed) as caught:
            await client.call_tool("failing_job")
    assert caught.value.status == "failed"
    assert caught.value.error == {"code": -32603, "message": "the job crashed"}
    assert "the job crashed" in str(caught.value)
    assert caught.value.layer is mcpclient.Layer.TOOL_EXECUTION


async def test_the_deadline_bounds_the_polling_and_cancels_the_task(tasks_url):
    records: list[mcpclient.CallRecord] = []
    async with mcpclient.connect(
        mcpclient.HttpServer(url=f"{tasks_url}/mcp"), observer=records.append
    ) as client:
        started = asyncio.get_running_loop().time()
        with pytest.raises(mcpclient.ResponseTimeout):
            await client.call_tool("slow_compute", {"seconds": 60}, timeout=0.5)
        assert asyncio.get_running_loop().time() - started < 5
    task_id = records[-1].task_id
    assert records[-1].task_states == ["working"]
    log = await server_log(tasks_url)
    assert any(e["method"] == "tasks/cancel" for e in for_task(log, task_id))


async def test_a_caller_that_cancels_cancels_the_task(tasks_url):
    records: list[mcpclient.CallRecord] = []
    async with mcpclient.connect(
        mcpclient.HttpServer(url=f"{tasks_url}/mcp"), observer=records.append
    ) as client:
        call = asyncio.ensure_future(client.call_tool("slow_compute", {"seconds": 60}))
        await asyncio.sleep(0.3)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
    assert records[-1].outcome == "error" and records[-1].task_id
    log = await server_log(tasks_url)
    assert any(
        e["method"] == "tasks/cancel" for e in for_task(log, records[-1].task_id)
    )


async def test_without_the_extension_a_task_tool_is_refused(tasks_url):
    """At 2025-era versions the client declares no extension; the server says -32021."""
    async with mcpclient.connect(
        mcpclient.HttpServer(url=f"{tasks_url}/mcp")
    ) as client:
        client._meta = {
            **client._meta,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        with pytest.raises(mcpclient.JsonRpcError) as caught:
            await client.call_tool("slow_compute", {"seconds": 0})
    assert caught.value.code == -32021


async def test_mrtr_rounds_echo_request_state_and_apply_defaults(tasks_url):
    async with mcpclient.connect(
        mcpclient.HttpServer(url=f"{tasks_url}/mcp"), elicit=accept
    ) as client:
        result = await client.call_tool("ask_name")
    assert result.text == "hello Ada"
    rounds = [e for e in await server_log(tasks_url) if e.get("tool") == "ask_name"]
    assert [e["requestState"] for e in rounds[-2:]] == [None, "opaque-1"]


async def test_mrtr_without_a_handler_is_refused(tasks_url):
    async with mcpclient.connect(
        mcpclient.HttpServer(url=f"{tasks_url}/mcp")
    ) as client:
        with pytest.raises(mcpclient.CapabilityError):
            await client.call_tool("ask_name")


def test_defaults_fill_only_what_is_missing():
    schema = {"properties": {"a": {"default": 1}, "b": {"default": 2}, "c": {}}}
    assert with_defaults(schema, {"b": 5}) == {"a": 1, "b": 5}
    assert with_defaults({"type": "object"}, {"x": 1}) == {"x": 1}
    assert with_defaults(None, {}) == {}


async def test_input_requests_refused_when_not_elicitations():
    with pytest.raises(mcpclient.CapabilityError):
        await input_responses(
            accept, {"r": {"method": "sampling/createMessage"}}, server="s"
        )
    with pytest.raises(mcpclient.CapabilityError):
        await input_responses(accept, {}, server="s")
    assert await input_responses(
        lambda message, schema: None,
        {"r": {"method": "elicitation/create"}},
        server="s",
    ) == {"r": {"action": "decline"}}
