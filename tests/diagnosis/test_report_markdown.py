"""diagnosis.report_markdown: the report as Markdown, checked raw and as a CommonMark renderer shows it.

The renderer is markdown-it-py (CommonMark, with GFM tables and strikethrough, and raw HTML
passed through as the most permissive renderers do), so "inert" means what a reader of the
pasted postmortem would see, not a guess about the escaping.
"""

from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from diagnosis.report_markdown import code, report_markdown, text
from reasoning.layered.graph import Fault, Graph
from reasoning.report import (
    ActionRecord,
    Evidence,
    Hypothesis,
    NextStep,
    Report,
)

TASK_ID = "6f1c2b7e-0d4a-4c55-9a37-0e8f1d2c3b4a"
# The trace PAGE (not the JSON API), absolute: the export is read away from the site.
TRACE = f"https://agentops.example.com/tasks/{TASK_ID}/trace"
INCIDENT = {
    "id": "0b4c9a7e-1f2d-4e3c-8a5b-6c7d8e9f0a1b",
    "title": "Checkout 502s",
    "service": "checkout",
    "severity": "sev2",
    "window_start": "2026-03-01T10:00:00+00:00",
    "window_end": None,
}
TASK = {
    "id": TASK_ID,
    "state": "succeeded",
    "attempt": 1,
    "created_at": "2026-03-01T10:05:00+00:00",
    "started_at": "2026-03-01T10:05:01+00:00",
    "finished_at": "2026-03-01T10:05:40+00:00",
    "error": None,
}
LEAK_SPAN = "3f2a9c1d0e4b5a67"
LOG_SPAN = "aa11bb22cc33dd44"
DNS_SPAN = "bb11bb22cc33dd44"
ACTION_SPAN = "cc11bb22cc33dd44"


def _report(**overrides):
    report = Report(
        summary="Checkout 502s come from payments-gw refusing connections.",
        hypotheses=[
            Hypothesis(
                layer="application",
                component="checkout",
                statement="checkout itself errors",
                confidence=0.3,
                status="likely",
            ),
            Hypothesis(
                layer="dns",
                component="payments-gw",
                statement="payments-gw does not resolve",
                confidence=0.1,
                status="ruled_out",
                reason_ruled_out="it resolves to 10.0.0.7",
                evidence=[Evidence(DNS_SPAN, "netcheck", "probe", "A 10.0.0.7")],
            ),
            Hypothesis(
                layer="connect",
                component="payments-gw",
                statement="payments-gw refuses TCP connections",
                confidence=0.92,
                status="confirmed",
                evidence=[
                    Evidence(LEAK_SPAN, "netcheck", "probe", "connect refused in 3 ms"),
                    Evidence(LOG_SPAN, "logs", "query_logs", "upstream connect failed"),
                ],
                causal_chain=[
                    "checkout answers 502",
                    "the gateway cannot reach payments-gw",
                    "payments-gw refuses connections",
                ],
            ),
        ],
        open_questions=["Why did payments-gw stop listening at 10:02?"],
        next_steps=[
            NextStep(
                "Restart payments-gw",
                runbook_uri="runbook://payments/restart",
                runbook_title="Restarting payments-gw",
            )
        ],
        actions=[
            ActionRecord(
                server="actions",
                tool="restart_service",
                target="payments-gw",
                status="done",
                span_id=ACTION_SPAN,
                approval_id="9d1e2f3a-4b5c-4d6e-8f70-1a2b3c4d5e6f",
                effect="a new probe connects in 2 ms",
            )
        ],
        tool_calls=9,
        partial=False,
    )
    for name, value in overrides.items():
        setattr(report, name, value)
    return report.to_dict()


class _Html(HTMLParser):
    """Every tag with its attributes, the text under each heading, and all text."""

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.headings = []
        self.text = []
        self._heading = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
            self._heading = (tag, [])

    def handle_endtag(self, tag):
        if self._heading and tag == self._heading[0]:
            self.headings.append((tag, "".join(self._heading[1])))
            self._heading = None

    def handle_data(self, data):
        self.text.append(data)
        if self._heading:
            self._heading[1].append(data)

    def links(self):
        return [attrs.get("href") for tag, attrs in self.tags if tag == "a"]


