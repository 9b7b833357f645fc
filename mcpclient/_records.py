"""The observer's record of one logical call: what was asked, how it ended, hashes not payloads."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from ._exceptions import Layer, McpError
from ._types import CallRecord, canonical_json, sha256_hex

if TYPE_CHECKING:
    from ._types import HttpTimings, Observer

logger = logging.getLogger("mcpclient")


def call_record(
    *,
    server: str,
    transport: str,
    protocol_version: str | None,
    method: str,
    tool: str | None,
    schema_hash: str | None,
    request_id: int | None,
    arguments: Any,
    started: float,
    budget: float,
    retries: int,
    result: dict[str, Any] | None,
    failure: BaseException | None,
    task_id: str | None = None,
    task_states: list[str] | None = None,
    http: HttpTimings | None = None,
) -> CallRecord:
    """One CallRecord: outcome ``ok``, ``tool_error`` (isError) or ``error`` with its layer."""
    ended = time.time()
    record = CallRecord(
        server=server,
        transport=transport,
        protocol_version=protocol_version,
        method=method,
        tool=tool,
        schema_hash=schema_hash,
        request_id=request_id,
        arguments_hash=sha256_hex(canonical_json(arguments))
        if arguments is not None
        else None,
        started_at=started,
        latency_ms=(ended - started) * 1000.0,
        deadline=started + budget,
        retries=retries,
        outcome="ok",
        task_id=task_id,
        task_states=list(task_states or ()),
        http=http,
    )
    if failure is not None:
        record.outcome = "error"
        if isinstance(failure, McpError):
            record.error_layer = str(failure.layer)
            record.error_code = failure.code
            record.error_message = failure.message
        else:
            record.error_code = type(failure).__name__
            record.error_message = str(failure)
    elif result is not None:
        if result.get("isError") is True:
            record.outcome = "tool_error"
            record.error_layer = str(Layer.TOOL_EXECUTION)
        data = canonical_json(result)
        record.result_hash = sha256_hex(data)
        record.result_size = len(data)
    return record


def notify(observer: Observer, record: CallRecord) -> None:
    """Hand ``record`` to the observer; an observer that fails is logged, never the call's failure."""
    try:
        observer(record)
    except Exception:
        logger.exception("observer failed")
