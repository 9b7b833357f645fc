"""The layered planner driven against a scenario folder's real servers, in memory (no engine, no database).

The kubernetes server answers from the folder's kubernetes.json, the logs server from its
logs.jsonl and the metrics server from its metrics.json, each through the MCP SDK's in-memory client: what the planner reads is exactly what
those servers answer over stdio.
"""

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any

from mcp.client import Client

from mcpservers.kubernetes.server import build_server as kubernetes_server
from mcpservers.kubernetes.snapshot import SnapshotBackend, load_snapshot
from mcpservers.logs.backends import FileBackend, load_jsonl
from mcpservers.logs.server import build_server as logs_server
from mcpservers.metrics.backends import DemoBackend, load_metrics_json
from mcpservers.metrics.server import build_server as metrics_server
from reasoning.layered import LayeredPlanner
from reasoning.observations import (
    IncidentBrief,
    Investigation,
    Observation,
    ToolInfo,
)
from reasoning.report import Report


def servers(folder: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if (folder / "kubernetes.json").is_file():
        entries, _ = load_snapshot(folder / "kubernetes.json")
        out["kubernetes"] = kubernetes_server(
            SnapshotBackend(entries, source=str(folder))
        )
    if (folder / "logs.jsonl").is_file():
        path = folder / "logs.jsonl"
        out["logs"] = logs_server(
            FileBackend(load_jsonl(path, now=time.time()), source=str(path))
        )
    if (folder / "metrics.json").is_file():
        path = folder / "metrics.json"
        out["metrics"] = metrics_server(
            DemoBackend(load_metrics_json(path, now=time.time()), source=str(path))
        )
    return out


def incident(folder: Path) -> IncidentBrief:
    doc = json.loads((folder / "incident.json").read_text(encoding="utf-8"))
    return IncidentBrief(
        title=doc["title"],
        service=doc["service"],
        severity=doc["severity"],
        symptoms=tuple(doc.get("symptoms", ())),
        window_start="now-1h",
        window_end="now",
    )


async def _run(folder: Path, planner: LayeredPlanner) -> tuple[Investigation, Report]:
    clients: dict[str, Client] = {}
    tools: list[ToolInfo] = []
    async with contextlib.AsyncExitStack() as stack:
        for name, server in servers(folder).items():
            client = await stack.enter_async_context(Client(server))
            clients[name] = client
            for tool in (await client.list_tools()).tools:
                hints = tool.annotations
                tools.append(
                    ToolInfo(
                        server=name,
                        name=tool.name,
                        description=tool.description or "",
                        input_schema=tool.input_schema,
                        is_read_only=bool(hints and hints.read_only_hint),
                        is_destructive=bool(hints and hints.destructive_hint),
                        is_idempotent=bool(hints and hints.idempotent_hint),
                    )
                )
        inv = Investigation(incident=incident(folder), tools=tools)
        while calls := await planner.next_round(inv):
            for call in calls:
                result = await clients[call.server].call_tool(
                    call.tool, dict(call.arguments)
                )
                text = "\n".join(getattr(block, "text", "") for block in result.content)
                inv.observations.append(
                    Observation(
                        span_id=str(len(inv.observations) + 1),
                        agent=call.agent,
                        server=call.server,
                        tool=call.tool,
                        arguments=dict(call.arguments),
                        is_ok=not result.is_error,
                        result=result.structured_content,
                        text=text if not result.is_error else "",
                        error_message=text if result.is_error else None,
                    )
                )
            inv.round += 1
        return inv, await planner.conclude(inv)


def run(
    folder: Path, planner: LayeredPlanner | None = None
) -> tuple[Investigation, Report]:
    """Every round the planner asks, answered by the folder's servers; then its report."""
    return asyncio.run(_run(folder, planner or LayeredPlanner()))


def span_text(inv: Investigation, span_id: str) -> str:
    obs = next(o for o in inv.observations if o.span_id == span_id)
    return json.dumps({"text": obs.text, "structured": obs.result}) + (
        obs.error_message or ""
    )
