"""Issue 21 classes 3 and 4 outside Kubernetes: a function whose log source is labelled with its
kind (`fn/name`) is reported by its name (reasoning/layered/kind_prefix.py), and between two
application leads the one whose own line says why it fails outranks a caller reporting a symptom
(reasoning/layered/reasoned_leads.py).

Names and wordings are invented.
"""

import pytest

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.layered.kind_prefix import bare_name, kind_prefix
from reasoning.layered.reasoned_leads import reasoned_leads
from reasoning.observations import IncidentBrief, Investigation, Observation

_BRIEF = IncidentBrief(
    title="invoices never reach the ledger",
    service="ledger",
    severity="sev2",
    symptoms=(),
    window_start="2030-01-01T10:00:00Z",
    window_end="2030-01-01T11:00:00Z",
)
SYMPTOM = "GET /ledger/881 -> 200 but invoice still 'queued' after 900s"
REASON = (
    "Error: 7 PERMISSION_DENIED: caller not authorized to publish to topic inv-ready"
)


def _obs(service):
    return Observation(
        span_id=f"e-{service}",
        agent="a",
        server="logs-mcp",
        tool="top_errors",
        arguments={"service": service},
        is_ok=True,
        result={"top": []},
        text="",
    )


def _read(service, line):
    """top_errors of `service` as the logs server labels it, with one group."""
    return Observation(
        span_id=f"r-{service}",
        agent="a",
        server="logs-mcp",
        tool="top_errors",
        arguments={"service": service},
        is_ok=True,
        result={"top": [{"signature": line, "sample": line, "count": 40}]},
        text="",
    )


def _board(*observations):
    inv = Investigation(incident=_BRIEF, tools=(), observations=list(observations))
    return Board(inv, Facts.read(inv.observations))


def _lead(board, component, line, confidence, layer=layers.APPLICATION):
    c = board.get(layer, component, f"{component} fails")
    c.confidence = confidence
    c.cite(_obs(component), f"top_errors({component}): 40 lines: {line}")
    return c


@pytest.mark.rule("board.reasoned-lead")
def test_the_lead_whose_line_states_why_outranks_the_caller_reporting_the_symptom():
    board = _board()
    caller = _lead(board, "ledger-web", SYMPTOM, 0.55)
    fn = _lead(board, "fn/inv-publish", REASON, 0.5)

    reasoned_leads(board)

    assert fn.confidence > caller.confidence


@pytest.mark.rule("board.reasoned-lead")
def test_a_confirmed_or_reasoned_top_or_a_far_lead_stays_where_it_is():
    board = _board()
    caller = _lead(board, "ledger-web", SYMPTOM, 0.55)
    caller.status = "confirmed"
    fn = _lead(board, "fn/inv-publish", REASON, 0.5)
    reasoned_leads(board)
    assert fn.confidence == 0.5

    board = _board()
    _lead(board, "ledger-web", "queue publish denied: quota exceeded", 0.55)
    fn = _lead(board, "fn/inv-publish", REASON, 0.5)
    reasoned_leads(board)
    assert fn.confidence == 0.5

    board = _board()
    _lead(board, "ledger-web", SYMPTOM, 0.55)
    fn = _lead(board, "fn/inv-publish", REASON, 0.2)
    reasoned_leads(board)
    assert fn.confidence == 0.2


@pytest.mark.rule("board.reasoned-lead")
def test_a_caller_quoting_the_leaders_refusal_is_not_raised_over_it():
    # The origin's own line states its fault in words the reason list lacks; the caller's line
    # states a reason, but it is the leader's, quoted by name: a relay, not an origin.
    board = _board()
    store = _lead(
        board,
        "tally-store",
        "append on shard tally-7: current quorum Set(0, 1) is insufficient for 3",
        0.5,
    )
    caller = _lead(
        board,
        "till-api",
        "commit failed: io.tally-store.client.QuorumException: writes are rejected",
        0.5,
    )

    reasoned_leads(board)

    assert (caller.confidence, store.confidence) == (0.5, 0.5)


