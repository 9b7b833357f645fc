"""docs/engine.md still lists what the code emits: every event payload key, every report field,
every layer and every span state (the way tests/diagnosis/test_docs.py keeps architecture.md)."""

import re
from pathlib import Path
from typing import get_args, get_type_hints

import pytest

from diagnosis.events import EventKind
from diagnosis.models import SpanState
from diagnosis.payloads import EVENT_PAYLOADS, SpanEndState
from reasoning import layers
from reasoning.layered.graph import Fault, Graph
from reasoning.report import (
    ACTION_STATUSES,
    ActionRecord,
    Evidence,
    Hypothesis,
    NextStep,
    Report,
)

DOC = (Path(__file__).resolve().parents[3] / "docs" / "engine.md").read_text()
ENVELOPE = {"event_id", "type", "occurred_at", "task_id", "incident_id"}


def _section(heading: str) -> str:
    """The text under `### heading` (or `## heading`) up to the next heading of any level."""
    match = re.search(
        rf"^#{{2,3}} {re.escape(heading)}\n(.*?)(?=^#{{1,3}} |\Z)",
        DOC,
        flags=re.MULTILINE | re.DOTALL,
    )
    assert match, f"docs/engine.md has no section {heading!r}"
    return match.group(1)


def _keys(payload: type) -> set[str]:
    return set(payload.__required_keys__ | payload.__optional_keys__)


def test_every_event_kind_has_a_payload_whose_type_is_its_kind():
    assert set(EVENT_PAYLOADS) == set(EventKind.values)
    for kind, payload in EVENT_PAYLOADS.items():
        assert get_args(get_type_hints(payload)["type"]) == (kind,)
        assert _keys(payload) >= ENVELOPE, kind


def test_span_end_states_are_the_models_finished_and_cancelled_states():
    assert set(get_args(SpanEndState)) == set(SpanState.values) - {SpanState.STARTED}


def test_envelope_keys_are_documented():
    section = _section("Envelope")
    for key in ENVELOPE:
        assert f"`{key}`" in section, key


@pytest.mark.parametrize("kind", sorted(EVENT_PAYLOADS))
def test_every_payload_key_is_documented_under_its_kind(kind):
    section = _section(f"`{kind}`")
    for key in sorted(_keys(EVENT_PAYLOADS[kind]) - ENVELOPE):
        assert f"`{key}`" in section, f"{kind}: {key}"


def _sample_report() -> dict:
    return Report(
        summary="payments-gw refuses connections",
        hypotheses=[
            Hypothesis(
                layer=layers.CONNECT,
                component="payments-gw",
                statement="payments-gw refuses TCP connections",
                confidence=0.9,
                status="confirmed",
                evidence=[Evidence("3f2a9c1d0e4b5a67", "netcheck", "probe", "refused")],
                causal_chain=["checkout 502", "payments-gw refuses"],
            )
        ],
        open_questions=["why now?"],
        next_steps=[NextStep("restart", "runbook://r", "Restart")],
        actions=[ActionRecord("actions", "restart_service", "payments-gw", "done")],
        tool_calls=3,
        graph=_sample_graph(),
    ).to_dict()


def _sample_graph() -> dict:
    graph = Graph()
    graph.link("checkout", "payments-gw", "calls", "3f2a9c1d0e4b5a67", "502 from it")
    graph.add_fault(
        "payments-gw",
        "service",
        Fault("connect:payments-gw", "confirmed", 0.9, "refuses", "3f2a", "refused"),
    )
    graph.focus = "checkout"
    return graph.to_dict()


def test_every_report_field_is_documented_in_its_table():
    report = _sample_report()
    hypothesis = report["hypotheses"][0]
    objects = {
        "Report": report,
        "Hypothesis": hypothesis,
        "Evidence": hypothesis["evidence"][0],
        "Next step": report["next_steps"][0],
        "Action": report["actions"][0],
        "Graph": report["graph"],
        "Graph node": report["graph"]["nodes"][0],
        "Graph edge": report["graph"]["edges"][0],
        "Blame": report["graph"]["blame"][0],
    }
    for heading, sample in objects.items():
        section = _section(heading)
        documented = set(re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE))
        assert documented == set(sample), heading


def test_every_action_status_is_documented_in_the_action_table():
    row = next(
        line
        for line in _section("Action").splitlines()
        if line.startswith("| `status` |")
    )
    assert set(re.findall(r"`(\w+)`", row)) >= set(ACTION_STATUSES)


def test_every_layer_and_span_state_is_documented():
    layer_rows = set(re.findall(r"^\| `(\w+)` \|", _section("Layers"), re.MULTILINE))
    state_rows = set(
        re.findall(r"^\| `(\w+)` \|", _section("Span states"), re.MULTILINE)
    )

    assert layer_rows == {*layers.LAYERS, layers.POLICY}
    assert state_rows == set(SpanState.values)
