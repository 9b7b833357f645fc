"""What a tool call asked, in a few words, and what it answered, for a trace row; and the
bounded text search over a trace's calls.

A label reads like the command a person would type: `get pods -n shop`, `describe pod
cartservice-1 -n shop`, `logs cartservice-1 -n shop`, `probe https://api.internal/health`,
`top_errors checkout`, `service_health checkout`. Built from the tool's name and its
(redacted) arguments only; the one owner of that rule (the trace page and its API use it).

The search looks at the stored, redacted data only: tool and server names, the redacted
arguments, the result preview and the redacted result. Pure Python, no queries.
"""

import json
from collections.abc import Iterable, Mapping
from typing import Any

from diagnosis.models import ToolCallSpan

LABEL_CHARS = 120
PREVIEW_CHARS = 300
# The search's bounds: the longest query, and the most rows it returns.
QUERY_MAX_CHARS = 200
SEARCH_LIMIT = 200
# A value that says which object a call is about, in the order a label prefers them.
_SUBJECT_KEYS = (
    "url",
    "service",
    "name",
    "pod",
    "target",
    "query",
    "symptoms",
    "host",
)


def _scalar(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, str | int | float):
        return " ".join(str(value).split())
    return ""


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def call_label(tool: str, arguments: Any) -> str:
    """What the call asked: kubectl-like for Kubernetes reads, `probe <url>`, else the tool
    followed by the argument that names its subject."""
    args: Mapping[str, Any] = arguments if isinstance(arguments, Mapping) else {}
    namespace = _scalar(args.get("namespace"))
    ns = f" -n {namespace}" if namespace else ""
    kind = _scalar(args.get("kind") or args.get("resource") or args.get("type"))
    kinds = args.get("kinds")
    if not kind and isinstance(kinds, list):
        # Several kinds in one get: kubectl's comma list.
        kind = ",".join(_scalar(k) for k in kinds if _scalar(k))
    name = _scalar(args.get("name") or args.get("pod"))
    selector = _scalar(args.get("selector"))
    if tool in ("get_resources", "list_resources", "get"):
        text = f"get {kind or 'resources'}{f' {name}' if name else ''}{ns}"
        text += f" -l {selector}" if selector else ""
    elif tool == "get_yaml":
        text = f"get {kind or 'resource'}{f' {name}' if name else ''}{ns} -o yaml"
    elif tool in ("describe_resource", "describe"):
        text = f"describe {kind or 'resource'}{f' {name}' if name else ''}{ns}"
    elif tool in ("get_logs", "pod_logs", "logs"):
        previous = " --previous" if args.get("previous") is True else ""
        text = f"logs {name or 'pod'}{ns}{previous}"
    elif tool in ("get_events", "events"):
        about = _scalar(args.get("for_object"))
        text = f"get events{ns}{f' --for {about}' if about else ''}"
    elif tool == "probe_url":
        text = f"probe {_scalar(args.get('url'))}".rstrip()
    else:
        subject = next(
            (value for key in _SUBJECT_KEYS if (value := _scalar(args.get(key)))), ""
        )
        text = f"{tool} {subject}{ns}".rstrip()
    return _short(text, LABEL_CHARS)


def result_preview(result: Any, preview: str) -> str:
    """The result's own `summary` when it has one, else the stored preview (bounded)."""
    if isinstance(result, Mapping):
        summary = _scalar(result.get("summary"))
        if summary:
            return _short(summary, PREVIEW_CHARS)
    return _short(preview, PREVIEW_CHARS)


def search_text(span: ToolCallSpan) -> str:
    """What the search looks at, lowercased: the redacted data the span stores."""
    parts = [
        span.server_name,
        span.tool_name,
        span.agent,
        call_label(span.tool_name, span.arguments_redacted),
        json.dumps(span.arguments_redacted, ensure_ascii=False, default=str),
        span.result_preview,
        ""
        if span.result is None
        else json.dumps(span.result, ensure_ascii=False, default=str),
        span.error_code,
        span.error_message,
    ]
    return "\n".join(parts).lower()


class BadQuery(ValueError):
    """The query is not one the search takes (the reason is the message)."""


def clean_query(raw: str | None) -> str:
    """The query, trimmed; "" for none.

    Raises:
        BadQuery: longer than QUERY_MAX_CHARS, or holding a control character.
    """
    # Checked as sent, before the trim, so the rule is the one the OpenAPI document states.
    query = raw or ""
    if len(query) > QUERY_MAX_CHARS:
        raise BadQuery(f"at most {QUERY_MAX_CHARS} characters")
    if any(ord(c) < 32 for c in query):
        raise BadQuery("no control characters")
    return query.strip()


def search(
    spans: Iterable[ToolCallSpan], query: str, *, limit: int = SEARCH_LIMIT
) -> list[ToolCallSpan]:
    """The spans whose tool, arguments or results hold every word of `query` (any case), in
    order, at most `limit`; every span (up to `limit`) when the query is empty."""
    words = query.lower().split()
    found: list[ToolCallSpan] = []
    for span in spans:
        if len(found) >= limit:
            break
        if not words or all(w in search_text(span) for w in words):
            found.append(span)
    return found
