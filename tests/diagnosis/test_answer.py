"""The answer at the top of the incident page (issue 20 items 1 and 2): diagnosis/pages/answer.py
and the evidence ranking it quotes from."""

from diagnosis.pages import answer
from diagnosis.pages.investigation import verdict_from_report

DESCRIBE = {
    "span_id": "00000000000000a3",
    "server": "kubernetes",
    "tool": "describe",
    "fact": "describe: Last State Terminated, Reason: OOMKilled",
}
PODS = {
    "span_id": "00000000000000a1",
    "server": "kubernetes",
    "tool": "get_resources",
    "fact": "get pods: cartservice-1 0/1 CrashLoopBackOff",
}
EVENTS = {
    "span_id": "00000000000000a2",
    "server": "kubernetes",
    "tool": "events",
    "fact": "Warning BackOff",
}
FIX = "Raise the memory limit of deployment/cartservice above its peak use"
CHECK = "After the fix, read deployment/cartservice again"


def report(*, actions=(), conclusive=True, decisive=DESCRIBE):
    return {
        "summary": "application failure at deployment/cartservice: …",
        "conclusive": conclusive,
        "partial": False,
        "hypotheses": [
            {
                "layer": "application",
                "component": "deployment/cartservice",
                "statement": "deployment/cartservice's containers are killed for exceeding their memory limit (OOMKilled)",
                "confidence": 0.93 if conclusive else 0.5,
                "status": "confirmed" if conclusive else "likely",
                "evidence": [PODS, EVENTS, DESCRIBE],
                "decisive": decisive,
                "remediation": FIX if conclusive else None,
                "causal_chain": ["frontend: 500 on /cart", "cartservice OOMKilled"],
            }
        ],
        "next_steps": [
            *([{"text": FIX}] if conclusive else []),
            {"text": CHECK},
            {
                "text": "Read the runbook 'x' (matched the findings)",
                "runbook_uri": "runbook://x",
                "runbook_title": "x",
            },
        ],
        "actions": list(actions),
    }


def build(data):
    return answer.build_answer(
        verdict_from_report(data),
        title="cart 500s",
        symptoms="frontend 500s\nsecond",
        service="frontend",
    )


def test_the_answer_says_what_happens_what_caused_it_with_its_decisive_evidence_and_the_fix_first():
    found = build(report())
    assert found.happening == "frontend: 500 on /cart"
    assert found.cause is not None and found.cause.confidence_percent == 93
    assert found.decisive is not None and found.decisive.fact == DESCRIBE["fact"]
    assert [(s.kind, s.text) for s in found.steps][:2] == [
        ("fix", FIX),
        ("verify", CHECK),
    ]
    assert found.steps[-1].kind == "runbook"


def test_evidence_is_ranked_decisive_first_else_as_cited():
    assert [
        e.fact for e in verdict_from_report(report()).hypotheses[0].ranked_evidence
    ] == [DESCRIBE["fact"], PODS["fact"], EVENTS["fact"]]
    older = verdict_from_report(report(decisive=None)).hypotheses[0]
    assert [e.fact for e in older.ranked_evidence] == [
        PODS["fact"],
        EVENTS["fact"],
        DESCRIBE["fact"],
    ]


def test_next_steps_follow_the_actions_state():
    restart = {"server": "actions", "tool": "restart_workload", "target": "checkout"}

    def action_texts(status, **extra):
        found = build(report(actions=[{**restart, "status": status, **extra}]))
        return [s.text for s in found.steps if s.kind == "action"]

    [denied] = action_texts("denied", reason="not now")
    assert "denied (not now)" in denied and "nothing was restarted" in denied
    assert "recover" not in denied
    [expired] = action_texts("expired")
    assert "expired" in expired and "recover" not in expired
    [done] = action_texts("done", effect="checkout healthy: ok")
    assert "(checkout healthy: ok)" in done and "watch checkout recover" in done
    [waiting] = action_texts("waiting_approval")
    assert "waits for an approver" in waiting
    # the fix stays first whatever became of the stop-gap
    assert build(report(actions=[{**restart, "status": "denied"}])).steps[0].text == FIX


def test_an_inconclusive_answer_names_the_lead_and_no_fix():
    found = build(report(conclusive=False))
    assert found.cause is None and found.lead is not None
    assert [s.kind for s in found.steps] == ["verify", "runbook"]
    empty = build({})
    assert (empty.cause, empty.lead, empty.decisive, empty.steps) == (
        None,
        None,
        None,
        [],
    )
    assert empty.happening == "frontend 500s"
