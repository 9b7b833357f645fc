"""Issue 21 classes 1 and 4: a cluster controller that refuses to act at a cap, or keeps disrupting
and rolling others' workloads, is the platform fault; the workloads that fail are its victims
(reasoning/layered/controller_actions.py). Names are invented."""

import re

import pytest

from reasoning import layers
from reasoning.layered import controller_actions, controller_objects
from reasoning.layered.candidates import Board
from reasoning.layered.controller_actions import SEARCH
from reasoning.layered.facts import Facts
from reasoning.observations import Investigation, Observation
from tests.reasoning.test_planner import incident
from tests.reasoning.test_warnings_and_changes import group, logged


def _obs(span, tool, arguments, result):
    return Observation(
        span_id=span,
        agent="t",
        server="logs" if tool != "get_resources" else "kubernetes",
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
    )


def _searched(*entries):
    """The every-service search's answer: (service, time, level, message)."""
    return _obs(
        "s9",
        "search_logs",
        {"query": SEARCH, "regex": True},
        {
            "lines": [
                {"service": s, "time": t, "level": lv, "message": m, "labels": {}}
                for s, t, lv, m in entries
            ]
        },
    )


def _board(*observations, victim=0.92, error="upstream timed out"):
    brief = incident("quote-api", "quotes are slow")
    inv = Investigation(incident=brief, tools=())
    inv.observations.extend(
        [
            _obs(
                "s1",
                "top_errors",
                {"service": "quote-api"},
                logged("quote-api", errors=[group(error, count=90)]),
            ),
            *observations,
        ]
    )
    board = Board(inv, Facts.read(inv.observations))
    c = board.get(layers.PLATFORM, "deployment/quote-api", "pods pending")
    c.confidence, c.stage, c.reason = victim, "scheduling", "FailedScheduling"
    c.cite(
        _obs("s2", "get_resources", {"kind": "events"}, {}),
        "Warning FailedScheduling pod/quote-api-1: 0/4 nodes are available: 4 Insufficient pods",
    )
    return board


CAP = "Cluster-wide node ceiling: max total nodes in cluster reached: 40"


@pytest.mark.rule("board.controller-actions")
def test_a_controller_at_its_cap_is_the_fault_and_the_pending_workload_its_victim():
    board = _board(
        _searched(("fleet-scaler", "2030-01-01T10:20:00Z", "warn", CAP)),
    )

    controller_actions.controller_actions(board)

    top = board.ranked()[0]
    assert (top.layer, top.component) == (layers.PLATFORM, "fleet-scaler")
    assert top.confidence == pytest.approx(0.9)
    assert any("max total nodes in cluster reached" in e.fact for e in top.evidence)
    victim = board.candidates[f"{layers.PLATFORM}:deployment/quote-api"]
    assert victim.confidence <= 0.4 and "fleet-scaler" in victim.statement


@pytest.mark.rule("board.controller-actions")
def test_repeated_disruptions_of_a_node_controller_blame_it():
    lines = [
        (
            "node-shuffler",
            f"2030-01-01T10:{m:02d}:00Z",
            "info",
            f"disrupting nodeclaim(s) via replace, terminating 1 nodes (5 pods) n-{m}",
        )
        for m in (12, 19, 26)
    ]
    board = _board(_searched(*lines), victim=0.86)

    controller_actions.controller_actions(board)

    top = board.ranked()[0]
    assert top.component == "node-shuffler" and top.stage == "runtime"


@pytest.mark.rule("board.controller-actions")
def test_one_decision_without_a_cap_or_a_failing_service_own_lines_do_not_blame():
    # One rolling update is routine; the failing service's own "switchover" lines are its own.
    board = _board(
        _searched(
            ("db-keeper", "2030-01-01T10:20:00Z", "info", "performing rolling update"),
            ("quote-api", "2030-01-01T10:21:00Z", "warn", "switchover detected"),
            ("quote-api", "2030-01-01T10:22:00Z", "warn", "switchover detected"),
        )
    )

    controller_actions.controller_actions(board)

    assert board.ranked()[0].component == "deployment/quote-api"
    assert f"{layers.PLATFORM}:db-keeper" not in board.candidates


@pytest.mark.rule("board.controller-actions")
def test_the_search_is_asked_once_and_only_when_the_cluster_was_read():
    brief = incident("quote-api")
    inv = Investigation(incident=brief, tools=())
    window = {"start": "2030-01-01T10:00:00Z", "end": "2030-01-01T11:00:00Z"}

    def call(tool, arguments, why):
        return (tool, arguments["query"])

    assert controller_actions.searches(inv, call, window) == []
    inv.observations.append(_obs("s1", "get_resources", {"kind": "pods"}, {}))
    assert controller_actions.searches(inv, call, window) == [("search_logs", SEARCH)]
    inv.observations.append(_searched())
    assert controller_actions.searches(inv, call, window) == []


@pytest.mark.rule("board.controller-actions")
@pytest.mark.timeout(60)
def test_huge_and_malformed_lines_are_read_safely():
    junk = [
        ("x" * 50, "not a time", None, "max " + "a" * 100_000 + " reached"),
        ("", "", "info", "disrupting"),
        ("fleet-scaler", None, "warn", None),
    ] * 300
    board = _board(
        _obs(
            "s9",
            "search_logs",
            {"query": SEARCH, "regex": True},
            {
                "lines": [
                    {"service": s, "time": t, "level": lv, "message": m}
                    for s, t, lv, m in junk
                ]
                + ["not a dict", 7]
            },
        )
    )

    controller_actions.controller_actions(board)

    assert board.ranked()


# board.controller-objects: a controller's repeated error naming the object it skips.
SKIPPED = (
    'risky annotation in ingress configuration, skipping ingress="retail/promo-web"'
)


