"""A log source that speaks for one managed resource names the hypothesis by that resource
(`resource_names`). Names and wordings invented."""

from types import SimpleNamespace

import pytest

from reasoning import layers
from reasoning.layered.candidates import Candidate
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.resource_names import resource_names, resource_of
from reasoning.observations import Observation

OBS = Observation("0" * 16, "logs", "logs", "top_errors", {}, True)
GATEWAY_LINE = "egw-shop-west2 (vnet-core-west2): SNAT port exhaustion, flow to 192.0.2.9:443 dropped"


def _errors(source, *lines):
    return Errors(
        OBS, source, (), tuple(ErrorGroup(ln, ln, 5, before=0) for ln in lines)
    )


def _board(source, *lines):
    c = Candidate(layers.CONNECT, source, f"{source} drops flows")
    return SimpleNamespace(
        facts=SimpleNamespace(errors={source: _errors(source, *lines)}),
        candidates={c.id: c},
    )


@pytest.mark.rule("board.resource-names")
def test_a_source_whose_lines_all_open_with_one_resource_is_named_by_it():
    board = _board("managed-egw", GATEWAY_LINE, GATEWAY_LINE.replace("443", "8443"))

    resource_names(board)

    (c,) = board.candidates.values()
    assert c.id == "connect:egw-shop-west2"
    assert {"managed-egw", "vnet-core-west2"} <= set(c.keywords)


@pytest.mark.rule("board.resource-names")
def test_several_resources_own_name_replicas_or_unrelated_words_keep_the_source_name():
    several = _board(
        "managed-egw",
        GATEWAY_LINE,
        GATEWAY_LINE.replace("egw-shop-west2", "egw-shop-east1"),
    )
    replica = _board("ledger-db", "ledger-db-0: too many connections for role app")
    unrelated = _board("managed-egw", "retry-budget: spent 40 of 40 retries, giving up")
    plain = _board("managed-egw", "SNAT port exhaustion, flow dropped")

    for board in (several, replica, unrelated, plain):
        before = set(board.candidates)
        resource_names(board)
        assert set(board.candidates) == before


@pytest.mark.timeout(60)
@pytest.mark.rule("board.resource-names")
def test_huge_and_malformed_lines_are_read_in_bounded_time():
    huge = "egw-" + "a-" * 500_000 + ": x"
    assert resource_of(_errors("managed-egw", huge)) is None
    assert resource_of(_errors("managed-egw", "\x00\xff" * 100_000)) is None
    assert resource_of(_errors("managed-egw")) is None
