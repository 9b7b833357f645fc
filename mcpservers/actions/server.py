"""The actions MCP server: restart and scale workloads exactly once per idempotency key, and say what happened.

Demo back end only: actions are recorded in a ledger file (see `ledger.py`), no cluster is touched.
No `from __future__ import annotations` here: the SDK evaluates tool annotations, and the replicas bound
is a closure variable only visible while annotations are evaluated eagerly.
"""

import os
import re
import time
from collections.abc import Callable
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from mcpservers._common import iso
from mcpservers.actions.ledger import KeyConflict, Ledger

# Kubernetes names: a namespace is a DNS-1123 label, a workload name a DNS-1123 subdomain.
_NAMESPACE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_NAME = re.compile(
    r"^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
)
_KEY = re.compile(r"^[A-Za-z0-9._:/@+=-]{8,200}$")
DEFAULT_MAX_REPLICAS = 50

KeyArg = Annotated[
    str,
    Field(
        description=(
            "Unique per intended action, e.g. '<incident>:<action>:<namespace>/<name>:<generation>' "
            "(8-200 characters: letters, digits and . _ : / @ + = -). Repeating it never acts twice."
        )
    ),
]
NamespaceArg = Annotated[str, Field(description="Kubernetes namespace, e.g. 'shop'.")]
NameArg = Annotated[
    str, Field(description="Deployment or StatefulSet name, e.g. 'checkout'.")
]


def build_server(
    ledger: Ledger,
    *,
    max_replicas: int = DEFAULT_MAX_REPLICAS,
    clock: Callable[[], float] = time.time,
    exit_after_write: bool = False,
) -> MCPServer[Any]:
    """The actions server recording into `ledger`.

    `exit_after_write` is a fault for tests: the process ends right after a new record is on
    disk, before it answers, so the caller learns nothing although the action happened.
    """
    server: MCPServer[Any] = MCPServer(
        "mcpservers-actions",
        version="0.1.0",
        instructions=(
            "Destructive actions on workloads (demo back end: recorded in a ledger, no cluster is touched). "
            "Each call needs an idempotency key; repeating a key returns the first result. After a timeout or "
            "lost connection, call get_action_status with the key instead of retrying blindly."
        ),
        log_level="WARNING",
    )

    async def perform(
        action: str,
        namespace: str,
        name: str,
        key: str,
        params: dict[str, Any],
        apply: Any,
    ) -> dict[str, Any]:
        _check_target(namespace, name)
        _check_key(key)
        try:
            outcome = await anyio.to_thread.run_sync(
                lambda: ledger.perform(
                    key=key,
                    action=action,
                    namespace=namespace,
                    name=name,
                    params=params,
                    apply=apply,
                    now=iso(clock()),
                )
            )
        except KeyConflict as exc:
            raise ToolError(str(exc)) from exc
        if exit_after_write and not outcome.replayed:
            os._exit(3)  # the fault: written and fsynced, never answered
        return {**outcome.record, "replayed": outcome.replayed}

    @server.tool(
        annotations=ToolAnnotations(
            title="Restart workload",
            read_only_hint=False,
            destructive_hint=True,
            idempotent_hint=True,
        )
    )
    async def restart_workload(
        namespace: NamespaceArg, name: NameArg, idempotency_key: KeyArg
    ) -> dict[str, Any]:
        """Rolling-restart a workload (like `kubectl rollout restart`); once per idempotency key."""

        def apply(history: list[dict[str, Any]]) -> dict[str, Any]:
            restarts = sum(1 for r in history if r["action"] == "restart")
            return {
                "restart_generation": restarts + 1,
                "message": f"rollout restart of {namespace}/{name} triggered",
            }

        return await perform("restart", namespace, name, idempotency_key, {}, apply)

    @server.tool(
        annotations=ToolAnnotations(
            title="Scale workload",
            read_only_hint=False,
            destructive_hint=True,
            idempotent_hint=True,
        )
    )
    async def scale_workload(
        namespace: NamespaceArg,
        name: NameArg,
        replicas: Annotated[
            int,
            Field(
                description=f"Desired replicas (0..{max_replicas}).",
                ge=0,
                le=max_replicas,
            ),
        ],
        idempotency_key: KeyArg,
    ) -> dict[str, Any]:
        """Set a workload's replica count (like `kubectl scale`); once per idempotency key."""

        def apply(history: list[dict[str, Any]]) -> dict[str, Any]:
            scales = [r for r in history if r["action"] == "scale"]
            previous = scales[-1]["params"]["replicas"] if scales else None
            return {
                "previous_replicas": previous,
                "replicas": replicas,
                "message": f"{namespace}/{name} scaled to {replicas}"
                + (
                    ""
                    if previous is not None
                    else " (previous count unknown to this ledger)"
                ),
            }

        return await perform(
            "scale", namespace, name, idempotency_key, {"replicas": replicas}, apply
        )

    @server.tool(
        annotations=ToolAnnotations(
            title="Action status", read_only_hint=True, idempotent_hint=True
        )
    )
    async def get_action_status(idempotency_key: KeyArg) -> dict[str, Any]:
        """Did the action with this key happen? Use after a timeout or lost connection instead of retrying blindly."""
        _check_key(idempotency_key)
        record = await anyio.to_thread.run_sync(lambda: ledger.find(idempotency_key))
        if record is None:
            return {
                "idempotency_key": idempotency_key,
                "found": False,
                "status": "not_performed",
                "meaning": "no action with this key was performed; calling the action again with this key is safe",
            }
        return {
            "idempotency_key": idempotency_key,
            "found": True,
            "status": record["status"],
            "record": record,
        }

    return server


def _check_target(namespace: str, name: str) -> None:
    if not _NAMESPACE.match(namespace):
        raise ToolError(
            f"namespace {namespace!r} is not a Kubernetes namespace (lowercase letters, digits and '-', at most 63)"
        )
    if not _NAME.match(name):
        raise ToolError(
            f"name {name!r} is not a Kubernetes workload name (lowercase letters, digits, '-' and '.')"
        )


def _check_key(key: str) -> None:
    if not _KEY.match(key):
        raise ToolError(
            f"idempotency_key {key!r} must be 8-200 characters of letters, digits and . _ : / @ + = -; "
            "e.g. 'inc-42:restart:shop/checkout:1'"
        )
