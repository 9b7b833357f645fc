"""The kubernetes MCP server: five read-only tools answering kubectl's own text, and the same data structured.

Every argument is checked against the kind table and DNS-1123 rules (kinds.py) and the namespace
allowlist before a `Command` is built; the back end (live kubectl or a snapshot) answers it; then
Secret data and credentials are masked and the answer is bounded.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Annotated, Any

import pydantic_core
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ContentBlock, TextContent, ToolAnnotations
from pydantic import Field

from mcpservers.kubernetes.answers import BackendError
from mcpservers.kubernetes.commands import BadSelector, Command, normalize_selector
from mcpservers.kubernetes.kinds import (
    MAX_KINDS,
    ArgumentRefused,
    container_arg,
    find_kind,
    kind_arg,
    kinds_arg,
    name_arg,
    namespace_arg,
    object_ref_arg,
)
from mcpservers.kubernetes.redaction import mask_text, redact_object, safe_text
from mcpservers.kubernetes.tables import parse_table, table_blocks

if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    from mcpservers.kubernetes.answers import Answer, Backend
    from mcpservers.kubernetes.kinds import Kind

logger = logging.getLogger(__name__)

MAX_TEXT_CHARS = 1024 * 1024
MAX_OBJECTS_BYTES = 2 * 1024 * 1024
MAX_ROWS = 5000
MAX_TAIL = 5000

# Reads only; a live cluster's answers change from call to call, so not idempotent.
_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=True)

KIND_HELP = (
    "Resource kind: pods, deployments, replicasets, services, endpoints, events, nodes, "
    "persistentvolumeclaims, configmaps, secrets, serviceaccounts, resourcequotas … or a short name "
    "(po, deploy, rs, svc, ep, no, pvc, cm, sa, quota)."
)
KindArg = Annotated[str, Field(description=KIND_HELP, max_length=80)]
NamespaceArg = Annotated[
    str, Field(description="Namespace, e.g. 'shop'.", max_length=63)
]
NameArg = Annotated[
    str,
    Field(description="Object name, e.g. 'cartservice-7f9c-x2x4q'.", max_length=253),
]


def build_server(
    backend: Backend, *, namespaces: Collection[str] | None = None
) -> MCPServer[Any]:
    """The kubernetes server over one back end; `namespaces` limits what may be read (None: any)."""
    allowed = frozenset(namespaces) if namespaces else None
    scope = f"namespaces {', '.join(sorted(allowed))}" if allowed else "any namespace"
    server: MCPServer[Any] = MCPServer(
        "mcpservers-kubernetes",
        version="0.1.0",
        instructions=(
            f"Read-only Kubernetes ({backend.description}; {scope}). Each tool answers the text kubectl prints "
            "and, in structuredContent, the command, whether the object was found, table rows and (when the "
            "back end has them) the objects. Secret data is never returned: names and keys only."
        ),
        log_level="WARNING",
    )

    def checked_namespace(namespace: str) -> str:
        namespace_arg(namespace)
        if allowed is not None and namespace not in allowed:
            raise ArgumentRefused(
                f"namespace {namespace!r} is not readable on this server; use one of: {', '.join(sorted(allowed))}"
            )
        return namespace

    async def answer(build: Callable[[], Command]) -> CallToolResult:
        try:
            command = build()
        except (ArgumentRefused, BadSelector) as exc:
            raise ToolError(str(exc)) from exc
        try:
            result = await backend.run(command)
        except BackendError as exc:
            raise ToolError(str(exc)) from exc
        except Exception as exc:
            # Keep tracebacks out of tool results; the server log still has one.
            logger.exception("kubectl command %s failed unexpectedly", command.line())
            raise ToolError(
                f"`{command.line()}` failed unexpectedly ({exc.__class__.__name__}: {exc})"
            ) from exc
        return tool_result(result)

    @server.tool(annotations=_READ_ONLY)
    async def get_resources(
        *,
        namespace: NamespaceArg,
        kind: Annotated[
            str,
            Field(
                description=KIND_HELP
                + " Several kinds in one call: 'pods,deployments' (as kubectl takes them) or `kinds`.",
                max_length=1000,
            ),
        ] = "",
        kinds: Annotated[
            list[Annotated[str, Field(max_length=80)]] | None,
            Field(
                description=f"Several kinds in one `kubectl get k1,k2,…` (at most {MAX_KINDS}, each once, "
                "all namespaced), e.g. ['pods', 'deployments', 'services']: one table per kind that has "
                "objects, rows named kind.group/name; structuredContent.kinds has each kind's rows.",
                max_length=MAX_KINDS,
            ),
        ] = None,
        name: Annotated[
            str,
            Field(
                description="One object's name (one kind only); empty lists them all.",
                max_length=253,
            ),
        ] = "",
        wide: Annotated[
            bool, Field(description="-o wide: node, IP, images, selectors.")
        ] = False,
        show_labels: Annotated[
            bool, Field(description="--show-labels: add the LABELS column.")
        ] = False,
        selector: Annotated[
            str,
            Field(
                description="Label selector (-l), e.g. 'app=cartservice' or 'tier in (web,api)'.",
                max_length=1000,
            ),
        ] = "",
    ) -> CallToolResult:
        """`kubectl get KIND[,KIND…] [NAME] -n NAMESPACE [-o wide] [--show-labels] [-l SELECTOR]`: the tables kubectl prints, rows structured."""

        def build() -> Command:
            asked = _asked_kinds(kind, kinds)
            selected = normalize_selector(selector) if selector.strip() else ""
            if len(asked) > 1:
                if name:
                    raise ArgumentRefused(
                        "name: one object's name is asked of one kind, not of several"
                    )
                return Command(
                    "get",
                    checked_namespace(namespace),
                    output="wide" if wide else "",
                    show_labels=show_labels,
                    selector=selected,
                    kinds=asked,
                )
            return Command(
                "get",
                checked_namespace(namespace),
                kind=asked[0],
                name=name_arg(name) if name else "",
                output="wide" if wide else "",
                show_labels=show_labels,
                selector=selected,
            )

        return await answer(build)

    @server.tool(annotations=_READ_ONLY)
    async def describe(
        kind: KindArg, name: NameArg, namespace: NamespaceArg
    ) -> CallToolResult:
        """`kubectl describe KIND NAME -n NAMESPACE`: status, conditions, containers and recent events of one object."""
        return await answer(
            lambda: Command(
                "describe",
                checked_namespace(namespace),
                kind=kind_arg(kind),
                name=name_arg(name),
            )
        )

    @server.tool(annotations=_READ_ONLY)
    async def pod_logs(
        *,
        pod: Annotated[
            str,
            Field(
                description="Pod name, e.g. 'cartservice-7f9c-x2x4q'.", max_length=253
            ),
        ],
        namespace: NamespaceArg,
        container: Annotated[
            str,
            Field(description="Container; empty for the pod's default.", max_length=63),
        ] = "",
        previous: Annotated[
            bool,
            Field(
                description="--previous: the last terminated container (after a crash)."
            ),
        ] = False,
        tail: Annotated[
            int, Field(description=f"Last N lines (1..{MAX_TAIL}).", ge=1, le=MAX_TAIL)
        ] = 200,
    ) -> CallToolResult:
        """`kubectl logs POD -n NAMESPACE [-c CONTAINER] [--previous] --tail=N`: the newest log lines, secrets masked."""
        return await answer(
            lambda: Command(
                "logs",
                checked_namespace(namespace),
                kind=find_kind("pods"),
                name=name_arg(pod, what="pod"),
                container=container_arg(container) if container else "",
                is_previous=previous,
                tail=tail,
            )
        )

    @server.tool(annotations=_READ_ONLY)
    async def events(
        namespace: NamespaceArg,
        for_object: Annotated[
            str,
            Field(
                description="Only this object's events, as kind/name: 'pod/cart-7f9c-x2x4q', 'deployment/cart'.",
                max_length=300,
            ),
        ] = "",
    ) -> CallToolResult:
        """`kubectl events -n NAMESPACE [--for KIND/NAME]`: the namespace's events (reasons such as FailedScheduling, BackOff), oldest first."""

        def build() -> Command:
            kind, name = object_ref_arg(for_object) if for_object else (None, "")
            return Command("events", checked_namespace(namespace), kind=kind, name=name)

        return await answer(build)

    @server.tool(annotations=_READ_ONLY)
    async def get_yaml(
        kind: KindArg, name: NameArg, namespace: NamespaceArg
    ) -> CallToolResult:
        """`kubectl get KIND NAME -n NAMESPACE -o yaml`: the whole object (spec and status); a Secret's data shows keys only."""
        return await answer(
            lambda: Command(
                "get",
                checked_namespace(namespace),
                kind=kind_arg(kind),
                name=name_arg(name),
                output="yaml",
            )
        )

    return server