def _render(markdown):
    renderer = MarkdownIt("commonmark", {"html": True}).enable(
        ["table", "strikethrough"]
    )
    return _Html(renderer.render(markdown))


def _markdown(report, *, incident=INCIDENT, task=TASK):
    return report_markdown(report=report, incident=incident, task=task, trace_url=TRACE)


def test_report_renders_title_state_times_and_summary():
    md = _markdown(_report())

    assert md.startswith("# Checkout 502s\n")
    assert "- **Service:** checkout · **Severity:** sev2" in md
    assert f"- **Diagnosis:** succeeded (task {TASK_ID}, attempt 1)" in md
    assert "**Started:** 2026-03-01T10:05:01+00:00" in md
    assert "**Finished:** 2026-03-01T10:05:40+00:00" in md
    assert "- **Window:** 2026-03-01T10:00:00+00:00 to open" in md
    assert "- **Tool calls:** 9" in md
    assert (
        "## Summary\n\nCheckout 502s come from payments-gw refusing connections." in md
    )
    assert "Partial report" not in md


def test_probable_cause_is_the_top_confirmed_hypothesis_marked_conclusive():
    md = _markdown(_report())

    cause = md.split("## Probable cause\n", 1)[1].split("\n## ", 1)[0]
    assert "**payments-gw refuses TCP connections**" in cause
    assert (
        "layer connect · component payments-gw · confidence 0.92 · conclusive" in cause
    )
    assert "No decisive evidence" not in md


def test_hypotheses_table_is_ranked_with_status_layer_component_confidence():
    html = _render(_markdown(_report()))

    rows = [
        cells
        for cells in _table_rows(_markdown(_report()))
        if cells and cells[0] != "Rank"
    ]
    assert [row[:5] for row in rows] == [
        ["1", "confirmed", "connect", "payments-gw", "0.92"],
        ["2", "likely", "application", "checkout", "0.30"],
        ["3", "ruled out", "dns", "payments-gw", "0.10"],
    ]
    assert sum(1 for tag, _ in html.tags if tag == "tr") == 4  # header + 3


def _table_rows(md):
    return [
        [cell.strip() for cell in line.strip("|").split(" | ")]
        for line in md.splitlines()
        if line.startswith("| ") and not line.startswith("| ---")
    ]


def test_each_hypothesis_has_its_causal_chain_and_evidence_linked_to_the_span():
    md = _markdown(_report())

    section = md.split("### 1. payments-gw refuses TCP connections\n", 1)[1]
    section = section.split("\n### ", 1)[0]
    assert (
        "1. checkout answers 502\n2. the gateway cannot reach payments-gw\n"
        "3. payments-gw refuses connections"
    ) in section
    assert (
        f"- [span 3f2a9c1d]({TRACE}?span={LEAK_SPAN}#span-{LEAK_SPAN}) "
        "netcheck · probe: connect refused in 3 ms"
    ) in section
    assert f"({TRACE}?span={LOG_SPAN}#span-{LOG_SPAN})" in section
    second = md.split("### 2. checkout itself errors\n", 1)[1].split("\n## ", 1)[0]
    assert "inconclusive" in second
    assert "- No span cited." in second


def test_every_link_is_an_absolute_link_to_a_span_on_this_tasks_trace_page():
    html = _render(_markdown(_report()))

    assert sorted(html.links()) == sorted(
        f"{TRACE}?span={span}#span-{span}"
        for span in (LEAK_SPAN, LOG_SPAN, DNS_SPAN, ACTION_SPAN)
    )


