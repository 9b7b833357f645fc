"""A back end out of space because something keeps data for a reader that stopped reading
(`space_holders`): the line naming the holder, logged hours before the window, is cited.

Names and wordings are invented.
"""

import pytest

from reasoning.layered.facts import Facts
from reasoning.layered.space_holders import (
    HOLDER,
    exhausted_services,
    lookback,
)
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    logged,
    run_with_schemas,
)

FULL = 'FATAL: could not extend file "base/16384/2201": No space left on device'
RELAYED = "PUT /ledger/881 500: upstream ledger-db answered ERROR: could not extend file: No space left on device"


class _Searches(World):
    """Answers every-service searches by whether the query names a back end's retention."""

    def __init__(self, answers, holder_lines):
        super().__init__(answers)
        self.holder_lines = holder_lines

    def answer(self, call, span_id):
        query = str(call.arguments.get("query") or "")
        if (
            call.tool == "search_logs"
            and not call.arguments.get("service")
            and "retain" in query
        ):
            self.answers[("search_logs", "")] = {"lines": self.holder_lines}
        elif call.tool == "search_logs" and not call.arguments.get("service"):
            self.answers[("search_logs", "")] = {"lines": []}
        return super().answer(call, span_id)


def _world(holder_lines):
    return _Searches(
        {
            ("service_health", "till-api"): health("till-api", "unhealthy", FAILING),
            ("top_errors", "till-api"): logged(
                "till-api", errors=[group(RELAYED, count=300)]
            ),
            ("top_errors", "ledger-db"): logged(
                "ledger-db", errors=[group(FULL, count=9)]
            ),
        },
        holder_lines,
    )


def _line(service, time, message, level="warn"):
    return {
        "service": service,
        "time": time,
        "level": level,
        "message": message,
        "labels": {},
    }


def test_words_of_something_kept_for_a_reader_that_stopped():
    assert HOLDER.search(
        "subscription audit_feed on ledger-db INACTIVE, retaining 61 GB"
    )
    assert HOLDER.search("standby ledger-db-2 replay stopped; slot active: false")
    assert HOLDER.search("snapshot snap-77 orphaned, holding 300 GiB")
    assert not HOLDER.search("checkpoint complete: wrote 812 buffers")


def test_the_lookback_stretches_the_window_back_under_six_hours():
    stretched = lookback(
        {"start": "2030-01-01T10:00:00Z", "end": "2030-01-01T11:00:00.5Z"}
    )
    assert stretched["start"] == "2030-01-01T05:01:00Z"
    assert stretched["end"] == "2030-01-01T11:00:00.5Z"
    assert lookback({"start": "now-1h", "end": "now"}) == {
        "start": "now-1h",
        "end": "now",
    }


@pytest.mark.rule("board.space-holders")
def test_a_full_back_end_cites_the_monitor_line_naming_what_it_retains():
    world = _world(
        [
            _line(
                "db-watch",
                "2030-01-01T08:10:00Z",
                "ledger-db: publication slot audit_feed inactive, retaining 61 GB of log",
            ),
            _line(
                "db-watch",
                "2030-01-01T04:10:00Z",
                "ledger-db: publication slot audit_feed inactive, retaining 40 GB of log",
            ),
        ]
    )

    _, _, report = run_with_schemas(
        world, incident("till-api", title="tills failing"), names=NO_NETCHECK
    )

    assert report.top.id == "application:ledger-db"
    facts = [e.fact for e in report.top.evidence]
    assert any("audit_feed inactive, retaining 61 GB" in f for f in facts), facts
    searched = [
        a for t, a in world.arguments if t == "search_logs" and "retain" in a["query"]
    ]
    assert searched and searched[0]["start"] < "2030-01-01T10:00:00Z"


@pytest.mark.rule("board.space-holders")
def test_a_caller_quoting_the_exhaustion_is_no_holder_and_no_exhausted_back_end():
    world = _world(
        [
            _line("till-api", "2030-01-01T10:30:00Z", RELAYED, level="error"),
            _line(
                "db-watch",
                "2030-01-01T10:31:00Z",
                "ledger-db: autovacuum of table ledger.entries done",
            ),
        ]
    )

    inv, _, report = run_with_schemas(
        world, incident("till-api", title="tills failing"), names=NO_NETCHECK
    )

    assert exhausted_services(Facts.read(inv.observations)) == ["ledger-db"]
    top = report.top
    assert not any("retain" in e.fact for e in top.evidence)
    assert not any("autovacuum" in e.fact for e in top.evidence)


@pytest.mark.timeout(60)
def test_a_huge_line_is_read_in_linear_time():
    text = "ledger-db " + "retain " * 30000 + "x" * 200000
    assert HOLDER.search(text[:4000])