def _asked_kinds(kind: str, kinds: list[str] | None) -> tuple[Kind, ...]:
    """The kinds a get_resources call asks: `kind` (one, or kubectl's comma list) or `kinds`.

    Raises:
        ArgumentRefused: both or neither given, or a kind `kinds_arg` refuses.
    """
    if kinds is not None and kind.strip():
        raise ArgumentRefused("kind: give `kind` or `kinds`, not both")
    if kinds is None:
        if not kind.strip():
            raise ArgumentRefused(
                "kind: name a kind (e.g. 'pods'), or several in `kinds`"
            )
        if "," not in kind:
            return (kind_arg(kind),)
        return kinds_arg([kind])
    return kinds_arg(kinds)


def present(answer: Answer) -> tuple[str, dict[str, Any]]:
    """The text and structured content of an answer, with Secret data and credentials masked and sizes bounded."""
    command = answer.command
    notes = list(answer.notes)
    is_secret = command.kind is not None and command.kind.resource == "secrets"
    if command.is_multi_kind and answer.is_found:
        # Each kind's table scrubbed of its own objects' Secret values only, as if asked alone.
        text = "\n".join(
            safe_text(
                block, is_secret_yaml=False, objects=_block_objects(block, answer)
            )
            for block in table_blocks(answer.text)
        )
    else:
        text = safe_text(
            answer.text,
            is_secret_yaml=is_secret and command.output == "yaml",
            objects=answer.objects,
        )
    if len(text) > MAX_TEXT_CHARS:
        cut = len(text) - MAX_TEXT_CHARS
        if command.verb == "logs":
            text = text[cut:].partition("\n")[2]
            notes.append(
                f"output cut to its last {MAX_TEXT_CHARS} characters; ask for a smaller tail"
            )
        else:
            text = text[:MAX_TEXT_CHARS].rpartition("\n")[0] + "\n"
            notes.append(
                f"output cut at {MAX_TEXT_CHARS} characters; ask for one object or a label selector"
            )
    structured: dict[str, Any] = {
        "command": command.line(),
        "found": answer.is_found,
        "source": answer.source,
    }
    if answer.derived_from:
        structured["derived_from"] = answer.derived_from
    if (
        answer.is_found
        and not command.is_multi_kind
        and (
            command.verb == "events"
            or (command.verb == "get" and command.output in ("", "wide"))
        )
    ):
        table = parse_table(answer.text)
        if table is not None:
            structured["columns"] = list(table.columns)
            rows = [
                {k: mask_text(v) for k, v in row.items()} for row in table.records()
            ]
            if len(rows) > MAX_ROWS:
                notes.append(f"rows cut at {MAX_ROWS} of {len(rows)}")
                rows = rows[:MAX_ROWS]
            structured["rows"] = rows
    if command.verb == "logs":
        structured["lines"] = text.count("\n") + (
            1 if text and not text.endswith("\n") else 0
        )
    if answer.objects is not None and not command.is_multi_kind:
        objects = redact_object(answer.objects)
        if len(pydantic_core.to_json(objects)) > MAX_OBJECTS_BYTES:
            notes.append(
                f"objects left out: more than {MAX_OBJECTS_BYTES} bytes of JSON; ask for one object"
            )
        else:
            structured["items" if isinstance(objects, list) else "object"] = objects
    if command.is_multi_kind:
        structured["kinds"] = {
            part.command.kind.resource: _part(part)
            for part in answer.parts
            if part.command.kind is not None
        }
    structured["notes"] = notes
    return text, structured


def _block_objects(block: str, answer: Answer) -> Any:
    """The objects of the kind whose table `block` is (a multi-kind answer's rows name their kind)."""
    first = block.splitlines()[1:2]
    prefix = first[0].split("/", 1)[0] + "/" if first else ""
    return next(
        (
            p.objects
            for p in answer.parts
            if p.command.kind is not None and p.command.kind.row_prefix == prefix
        ),
        None,
    )


def _part(part: Answer) -> dict[str, Any]:
    """One kind of a multi-kind answer, structured as a one-kind get of it is (without its text)."""
    _, structured = present(part)
    if not structured["notes"]:
        del structured["notes"]
    return structured


def tool_result(answer: Answer) -> CallToolResult:
    """An MCP tool result: kubectl's text first, then (when not captured) a plain note saying so."""
    text, structured = present(answer)
    content: list[ContentBlock] = [TextContent(type="text", text=text)]
    if answer.source == "not_captured":
        content.append(
            TextContent(
                type="text",
                text=f"[not captured: the snapshot holds no answer to `{answer.command.line()}`; "
                "above is what kubectl prints for a missing object]",
            )
        )
    return CallToolResult(content=content, structured_content=structured)
