"""Every tool call goes through here: policy, approval, the call, its span and its events.

1. Replay: a call a re-queued attempt already finished (same replay key) is not made again;
   its stored result is the observation.
2. Policy (diagnosis.engine.policy): a refusal is a span `refused`, layer policy.
3. A write (not read-only and destructive, or marked in the registry) needs an approval bound
   to server, tool and the canonical arguments' hash; without one the task parks (`Parked`).
   Its idempotency key is incident + tool + target + generation and goes to the tool; it is
   never retried. After an unknown outcome (sent, no answer) its status is asked by that key
   in the same attempt, before anything else (`_settle`); an earlier attempt's unknown write
   is asked about first and sent again only when the server says it did not happen.
4. The call gets min(the server's call timeout, the budget left minus a reserve).
5. The span ends ok, error, cancelled or unknown_outcome; tool_started, tool_progress (at most
   4 a second), tool_completed or tool_failed carry span_id, agent, server, tool and the layer.
A round's calls are first queued (`queue`: tool_queued for each one not answered by replay,
before any waits for a slot), then run (`run`). Every event of a call carries its call_id
(diagnosis.models.call_id: attempt + replay key, so the page can match a span to its queued row).
"""

import asyncio
import functools
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, cast

import mcpclient
from diagnosis import approvals, artifacts, call_labels, span_attributes, tracing
from diagnosis.engine import outcomes, policy
from diagnosis.engine.sessions import DiagnosisSessions, ServerUnavailable
from diagnosis.events import EventKind
from diagnosis.failures import ENGINE
from diagnosis.models import ApprovalStatus, SpanState, ToolCallSpan, call_id
from diagnosis.observability import logs, otel
from diagnosis.observability import metrics as obs_metrics
from diagnosis.payloads import Emit, SpanEndState, ToolEndedData, ToolProgressData
from reasoning import layers
from reasoning.masking import mask_text, redact
from reasoning.observations import Investigation, Observation, PlannedCall

logger = logging.getLogger(__name__)

PROGRESS_INTERVAL = 0.25  # at most 4 tool_progress events a second per span
STATUS_TOOL = "get_action_status"
# After a write's answer is lost: this many asks of its status, the n-th (n ≥ 1) after
# min(STATUS_BACKOFF·2ⁿ⁻¹, 30) s + up to 20 % jitter and a reconnect, within the task's deadline.
STATUS_TRIES = 4
STATUS_BACKOFF = 0.5

Write = Callable[..., Awaitable[Any]]


class Parked(Exception):
    """The task waits for a person's decision on `approval_id`; the lease is released."""

    def __init__(self, approval_id: str) -> None:
        super().__init__(f"waiting for approval {approval_id}")
        self.approval_id = approval_id


@dataclass
class RunContext:
    """Who runs the diagnosis and on whose behalf (read once from the task row)."""

    task_id: str
    incident_id: str
    owner: str
    attempt: int
    tenant: str
    principal: str
    granted_scopes: frozenset[str]
    generation: int
    trace_id: str
    budget: policy.Budget
    # Runs a function on the diagnosis's database thread, in order.
    db: Write
    emit: Emit[Awaitable[None]]


def replay_key(call: PlannedCall, ordinal: str) -> str:
    digest = artifacts.arguments_hash(call.arguments)[:16]
    return f"{call.agent}:{ordinal}:{call.server}.{call.tool}:{digest}"[:200]


@dataclass(frozen=True)
class Queued:
    """A call of a round, looked up for a replay and announced (tool_queued) unless replayed."""

    call: PlannedCall
    ordinal: str
    key: str
    previous: ToolCallSpan | None
    is_replay: bool


