"""Issue 21: a back end stating in its own voice that it refuses work, quoted by its callers, is
the cause (reasoning/layered/own_refusal.py).

Names and wordings are invented: a PostgreSQL ledger refusing commands, an Oracle database
shutting down, a MySQL primary left read-only; near misses where the refusal is only quoted, or
never quoted by anyone.
"""

import pytest

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.layered.own_refusal import refusals_quoted
from reasoning.observations import IncidentBrief, Investigation, Observation

_BRIEF = IncidentBrief(
    title="checkout fails",
    service="checkout",
    severity="sev2",
    symptoms=(),
    window_start="2030-01-01T10:00:00Z",
    window_end="2030-01-01T11:00:00Z",
)


def _errors(service, *samples):
    return Observation(
        span_id=f"e-{service}",
        agent="a",
        server="logs-mcp",
        tool="top_errors",
        arguments={"service": service},
        is_ok=True,
        result={"top": [{"sample": s, "signature": s, "count": 9} for s in samples]},
        text="",
    )


def _board(*observations):
    inv = Investigation(incident=_BRIEF, tools=(), observations=list(observations))
    return Board(inv, Facts.read(inv.observations))


@pytest.mark.rule("board.own-refusal")
@pytest.mark.parametrize(
    ("origin", "own", "caller", "quote"),
    [
        (
            "ledger-db",
            'ERROR:  database is not accepting commands to avoid wraparound data loss in database "ledger"',
            "billing-api",
            "POST /charge 500: PSQLException: ERROR: database is not accepting commands to avoid wraparound",
        ),
        (
            "fares-ora",
            "ORA-01033: ORACLE initialization or shutdown in progress",
            "fare-svc",
            "java.sql.SQLRecoverableException: ORA-01033: ORACLE initialization or shutdown in progress",
        ),
        (
            "stock-mysql",
            "ERROR 1290 (HY000): The MySQL server is running with the --read-only option so it cannot execute this statement",
            "stock-writer",
            "failed to save sku 81: Error 1290: The MySQL server is running with the --read-only option so it cannot execute this statement",
        ),
    ],
)
def test_a_back_end_refusing_work_in_its_own_voice_is_the_cause_of_its_quoting_callers(
    origin, own, caller, quote
):
    board = _board(_errors(caller, quote), _errors(origin, own))
    victim = board.get(layers.APPLICATION, caller, f"{caller} fails")
    victim.confidence, victim.status = 0.7, "confirmed"
    refusals_quoted(board)
    c = board.candidates[f"{layers.APPLICATION}:{origin}"]
    assert c.status == "confirmed" and c.confidence >= 0.85
    assert {e.span_id for e in c.evidence} == {f"e-{origin}", f"e-{caller}"}
    assert victim.confidence <= 0.4 and victim.status == "likely"


@pytest.mark.rule("board.own-refusal")
def test_a_refusal_only_quoted_or_never_quoted_names_no_origin():
    board = _board(
        # Only quoted: every service's line carries someone else's context before the words.
        _errors(
            "billing-api", "POST /charge 500: ERROR: database is not accepting commands"
        ),
        _errors(
            "audit-sink", "failed to store: ERROR: database is not accepting commands"
        ),
        # Own voice, but nobody quotes it: no caller depends on it.
        _errors("cache-db", "ERROR: cache is rejecting writes while it rebalances"),
        # A caller's own connection refused is no statement of a back end's state.
        _errors("cart-api", "dial tcp 10.0.0.4:5432: connect: connection refused"),
    )
    refusals_quoted(board)
    assert board.candidates == {}


@pytest.mark.rule("board.own-refusal")
@pytest.mark.timeout(60)
def test_long_lines_stay_linear():
    long_line = "not accepting " * 15000
    board = _board(
        _errors("a-db", long_line), _errors("b-api", "x" * 200000 + long_line)
    )
    refusals_quoted(board)
