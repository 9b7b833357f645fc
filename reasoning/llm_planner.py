"""The optional LLM planner: a model behind an OpenAI-compatible chat completions API picks the calls.

The model sees the incident and the read-only tools (function specs mapped from MCP schemas) and
finishes by calling `conclude`. What servers and incidents wrote is untrusted: it reaches the model
only delimited and length-bounded in tool/user messages, never in the system prompt, and what the
model answers is checked (tool names, arguments, cited span ids, layers). Writes are never the
model's to propose: `actions` and `verify` are the LayeredPlanner's rules. Step, token and
wall-time budgets bound it; an API failure (`LLMError`) falls back to the observations, or to the
LayeredPlanner when given one. Stateful (the conversation): one instance per diagnosis.
"""

import json
import logging
import time
from collections.abc import Mapping
from typing import Any

import httpx

from reasoning.layered import LayeredPlanner
from reasoning.llm_messages import (
    CONCLUDE,
    CONCLUDE_SPEC,
    SYSTEM_PROMPT,
    UNSAFE,
    call_arguments,
    clean,
    conclusion_report,
    function_name,
    parameters,
)
from reasoning.masking import mask_text
from reasoning.observations import (
    Investigation,
    Observation,
    PlannedCall,
    ToolInfo,
)
from reasoning.report import Report
from reasoning.tools import AmbiguousTool, agent_for

__all__ = ["LLMBadResponse", "LLMError", "LLMHTTPError", "LLMPlanner", "LLMTimeout"]

logger = logging.getLogger(__name__)

_MAX_RESPONSE_BYTES = 2 * 1024 * 1024
_MAX_ARGUMENT_CHARS = 8000
_MAX_CONCLUSION_CHARS = 64_000
_MAX_CALLS_PER_STEP = 8


class LLMError(Exception):
    """The LLM API could not be used for this step; the planner falls back."""


class LLMHTTPError(LLMError):
    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"LLM API answered HTTP {status}: {body}")
        self.status = status


class LLMTimeout(LLMError):
    """No answer within the request timeout (or the time budget left)."""


class LLMBadResponse(LLMError):
    """An answer that is not a chat completion (not JSON, no message, too large)."""


