"""A provider that paused our account (`account_paused`): the callers' account-level refusals and
the provider's own status line make the provider the http-layer fault. Names and wordings invented.
"""

import pytest

from reasoning.layered.account_paused import PAUSED
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    lines,
    logged,
    run_with_schemas,
)

REFUSED = "sms to +44… failed: AccountSuspended: messaging is suspended for this account (code 30044)"
STATUS = "textly account AC-5521: messaging suspended (reason: complaint rate 4.1%)"


def _world(status_line):
    return World(
        {
            ("service_health", "otp-sender"): health(
                "otp-sender", "unhealthy", FAILING
            ),
            ("top_errors", "otp-sender"): logged(
                "otp-sender", errors=[group(REFUSED, count=300)]
            ),
            ("service_health", "textly-feed"): health("textly-feed", "healthy"),
            ("top_errors", "textly-feed"): logged(
                "textly-feed", errors=[group(status_line, count=1)]
            ),
            ("search_logs", ""): lines(),
        }
    )


def test_account_level_pauses_and_suspensions_are_recognised():
    assert PAUSED.search("MessageRejected: Sending paused for this account.")
    assert PAUSED.search("account 77 status: SUSPENDED")
    assert not PAUSED.search("consumer paused partition 3 for rebalance")


@pytest.mark.rule("board.account-paused")
def test_a_provider_stating_the_account_suspended_is_the_http_fault_not_its_callers():
    _, _, report = run_with_schemas(
        _world(STATUS),
        incident("otp-sender", "sign-in codes not arriving; textly-feed involved"),
        names=NO_NETCHECK,
    )

    assert report.top.id == "http:textly-feed"
    assert report.top.status == "confirmed"
    facts = " ".join(e.fact for e in report.top.evidence)
    assert "suspended for this account" in facts and "complaint rate" in facts


@pytest.mark.rule("board.account-paused")
def test_without_the_providers_own_status_line_no_provider_is_blamed():
    _, _, report = run_with_schemas(
        _world("textly daily report: 1200 messages delivered"),
        incident("otp-sender", "sign-in codes not arriving; textly-feed involved"),
        names=NO_NETCHECK,
    )

    assert not any(h.id == "http:textly-feed" for h in report.hypotheses)


@pytest.mark.timeout(60)
def test_a_huge_line_is_read_in_bounded_time():
    text = "account " * 30000 + "x" * 200000
    assert not PAUSED.search(text[:4000])
