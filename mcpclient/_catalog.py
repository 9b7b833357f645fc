"""Untrusted results into typed values: tool, resource and prompt entries, and what calls return.

Every function takes what the server sent (any JSON) and either returns our dataclasses, with
fields of the wrong type dropped to None, or raises MalformedResult naming the server and method.
Pure functions: no I/O and no session state.
"""

from __future__ import annotations

from typing import Any

from ._exceptions import CapabilityError, MalformedResult
from ._types import (
    CallToolResult,
    GetPromptResult,
    Prompt,
    PromptArgument,
    PromptMessage,
    ReadResourceResult,
    Resource,
    ResourceContents,
)


def _str(value: Any) -> str | None:
    return value if type(value) is str else None


def _preview(item: Any) -> str:
    return repr(str(item)[:200])


def check_complete(raw: dict[str, Any], method: str, *, server: str) -> None:
    """Refuse a result whose ``resultType`` is not ``complete`` (2026-07-28 MRTR).

    Raises:
        CapabilityError: an ``input_required`` (or other) result, which needs client features
            (elicitation, sampling, roots) this client does not implement.
    """
    result_type = raw.get("resultType", "complete")
    if result_type != "complete":
        raise CapabilityError(
            f"{server}: {method} answered resultType {str(result_type)[:40]!r}, which this client does not support"
        )


def tool_entry(item: Any, *, server: str) -> dict[str, Any]:
    """One tools/list entry with a string name and an object inputSchema (else MalformedResult)."""
    if (
        not isinstance(item, dict)
        or not isinstance(item.get("name"), str)
        or not isinstance(item.get("inputSchema"), dict)
    ):
        raise MalformedResult(f"{server}: malformed tool entry {_preview(item)}")
    return item


def tool_result(raw: dict[str, Any], name: str, *, server: str) -> CallToolResult:
    """The tools/call answer, its content a list of typed blocks (else MalformedResult)."""
    check_complete(raw, "tools/call", server=server)
    content = raw.get("content")
    if type(content) is not list or not all(
        type(b) is dict and type(b.get("type")) is str for b in content
    ):
        raise MalformedResult(
            f"{server}: tools/call {name!r} returned malformed content"
        )
    meta = raw.get("_meta")
    return CallToolResult(
        content,
        raw.get("structuredContent"),
        raw.get("isError") is True,
        meta if type(meta) is dict else None,
        name,
        raw,
    )


def resources(items: list[Any], *, server: str) -> list[Resource]:
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
            raise MalformedResult(
                f"{server}: malformed resource entry {_preview(item)}"
            )
        out.append(
            Resource(
                item["uri"],
                _str(item.get("name")),
                _str(item.get("description")),
                _str(item.get("mimeType")),
                _str(item.get("title")),
                item,
            )
        )
    return out


def read_result(raw: dict[str, Any], uri: str, *, server: str) -> ReadResourceResult:
    check_complete(raw, "resources/read", server=server)
    contents = raw.get("contents")
    if not isinstance(contents, list) or not all(
        isinstance(c, dict) and isinstance(c.get("uri"), str) for c in contents
    ):
        raise MalformedResult(
            f"{server}: resources/read {uri!r} returned malformed contents"
        )
    return ReadResourceResult(
        [
            ResourceContents(
                c["uri"],
                _str(c.get("mimeType")),
                _str(c.get("text")),
                _str(c.get("blob")),
                c,
            )
            for c in contents
        ],
        raw,
    )


def prompts(items: list[Any], *, server: str) -> list[Prompt]:
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise MalformedResult(f"{server}: malformed prompt entry {_preview(item)}")
        arguments = item.get("arguments")
        args = [
            PromptArgument(
                a["name"], _str(a.get("description")), a.get("required") is True
            )
            for a in (arguments if isinstance(arguments, list) else [])
            if isinstance(a, dict) and isinstance(a.get("name"), str)
        ]
        out.append(
            Prompt(
                item["name"],
                _str(item.get("description")),
                args,
                _str(item.get("title")),
                item,
            )
        )
    return out


def prompt_result(raw: dict[str, Any], name: str, *, server: str) -> GetPromptResult:
    check_complete(raw, "prompts/get", server=server)
    messages = raw.get("messages")
    if not isinstance(messages, list) or not all(
        isinstance(m, dict) and isinstance(m.get("content"), dict) for m in messages
    ):
        raise MalformedResult(
            f"{server}: prompts/get {name!r} returned malformed messages"
        )
    return GetPromptResult(
        _str(raw.get("description")),
        [PromptMessage(str(m.get("role")), m["content"]) for m in messages],
        raw,
    )