def test_ruled_out_hypotheses_keep_their_reason_and_evidence():
    md = _markdown(_report())

    ruled = md.split("## Ruled out\n", 1)[1].split("\n## ", 1)[0]
    assert (
        "- **payments-gw does not resolve** (layer dns · component payments-gw): "
        "it resolves to 10.0.0.7"
    ) in ruled
    assert f"  - [span bb11bb22]({TRACE}?span={DNS_SPAN}#span-{DNS_SPAN})" in ruled
    assert "### 3." not in md  # ruled out: no detail section of its own


def test_open_questions_next_steps_with_runbook_and_actions_with_effect():
    md = _markdown(_report())

    assert "## Open questions\n\n- Why did payments-gw stop listening at 10:02?" in md
    # The action's outcome comes before the runbook (diagnosis.next_steps owns the order).
    assert (
        "1. restart\\_service of payments-gw was done (a new probe connects in 2 ms): a "
        "stop-gap; watch payments-gw recover until the fix lands\n"
        "2. Restart payments-gw (runbook: Restarting payments-gw "
        "`runbook://payments/restart`)"
    ) in md
    assert (
        "- restart\\_service on actions, target payments-gw: **done** (approval "
        "9d1e2f3a-4b5c-4d6e-8f70-1a2b3c4d5e6f, "
        f"[span cc11bb22]({TRACE}?span={ACTION_SPAN}#span-{ACTION_SPAN})). "
        "Effect: a new probe connects in 2 ms"
    ) in md


def test_an_action_whose_answer_was_lost_reads_unknown_with_its_status_span_and_question():
    status_span = "dd11bb22cc33dd44"
    action = ActionRecord(
        "actions",
        "restart_workload",
        "checkout",
        "unknown",
        span_id=ACTION_SPAN,
        status_span_id=status_span,
        reason="the status call failed: ConnectError",
    )
    md = _markdown(_report(actions=[action], open_questions=[]))

    assert (
        "- restart\\_workload on actions, target checkout: **unknown** "
        f"([span cc11bb22]({TRACE}?span={ACTION_SPAN}#span-{ACTION_SPAN}), "
        f"status [span dd11bb22]({TRACE}?span={status_span}#span-{status_span})). "
        "Why: the status call failed: ConnectError."
    ) in md
    assert "**failed**" not in md
    assert "did restart\\_workload of checkout on actions happen?" in md


def test_inconclusive_report_says_no_decisive_evidence_plainly():
    report = _report(
        hypotheses=[
            Hypothesis(
                layer="http",
                component="payments-gw",
                statement="payments-gw answers 503 now and then",
                confidence=0.45,
                status="likely",
            )
        ]
    )
    assert report["conclusive"] is False

    md = _markdown(report)

    cause = md.split("## Probable cause\n", 1)[1].split("\n## ", 1)[0]
    assert cause.startswith(
        "\n**No decisive evidence.** The diagnosis did not confirm a cause; nothing in "
        "this report is a conclusion."
    )
    assert (
        "Leading hypothesis, inconclusive: payments-gw answers 503 now and then "
        "(layer http · component payments-gw · confidence 0.45)"
    ) in cause
    assert "· conclusive" not in md


def test_a_confirmed_hypothesis_below_the_threshold_is_not_called_a_cause():
    report = _report(
        hypotheses=[
            Hypothesis(
                layer="tls",
                component="payments-gw",
                statement="the certificate expired",
                confidence=0.5,
                status="confirmed",
            )
        ]
    )

    md = _markdown(report)

    assert "**No decisive evidence.**" in md
    assert "confirmed · confidence 0.50 · inconclusive" in md


def test_every_hypothesis_ruled_out_says_so():
    md = _markdown(
        _report(
            hypotheses=[
                Hypothesis(
                    layer="dns",
                    component="db",
                    statement="db does not resolve",
                    confidence=0.0,
                    status="ruled_out",
                    reason_ruled_out="it resolves",
                )
            ]
        )
    )

    assert "**No decisive evidence.**" in md
    assert "Every hypothesis it formed was ruled out (below)." in md


