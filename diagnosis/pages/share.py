"""The incident summary people paste elsewhere ("Copy summary" on the incident page): Slack
mrkdwn and Markdown, built from the same facts. Pure: the caller passes absolute URLs
(diagnosis.site_links), and every string from outside the engine is escaped for its format.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from diagnosis import report_markdown
from diagnosis.pages import answer
from diagnosis.pages.investigation import HypothesisCard, Verdict

MAX_STEPS = 5  # next steps listed; the page and the export hold them all
MAX_TEXT = 500  # of one untrusted string
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class ShareFacts:
    """What the summary says about the incident besides the verdict."""

    title: str
    service: str
    severity: str
    environment: str
    state_label: str  # the diagnosis's state, as the page words it
    incident_url: str  # absolute
    trace_url: str  # absolute: the trace page


def slack_text(value: object) -> str:
    """`value` as inert Slack mrkdwn: one line, bounded, `&`, `<` and `>` escaped (Slack's
    rule), so nothing becomes a link or a mention (`<!channel>`)."""
    raw = _SPACES.sub(" ", "" if value is None else str(value)).strip()
    if len(raw) > MAX_TEXT:
        raw = raw[: MAX_TEXT - 1].rstrip() + "…"
    return raw.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _markdown_text(value: object) -> str:
    return report_markdown.text(value, limit=MAX_TEXT)


def _cause(verdict: Verdict, *, is_finished: bool, esc: Callable[[object], str]) -> str:
    cause = verdict.cause
    if cause is not None:
        return (
            f"{esc(cause.statement)} ({esc(cause.component)} at the "
            f"{esc(cause.layer)} layer, {cause.confidence_percent} % confidence)"
        )
    text = "inconclusive" + ("" if is_finished else " so far")
    if verdict.hypotheses:
        lead = verdict.hypotheses[0]
        text += (
            f"; the leading hypothesis is {esc(lead.component)} at the "
            f"{esc(lead.layer)} layer ({lead.confidence_percent} %)"
        )
    return text


def _decisive(verdict: Verdict) -> HypothesisCard | None:
    card = verdict.cause
    return card if card is not None and card.evidence else None


def _where(facts: ShareFacts, esc: Callable[[object], str]) -> str:
    """Service · environment · diagnosis state, each escaped by `esc`."""
    parts = [esc(part) for part in (facts.service, facts.environment) if part.strip()]
    return " · ".join([*parts, f"diagnosis {esc(facts.state_label)}"])


def slack_summary(facts: ShareFacts, verdict: Verdict, *, is_finished: bool) -> str:
    """The summary as Slack mrkdwn: *bold* labels, <url|text> links."""
    esc = slack_text
    where = _where(facts, esc)
    lines = [
        f"*[{esc(facts.severity.upper())}] {esc(facts.title)}*",
        where,
        f"*What is happening:* {esc(verdict.summary) or 'no findings yet'}",
        f"*Probable cause:* {_cause(verdict, is_finished=is_finished, esc=esc)}",
    ]
    card = _decisive(verdict)
    if card is not None:
        evidence = card.evidence[0]
        label = f"{esc(evidence.server)}.{esc(evidence.tool)}"
        url = report_markdown.span_url(
            trace_url=facts.trace_url, span_id=evidence.span_id
        )
        lines.append(
            f"*Evidence:* {f'<{url}|{label}>' if url else label} {esc(evidence.fact)}"
        )
    steps = answer.next_steps(verdict)[:MAX_STEPS]
    if steps:
        lines.append("*Next steps:*")
        lines += [f"{n}. {esc(s.text)}" for n, s in enumerate(steps, start=1)]
    lines.append(
        f"<{facts.incident_url}|Open the incident> · <{facts.trace_url}|Open the trace>"
    )
    return "\n".join(line for line in lines if line)


def markdown_summary(facts: ShareFacts, verdict: Verdict, *, is_finished: bool) -> str:
    """The summary as Markdown (CommonMark): **bold** labels, [text](url) links."""
    esc = _markdown_text
    where = _where(facts, esc)
    lines = [
        f"**\\[{esc(facts.severity.upper())}\\] {esc(facts.title)}**",
        "",
        where,
        "",
        f"**What is happening:** {esc(verdict.summary) or 'no findings yet'}",
        "",
        f"**Probable cause:** {_cause(verdict, is_finished=is_finished, esc=esc)}",
    ]
    card = _decisive(verdict)
    if card is not None:
        evidence = card.evidence[0]
        link = report_markdown.span_link(
            trace_url=facts.trace_url, span_id=evidence.span_id
        )
        lines += [
            "",
            f"**Evidence:** {link} {esc(evidence.server)}.{esc(evidence.tool)}: "
            f"{esc(evidence.fact)}",
        ]
    steps = answer.next_steps(verdict)[:MAX_STEPS]
    if steps:
        lines += ["", "**Next steps:**", ""]
        lines += [f"{n}. {esc(s.text)}" for n, s in enumerate(steps, start=1)]
    lines += [
        "",
        f"[Open the incident]({facts.incident_url}) · [Open the trace]({facts.trace_url})",
    ]
    text = "\n".join(lines)
    # Blank lines left by a missing part collapse to one.
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