class LLMPlanner:
    """A `Planner` (coroutine methods) that asks a chat completions model which calls to make."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        max_steps: int = 12,
        max_tokens: int = 200_000,
        timeout_s: float = 30.0,
        max_seconds: float = 120.0,
        fallback: LayeredPlanner | None = None,
        result_chars: int = 4000,
        total_result_chars: int = 60_000,
        description_chars: int = 300,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self._api_key = model, api_key
        self.max_steps, self.max_tokens = max_steps, max_tokens
        self.timeout_s, self.max_seconds = timeout_s, max_seconds
        self.fallback = fallback
        # Actions and their checks are the layered planner's rules, never the model's.
        self._rules = fallback or LayeredPlanner()
        self.result_chars, self._result_room = result_chars, total_result_chars
        self.description_chars = description_chars
        self.steps = 0
        self.tokens = 0
        self.failure: LLMError | None = None
        self.notes: list[str] = []  # refusals, malformed calls, budgets: open questions
        self._messages: list[dict[str, Any]] = []
        self._specs: list[dict[str, Any]] = []
        self._functions: dict[str, ToolInfo] = {}
        self._pending: list[tuple[str, PlannedCall]] = []
        self._seen = 0  # observations already answered to the model
        self._told_notes = 0  # steering notes already given to the model
        self._conclusion: dict[str, Any] | None = None
        self._done = False
        self._started: float | None = None

    # -- the Planner ----------------------------------------------------------------------------

    async def next_round(self, investigation: Investigation) -> list[PlannedCall]:
        """The calls the model asks for; [] once it concluded, a budget ran out or it failed."""
        if self._done:
            return await self._fallback_round(investigation)
        if not self._messages:
            self._start(investigation)
        self._answer_pending(investigation)
        self._tell_notes(investigation)
        while True:
            spent = self._exhausted()
            if spent is not None:
                self._note(
                    f"budget exhausted: {spent}; concluded with what the model had seen"
                )
                self._done = True
                return []
            try:
                message = await self._ask()
            except LLMError as exc:
                logger.warning("LLM planner falls back: %s", exc)
                self.failure = exc
                how = (
                    "the layered planner"
                    if self.fallback
                    else "the observations so far"
                )
                self._note(f"the LLM planner failed ({exc}); concluded from {how}")
                self._done = True
                return await self._fallback_round(investigation)
            calls, answered = self._read(message, investigation)
            if self._conclusion is not None or not answered:
                self._done = True  # concluded, or ended without a tool call
                if self._conclusion is None:
                    self._note("the model stopped without concluding")
                return []
            if calls:
                return calls
            # Only refused or malformed calls: the model has been told why; ask again.

    async def conclude(self, investigation: Investigation) -> Report:
        """The model's conclusion, checked against the observations; else what the fallback sees."""
        if self._conclusion is not None:
            report = self._report(investigation, self._conclusion)
        elif self.fallback is not None:
            report = await self.fallback.conclude(investigation)
        else:
            report = Report()
        report.tool_calls = sum(1 for o in investigation.observations if not o.refused)
        for note in self.notes:
            if note not in report.open_questions:
                report.open_questions.append(note)
        report.rule_out(investigation.excluded)
        if not report.summary:
            report.summary = _summary(report)
        if self.failure is None or self.fallback is None:
            report.partial = not self._done  # else the fallback, which plans on, says
        return report

    async def actions(
        self, investigation: Investigation, report: Report
    ) -> list[PlannedCall]:
        """The LayeredPlanner's rule: a restart only for a confirmed, observed leak (each needs a person)."""
        return await self._rules.actions(investigation, report)

    async def verify(
        self, investigation: Investigation, action: PlannedCall
    ) -> list[PlannedCall]:
        return await self._rules.verify(investigation, action)

    # -- the conversation -----------------------------------------------------------------------

    def _tell_notes(self, inv: Investigation) -> None:
        """Steering notes added since the model last heard, as a user turn (untrusted text, bounded)."""
        fresh = inv.incident.notes[self._told_notes :]
        if not fresh or not self._messages:
            return
        self._told_notes = len(inv.incident.notes)
        lines = "\n".join(f"- {clean(note, 500)}" for note in fresh[:20])
        self._messages.append(
            {
                "role": "user",
                "content": f"<steering>\n{lines}\n</steering>\nA responder added this "
                "context while you investigate: weigh it in what you read next.",
            }
        )

    def _start(self, inv: Investigation) -> None:
        self._started = time.monotonic()
        taken: set[str] = set()
        for info in inv.tools:
            if not info.is_read_only:
                continue  # writes are not the model's: it is never offered one
            name = function_name(info.server, info.name, taken)
            taken.add(name)
            self._functions[name] = info
            description = clean(info.description, self.description_chars)
            self._specs.append(
                {
                    "type": "function",
                    "function": {
                        "name": name,
                        "description": f"[{info.server}.{info.name}, server-written] {description}",
                        "parameters": parameters(info.input_schema),
                    },
                }
            )
        self._specs.append(CONCLUDE_SPEC)
        incident = inv.incident
        symptoms = "\n".join(f"- {clean(s, 500)}" for s in incident.symptoms[:20])
        brief = (
            f"<incident>\ntitle: {clean(incident.title, 300)}\nservice: {clean(incident.service, 100)}\n"
            f"severity: {clean(incident.severity, 20)}\n"
            f"window: {incident.window_start or 'now-1h'} .. {incident.window_end or 'now'}\n"
            f"symptoms:\n{symptoms}\n"
            + (
                f"description: {clean(incident.description, 1000)}\n"
                if incident.description
                else ""
            )
            + (
                "labels: "
                + ", ".join(
                    f"{clean(k, 100)}={clean(v, 200)}" for k, v in incident.labels[:30]
                )
                + "\n"
                if incident.labels
                else ""
            )
            + "</incident>"
        )
        self._messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {
                "role": "user",
                "content": f"{brief}\nInvestigate with the tools, then call conclude.",
            },
        ]

    def _answer_pending(self, inv: Investigation) -> None:
        """Each call the model asked for gets its observation back, in a delimited tool message."""
        # A round's observations come in the order of its calls; their arguments are redacted,
        # so server and tool are what they are matched on.
        fresh = list(inv.observations[self._seen :])
        self._seen = len(inv.observations)
        for call_id, call in self._pending:
            match = next(
                (o for o in fresh if (o.server, o.tool) == (call.server, call.tool)),
                None,
            )
            if match is not None:
                fresh.remove(match)
            content = self._render(match) if match else "not run: the engine stopped"
            self._messages.append(
                {"role": "tool", "tool_call_id": call_id, "content": content}
            )
        self._pending = []

    def _render(self, obs: Observation) -> str:
        if obs.refused:
            body = f"refused by policy ({obs.error_code}): {obs.error_message}"
        elif not obs.is_ok:
            body = f"failed at layer {obs.error_layer} ({obs.error_code}): {obs.error_message}\n{obs.text}"
        elif obs.result is not None:
            body = json.dumps(obs.result, default=str, ensure_ascii=False)
        else:
            body = obs.text
        limit = min(self.result_chars, self._result_room)
        if limit < 200:
            body, limit = "[not shown: the budget for tool results is spent]", 200
        body = clean(body, limit)
        self._result_room -= len(body)
        tag = clean(f"{obs.server}.{obs.tool}", 130).replace('"', "'")
        return (
            f'<tool_result span="{obs.span_id}" tool="{tag}">\n{body}\n</tool_result>'
        )

    def _read(
        self, message: Mapping[str, Any], inv: Investigation
    ) -> tuple[list[PlannedCall], bool]:
        """The calls in the model's answer, and whether it made any tool call at all.

        The answer is kept in the conversation; each call not run is answered at once, why.
        """
        raw_calls = message.get("tool_calls")
        kept: list[dict[str, Any]] = []
        replies: list[dict[str, Any]] = []
        calls: list[PlannedCall] = []
        for index, raw in enumerate(raw_calls if isinstance(raw_calls, list) else []):
            function = raw.get("function") if isinstance(raw, Mapping) else None
            if not isinstance(function, Mapping):
                continue
            call_id = clean(raw.get("id") or f"call_{self.steps}_{index}", 100)
            name = clean(function.get("name") or "", 200)
            limit = _MAX_CONCLUSION_CHARS if name == CONCLUDE else _MAX_ARGUMENT_CHARS
            arguments = str(function.get("arguments") or "{}")[:limit]
            kept.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
            )
            args = call_arguments(function.get("arguments") or "{}", limit)
            call, why_not = self._take(index, name, args, inv)
            if call is not None:
                calls.append(call)
                self._pending.append((call_id, call))
            else:
                replies.append(
                    {"role": "tool", "tool_call_id": call_id, "content": why_not}
                )
        content = clean(message.get("content") or "", 4000) or None
        assistant: dict[str, Any] = {"role": "assistant", "content": content}
        if kept:
            assistant["tool_calls"] = kept
        self._messages.append(assistant)
        self._messages.extend(replies)
        if self._conclusion is not None:
            calls, self._pending = (
                [],
                [],
            )  # a conclusion ends the talk: nothing more runs
        return calls, bool(kept)

    def _take(
        self, index: int, name: str, args: dict[str, Any] | str, inv: Investigation
    ) -> tuple[PlannedCall | None, str]:
        """The call to run, or None and what to tell the model instead (`args`: why malformed)."""
        if isinstance(args, str):
            self._note(f"a malformed call of {name} by the model was not run ({args})")
            return (
                None,
                f"error: not run: {args}; send the arguments as one JSON object",
            )
        if index >= _MAX_CALLS_PER_STEP:
            return None, f"error: not run: at most {_MAX_CALLS_PER_STEP} calls a step"
        if name == CONCLUDE:
            if not isinstance(args.get("hypotheses"), list):
                return None, 'error: conclude needs {"hypotheses": [...]}'
            self._conclusion = args
            return None, "concluded"
        try:
            call = self._call(name, args, inv)
        except AmbiguousTool as exc:
            self._note(
                f"the model asked for {name}, a name several servers offer: not run"
            )
            first = exc.servers[0] if exc.servers else "server"
            return None, f"error: not run: {exc} (as {first}__{exc.name})"
        if call is None:
            self._note(f"the model asked for {name}, a write: refused, never proposed")
            return None, (
                "refused: writes are proposed by the engine's rules and approved "
                "by a person, never by you"
            )
        return call, ""

    def _call(
        self, name: str, args: dict[str, Any], inv: Investigation
    ) -> PlannedCall | None:
        """The planned call for a function name; None for a write (never the model's to ask)."""
        info = self._functions.get(name)
        if info is None:
            server, _, tool = name.partition("__") if "__" in name else ("", "", name)
            info = inv.tool(server, tool) if server else inv.find_tool(tool)
            if info is None:
                # Not a tool of this diagnosis: passed on so the executor refuses it, traced.
                server = UNSAFE.sub("_", server)[:64] or "unknown"
                why = "asked by the LLM planner for a tool it was not offered"
                return PlannedCall(
                    agent=agent_for(server, tool),
                    server=server,
                    tool=UNSAFE.sub("_", tool)[:64],
                    arguments=args,
                    why=why,
                )
        if not info.is_read_only:
            return None
        return PlannedCall(
            agent=agent_for(info.server, info.name),
            server=info.server,
            tool=info.name,
            arguments=args,
            why="asked by the LLM planner",
        )

    async def _ask(self) -> Mapping[str, Any]:
        """One round-trip to the model; its usage counts against the token budget.

        Raises:
            LLMTimeout, LLMHTTPError, LLMBadResponse: the step failed (the caller falls back).
        """
        assert self._started is not None
        left = self.max_seconds - (time.monotonic() - self._started)
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        body = {
            "model": self.model,
            "messages": self._messages,
            "tools": self._specs,
            "tool_choice": "auto",
        }
        self.steps += 1
        try:
            async with (
                httpx.AsyncClient(
                    timeout=max(0.1, min(self.timeout_s, left))
                ) as client,
                client.stream("POST", self.url, json=body, headers=headers) as response,
            ):
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > _MAX_RESPONSE_BYTES:
                        raise LLMBadResponse(f"answer over {_MAX_RESPONSE_BYTES} bytes")
        except httpx.TimeoutException as exc:
            raise LLMTimeout(
                f"no answer from the LLM API within {min(self.timeout_s, left):.1f} s"
            ) from exc
        except httpx.HTTPError as exc:
            raise LLMError(f"LLM API unreachable: {type(exc).__name__}") from exc
        raw = b"".join(chunks)
        if response.status_code != 200:
            raise LLMHTTPError(
                response.status_code,
                mask_text(clean(raw.decode(errors="replace"), 200)),
            )
        try:
            data = json.loads(raw)
            message = data["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LLMBadResponse("the answer is not a chat completion") from exc
        if not isinstance(message, Mapping):
            raise LLMBadResponse("the answer's message is not an object")
        usage = data.get("usage") if isinstance(data, Mapping) else None
        if isinstance(usage, Mapping):
            total = usage.get("total_tokens")
            if not isinstance(total, int):
                total = sum(
                    v
                    for k in ("prompt_tokens", "completion_tokens")
                    if isinstance(v := usage.get(k), int)
                )
            self.tokens += max(0, total)
        return message

    def _exhausted(self) -> str | None:
        if self.steps >= self.max_steps:
            return f"{self.steps} of {self.max_steps} model steps used"
        if self.tokens >= self.max_tokens:
            return f"{self.tokens} of {self.max_tokens} tokens used"
        assert self._started is not None
        if time.monotonic() - self._started >= self.max_seconds:
            return f"the planner's {self.max_seconds:g} s are up"
        return None

    async def _fallback_round(self, inv: Investigation) -> list[PlannedCall]:
        if self.failure is None or self.fallback is None:
            return []
        return await self.fallback.next_round(inv)

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    # -- the model's conclusion, checked ---------------------------------------------------------

    def _report(self, inv: Investigation, conclusion: Mapping[str, Any]) -> Report:
        spans = {o.span_id: o for o in inv.observations if not o.refused}
        report, dropped = conclusion_report(conclusion, spans)
        if dropped:
            self._note(
                f"{dropped} of the model's hypotheses were dropped (layer outside the vocabulary, no component, or repeated)"
            )
        return report


def _summary(report: Report) -> str:
    top = report.top
    calls = f"{report.tool_calls} tool call{'s' if report.tool_calls != 1 else ''}"
    if top is not None and top.conclusive:
        return f"{top.layer} failure at {top.component}: {top.statement} ({calls})"
    if top is not None:
        return f"no decisive evidence after {calls}; the strongest lead is {top.id} ({top.statement}), {top.status} at confidence {top.confidence:.2f}"
    return f"no decisive evidence after {calls}"
