"""The report as Markdown an engineer pastes into a postmortem (GET /api/tasks/{id}/report.md).

Every string that came from outside the engine's own words (the incident title, tool outputs,
runbook titles and URIs, anything in the report dict) goes through `text()` or `code()`, so an
attacker-controlled value renders as the characters it holds: no HTML, no link, no heading.
No ORM here: the caller passes the API's dicts and the absolute URL of the task's trace page
(diagnosis.site_links), which evidence links point into.
"""

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from diagnosis import next_steps
from diagnosis.states import TaskState, is_terminal

# Longest untrusted string rendered; tool output beyond it is cut (the trace keeps it all).
MAX_TEXT = 2000

_STATUS_WORDS = {"confirmed": "confirmed", "likely": "likely", "ruled_out": "ruled out"}
# Characters CommonMark/GFM give meaning to anywhere in a line (code, emphasis, link text, table
# cells, strikethrough, math); each is backslash-escaped. With `[` and `]` escaped nothing can
# become a link or an image, so parentheses and `!` stay as they are. `<`, `>` and `&` become
# entities, which also holds in renderers that pass raw HTML through.
_INLINE = re.compile(r"([\\`*_{}\[\]|~$#])")
# ... and those that open a block only at the start of a line (list item, heading, underline);
# every string starts a line or follows a list marker, so its first character is checked.
_LEADING = re.compile(r"^(\d+)([.)])|^([-+=])")
_LINE_BREAKS = re.compile(r"\s+")
# C0/C1 controls and the bidi overrides that make text read differently than it is stored.
_INVISIBLE = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
)
_SPAN_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def text(value: object, *, limit: int = MAX_TEXT) -> str:
    """`value` as inert Markdown inline text: one line, bounded, every special character escaped."""
    raw = "" if value is None else str(value)
    raw = _LINE_BREAKS.sub(" ", _INVISIBLE.sub("", raw)).strip()
    if len(raw) > limit:
        raw = raw[: limit - 1].rstrip() + "…"
    raw = raw.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    raw = _INLINE.sub(r"\\\1", raw)
    return _LEADING.sub(
        lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", raw, count=1
    )


