"""Issue 21 class 4: a database's own error on a statement explains callers failing the same
statement (reasoning/layered/statement_errors.py). Names and wordings are invented."""

import pytest

from reasoning.layered.statement_errors import _statements
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    lines,
    logged,
    run_with_schemas,
)


def _world(db_error, caller_error):
    return World(
        {
            ("service_health", "balance-svc"): health(
                "balance-svc", "unhealthy", FAILING
            ),
            ("top_errors", "balance-svc"): logged(
                "balance-svc", errors=[group(caller_error, count=400)]
            ),
            ("service_health", "ledger-pg"): health("ledger-pg", "unknown"),
            ("top_errors", "ledger-pg"): logged(
                "ledger-pg", errors=[group(db_error, count=400)]
            ),
            ("search_logs", ""): lines(),
        }
    )


@pytest.mark.rule("board.statement-errors")
def test_the_databases_error_on_the_statement_outranks_the_caller_failing_it():
    world = _world(
        'ERROR:  value "32768" is out of range for type smallint STATEMENT: UPDATE balances SET version = version + 1',
        "UPDATE balances failed for account 8812: NumericValueOutOfRange",
    )

    _, _, report = run_with_schemas(
        world,
        incident("balance-svc", "balances not updated ledger-pg"),
        names=NO_NETCHECK,
    )

    top = report.top
    assert top.id == "application:ledger-pg" and top.status == "confirmed"
    assert any("out of range" in e.fact for e in top.evidence)
    caller = next(h for h in report.hypotheses if h.id == "application:balance-svc")
    assert "a symptom of application:ledger-pg" in caller.statement


@pytest.mark.rule("board.statement-errors")
def test_a_database_error_on_another_table_explains_nothing():
    world = _world(
        "ERROR 1062 (23000): Duplicate entry '7' for key 'PRIMARY' on query INSERT INTO audit_trail",
        "UPDATE balances failed for account 8812: timeout",
    )

    _, _, report = run_with_schemas(
        world,
        incident("balance-svc", "balances not updated ledger-pg"),
        names=NO_NETCHECK,
    )

    db = next(h for h in report.hypotheses if h.id == "application:ledger-pg")
    assert "explains balance-svc" not in db.statement


@pytest.mark.rule("board.statement-errors")
@pytest.mark.timeout(60)
def test_statements_are_read_in_linear_time():
    assert _statements("x: Delete  From carts_v2 where 1") == {
        ("delete from", "carts_v2")
    }
    # Ten times the size a quadratic read already takes seconds on; bounded by the timeout, not by
    # a wall-clock assertion that flakes on a loaded machine.
    _statements("update " * 50_000 + "a" * 200_000)
