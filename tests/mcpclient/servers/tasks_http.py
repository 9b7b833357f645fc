"""A 2026-07-28 MCP server with the Tasks extension (io.modelcontextprotocol/tasks, SEP-2663) over
real Streamable HTTP on 127.0.0.1 (Starlette + uvicorn, stateless, JSON answers).

The official ``mcp`` SDK (2.3.0) has no Tasks extension (only the 2025-11-25 experimental tasks),
so this serves the extension's wire shapes by hand: ``tools/call`` of a task tool answers a
CreateTaskResult (``resultType: "task"``, ``taskId``, ``status``, ``pollIntervalMs``); ``tasks/get``
answers the task, with its ``result`` (or ``error``) inlined once terminal and its ``inputRequests``
while ``input_required``; ``tasks/update`` delivers ``inputResponses``; ``tasks/cancel`` cancels.
A client that did not declare the extension gets -32021 for a task tool. ``GET /log`` returns what
the server saw (methods, task states, cancels) for the tests. Prints ``PORT <n>`` once listening.

Tools: ``slow_compute(seconds)`` (a task that completes after ``seconds``), ``confirm_delete(filename)``
(a task that asks for confirmation by elicitation), ``failing_job`` (a task that fails),
``greet(name)`` (a plain synchronous result) and ``service_health(service)`` (a task, as the
engine's metrics agent calls it, healthy after ``HEALTH_SECONDS``: the engine's tests).
``--delay S`` holds every ``tools/call`` answer S seconds before its first byte (a slow remote).
"""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
from typing import TYPE_CHECKING, Any

import uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

if TYPE_CHECKING:
    from starlette.requests import Request

EXTENSION = "io.modelcontextprotocol/tasks"
VERSION = "2026-07-28"
POLL_MS = 40

TOOLS = [
    {
        "name": "slow_compute",
        "inputSchema": {
            "type": "object",
            "properties": {"seconds": {"type": "number"}},
            "required": ["seconds"],
        },
        "execution": {"taskSupport": "required"},
    },
    {
        "name": "confirm_delete",
        "inputSchema": {
            "type": "object",
            "properties": {"filename": {"type": "string"}},
            "required": ["filename"],
        },
        "execution": {"taskSupport": "required"},
    },
    {
        "name": "failing_job",
        "inputSchema": {"type": "object", "properties": {}},
        "execution": {"taskSupport": "required"},
    },
    {
        "name": "ask_name",
        "inputSchema": {"type": "object", "properties": {}},
    },
    {
        "name": "service_health",
        "inputSchema": {
            "type": "object",
            "properties": {
                "service": {"type": "string"},
                "start": {"type": "string"},
                "end": {"type": "string"},
            },
            "required": ["service"],
        },
        "annotations": {"readOnlyHint": True},
        "execution": {"taskSupport": "required"},
    },
    {
        "name": "greet",
        "inputSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        },
    },
]

# Past the engine's progress interval (0.25 s), so a task message it held shows.
HEALTH_SECONDS = 0.6
delay = 0.0  # --delay: seconds before each tools/call answer's first byte

tasks: dict[str, dict[str, Any]] = {}
log: list[dict[str, Any]] = []


def _text(text: str) -> dict[str, Any]:
    return {"resultType": "complete", "content": [{"type": "text", "text": text}]}


def _refresh(task: dict[str, Any]) -> None:
    """Move a timed task on: slow_compute completes at its due time."""
    if (
        task["status"] == "working"
        and task.get("due")
        and time.monotonic() >= task["due"]
    ):
        task["status"] = "completed"
        if task["tool"] == "service_health":
            health = {"service": task["label"], "verdict": "healthy"}
            task["result"] = {
                **_text(f"{task['label']} is healthy"),
                "structuredContent": health,
            }
        else:
            task["result"] = _text(f"computed {task['label']}")


def _view(task: dict[str, Any]) -> dict[str, Any]:
    view = {
        "resultType": "complete",
        "taskId": task["taskId"],
        "status": task["status"],
        "pollIntervalMs": POLL_MS,
    }
    if task["status"] == "working" and task.get("label") is not None:
        verb = "checking" if task["tool"] == "service_health" else "computing"
        view["statusMessage"] = f"{verb} {task['label']}"
    if task["status"] == "completed":
        view["result"] = task["result"]
    if task["status"] == "failed":
        view["error"] = task["error"]
    if task["status"] == "input_required":
        view["inputRequests"] = task["inputRequests"]
    return view


