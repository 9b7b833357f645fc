"""Causes a workload's own failures point past (issue 21 classes 1 and 4), with invented names:

- a change that raised a replica ceiling, while the workload's new replicas are refused database
  connection slots, is the cause (the autoscaler when one is listed), the crash loop its symptom
  (`connection_ceiling`);
- a NetworkPolicy applied recently that restricts a service's egress with no port 53, while the
  service's own log lines (no pod logs) show failed lookups, is the DNS cause, the external names
  its victims (`policy_lookups`).
"""

import pytest

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.connection_ceiling import (
    NO_SLOTS,
    connection_ceiling,
    raised_ceiling,
)
from reasoning.layered.facts import Change, Facts
from reasoning.layered.policy_lookups import policy_lookups, reads
from reasoning.observations import (
    IncidentBrief,
    Investigation,
    Observation,
    PlannedCall,
)
from tests.reasoning.kubernetes.answers import answer, table
from tests.reasoning.test_warnings_and_changes import group, lines, logged

NS = "ledger"
REFUSED = "org.postgresql.util.PSQLException: FATAL: sorry, too many clients already"


def _logs(tool, arguments, result, span):
    return Observation(
        span_id=span,
        agent="logs",
        server="logs",
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
    )


def _inv(service, *observations):
    brief = IncidentBrief(
        title=f"{service} pods not ready",
        service=service,
        severity="sev2",
        symptoms=(),
        window_start="2031-05-04T09:00:00Z",
        window_end="2031-05-04T10:00:00Z",
    )
    return Investigation(incident=brief, tools=[], observations=list(observations))


def _board(inv):
    return Board(inv, Facts.read(inv.observations))


# --- a replica ceiling raised past the database's connection slots ----------------------------


def _change(message):
    return _logs(
        "search_logs",
        {"query": "change"},
        lines(("flux", "2031-05-04T08:40:00Z", message)),
        "c1",
    )


def _ceiling_world(change_message, refused=REFUSED):
    return [
        _logs(
            "top_errors",
            {"service": "ledger-api"},
            logged("ledger-api", errors=[group(refused, count=60)]),
            "e1",
        ),
        _change(change_message),
        answer(
            "get_resources",
            {"kind": "horizontalpodautoscalers", "namespace": NS},
            table(
                (
                    "NAME",
                    "REFERENCE",
                    "TARGETS",
                    "MINPODS",
                    "MAXPODS",
                    "REPLICAS",
                    "AGE",
                ),
                (
                    "ledger-api",
                    "Deployment/ledger-api",
                    "cpu: 88%/65%",
                    "6",
                    "48",
                    "48",
                    "2y",
                ),
            ),
        ),
    ]


RAISE = (
    "kustomization apps applied (CHG-77 ledger-api maxReplicas 16 -> 48): "
    "horizontalpodautoscaler.autoscaling/ledger-api configured"
)


def test_a_raised_ceiling_and_refused_slots_are_recognised():
    def change(text):
        return Change(
            Observation("x", "logs", "logs", "search_logs", {}, True),
            None,
            "flux",
            text,
            False,
        )

    assert raised_ceiling(change(RAISE))
    assert raised_ceiling(change("set max capacity of ledger-api from 10 to 30"))
    assert not raised_ceiling(change("ledger-api maxReplicas 48 -> 16"))  # lowered
    assert not raised_ceiling(change("ledger-api image 1.2.0 -> 1.3.0"))  # no ceiling
    for text in (
        REFUSED,
        "FATAL: remaining connection slots are reserved for non-replication superuser connections",
        "ERROR 1040 (08004): Too many connections",
    ):
        assert NO_SLOTS.search(text), text
    assert not NO_SLOTS.search("connection refused (ledger-db:5432)")


@pytest.mark.rule("board.connection-ceiling")
def test_a_raised_ceiling_whose_new_replicas_get_no_slots_is_the_cause():
    board = _board(_inv("ledger-api", *_ceiling_world(RAISE)))
    crash = board.get(
        layers.APPLICATION,
        "deployment/ledger-api",
        "containers crash (CrashLoopBackOff)",
    )
    crash.status, crash.confidence = "confirmed", 0.94

    connection_ceiling(board)

    c = board.candidates["application:horizontalpodautoscaler/ledger-api"]
    assert c.status == "confirmed" and c.confidence > 0.94
    cited = " ".join(e.fact for e in c.evidence)
    assert "maxReplicas 16 -> 48" in cited and "too many clients" in cited
    assert "48   48" in cited or "48 48" in cited
    assert crash.status == "likely" and crash.confidence <= 0.4


@pytest.mark.rule("board.connection-ceiling")
def test_a_lowered_ceiling_or_another_refusal_is_not_blamed():
    for change, refused in (
        (RAISE.replace("16 -> 48", "48 -> 16"), REFUSED),
        (RAISE, "connection refused (ledger-db:5432)"),
    ):
        board = _board(_inv("ledger-api", *_ceiling_world(change, refused)))
        connection_ceiling(board)
        assert "application:horizontalpodautoscaler/ledger-api" not in board.candidates


# --- a new egress policy without DNS ------------------------------------------------------------

LOOKUP = '{"level":"error","msg":"fx quote failed","err":"getaddrinfo EAI_AGAIN rates.fxvendor.example"}'
DENY = """Name:         egress-lockdown
Namespace:    ledger
Labels:       change=SECOPS-31
Spec:
  PodSelector:     <none> (Allowing the specific traffic to all pods in this namespace)
  Not affecting ingress traffic
  Allowing egress traffic:
    <none> (Selected pods are isolated for egress connectivity)
  Policy Types: Egress
"""


