"""The incident status table (diagnosis.incident_status): pure, checked exhaustively."""

import itertools

import pytest

from diagnosis.incident_status import (
    ALLOWED_STATUS_MOVES,
    status_move_error,
    status_moves,
)
from diagnosis.models import IncidentStatus

ALL = IncidentStatus.values


def test_every_status_has_a_row_and_may_leave_it():
    assert set(ALLOWED_STATUS_MOVES) == set(ALL)
    assert all(ALLOWED_STATUS_MOVES[s] for s in ALL)


@pytest.mark.parametrize(("src", "dst"), list(itertools.product(ALL, ALL)))
def test_a_move_is_refused_exactly_when_the_table_lacks_it(src, dst):
    error = status_move_error(src, dst)
    assert (error is None) == (dst in ALLOWED_STATUS_MOVES[src])
    if src == dst:
        assert error == f"the incident is already {dst}"


def test_the_happy_path_and_a_reopen_are_allowed():
    path = ["triggered", "acknowledged", "mitigated", "resolved", "triggered"]
    assert all(status_move_error(a, b) is None for a, b in itertools.pairwise(path))


def test_an_unknown_status_names_the_statuses():
    assert status_move_error("triggered", "closed") == (
        "must be one of triggered, acknowledged, mitigated, resolved"
    )


def test_moves_are_listed_in_status_order():
    assert status_moves("triggered") == ["acknowledged", "mitigated", "resolved"]
    assert status_moves("resolved") == ["triggered"]
