"""A DNS record edited to a new address just before its callers fail to connect there (issue 21
classes 1 and 4), with invented names: the record is the DNS fault, the name's connect failure its
symptom (`dns_repointed.repointed_records`). The edits here are more than half an hour before the
first failure, out of reach of `board.changes`' re-layering: the address decides."""

import pytest

from reasoning.layered.dns_repointed import _CHANGE, parse_edit, search_pattern
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    logged,
    run_with_schemas,
)

LEDGER_REFUSED = (
    "post of journal 4410 failed: java.net.ConnectException: Connect to "
    "ledger.quillmark.internal:9443 [ledger.quillmark.internal/10.8.31.44] failed: "
    "Connection refused"
)
TILES_TIMEOUT = (
    'tile fetch failed: Get "https://tiles.orbitmaps.net/z/4/7.png": dial tcp '
    "172.20.9.13:443: connect: connection timed out"
)


def _lines(*entries):
    return {
        "lines": [
            {"service": s, "time": t, "level": lvl, "message": m, "labels": {}}
            for s, t, lvl, m in entries
        ]
    }


def _world(caller, failure, *entries):
    return World(
        {
            ("service_health", caller): health(caller, "unhealthy", FAILING),
            ("top_errors", caller): logged(
                caller,
                errors=[group(failure, count=60, first_seen="2030-01-01T10:12:00Z")],
            ),
            ("search_logs", ""): _lines(*entries),
        }
    )


def _run(world, service):
    _, _, report = run_with_schemas(
        world, incident(service, "journals are not posted"), names=NO_NETCHECK
    )
    return report


@pytest.mark.rule("board.repointed-record")
def test_an_ipam_edit_to_the_address_callers_are_refused_at_is_the_dns_fault():
    world = _world(
        "journal-sync",
        LEDGER_REFUSED,
        (
            "ipam",
            "2030-01-01T09:35:00Z",
            "info",
            "audit: user k.mbeki modified A record ledger.quillmark.internal: "
            "10.8.13.44 -> 10.8.31.44 (CHG-77 rack move)",
        ),
    )

    report = _run(world, "journal-sync")

    searched = [a["query"] for t, a in world.arguments if t == "search_logs"]
    assert any("ledger\\.quillmark\\.internal" in q and "record" in q for q in searched)
    assert report.top.id == "dns:ledger.quillmark.internal"
    assert report.top.status == "confirmed" and report.conclusive
    assert "10.8.13.44 to 10.8.31.44" in report.top.statement  # an edit 37 min before
    facts = " ".join(e.fact for e in report.top.evidence)
    assert "modified A record ledger.quillmark.internal" in facts
    leaf = next(
        (h for h in report.hypotheses if h.id == "connect:ledger.quillmark.internal"),
        None,
    )
    assert leaf is None or (leaf.status == "likely" and leaf.confidence <= 0.4)


@pytest.mark.rule("board.repointed-record")
def test_a_change_set_moving_a_record_where_connects_time_out_is_the_dns_fault():
    world = _world(
        "map-render",
        TILES_TIMEOUT,
        (
            "dns-pipeline",
            "2030-01-01T09:20:00Z",
            "info",
            "change set 5521 applied: UPSERT tiles.orbitmaps.net A from 172.20.19.13 "
            "to 172.20.9.13",
        ),
    )

    report = _run(world, "map-render")

    assert report.top.id == "dns:tiles.orbitmaps.net"


def test_an_edit_elsewhere_after_the_failures_or_a_failed_edit_is_no_record_fault():
    other_address = _world(
        "journal-sync",
        LEDGER_REFUSED,
        (
            "ipam",
            "2030-01-01T09:35:00Z",
            "info",
            "modified A record ledger.quillmark.internal: 10.8.31.44 -> 10.8.31.45",
        ),
    )
    later = _world(
        "journal-sync",
        LEDGER_REFUSED,
        (
            "ipam",
            "2030-01-01T10:30:00Z",
            "info",
            "modified A record ledger.quillmark.internal: 10.8.13.44 -> 10.8.31.44",
        ),
    )
    failed = _world(
        "journal-sync",
        LEDGER_REFUSED,
        (
            "ipam",
            "2030-01-01T09:35:00Z",
            "error",
            "could not modify A record ledger.quillmark.internal: 10.8.13.44 -> "
            "10.8.31.44: permission denied",
        ),
    )
    another_name = _world(
        "journal-sync",
        LEDGER_REFUSED,
        (
            "ipam",
            "2030-01-01T09:35:00Z",
            "info",
            "modified A record vault.quillmark.internal: 10.8.13.44 -> 10.8.31.44",
        ),
    )
    for world in (other_address, later, failed, another_name):
        report = _run(world, "journal-sync")
        assert all(h.id != "dns:ledger.quillmark.internal" for h in report.hypotheses)


def test_an_edit_is_read_from_arrows_to_and_old_new_pairs():
    names = ["ledger.quillmark.internal"]
    assert parse_edit(
        "A record ledger.quillmark.internal: 10.0.0.1 -> 10.0.0.2", names
    ) == ("ledger.quillmark.internal", "10.0.0.1", "10.0.0.2")
    assert parse_edit(
        "record updated name=ledger.quillmark.internal old=10.0.0.1 new=10.0.0.9", names
    ) == ("ledger.quillmark.internal", "10.0.0.1", "10.0.0.9")
    assert (
        parse_edit("ledger.quillmark.internal moved 10.0.0.1 -> 10.0.0.2", names)
        is None
    )
    assert (
        parse_edit("A record ledger.quillmark.internal: 10.0.0.1 -> 10.0.0.1", names)
        is None
    )
    assert "ledger\\.quillmark\\.internal" in search_pattern(names)


@pytest.mark.timeout(60)
def test_hostile_lines_are_read_in_linear_time():
    names = ["ledger.quillmark.internal"]
    for hostile in (
        "A record " + "10.0.0.1 " * 50_000,
        "record " + "1." * 100_000 + " -> 10.0.0.1",
        "record old=" + "10.0.0.1 " * 50_000 + " new",
        "record ledger.quillmark.internal " + "-" * 200_000,
    ):
        parse_edit(hostile, names)
        _CHANGE.search(hostile)