def code(value: object, *, limit: int = MAX_TEXT) -> str:
    """`value` as an inline code span (shown, never followed: a URI here is not a link)."""
    raw = "" if value is None else str(value)
    raw = _LINE_BREAKS.sub(" ", _INVISIBLE.sub("", raw)).strip()[:limit]
    # A fence longer than any run of backticks inside, padded so edge backticks stay content.
    longest = max((len(run) for run in re.findall(r"`+", raw)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if raw.startswith("`") or raw.endswith("`") or not raw else ""
    return f"{fence}{pad}{raw}{pad}{fence}"


def span_url(*, trace_url: str, span_id: object) -> str:
    """The span's place on the trace page (its detail open, scrolled to its row), or "" for
    a span id that is not one."""
    sid = "" if span_id is None else str(span_id)
    if not _SPAN_ID.match(sid):
        return ""
    return f"{trace_url}?span={sid}#span-{sid}"


def span_link(
    *, trace_url: str, span_id: object, span_ids: Mapping[str, str] | None = None
) -> str:
    """A link to the span on the trace page, or the escaped id if it is not one.

    `span_ids` maps a span's row id (what some evidence cites) to its span_id, the anchor
    of its row on the trace page.
    """
    sid = "" if span_id is None else str(span_id)
    sid = (span_ids or {}).get(sid, sid)
    url = span_url(trace_url=trace_url, span_id=sid)
    if not url:
        return f"span {text(sid) or '(none)'}"
    return f"[span {sid[:8]}]({url})"


def report_markdown(
    *,
    report: Mapping[str, Any] | None,
    incident: Mapping[str, Any],
    task: Mapping[str, Any],
    trace_url: str,
    span_ids: Mapping[str, str] | None = None,
) -> str:
    """The task's report as a Markdown document.

    `report` is `Report.to_dict()` (reasoning.report), a partial or older dict, or None
    for a task that has not written one. `incident` and `task` are the API's dicts
    (serializers.incident_to_dict and task_to_dict); only their fields are read, never a row.
    `trace_url` is the absolute URL of the task's trace page: evidence links to its spans
    (`span_ids` as span_link's).
    """
    task_id = str(task.get("id") or "")
    links = _SpanLinks(trace_url=trace_url, span_ids=span_ids or {})
    lines = [f"# {text(incident.get('title')) or 'Untitled incident'}", ""]
    lines += _facts(incident, task, report)
    if not report:
        lines += _no_report(task)
    else:
        lines += _notice(report, task)
        lines += _section("Summary", [text(report.get("summary")) or "No summary."])
        hypotheses = _dicts(report.get("hypotheses"))
        active = [h for h in hypotheses if h.get("status") != "ruled_out"]
        ruled_out = [h for h in hypotheses if h.get("status") == "ruled_out"]
        lines += _section(
            "Probable cause",
            _probable_cause(
                active,
                formed=len(hypotheses),
                conclusive=report.get("conclusive") is True,
            ),
        )
        if hypotheses:
            lines += _section("Hypotheses", _table(hypotheses))
            for rank, hypothesis in enumerate(active, start=1):
                lines += _hypothesis(rank, hypothesis, links)
        if ruled_out:
            lines += _section("Ruled out", _ruled_out(ruled_out, links))
        path = _dependency_path(report.get("graph"), links)
        if path:
            lines += _section("Dependency path", path)
        lines += _section(
            "Open questions",
            _bullets(text(q) for q in _list(report.get("open_questions")))
            or ["None recorded."],
        )
        lines += _section(
            "Next steps",
            _next_steps(next_steps.from_report(report)) or ["None recorded."],
        )
        lines += _section(
            "Actions taken",
            _actions(report.get("actions"), links) or ["No action was taken."],
        )
    lines += ["---", "", _footer(report, task_id)]
    return "\n".join(lines).rstrip() + "\n"


# --- sections -------------------------------------------------------------------------------


def _facts(
    incident: Mapping[str, Any],
    task: Mapping[str, Any],
    report: Mapping[str, Any] | None,
) -> list[str]:
    facts = [
        f"- **Incident:** {text(incident.get('id'))}",
        f"- **Service:** {text(incident.get('service')) or 'unknown'}"
        f" · **Severity:** {text(incident.get('severity')) or 'unknown'}",
        f"- **Diagnosis:** {text(task.get('state')) or 'unknown'}"
        f" (task {text(task.get('id'))}, attempt {_int(task.get('attempt'))})",
    ]
    if incident.get("window_start") or incident.get("window_end"):
        facts.append(
            f"- **Window:** {text(incident.get('window_start')) or 'open'}"
            f" to {text(incident.get('window_end')) or 'open'}"
        )
    times = [
        f"**{label}:** {text(task.get(key))}"
        for label, key in (
            ("Created", "created_at"),
            ("Started", "started_at"),
            ("Finished", "finished_at"),
        )
        if task.get(key)
    ]
    if times:
        facts.append("- " + " · ".join(times))
    error = task.get("error")
    if isinstance(error, Mapping):
        facts.append(
            f"- **Error:** {text(error.get('layer')) or 'unknown layer'}"
            f" / {text(error.get('code')) or 'unknown code'}: {text(error.get('message'))}"
        )
    if report and report.get("tool_calls") is not None:
        facts.append(f"- **Tool calls:** {_int(report.get('tool_calls'))}")
    return [*facts, ""]


def _no_report(task: Mapping[str, Any]) -> list[str]:
    state = str(task.get("state") or "")
    if _is_terminal(state):
        body = (
            f"No report: the diagnosis ended {text(state)} before it wrote one. "
            "There are no findings to state."
        )
    else:
        body = (
            f"No report yet: the diagnosis is {text(state) or 'not started'}. "
            "Nothing has been found so far; download this again when it has finished."
        )
    return _section("Report", [body])


def _notice(report: Mapping[str, Any], task: Mapping[str, Any]) -> list[str]:
    if report.get("partial") is not True:
        return []
    state = str(task.get("state") or "")
    if _is_terminal(state):
        note = (
            f"**Partial report.** The diagnosis ended {text(state)} before it finished; "
            "this is what it had found by then."
        )
    else:
        note = "**Partial report.** The diagnosis is still running; this may change."
    return [f"> {note}", ""]


def _probable_cause(
    active: list[Mapping[str, Any]], *, formed: int, conclusive: bool
) -> list[str]:
    top = active[0] if active else None
    if conclusive and top is not None:
        return [
            f"**{text(top.get('statement'))}**",
            "",
            f"{_where(top)} · confidence {_confidence(top)} · conclusive",
        ]
    lines = [
        "**No decisive evidence.** The diagnosis did not confirm a cause; nothing in this "
        "report is a conclusion."
    ]
    if formed == 0:
        lines += ["", "The diagnosis formed no hypothesis."]
    elif top is None:
        lines += ["", "Every hypothesis it formed was ruled out (below)."]
    else:
        lines += [
            "",
            f"Leading hypothesis, inconclusive: {text(top.get('statement'))} "
            f"({_where(top)} · confidence {_confidence(top)})",
        ]
    return lines


def _table(hypotheses: list[Mapping[str, Any]]) -> list[str]:
    rows = [
        "| Rank | Status | Layer | Component | Confidence | Hypothesis |",
        "| ---: | --- | --- | --- | ---: | --- |",
    ]
    for rank, h in enumerate(hypotheses, start=1):
        rows.append(
            f"| {rank} | {_status(h)} | {text(h.get('layer'))} | {text(h.get('component'))}"
            f" | {_confidence(h)} | {text(h.get('statement'), limit=300)} |"
        )
    return rows


def _hypothesis(rank: int, h: Mapping[str, Any], links: "_SpanLinks") -> list[str]:
    verdict = "conclusive" if h.get("conclusive") is True else "inconclusive"
    detail = f"{_where(h)} · {_status(h)} · confidence {_confidence(h)} · {verdict}"
    if h.get("stage"):
        detail += f" · stage {text(h.get('stage'))}"
    if h.get("reason"):
        detail += f" · reason {text(h.get('reason'))}"
    lines = [
        f"### {rank}. {text(h.get('statement')) or 'Unnamed hypothesis'}",
        "",
        detail,
        "",
    ]
    chain = [text(step) for step in _list(h.get("causal_chain"))]
    lines += ["**Causal chain** (symptom first, cause last):", ""]
    lines += [f"{n}. {step}" for n, step in enumerate(chain, start=1)] or [
        "- Not recorded."
    ]
    lines += ["", "**Evidence:**", ""]
    lines += _evidence(h.get("evidence"), links) or ["- No span cited."]
    return [*lines, ""]


def _ruled_out(hypotheses: list[Mapping[str, Any]], links: "_SpanLinks") -> list[str]:
    lines = []
    for h in hypotheses:
        reason = text(h.get("reason_ruled_out")) or "no reason recorded"
        lines.append(
            f"- **{text(h.get('statement')) or 'Unnamed hypothesis'}** ({_where(h)}): "
            f"{reason}"
        )
        lines += [f"  {line}" for line in _evidence(h.get("evidence"), links)]
    return lines


def _evidence(evidence: object, links: "_SpanLinks") -> list[str]:
    return [
        f"- {links.link(e.get('span_id'))}"
        f" {text(e.get('server'))} · {text(e.get('tool'))}: {text(e.get('fact'))}"
        for e in _dicts(evidence)
    ]


def _dependency_path(graph: object, links: "_SpanLinks") -> list[str]:
    """The graph's edges from the incident's node down to the node it blames, each with the span
    that showed it ([] when the report has no graph or no such path)."""
    if not isinstance(graph, Mapping):
        return []
    return [
        f"- {code(e.get('caller'))} → {code(e.get('callee'))} ({text(e.get('kind'))}):"
        f" {links.link(e.get('span_id'))} {text(e.get('fact'))}"
        for e in _dicts(graph.get("path"))
    ]


def _next_steps(steps: list[next_steps.Step]) -> list[str]:
    lines = []
    for n, step in enumerate(steps, start=1):
        line = f"{n}. {text(step.text)}"
        if step.runbook_uri or step.runbook_title:
            line += " (runbook"
            line += f": {text(step.runbook_title)}" if step.runbook_title else ""
            line += f" {code(step.runbook_uri)}" if step.runbook_uri else ""
            line += ")"
        lines.append(line)
    return lines


def _actions(actions: object, links: "_SpanLinks") -> list[str]:
    lines = []
    for a in _dicts(actions):
        line = (
            f"- {text(a.get('tool'))} on {text(a.get('server'))}, target "
            f"{text(a.get('target')) or 'none'}: **{text(a.get('status')) or 'unknown'}**"
        )
        refs = []
        if a.get("approval_id"):
            refs.append(f"approval {text(a.get('approval_id'))}")
        if a.get("span_id"):
            refs.append(links.link(a.get("span_id")))
        if a.get("status_span_id"):
            refs.append("status " + links.link(a.get("status_span_id")))
        if refs:
            line += f" ({', '.join(refs)})"
        reason = text(a.get("reason"))
        line += f". Why: {reason}" if reason else ""
        effect = text(a.get("effect"))
        line += f". Effect: {effect}" if effect else ". Effect: not checked"
        lines.append(line)
    return lines


def _footer(report: Mapping[str, Any] | None, task_id: str) -> str:
    version = (
        f", report version {_int(report.get('version'))}"
        if report and "version" in report
        else ""
    )
    return (
        f"Generated by AgentOps from diagnosis task {text(task_id)}{version}. Span links "
        "open its trace page."
    )


@dataclass(frozen=True)
class _SpanLinks:
    trace_url: str
    span_ids: Mapping[str, str]

    def link(self, span_id: object) -> str:
        return span_link(
            trace_url=self.trace_url, span_id=span_id, span_ids=self.span_ids
        )


# --- small helpers --------------------------------------------------------------------------


def _section(title: str, body: Sequence[str]) -> list[str]:
    return [f"## {title}", "", *body, ""]


def _bullets(items: Iterable[str]) -> list[str]:
    return [f"- {item}" for item in items]


def _list(value: object) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def _dicts(value: object) -> list[Mapping[str, Any]]:
    return [item for item in _list(value) if isinstance(item, Mapping)]


def _where(h: Mapping[str, Any]) -> str:
    return (
        f"layer {text(h.get('layer')) or 'unknown'}"
        f" · component {text(h.get('component')) or 'unknown'}"
    )


def _status(h: Mapping[str, Any]) -> str:
    status = h.get("status")
    return _STATUS_WORDS.get(str(status), text(status) or "unknown")


def _confidence(h: Mapping[str, Any]) -> str:
    value = h.get("confidence")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "unknown"
    return f"{value:.2f}"


def _int(value: object) -> str:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else "?"


def _is_terminal(state: str) -> bool:
    return state in TaskState.values and is_terminal(state)