class Executor:
    def __init__(
        self, run: RunContext, pool: DiagnosisSessions, investigation: Investigation
    ) -> None:
        self.run_ctx, self.pool, self.investigation = run, pool, investigation
        self._approved: dict[str, str] = {}  # replay key → the approval that allowed it

    # -- the one entry point -----------------------------------------------------------------

    async def execute(self, call: PlannedCall, ordinal: str) -> Observation:
        """Look the call up for a replay and run it (an action: no tool_queued)."""
        return await self.run(await self._lookup(call, ordinal))

    async def queue(self, call: PlannedCall, ordinal: str) -> Queued:
        """Look the call up for a replay; tool_queued unless the replay answers it."""
        queued = await self._lookup(call, ordinal)
        if not queued.is_replay:
            run = self.run_ctx
            await run.emit(
                EventKind.TOOL_QUEUED,
                {
                    "call_id": call_id(attempt=run.attempt, replay_key=queued.key),
                    "agent": call.agent,
                    "server": call.server,
                    "tool": call.tool,
                    "label": call_labels.call_label(
                        call.tool, redact(dict(call.arguments))
                    ),
                    "arguments": redact(dict(call.arguments)),
                    "attempt": run.attempt,
                    "why": call.why,
                },
            )
        return queued

    async def _lookup(self, call: PlannedCall, ordinal: str) -> Queued:
        key = replay_key(call, ordinal)
        previous = await self.run_ctx.db(
            tracing.span_replay, task_id=self.run_ctx.task_id, replay_key=key
        )
        # A write whose outcome is unknown is asked about again, never answered by replay.
        is_replay = previous is not None and not (
            self._needs_approval(call) and previous.state == SpanState.UNKNOWN_OUTCOME
        )
        return Queued(call, ordinal, key, previous, is_replay=is_replay)

    async def run(self, queued: Queued) -> Observation:
        """The call's observation: the replayed one, a refusal, or the call made now."""
        run = self.run_ctx
        call, ordinal, key, previous = (
            queued.call,
            queued.ordinal,
            queued.key,
            queued.previous,
        )
        if queued.is_replay:
            assert previous is not None
            return await self._replayed(previous)
        needs_approval = self._needs_approval(call)
        tool = self.investigation.tool(call.server, call.tool)
        loop = asyncio.get_running_loop()
        refusal = policy.check_call(
            call,
            tool=tool,
            entry=self.pool.entry(call.server),
            tenant=run.tenant,
            granted_scopes=run.granted_scopes,
            budget=run.budget,
            now=loop.time(),
        )
        if refusal is not None:
            return await self._refused(call, key, refusal.code, refusal.message)
        idempotency_key = ""
        if needs_approval:
            # Only a write carries an idempotency key: a read tool the registry puts behind a
            # person is called with the arguments the planner asked, nothing added.
            if tool is None or not tool.is_read_only:
                idempotency_key = self._idempotency_key(call)
            decision = await self._approval(call, key, idempotency_key)
            if decision is not None:
                return decision
            if previous is not None:
                # An earlier attempt sent it and never learned the outcome (only an unknown
                # write is not replayed): ask first; send it again only if it did not happen.
                earlier = await self._settle(
                    _observation(previous, None),
                    call,
                    idempotency_key,
                    f"{ordinal}.earlier",  # its asks' keys differ from a resend's
                )
                if outcomes.status_answer(earlier.status_check) != "not_done":
                    return earlier
        run.budget.calls += 1
        acted = await self._call(call, key, idempotency_key)
        if acted.outcome_unknown:
            return await self._settle(acted, call, idempotency_key, ordinal)
        return acted

    # -- approvals ---------------------------------------------------------------------------

    def _needs_approval(self, call: PlannedCall) -> bool:
        entry = self.pool.entry(call.server)
        if entry is not None and entry.is_approval_required(call.tool):
            return True
        tool = self.investigation.tool(call.server, call.tool)
        return tool is not None and not tool.is_read_only and tool.is_destructive

    def _idempotency_key(self, call: PlannedCall) -> str:
        target = _target(call.arguments)
        run = self.run_ctx
        return f"{run.incident_id}:{call.tool}:{target}:{run.generation}"[:200]

    async def _approval(
        self, call: PlannedCall, key: str, idempotency_key: str
    ) -> Observation | None:
        """None when approved for exactly these arguments; else a refusal, or park the task."""
        run = self.run_ctx
        digest = artifacts.arguments_hash(call.arguments)
        approval = await run.db(
            approvals.approval_for, task_id=run.task_id, replay_key=key
        )
        if approval is not None and approval.arguments_hash == digest:
            if approval.status == ApprovalStatus.APPROVED:
                self._approved[key] = str(approval.pk)
                return None
            if approval.status == ApprovalStatus.DENIED:
                reason = approval.reason or "no reason given"
                return await self._refused(
                    call,
                    key,
                    "approval_denied",
                    f"denied by a person: {reason}",
                    approval_id=str(approval.pk),
                )
            if approval.status == ApprovalStatus.EXPIRED:
                return await self._refused(
                    call,
                    key,
                    "approval_expired",
                    "nobody decided before the approval expired",
                    approval_id=str(approval.pk),
                )
        # None yet, or one for other arguments (void): ask a person and give up the worker.
        requested = await run.db(
            approvals.approval_request,
            task_id=run.task_id,
            owner=run.owner,
            server=call.server,
            tool=call.tool,
            arguments_redacted=redact(dict(call.arguments)),
            arguments_hash=digest,
            replay_key=key,
            target=_target(call.arguments),
            why=call.why,
            idempotency_key=idempotency_key,
        )
        raise Parked(str(requested.pk))

    async def _settle(
        self,
        acted: Observation,
        call: PlannedCall,
        idempotency_key: str,
        ordinal: str,
    ) -> Observation:
        """`acted`, a write whose answer was lost, with the server's word on it (`status_check`).

        1. Ask get_action_status by the idempotency key: a span of its own, never the write again.
        2. Until a try is answered, up to STATUS_TRIES: wait (backoff with jitter), drop the
           server's session (a stdio child that died is started again on the next call) and ask
           again; a wait that would pass the task's deadline (less the report's reserve) ends it.
        3. Without an answer the write stays unknown (diagnosis.engine.outcomes decides).
        """
        if self.investigation.tool(call.server, STATUS_TOOL) is None:
            return acted
        status_call = PlannedCall(
            agent=call.agent,
            server=call.server,
            tool=STATUS_TOOL,
            arguments={"idempotency_key": idempotency_key},
            why=f"the answer of {call.tool} was lost: ask whether it happened",
        )
        loop = asyncio.get_running_loop()
        budget = self.run_ctx.budget
        check: Observation | None = None
        for n in range(STATUS_TRIES):
            if n:
                pause = min(STATUS_BACKOFF * 2 ** (n - 1), 30.0)
                pause *= 1 + random.random() * 0.2
                if budget.task_deadline - budget.reserve - loop.time() <= pause:
                    break
                await asyncio.sleep(pause)
                await self.pool.drop(call.server)
            left = budget.task_deadline - budget.reserve - loop.time()
            if left <= 0:
                break
            check = await self._call(
                status_call,
                replay_key(status_call, f"{ordinal}.status.{n}"),
                "",
                left=left,
            )
            if check.is_ok:
                break
        return replace(acted, status_check=check)

    # -- spans -------------------------------------------------------------------------------

    async def _replayed(self, span: ToolCallSpan) -> Observation:
        result = span.result
        if span.result_uri:
            result = await asyncio.to_thread(
                artifacts.load_result, span.result_uri, sha256=span.result_hash or None
            )
        return _observation(span, result)

    async def _refused(
        self,
        call: PlannedCall,
        key: str,
        code: str,
        message: str,
        *,
        approval_id: str | None = None,
    ) -> Observation:
        run = self.run_ctx
        span = await self._start_span(call, key, redact(dict(call.arguments)))
        span = await run.db(
            tracing.span_finish,
            span=span,
            state=SpanState.REFUSED,
            latency_ms=0.0,
            error_layer=layers.POLICY,
            error_code=code,
            error_message=message,
            attributes={"error.type": code},
            approval_id=approval_id,
        )
        _count(span)
        await run.emit(
            EventKind.TOOL_FAILED,
            _finished_payload(span, call.agent),
        )
        return _observation(span, None)

    async def _start_span(
        self,
        call: PlannedCall,
        key: str,
        redacted: dict[str, Any],
        *,
        timeout: float | None = None,
        idempotency_key: str = "",
    ) -> ToolCallSpan:
        run = self.run_ctx
        entry = self.pool.entry(call.server)
        span_id = secrets.token_hex(8)
        span: ToolCallSpan = await run.db(
            tracing.span_start,
            task_id=run.task_id,
            span_id=span_id,
            attempt=run.attempt,
            agent=call.agent,
            server_name=call.server,
            transport=entry.transport if entry is not None else "",
            tool_name=call.tool,
            arguments_redacted=redacted,
            arguments_hash=artifacts.arguments_hash(call.arguments),
            replay_key=key,
            deadline=None
            if timeout is None
            else datetime.now(UTC) + timedelta(seconds=timeout),
            principal=run.principal,
            granted_scopes=sorted(run.granted_scopes),
            idempotency_key=idempotency_key,
            attributes=_tool_attributes(call, span_id),
            # A start whose INSERT committed before the connection broke is not made twice.
            committed=functools.partial(
                tracing.span_get, task_id=run.task_id, span_id=span_id
            ),
        )
        return span

    async def _call(
        self,
        call: PlannedCall,
        key: str,
        idempotency_key: str,
        *,
        left: float | None = None,
    ) -> Observation:
        """Make the call now; `left`: the seconds it may take instead of the budget's."""
        run = self.run_ctx
        loop = asyncio.get_running_loop()
        entry = self.pool.entry(call.server)
        assert entry is not None  # policy refused unknown servers
        arguments = dict(call.arguments)
        if idempotency_key:
            arguments["idempotency_key"] = idempotency_key
        if left is None:
            left = run.budget.remaining(loop.time())
        timeout = max(0.05, min(entry.call_timeout, left))
        redacted = redact(arguments)
        span = await self._start_span(
            call, key, redacted, timeout=timeout, idempotency_key=idempotency_key
        )
        span_id = span.span_id
        await run.emit(
            EventKind.TOOL_STARTED,
            {
                "span_id": span_id,
                "call_id": call_id(attempt=span.attempt, replay_key=span.replay_key),
                "agent": call.agent,
                "server": call.server,
                "tool": call.tool,
                "label": call_labels.call_label(call.tool, redacted),
                "arguments": redacted,
                "attempt": run.attempt,
                "why": call.why,
            },
        )
        started = time.monotonic()
        records: list[mcpclient.CallRecord] = []
        log_tokens = logs.bind_span(span_id)  # this call's log lines carry its span id
        progress = _ProgressEvents(run, span, call)
        outcome: _Outcome
        try:
            # Through the worker's session pool: its loop owns the session; cancelling this
            # await cancels this call only.
            result, attrs, tool = await self.pool.call_tool(
                call.server,
                call.tool,
                arguments,
                timeout=timeout,
                on_progress=progress,
                # A write is never retried by the client: its outcome is asked for instead.
                idempotent=False if idempotency_key else None,
                # The server's work joins the task's trace (stdio ignores headers).
                headers=otel.traceparent_headers(
                    trace_id=span.trace_id, span_id=span_id
                ),
                records=records,
                on_task=progress.task,
            )
            if tool is not None:
                attrs["mcp.tool.schema_hash"] = tool.schema_hash
            outcome = await self._result_outcome(span, result, attrs)
        except asyncio.CancelledError:
            await asyncio.shield(
                self._finish(
                    span,
                    call,
                    _Outcome(
                        SpanState.CANCELLED,
                        ENGINE,  # as a span the diagnosis's end closes (endings)
                        "cancelled",
                        "the diagnosis was stopped during the call",
                    ),
                    started,
                    records,
                )
            )
            raise
        except ServerUnavailable as exc:
            outcome = _error_outcome(
                exc.error, is_write=bool(idempotency_key), sent=False
            )
        except mcpclient.McpError as exc:
            outcome = _error_outcome(exc, is_write=bool(idempotency_key), sent=True)
        finally:
            progress.close()
            logs.unbind(log_tokens)
        span = await self._finish(span, call, outcome, started, records)
        return _observation(span, outcome.result)

    async def _result_outcome(
        self,
        span: ToolCallSpan,
        result: mcpclient.CallToolResult,
        attrs: dict[str, Any],
    ) -> "_Outcome":
        value: dict[str, Any] = {"text": result.text}
        if result.structured_content is not None:
            value["structured"] = result.structured_content
        stored = await asyncio.to_thread(
            artifacts.store_result,
            task_id=self.run_ctx.task_id,
            span_id=span.span_id,
            value=value,
        )
        if result.is_error:
            return _Outcome(
                SpanState.ERROR,
                layers.TOOL_BACKEND,
                "tool_error",
                mask_text(result.text or "the tool reported an error")[:2000],
                stored=stored,
                result=stored.result if stored.result is not None else value,
                attributes={**attrs, "error.type": "tool_error"},
            )
        side_effect = ""
        structured = result.structured_content
        if isinstance(structured, dict) and isinstance(structured.get("record"), dict):
            side_effect = str(structured["record"].get("idempotency_key") or "")
        elif isinstance(structured, dict) and isinstance(
            structured.get("idempotency_key"), str
        ):
            side_effect = structured["idempotency_key"]
        return _Outcome(
            SpanState.OK,
            "",
            "",
            "",
            stored=stored,
            result=stored.result if stored.result is not None else value,
            attributes=attrs,
            side_effect_id=side_effect if span.idempotency_key else "",
        )

    async def _finish(
        self,
        span: ToolCallSpan,
        call: PlannedCall,
        outcome: "_Outcome",
        started: float,
        records: list[mcpclient.CallRecord],
    ) -> ToolCallSpan:
        run = self.run_ctx
        record = records[-1] if records else None
        attrs = dict(outcome.attributes)
        if record is not None:
            attrs["jsonrpc.request.id"] = record.request_id
            if record.protocol_version:
                attrs["mcp.protocol.version"] = record.protocol_version
            if isinstance(record.error_code, int):
                attrs["rpc.response.status_code"] = record.error_code
            attrs.update(span_attributes.record_attributes(record))
        stored = outcome.stored
        span = await run.db(
            tracing.span_finish,
            span=span,
            state=outcome.state,
            latency_ms=round((time.monotonic() - started) * 1000, 3),
            retry_count=record.retries if record is not None else 0,
            request_id=""
            if record is None or record.request_id is None
            else str(record.request_id),
            error_layer=outcome.layer,
            error_code=outcome.code,
            error_message=outcome.message,
            result=stored.result if stored is not None else None,
            result_hash=stored.sha256 if stored is not None else "",
            result_size=stored.size if stored is not None else None,
            result_preview=stored.preview if stored is not None else "",
            result_uri=stored.uri if stored is not None else "",
            side_effect_id=outcome.side_effect_id,
            attributes=attrs,
            protocol_version=record.protocol_version or ""
            if record is not None
            else "",
            approval_id=self._approved.get(span.replay_key),
        )
        kind: Literal[EventKind.TOOL_COMPLETED, EventKind.TOOL_FAILED] = (
            EventKind.TOOL_COMPLETED
            if outcome.state == SpanState.OK
            else EventKind.TOOL_FAILED
        )
        await run.emit(kind, _finished_payload(span, call.agent))
        _count(span)
        return span