def test_timed_plan_report_without_hypotheses_is_short_and_honest():
    report = {
        "summary": "timed plan: 1 steps ran; no tools were called",
        "hypotheses": [],
    }

    md = _markdown(report)
    html = _render(md)

    assert "timed plan: 1 steps ran; no tools were called" in md
    assert "**No decisive evidence.**" in md
    assert "The diagnosis formed no hypothesis." in md
    assert "## Hypotheses" not in md
    assert "No action was taken." in md
    assert "report version" not in md  # the dict carries none
    assert html.links() == []


def test_queued_task_without_a_report_gets_a_short_document():
    md = _markdown(None, task={**TASK, "state": "queued", "finished_at": None})

    assert md.startswith("# Checkout 502s\n")
    assert "No report yet: the diagnosis is queued." in md
    assert "## Summary" not in md
    assert "## Probable cause" not in md


def test_finished_task_without_a_report_says_it_ended_without_one():
    error = {"layer": "engine", "code": "unknown_plan", "message": "no plan named 'x'"}
    md = _markdown(None, task={**TASK, "state": "failed", "error": error})

    assert "No report: the diagnosis ended failed before it wrote one." in md
    assert "- **Error:** engine / unknown\\_plan: no plan named 'x'" in md


@pytest.mark.parametrize(
    ("state", "wording"),
    [
        ("running", "The diagnosis is still running; this may change."),
        ("cancelled", "The diagnosis ended cancelled before it finished"),
    ],
)
def test_partial_report_is_flagged(state, wording):
    md = _markdown(_report(partial=True), task={**TASK, "state": state})

    assert f"> **Partial report.** {wording}" in md


ATTACKS = [
    "<script>alert(1)</script>",
    "](javascript:alert(1))",
    "[click me](javascript:alert(1))",
    "![x](https://evil.example/pixel.png)",
    "<img src=x onerror=alert(1)>",
    "<https://evil.example/autolink>",
    "&lt;script&gt;",
    "`code` **bold** _em_ ~~strike~~ | cell |",
    "\n\n# Injected heading\n\n- injected item",
    "1. looks like a list",
    "- dash start",
    "\u202eevil\u202c",
]
HOSTILE = " ".join(ATTACKS)


def _hostile_report():
    return _report(
        summary=HOSTILE,
        hypotheses=[
            Hypothesis(
                layer=HOSTILE,
                component=HOSTILE,
                statement=HOSTILE,
                confidence=0.95,
                status="confirmed",
                evidence=[Evidence(LEAK_SPAN, HOSTILE, HOSTILE, HOSTILE)],
                causal_chain=[HOSTILE, "1. " + HOSTILE],
            ),
            Hypothesis(
                layer="dns",
                component="x",
                statement=HOSTILE,
                confidence=0.1,
                status="ruled_out",
                reason_ruled_out=HOSTILE,
                evidence=[Evidence("../../x)(javascript:alert(1)", "s", "t", HOSTILE)],
            ),
        ],
        open_questions=[HOSTILE],
        next_steps=[
            NextStep(
                HOSTILE,
                runbook_uri="javascript:alert(1)` <b>x</b> ``",
                runbook_title=HOSTILE,
            )
        ],
        actions=[ActionRecord(HOSTILE, HOSTILE, HOSTILE, HOSTILE, effect=HOSTILE)],
    )


def test_untrusted_strings_render_inert():
    md = _markdown(_hostile_report(), incident={**INCIDENT, "title": HOSTILE})
    html = _render(md)

    # No tag but the document's own structure; no link but the span links.
    allowed = {
        "h1", "h2", "h3", "p", "ul", "ol", "li", "strong", "blockquote", "code",
        "table", "thead", "tbody", "tr", "th", "td", "hr", "a",
    }  # fmt: skip
    assert {tag for tag, _ in html.tags} <= allowed
    assert html.links() == [f"{TRACE}?span={LEAK_SPAN}#span-{LEAK_SPAN}"]
    # Headings are only the document's: the title and its sections.
    assert [tag for tag, _ in html.headings].count("h1") == 1
    assert {title for tag, title in html.headings if tag == "h2"} == {
        "Summary",
        "Probable cause",
        "Hypotheses",
        "Ruled out",
        "Open questions",
        "Next steps",
        "Actions taken",
    }
    # A reader sees the attacker's characters as text, all of them.
    shown = (
        " ".join(" ".join(ATTACKS).split()).replace("\u202e", "").replace("\u202c", "")
    )
    assert html.headings[0] == ("h1", shown)
    assert "javascript:alert(1)` <b>x</b> ``" in "".join(html.text)


