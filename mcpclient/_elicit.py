"""Answering elicitation: the caller's handler decides, schema defaults fill what it left out.

An ops worker has no human to ask, so elicitation is opt-in: ``connect(elicit=handler)`` declares the
``elicitation`` (form) capability and ``handler(message, requested_schema)`` returns the content to
accept with (a dict) or None to decline. SEP-1034: a field the handler omits that has a ``default``
in the requested schema is sent with that default. Used for ``elicitation/create`` requests
(handshake era) and for 2026-07-28 ``input_required`` results (MRTR) and task input.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from ._exceptions import CapabilityError

if TYPE_CHECKING:
    from ._types import ElicitHandler

ELICIT = "elicitation/create"


def with_defaults(schema: Any, content: dict[str, Any]) -> dict[str, Any]:
    """``content`` plus every top-level property default of ``schema`` it does not set (SEP-1034)."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return dict(content)
    filled = dict(content)
    for name, sub in properties.items():
        if name not in filled and isinstance(sub, dict) and "default" in sub:
            filled[name] = sub["default"]
    return filled


async def elicit(handler: ElicitHandler, params: Any) -> dict[str, Any]:
    """The ``ElicitResult`` for one ``elicitation/create`` params: accept (with defaults) or decline."""
    params = params if isinstance(params, dict) else {}
    message = params.get("message")
    schema = params.get("requestedSchema")
    schema = schema if isinstance(schema, dict) else {}
    outcome = handler(message if isinstance(message, str) else "", schema)
    if inspect.isawaitable(outcome):
        outcome = await outcome
    if outcome is None:
        return {"action": "decline"}
    return {"action": "accept", "content": with_defaults(schema, dict(outcome))}


async def input_responses(
    handler: ElicitHandler | None, requests: Any, *, server: str
) -> dict[str, Any]:
    """Answers to an ``inputRequests`` map (MRTR, task input), keyed as asked.

    Raises:
        CapabilityError: a request this client cannot answer (no handler, or not an elicitation).
    """
    if not isinstance(requests, dict) or not requests:
        raise CapabilityError(f"{server}: input_required without inputRequests")
    answers: dict[str, Any] = {}
    for key, request in requests.items():
        method = request.get("method") if isinstance(request, dict) else None
        if handler is None or method != ELICIT:
            raise CapabilityError(
                f"{server}: the server asks for {str(method)[:60]!r} input, which this client does not answer"
            )
        answers[key] = await elicit(handler, request.get("params"))
    return answers