@dataclass
class _Outcome:
    state: SpanState
    layer: str
    code: str
    message: str
    stored: artifacts.StoredResult | None = None
    result: Any = None
    attributes: dict[str, Any] = field(default_factory=dict)
    side_effect_id: str = ""


def _error_outcome(exc: BaseException, *, is_write: bool, sent: bool) -> _Outcome:
    layer = layers.from_mcpclient(str(getattr(exc, "layer", "")) or None)
    code = getattr(exc, "code", None)
    code_text = str(code) if code is not None else type(exc).__name__
    unknown = is_write and sent and bool(getattr(exc, "outcome_unknown", False))
    message = mask_text(str(exc) or type(exc).__name__)
    return _Outcome(
        SpanState.UNKNOWN_OUTCOME if unknown else SpanState.ERROR,
        layer,
        code_text,
        message[:2000],
        attributes={"error.type": type(exc).__name__},
    )


class _ProgressEvents:
    """MCP progress → tool_progress events, at most one per PROGRESS_INTERVAL per span."""

    def __init__(self, run: RunContext, span: ToolCallSpan, call: PlannedCall) -> None:
        self.run, self.span_id, self.call = run, span.span_id, call
        self.call_id = call_id(attempt=span.attempt, replay_key=span.replay_key)
        self.last = 0.0
        self.task_status = ""
        self.held: ToolProgressData | None = (
            None  # a task's message waiting for the interval
        )
        self.timer: asyncio.TimerHandle | None = None
        self.pending: set[asyncio.Task[None]] = set()

    def __call__(
        self, progress: float, total: float | None, message: str | None
    ) -> None:
        now = time.monotonic()
        if now - self.last < PROGRESS_INTERVAL:
            return
        self.last = now
        self._emit(
            {
                "span_id": self.span_id,
                "call_id": self.call_id,
                "agent": self.call.agent,
                "server": self.call.server,
                "tool": self.call.tool,
                "progress": progress,
                "total": total,
                "message": (message or "")[:200],
            }
        )

    def task(self, task_id: str, status: str, message: str | None) -> None:
        """A task-backed call's task moved on (MCP Tasks extension): a tool_progress event
        naming its status. A new status is one at once; a new message within the interval
        is held until its end (the last one held wins), so the row shows the latest."""
        data: ToolProgressData = {
            "span_id": self.span_id,
            "call_id": self.call_id,
            "agent": self.call.agent,
            "server": self.call.server,
            "tool": self.call.tool,
            "progress": 0,
            "total": None,
            "message": mask_text(message or "")[:200],
            "mcp_task_id": task_id[:200],
            "mcp_task_status": status[:40],
        }
        now = time.monotonic()
        if status == self.task_status and now - self.last < PROGRESS_INTERVAL:
            self.held = data
            if self.timer is None:
                self.timer = asyncio.get_running_loop().call_later(
                    self.last + PROGRESS_INTERVAL - now, self._release
                )
            return
        self.close()
        self.last, self.task_status = now, status
        self._emit(data)

    def _release(self) -> None:
        held, self.held, self.timer = self.held, None, None
        if held is not None:
            self.last = time.monotonic()
            self._emit(held)

    def close(self) -> None:
        """The call ended: nothing held is sent after it."""
        if self.timer is not None:
            self.timer.cancel()
        self.held = self.timer = None

    def _emit(self, data: ToolProgressData) -> None:
        task = asyncio.ensure_future(self.run.emit(EventKind.TOOL_PROGRESS, data))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)