def _policy_world(age="14m", describe=DENY):
    observations = [
        _logs(
            "top_errors",
            {"service": "fx-quoter"},
            logged("fx-quoter", errors=[group(LOOKUP, count=90)]),
            "e1",
        ),
        answer(
            "get_resources",
            {"kind": "pods", "namespace": NS, "wide": True, "show_labels": True},
            table(
                ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS"),
                (
                    "fx-quoter-6f7d8c9b5-h2k4m",
                    "1/1",
                    "Running",
                    "0",
                    "3d",
                    "10.4.1.7",
                    "n-1",
                    "app=fx-quoter",
                ),
            ),
        ),
        answer(
            "get_resources",
            {"kind": "networkpolicies", "namespace": NS},
            table(
                ("NAME", "POD-SELECTOR", "AGE"),
                ("allow-ingress-gw", "app=fx-quoter", "2y"),
                ("egress-lockdown", "<none>", age),
            ),
        ),
    ]
    if describe is not None:
        observations.append(
            answer(
                "describe",
                {"kind": "networkpolicy", "name": "egress-lockdown", "namespace": NS},
                describe,
            )
        )
    return observations


def _call(tool, arguments, why):
    return PlannedCall("kubernetes", "kubernetes", tool, dict(arguments), why)


def test_the_young_policy_over_the_failing_pods_is_described():
    inv = _inv("fx-quoter", *_policy_world(describe=None))
    calls = reads(inv, Facts.read(inv.observations), _call)
    assert [(c.tool, c.arguments["name"]) for c in calls if c] == [
        ("describe", "egress-lockdown")
    ]
    old = _inv("fx-quoter", *_policy_world(age="400d", describe=None))
    assert not reads(old, Facts.read(old.observations), _call)


@pytest.mark.rule("board.policy-lookups")
def test_a_new_egress_policy_without_dns_is_the_cause_of_the_failed_lookups():
    board = _board(_inv("fx-quoter", *_policy_world()))
    name = board.get(layers.DNS, "rates.fxvendor.example", "DNS resolution fails")
    name.status, name.confidence = "confirmed", 0.8

    policy_lookups(board)

    c = board.candidates["dns:networkpolicy/egress-lockdown"]
    assert c.status == "confirmed" and c.confidence > 0.8
    cited = " ".join(e.fact for e in c.evidence)
    assert "EAI_AGAIN" in cited and "no egress rule to port 53" in cited
    assert name.status == "likely" and name.confidence <= 0.4


@pytest.mark.rule("board.policy-lookups")
def test_a_policy_that_lets_dns_out_or_an_old_one_is_not_blamed():
    admitting = DENY.replace(
        "    <none> (Selected pods are isolated for egress connectivity)\n",
        "    To Port: 53/UDP\n    To Port: 53/TCP\n    To:\n      NamespaceSelector: name=kube-system\n",
    )
    for world in (_policy_world(describe=admitting), _policy_world(age="400d")):
        board = _board(_inv("fx-quoter", *world))
        policy_lookups(board)
        assert "dns:networkpolicy/egress-lockdown" not in board.candidates


@pytest.mark.timeout(60)
def test_the_ceiling_and_policy_readers_stay_linear_on_hostile_input():
    huge = "maxReplicas 1 -> 2 " * 20_000 + "too many clients " * 20_000
    board = _board(
        _inv(
            "ledger-api",
            *_ceiling_world(huge, huge),
            answer(
                "get_resources",
                {"kind": "networkpolicies", "namespace": NS},
                "x " * 100_000,
            ),
            answer(
                "pod_logs",
                {"pod": "ledger-api-1", "namespace": NS},
                "too many clients\n" * 50_000,
            ),
        )
    )
    connection_ceiling(board)
    policy_lookups(board)
    NO_SLOTS.search("remaining connection slots " * 40_000)


@pytest.mark.rule("board.connection-ceiling")
def test_a_raised_task_ceiling_without_an_autoscaler_listing_blames_the_workload():
    world = [
        _logs(
            "top_errors",
            {"service": "invoice-worker"},
            logged(
                "invoice-worker",
                errors=[group("ERROR 1040 (08004): Too many connections", count=80)],
            ),
            "e1",
        ),
        _change(
            "terraform apply: aws_appautoscaling_target.invoice-worker max_capacity 12 -> 40 "
            "(invoice-worker service scaling) configured"
        ),
    ]
    board = _board(_inv("invoice-worker", *world))

    connection_ceiling(board)

    c = board.candidates["application:invoice-worker"]
    assert c.status == "confirmed"
    assert "max_capacity 12 -> 40" in " ".join(e.fact for e in c.evidence)


@pytest.mark.rule("board.policy-lookups")
def test_go_style_lookup_timeouts_under_a_new_deny_policy_blame_it():
    go = "dial tcp: lookup hooks.partner.example on 10.96.0.10:53: read udp 10.4.1.7:40112->10.96.0.10:53: i/o timeout"
    world = _policy_world()
    world[0] = _logs(
        "top_errors",
        {"service": "fx-quoter"},
        logged("fx-quoter", errors=[group(go, count=40)]),
        "e1",
    )
    board = _board(_inv("fx-quoter", *world))

    policy_lookups(board)

    assert board.candidates["dns:networkpolicy/egress-lockdown"].status == "confirmed"