def _errors_board(message, count):
    brief = incident("promo-web", "promo pages 404")
    inv = Investigation(incident=brief, tools=())
    inv.observations.append(
        _obs(
            "s1",
            "top_errors",
            {"service": "edge-router"},
            logged("edge-router", errors=[group(message, count=count)]),
        )
    )
    board = Board(inv, Facts.read(inv.observations))
    board.get(
        layers.APPLICATION, "edge-router", "edge-router logs errors"
    ).confidence = 0.88
    return board


@pytest.mark.rule("board.controller-objects")
def test_the_object_a_controllers_repeated_error_names_is_the_fault():
    board = _errors_board(SKIPPED, 14)

    controller_objects.controller_objects(board)

    top = board.ranked()[0]
    assert (top.layer, top.component) == (layers.CONNECT, "ingress/promo-web")
    assert any("skipping ingress" in e.fact for e in top.evidence)
    assert board.candidates[f"{layers.APPLICATION}:edge-router"].confidence <= 0.4


@pytest.mark.rule("board.controller-objects")
def test_a_single_line_or_a_key_that_is_no_kind_does_not_blame():
    assert controller_objects.named_object('user="retail/alice" denied') is None
    board = _errors_board(SKIPPED, 1)

    controller_objects.controller_objects(board)

    assert board.ranked()[0].component == "edge-router"


@pytest.mark.rule("board.controller-objects")
@pytest.mark.timeout(60)
def test_a_huge_line_is_read_safely():
    board = _errors_board('ingress="' + "a/" * 200_000 + '"', 5)

    controller_objects.controller_objects(board)

    assert board.ranked()


@pytest.mark.rule("board.controller-actions")
def test_a_dependency_the_errors_name_at_its_cap_is_not_a_controller():
    board = _board(
        _searched(
            ("rate-store", "2030-01-01T10:20:00Z", "warn", "max connections reached")
        ),
        error="GET http://rate-store/v1/rates failed: 503",
    )

    controller_actions.controller_actions(board)

    assert f"{layers.PLATFORM}:rate-store" not in board.candidates


# A cap is a controller's only when it is on what the controller acts on; a node group it names is
# the capped resource.
GROUP_CAP = "Skipping node group ng-render-0417 - max size reached (current: 3, max: 3)"
NOT_TRIGGERED = (
    "Pod render/q-81 is unschedulable; pod didn't trigger scale-up: "
    "1 max node group size reached"
)


@pytest.mark.rule("board.controller-actions")
def test_a_cap_line_naming_a_node_group_blames_the_group_with_the_controller_as_context():
    assert all(
        re.search(SEARCH, m, re.IGNORECASE) for m in (GROUP_CAP, NOT_TRIGGERED, CAP)
    )
    board = _board(
        _searched(
            ("fleet-scaler", "2030-01-01T10:19:00Z", "info", GROUP_CAP),
            ("fleet-scaler", "2030-01-01T10:20:00Z", "warn", NOT_TRIGGERED),
            ("fleet-scaler", "2030-01-01T10:21:00Z", "warn", NOT_TRIGGERED),
        )
    )

    controller_actions.controller_actions(board)

    top = board.ranked()[0]
    assert (top.layer, top.component) == (layers.PLATFORM, "ng-render-0417")
    assert top.confidence == pytest.approx(0.9) and top.stage == "scheduling"
    assert "fleet-scaler" in top.statement
    assert any("ng-render-0417" in e.fact for e in top.evidence)
    assert any("Insufficient pods" in e.fact for e in top.evidence)
    assert f"{layers.PLATFORM}:fleet-scaler" not in board.candidates


@pytest.mark.rule("board.controller-actions")
def test_a_cap_that_names_no_group_blames_the_controller():
    # "max node group size reached" names the kind, not a group: the controller is the fault.
    board = _board(
        _searched(("fleet-scaler", "2030-01-01T10:20:00Z", "warn", NOT_TRIGGERED))
    )

    controller_actions.controller_actions(board)

    assert board.ranked()[0].component == "fleet-scaler"


@pytest.mark.rule("board.controller-actions")
def test_a_service_logging_its_own_cap_is_not_a_controller():
    # A sidecar at its connection cap and a mailer throttled at its sending rate, repeatedly, by
    # services that log no errors: each refuses its own work, neither acts on other objects.
    own = [
        (
            "db-tunnel",
            f"2030-01-01T10:{m:02d}:00Z",
            "warn",
            "[acme:eu:ledger-db] max connections reached (10), waiting for a connection to close",
        )
        for m in (11, 12, 13)
    ] + [
        (
            "notifier",
            f"2030-01-01T10:{m:02d}:00Z",
            "warn",
            "SendRawEmail throttled: Maximum sending rate exceeded, retry in 30s",
        )
        for m in (14, 15)
    ]
    assert not any(re.search(SEARCH, m, re.IGNORECASE) for *_, m in own)
    board = _board(_searched(*own))

    controller_actions.controller_actions(board)

    assert board.ranked()[0].component == "deployment/quote-api"
    assert f"{layers.PLATFORM}:db-tunnel" not in board.candidates
    assert f"{layers.PLATFORM}:notifier" not in board.candidates


@pytest.mark.rule("board.controller-actions")
@pytest.mark.timeout(60)
def test_a_huge_group_cap_line_is_read_safely():
    board = _board(
        _searched(
            (
                "fleet-scaler",
                "2030-01-01T10:20:00Z",
                "warn",
                "node group " + "g-" * 100_000 + " - max size reached",
            ),
            ("fleet-scaler", "2030-01-01T10:21:00Z", "warn", "node pool " * 50_000),
        )
    )

    controller_actions.controller_actions(board)

    assert board.ranked()