def _count(span: ToolCallSpan) -> None:
    """The call in the worker's Prometheus series (calls by outcome and layer, latency)."""
    obs_metrics.tool_call_finished(
        server=span.server_name,
        tool=span.tool_name,
        state=span.state,
        error_layer=span.error_layer,
        latency_ms=span.latency_ms,
        retries=span.retry_count,
    )


def _tool_attributes(call: PlannedCall, span_id: str) -> dict[str, Any]:
    return {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.tool,
        "gen_ai.tool.call.id": span_id,
        "mcp.method.name": "tools/call",
    }


def _finished_payload(span: ToolCallSpan, agent: str) -> ToolEndedData:
    return {
        "span_id": span.span_id,
        "call_id": call_id(attempt=span.attempt, replay_key=span.replay_key),
        "agent": agent,
        "server": span.server_name,
        "tool": span.tool_name,
        "label": call_labels.call_label(span.tool_name, span.arguments_redacted),
        "state": cast("SpanEndState", span.state),  # a finished span's
        "latency_ms": span.latency_ms,
        "error_layer": span.failure_layer or None,
        "error_code": span.error_code or None,
        "retry_count": span.retry_count,
        # The trace's preview: the result's own summary, else the stored preview.
        "preview": call_labels.result_preview(span.result, span.result_preview)[:300],
    }


def _observation(span: ToolCallSpan, result: Any) -> Observation:
    value = result if isinstance(result, dict) else {}
    return Observation(
        span_id=span.span_id,  # the OpenTelemetry id: what the report and events cite
        agent=span.agent,
        server=span.server_name,
        tool=span.tool_name,
        arguments=span.arguments_redacted,
        is_ok=span.state == SpanState.OK,
        result=value.get("structured"),
        text=str(value.get("text") or "")[:20000],
        error_layer=span.error_layer or None,
        error_code=span.error_code or None,
        error_message=span.error_message or None,
        refused=span.state == SpanState.REFUSED,
        approval_id=str(span.approval_id) if span.approval_id else None,
        outcome_unknown=span.state == SpanState.UNKNOWN_OUTCOME,
    )


def _target(arguments: Mapping[str, Any]) -> str:
    namespace, name = arguments.get("namespace"), arguments.get("name")
    if isinstance(name, str):
        return f"{namespace}/{name}" if isinstance(namespace, str) else name
    return "-"