@pytest.mark.rule("board.reasoned-lead")
def test_a_leader_whose_line_names_a_typed_error_is_not_moved():
    # "not encodable" is in no reason list, but GlyphMapError says what failed; the waiting
    # caller's "blocked" is its state, not the cause.
    board = _board()
    worker = _lead(
        board,
        "receipt-printer",
        "job 77 (redelivered=true) failed: GlyphMapError: U+1F600 not encodable in CP437",
        0.5,
    )
    till = _lead(board, "till-ui", "receipt 12 not ready after 30s; till blocked", 0.45)

    reasoned_leads(board)

    assert (worker.confidence, till.confidence) == (0.5, 0.45)

    # The look-alike: a bare "Error" is no type; the symptom-only leader is passed.
    board = _board()
    _lead(board, "ledger-web", "render ended with Error (code 7)", 0.55)
    fn = _lead(board, "fn/inv-publish", REASON, 0.5)
    reasoned_leads(board)
    assert fn.confidence > 0.55


@pytest.mark.rule("board.reasoned-lead")
def test_a_reasoned_line_naming_a_longer_word_that_contains_the_leader_is_raised():
    # "datastore" is not "store": the caller's reason is its own.
    board = _board()
    _lead(board, "store", SYMPTOM, 0.55)
    fn = _lead(board, "fn/inv-publish", "datastore write denied: role lacks put", 0.5)

    reasoned_leads(board)

    assert fn.confidence > 0.55


@pytest.mark.rule("board.kind-prefix")
def test_a_kind_labelled_function_is_named_and_merged_with_its_bare_name():
    board = _board(_read("fn/inv-publish", REASON))
    _lead(board, "fn/inv-publish", REASON, 0.5)
    bare = _lead(board, "inv-publish", SYMPTOM, 0.3)
    _lead(board, "ledger-web", SYMPTOM, 0.4)

    kind_prefix(board)

    assert set(board.candidates) == {
        "application:inv-publish",
        "application:ledger-web",
    }
    merged = board.candidates["application:inv-publish"]
    assert merged is bare and merged.confidence == 0.5
    assert len(merged.evidence) == 2


@pytest.mark.rule("board.kind-prefix")
def test_kubernetes_objects_and_plain_names_keep_their_names():
    assert bare_name("payments/api-7f9c") == "api-7f9c"
    assert bare_name("checkout") == "checkout"
    assert bare_name("a.b/c") == "a.b/c"
    assert bare_name("ns/deploy/x") == "ns/deploy/x"
    board = _board(_read("shop/cart", REASON))
    board.cluster = object()  # type: ignore[assignment]
    _lead(board, "shop/cart", REASON, 0.5)
    kind_prefix(board)
    assert "application:shop/cart" in board.candidates
    # A rule's own kind/name (not a label of the logs) keeps its name.
    board = _board(_read("fn/inv-publish", REASON))
    _lead(board, "namespace/tenant-4", REASON, 0.5, layer=layers.PLATFORM)
    kind_prefix(board)
    assert "platform:namespace/tenant-4" in board.candidates


@pytest.mark.rule("board.kind-prefix", "board.reasoned-lead")
@pytest.mark.timeout(60)
def test_huge_and_odd_components_and_lines_are_read_safely():
    board = _board(_read("fn/", "z" * 2_000_000), _read("/", "denied"))
    _lead(board, "x" * 100_000 + "/" + "y" * 100_000, "z" * 2_000_000, 0.5)
    _lead(board, "/", "denied " * 300_000, 0.45)
    _lead(board, "fn/", SYMPTOM, 0.55)
    _lead(board, "z" * 50_000, "refused by " + "z" * 3_000_000, 0.5)

    reasoned_leads(board)
    kind_prefix(board)

    assert len(board.candidates) == 4
