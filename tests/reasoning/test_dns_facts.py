"""Issue 21: DNS facts a resolver or a record's history states blame the name or zone, not its callers
or the writer (reasoning/layered/dns_facts.py): a cached NXDOMAIN after a record was re-created, a
DNSSEC chain broken by a key rollover, a weighted record set left at weight 0 for one pool.

Names and wordings are invented; the servers' shapes (top_errors with a baseline, search_logs lines
of every service) are their own.
"""

import pytest

from reasoning import layers
from reasoning.layered import dns_facts
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from tests.reasoning.test_host_facts_and_cache_ceiling import _board, _errors, _search


def _top(board: Board):
    standing = [c for c in board.candidates.values() if c.status != "ruled_out"]
    return max(standing, key=lambda c: c.confidence, default=None)


ENOTFOUND = "Error: getaddrinfo ENOTFOUND quotes.int.plover.example path=/q/7"


@pytest.mark.rule("board.negative-cache")
def test_a_cached_nxdomain_blames_the_name_not_the_writer():
    board = _board(
        _errors("pricing-web", ENOTFOUND),
        _search(
            dns_facts.NEGATIVE_SEARCH,
            (
                "knot-resolver",
                {},
                "res-3: quotes.int.plover.example. NXDOMAIN cached from int.plover.example SOA minimum ttl=43200",
                "2030-01-01T10:10:00Z",
            ),
        ),
    )
    writer = board.get(
        layers.DNS,
        "zone-editor",
        "zone-editor deletes the DNS record of quotes.int.plover.example",
    )
    writer.confidence = 0.94
    dns_facts.negative_cache(board)
    top = _top(board)
    assert (top.layer, top.component) == (layers.DNS, "quotes.int.plover.example")
    assert any("ENOTFOUND" in e.fact for e in top.evidence)
    assert writer.confidence <= 0.4


@pytest.mark.rule("board.negative-cache")
def test_a_cached_nxdomain_of_another_name_blames_nothing():
    board = _board(
        _errors("pricing-web", ENOTFOUND),
        _search(
            dns_facts.NEGATIVE_SEARCH,
            (
                "knot-resolver",
                {},
                "old.plover.example. NXDOMAIN cached",
                "2030-01-01T10:10:00Z",
            ),
        ),
    )
    dns_facts.negative_cache(board)
    assert not board.candidates


@pytest.mark.rule("board.dnssec-mismatch")
def test_a_validation_failure_blames_the_zone_a_key_line_names():
    board = _board(
        _errors(
            "probe-runner",
            "lookup www.tansy.example on 9.9.9.9:53: server misbehaving (SERVFAIL)",
        ),
        _errors(
            "validator",
            "validation failure <www.tansy.example. A IN>: no keys have a DS (DS key tag 5511 not in DNSKEY set)",
        ),
        _search(
            "rollover",
            (
                "keyops",
                {},
                "tansy.example KSK rollover: removed key tag 5511",
                "2030-01-01T09:50:00Z",
            ),
        ),
    )
    dns_facts.dnssec_mismatch(board)
    top = _top(board)
    assert (top.layer, top.component) == (layers.DNS, "tansy.example")
    assert any("no keys have a DS" in e.fact for e in top.evidence)


@pytest.mark.rule("board.dnssec-mismatch")
def test_a_servfail_without_a_validation_failure_blames_no_zone():
    board = _board(
        _errors(
            "probe-runner",
            "lookup www.tansy.example on 9.9.9.9:53: server misbehaving (SERVFAIL)",
        ),
    )
    dns_facts.dnssec_mismatch(board)
    assert not board.candidates


WEIGHTS = "weighted records app.kestrel.io: SetIdentifier=ap-south-1 Weight=0, SetIdentifier=us-west-2 Weight=60"


@pytest.mark.rule("board.zero-weight")
def test_a_pool_left_at_weight_zero_that_idles_blames_the_record():
    board = _board(
        _errors(
            "cache",
            "memorystore ap-south-1: connections dropped to 0 (idle)",
            level="warn",
        ),
        _search("weight", ("dns-audit", {}, WEIGHTS, "2030-01-01T10:15:00Z")),
    )
    board.get(layers.APPLICATION, "api-west", "api-west itself fails").confidence = 0.5
    dns_facts.zero_weight(board)
    top = _top(board)
    assert (top.layer, top.component) == (layers.DNS, "app.kestrel.io")
    assert any("SetIdentifier=ap-south-1 Weight=0" in e.fact for e in top.evidence)


@pytest.mark.rule("board.zero-weight")
def test_a_zero_weight_no_symptom_names_blames_nothing():
    board = _board(
        _errors("cache", "memorystore eu-north-1: evictions high", level="warn"),
        _search("weight", ("dns-audit", {}, WEIGHTS, "2030-01-01T10:15:00Z")),
    )
    dns_facts.zero_weight(board)
    assert not board.candidates


def test_the_negative_cache_search_follows_failing_names():
    calls = []
    facts = Facts.read([_errors("pricing-web", ENOTFOUND)])
    dns_facts.searches(
        facts, lambda t, a, w: calls.append(a), {"start": "s", "end": "e"}
    )
    assert [c["query"] for c in calls] == [dns_facts.NEGATIVE_SEARCH]
    calls.clear()
    dns_facts.searches(
        Facts.read([_errors("x", "timeout")]), lambda t, a, w: calls.append(a), {}
    )
    assert not calls


@pytest.mark.timeout(60)
def test_hostile_dns_facts_stay_fast():
    long = (
        "abc " * 50_000
        + "q.example NXDOMAIN cached "
        + "SetIdentifier=x Weight=0 " * 20_000
    )
    board = _board(
        _errors(
            "x", ENOTFOUND * 1000, "validation failure <" + "b." * 50_000 + ">", long
        ),
        _search(dns_facts.NEGATIVE_SEARCH, ("y", {}, long, "")),
        _search("w", ("y", {}, "SetIdentifier=" + "x" * 100_000 + " Weight=0", "")),
    )
    dns_facts.negative_cache(board)
    dns_facts.dnssec_mismatch(board)
    dns_facts.zero_weight(board)