def _create(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    task_id = uuid.uuid4().hex
    task: dict[str, Any] = {"taskId": task_id, "tool": tool, "status": "working"}
    if tool == "slow_compute":
        task["due"] = time.monotonic() + float(arguments.get("seconds", 0))
        task["label"] = arguments.get("seconds")
    elif tool == "service_health":
        task["due"] = time.monotonic() + HEALTH_SECONDS
        task["label"] = arguments.get("service")
    elif tool == "confirm_delete":
        task["status"] = "input_required"
        task["filename"] = arguments.get("filename")
        task["inputRequests"] = {
            "confirm": {
                "method": "elicitation/create",
                "params": {
                    "message": f"Delete {arguments.get('filename')}?",
                    "requestedSchema": {
                        "type": "object",
                        "properties": {
                            "confirmed": {"type": "boolean", "default": True}
                        },
                    },
                },
            }
        }
    else:  # failing_job
        task["status"] = "failed"
        task["error"] = {"code": -32603, "message": "the job crashed"}
    tasks[task_id] = task
    return {
        "resultType": "task",
        "taskId": task_id,
        "status": task["status"],
        "ttlMs": 60_000,
        "pollIntervalMs": POLL_MS,
    }


def _error(request_id: Any, code: int, message: str, data: Any = None) -> Response:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return JSONResponse({"jsonrpc": "2.0", "id": request_id, "error": error})


async def mcp(request: Request) -> Response:
    body = await request.json()
    method = body.get("method")
    request_id = body.get("id")
    params = body.get("params") or {}
    if request_id is None:
        return Response(status_code=202)
    meta = params.get("_meta") or {}
    caps = meta.get("io.modelcontextprotocol/clientCapabilities") or {}
    declared = EXTENSION in (caps.get("extensions") or {})
    entry: dict[str, Any] = {"method": method}
    log.append(entry)

    def ok(result: dict[str, Any]) -> Response:
        return JSONResponse({"jsonrpc": "2.0", "id": request_id, "result": result})

    if method == "server/discover":
        return ok(
            {
                "resultType": "complete",
                "supportedVersions": [VERSION],
                "capabilities": {"tools": {}, "extensions": {EXTENSION: {}}},
                "_meta": {
                    "io.modelcontextprotocol/serverInfo": {
                        "name": "tasks-test-server",
                        "version": "1.0.0",
                    }
                },
            }
        )
    if method == "tools/list":
        return ok({"resultType": "complete", "tools": TOOLS})
    if method == "tools/call":
        if delay:
            await asyncio.sleep(delay)
        name = params.get("name")
        arguments = params.get("arguments") or {}
        entry["tool"] = name
        if name == "greet":
            return ok(_text(f"hello {arguments.get('name')}"))
        if name == "ask_name":
            # SEP-2322 (MRTR): round 1 asks, round 2 must echo requestState untouched.
            responses = params.get("inputResponses")
            entry["requestState"] = params.get("requestState")
            if responses is None:
                return ok(
                    {
                        "resultType": "input_required",
                        "inputRequests": {
                            "who": {
                                "method": "elicitation/create",
                                "params": {
                                    "message": "Your name?",
                                    "requestedSchema": {
                                        "type": "object",
                                        "properties": {
                                            "name": {"type": "string", "default": "Ada"}
                                        },
                                    },
                                },
                            }
                        },
                        "requestState": "opaque-1",
                    }
                )
            if params.get("requestState") != "opaque-1":
                return _error(request_id, -32602, "requestState not echoed")
            content = (responses.get("who") or {}).get("content") or {}
            return ok(_text(f"hello {content.get('name')}"))
        if name not in {tool["name"] for tool in TOOLS}:
            return _error(request_id, -32602, f"unknown tool {name}")
        if not declared:
            return _error(
                request_id,
                -32021,
                "this tool needs the tasks extension",
                {"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
            )
        created = _create(name, arguments)
        entry["taskId"] = created["taskId"]
        return ok(created)
    task = tasks.get(params.get("taskId"))
    if method in ("tasks/get", "tasks/update", "tasks/cancel") and task is None:
        return _error(request_id, -32602, "unknown taskId")
    if method == "tasks/get":
        assert task is not None
        _refresh(task)
        entry["status"] = task["status"]
        return ok(_view(task))
    if method == "tasks/update":
        assert task is not None
        responses = params.get("inputResponses") or {}
        entry["inputResponses"] = responses
        answer = responses.get("confirm") or {}
        if task["status"] == "input_required" and "confirm" in responses:
            confirmed = answer.get("action") == "accept" and (
                answer.get("content") or {}
            ).get("confirmed")
            task["status"] = "completed"
            task.pop("inputRequests", None)
            task["result"] = _text(
                f"deleted {task['filename']}" if confirmed else "kept"
            )
        return ok({"resultType": "complete"})
    if method == "tasks/cancel":
        assert task is not None
        entry["taskId"] = task["taskId"]
        if task["status"] not in ("completed", "failed", "cancelled"):
            task["status"] = "cancelled"
        return ok({"resultType": "complete"})
    return _error(request_id, -32601, f"method not found: {method}")


async def seen(request: Request) -> Response:
    return JSONResponse(log)


app = Starlette(
    routes=[Route("/mcp", mcp, methods=["POST"]), Route("/log", seen, methods=["GET"])]
)


async def main() -> None:
    global delay
    if "--delay" in sys.argv:
        delay = float(sys.argv[sys.argv.index("--delay") + 1])
    # uvicorn binds port 0 itself (a pre-bound socket handed over loses TCP_NODELAY: 40 ms calls).
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=0, log_level="warning", lifespan="off"
        )
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    print(f"PORT {server.servers[0].sockets[0].getsockname()[1]}", flush=True)
    await task


if __name__ == "__main__":
    asyncio.run(main())