def test_a_span_id_that_is_not_one_is_shown_not_linked():
    bad = "../../x)(javascript:alert(1)"
    report = _report(
        hypotheses=[
            Hypothesis(
                layer="dns",
                component="db",
                statement="db does not resolve",
                confidence=0.8,
                status="confirmed",
                evidence=[Evidence(bad, "netcheck", "probe", "NXDOMAIN")],
            )
        ],
        actions=[],
    )

    html = _render(_markdown(report))

    assert html.links() == []
    assert f"span {bad} netcheck · probe: NXDOMAIN" in "".join(html.text)


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("a_b*c", "a\\_b\\*c"),
        ("[x](y)", "\\[x\\](y)"),
        ("<b>&", "&lt;b&gt;&amp;"),
        ("# h", "\\# h"),
        ("1. item", "1\\. item"),
        ("2) item", "2\\) item"),
        ("- item", "\\- item"),
        ("+ item", "\\+ item"),
        ("a\r\n\tb", "a b"),
        ("x" * 3000, "x" * 1999 + "…"),
        (None, ""),
    ],
)
def test_text_escapes(raw, escaped):
    assert text(raw) == escaped


@pytest.mark.parametrize(
    ("raw", "span"),
    [
        ("runbook://a", "`runbook://a`"),
        ("a`b", "``a`b``"),
        ("`edge`", "`` `edge` ``"),
        ("a\nb", "`a b`"),
    ],
)
def test_code_spans_hold_backticks(raw, span):
    assert code(raw) == span


def test_next_steps_follow_an_action_decided_after_the_report_was_written():
    """The stored next_steps were written before the approval was answered: the export reads
    the action's state now, so a denied restart is never to be watched."""
    report = _report()
    report["hypotheses"][0]["remediation"] = "Raise payments-gw's listen backlog"
    report["actions"][0].update(
        status="denied", reason="not during the sale", effect=""
    )
    md = _markdown(report)

    steps = md[md.index("## Next steps") : md.index("## Actions taken")]
    assert steps.splitlines()[2:4] == [
        "1. Raise payments-gw's listen backlog",
        "2. restart\\_service of payments-gw was denied (not during the sale): nothing was "
        "restarted, apply the fix",
    ]
    assert "recover" not in steps and "was done" not in steps


def test_the_dependency_path_lists_each_edge_with_its_span_down_to_the_blamed_node():
    graph = Graph()
    graph.link("ferry-web", "tolls-gw", "calls", LOG_SPAN, "upstream tolls-gw 502")
    graph.link("tolls-gw", "tolls-db", "calls", LEAK_SPAN, "dial tcp tolls-db refused")
    graph.add_fault(
        "tolls-db",
        "service",
        Fault("connect:tolls-db", "confirmed", 0.9, "refuses", LEAK_SPAN, "refused"),
    )
    graph.focus = "ferry-web"
    md = _markdown(_report(graph=graph.to_dict()))

    section = md.split("## Dependency path\n", 1)[1].split("\n## ", 1)[0]
    assert (
        f"- `ferry-web` → `tolls-gw` (calls): [span {LOG_SPAN[:8]}]"
        f"({TRACE}?span={LOG_SPAN}#span-{LOG_SPAN}) upstream tolls-gw 502"
    ) in section
    assert "`tolls-gw` → `tolls-db` (calls)" in section


def test_no_dependency_path_section_without_a_graph_path():
    assert "## Dependency path" not in _markdown(_report())
    graph = Graph()
    graph.node("lonely", "service")
    assert "## Dependency path" not in _markdown(_report(graph=graph.to_dict()))
