"""The executor's checks before every call (diagnosis.engine.policy): pure, no database."""

from datetime import UTC, datetime

import pytest

from diagnosis.engine import policy
from diagnosis.registry import ServerEntry
from reasoning.observations import PlannedCall, ToolInfo

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
ENTRY = ServerEntry(
    name="logs",
    transport="stdio",
    command=("python",),
    tools=frozenset({"search_logs"}),
    tenants=frozenset({"acme"}),
)
TOOL = ToolInfo(
    "logs",
    "search_logs",
    "",
    {},
    is_read_only=True,
    is_destructive=False,
    is_idempotent=True,
)
SCOPES = frozenset({"incidents:write"})


def _check(
    arguments=None, *, tool="search_logs", tenant="acme", scopes=SCOPES, budget=None
):
    return policy.check_call(
        PlannedCall("logs", "logs", tool, arguments or {"service": "checkout"}),
        tool=TOOL if tool == "search_logs" else None,
        entry=ENTRY,
        tenant=tenant,
        granted_scopes=scopes,
        budget=budget or policy.Budget(max_calls=10, deadline=100.0),
        now=0.0,
        wall_now=NOW,
    )


def test_an_allowed_call_within_every_limit_passes():
    assert _check({"service": "checkout", "start": "now-1h", "limit": 200}) is None


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"tool": "drop_tables"}, "not_allowed"),
        ({"tenant": "globex"}, "tenant_forbidden"),
        ({"scopes": frozenset({"incidents:read"})}, "scope_missing"),
        ({"arguments": {"limit": 5000}}, "argument_limit"),
        ({"arguments": {"limit": float("inf")}}, "argument_limit"),
        ({"arguments": {"start": "now-3d"}}, "argument_limit"),
        (
            {
                "arguments": {
                    "start": "2026-11-29T00:00:00Z",
                    "end": "2026-12-01T00:00:00Z",
                }
            },
            "argument_limit",
        ),
        ({"arguments": {"query": "x" * 5000}}, "argument_limit"),
        (
            {"budget": policy.Budget(max_calls=1, deadline=100.0, calls=1)},
            "budget_exhausted",
        ),
        ({"budget": policy.Budget(max_calls=9, deadline=2.0, reserve=3.0)}, "deadline"),
    ],
)
def test_a_call_outside_the_policy_is_refused_with_its_reason(kwargs, code):
    refusal = _check(**kwargs)
    assert refusal is not None and refusal.code == code and refusal.message


def test_a_bool_is_not_a_row_count_and_unreadable_times_are_left_to_the_server():
    assert _check({"limit": True, "start": "yesterday-ish"}) is None


def test_budget_restart_counts_from_now_within_the_task_deadline():
    budget = policy.Budget(max_calls=5, deadline=10.0, task_deadline=50.0)
    budget.restart(30.0, 120.0)
    assert budget.deadline == 50.0
    budget.restart(0.0, 20.0)
    assert budget.deadline == 20.0
