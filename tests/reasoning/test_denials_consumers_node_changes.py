"""Issue 21: a policy or identity that denies a caller outranks the caller
(reasoning/layered/denied_access.py); a consumer the broker cut off is the fault whatever its health
(reasoning/layered/stopped_consumer.py); a host setting changed on one node blames the node
(reasoning/layered/quiet_changes.py); a node agent's pod belongs to its DaemonSet
(reasoning/layered/kubernetes).

Names and wordings are invented: a ledger behind a mesh policy, a warehouse job's cloud role, an
order-events consumer on a NATS-like broker, a sysctl pushed by a config tool to one worker.
"""

import pytest

from reasoning import layers
from reasoning.layered import denied_access as denials
from reasoning.layered.candidates import Board
from reasoning.layered.denied_access import denied_access, identity_named, policy_named
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.nodes import control_plane_faults
from reasoning.layered.kubernetes_findings import kubernetes_findings
from reasoning.layered.quiet_changes import SEARCH as CHANGES
from reasoning.layered.quiet_changes import follow_query, quiet_changes
from reasoning.layered.stopped_consumer import stopped_consumer
from reasoning.observations import IncidentBrief, Investigation, Observation
from tests.reasoning.kubernetes.answers import answer, table

_BRIEF = IncidentBrief(
    title="settlements stuck",
    service="settlements",
    severity="sev2",
    symptoms=(),
    window_start="2030-01-01T10:00:00Z",
    window_end="2030-01-01T11:00:00Z",
)


def _errors(service, *samples, warnings=(), before=0):
    def groups(texts):
        return [
            {"sample": s, "signature": s, "count": 5, "before": before} for s in texts
        ]

    return Observation(
        span_id=f"e-{service}",
        agent="a",
        server="logs-mcp",
        tool="top_errors",
        arguments={"service": service, "baseline_s": 3600},
        is_ok=True,
        result={"top": groups(samples), "warnings": groups(warnings)},
        text="",
    )


def _search(query, *lines, span="s-1"):
    return Observation(
        span_id=span,
        agent="a",
        server="logs-mcp",
        tool="search_logs",
        arguments={"query": query, "regex": True},
        is_ok=True,
        result={
            "lines": [
                {"service": s, "time": t, "level": "info", "message": m, "labels": {}}
                for s, t, m in lines
            ]
        },
    )


def _board(*observations):
    inv = Investigation(incident=_BRIEF, tools=(), observations=list(observations))
    return Board(inv, Facts.read(inv.observations))


@pytest.mark.rule("board.denied-access")
def test_a_mesh_policy_narrowed_before_the_denials_is_the_cause_not_the_denied_caller():
    board = _board(
        _errors(
            "ledger-sync",
            "boot check failed: GET http://ledger.core:9000/v2/balances returned 403 Forbidden: RBAC: access denied",
        ),
        _search(
            denials.SEARCH,
            (
                "flux",
                "2030-01-01T07:40:00Z",
                "reconciled: security.istio.io/v1 AuthorizationPolicy core/ledger-readers configured",
            ),
        ),
    )
    caller = board.get(layers.APPLICATION, "ledger-sync", "ledger-sync fails")
    caller.confidence, caller.status = 0.6, "likely"
    denied_access(board)
    c = board.candidates[f"{layers.HTTP}:ledger-readers"]
    assert c.status == "confirmed" and c.confidence >= 0.9
    assert {e.span_id for e in c.evidence} == {"e-ledger-sync", "s-1"}
    assert caller.confidence <= 0.4 and "denied by" in caller.statement


@pytest.mark.rule("board.denied-access")
def test_a_cloud_denial_names_the_role_not_the_host_and_cites_the_profile_swap():
    board = _board(
        _errors(
            "warehouse-loader",
            "AccessDeniedException: User: arn:aws:sts::111122223333:assumed-role/batch-shared-role/i-0abc "
            "is not authorized to perform: dynamodb:Query on resource: arn:aws:dynamodb:eu-north-1:111122223333:table/stock",
        ),
        _search(
            denials.SEARCH,
            (
                "pulumi",
                "2030-01-01T09:20:00Z",
                'update loader-vm: iam_instance_profile "loader-profile" => "batch-shared-profile"',
            ),
            span="s-2",
        ),
    )
    denied_access(board)
    c = board.candidates[f"{layers.HTTP}:batch-shared-role"]
    assert c.status == "confirmed" and c.confidence >= 0.9
    assert "s-2" in {e.span_id for e in c.evidence}
    assert not [k for k in board.candidates if "amazonaws" in k or "arn:" in k]


@pytest.mark.rule("board.denied-access")
def test_a_denial_with_no_identity_and_no_policy_change_blames_nothing():
    board = _board(
        _errors("portal", "GET /admin 403 Forbidden: access denied for user 8812"),
        _search(denials.SEARCH),
    )
    denied_access(board)
    assert not [c for c in board.candidates.values() if c.layer == layers.HTTP]


def test_policy_and_identity_names():
    assert policy_named("AuthorizationPolicy pay/fx-allow configured") == "fx-allow"
    assert (
        policy_named("PR #9 merged: pay/fx-allow.yaml: principals a -> b") == "fx-allow"
    )
    assert identity_named("assumed-role/web-tier/i-1 is not authorized") == "web-tier"
    assert (
        identity_named("principal cluster.local/ns/pay/sa/payout-api") == "payout-api"
    )


@pytest.mark.rule("board.stopped-consumer")
def test_a_consumer_whose_channel_the_broker_closed_is_the_fault_above_louder_services():
    board = _board(
        _errors(
            "order-events",
            "subscriber error: channel closed by server: 406 PRECONDITION_FAILED - delivery acknowledgement on channel 3 timed out",
            warnings=["channel closed; consumer stopped"],
        ),
        _errors(
            "mq-broker",
            warnings=[
                "Consumer ctag-77 on channel 3 has timed out waiting for a consumer acknowledgement"
            ],
        ),
        _errors("storefront", "order 7781 status lookup failed: 404 from order-api"),
    )
    loud = board.get(layers.APPLICATION, "storefront", "storefront fails")
    loud.confidence, loud.status = 0.55, "likely"
    stopped_consumer(board)
    c = board.candidates[f"{layers.APPLICATION}:order-events"]
    assert c.status == "confirmed" and c.confidence > loud.confidence
    assert {e.span_id for e in c.evidence} == {"e-order-events", "e-mq-broker"}


@pytest.mark.rule("board.stopped-consumer")
def test_several_consumers_cut_off_at_once_or_an_old_cut_blame_no_consumer():
    cut = "channel closed by server: connection forced"
    board = _board(_errors("a-worker", cut), _errors("b-worker", cut))
    stopped_consumer(board)
    assert not [c for c in board.candidates.values() if c.status == "confirmed"]
    board = _board(_errors("c-worker", cut, before=4))
    stopped_consumer(board)
    assert "application:c-worker" not in board.candidates


def _nodes(*names):
    return answer(
        "get_resources",
        {"kind": "nodes", "namespace": "default", "wide": True},
        table(
            ("NAME", "STATUS", "ROLES", "AGE"),
            *((n, "Ready", "<none>", "90d") for n in names),
        ),
    )


@pytest.mark.rule("board.quiet-changes")
def test_a_host_setting_changed_on_one_node_blames_the_node_and_cites_its_agents_warning():
    change = (
        "salt",
        "2030-01-01T09:40:00Z",
        "state sysctl.present changed on [pool-b-03]: vm.overcommit_memory 0 -> 2 (file /etc/sysctl.d/50-hardening.conf)",
    )
    first = [
        _nodes("pool-b-01", "pool-b-02", "pool-b-03"),
        _errors(
            "node-agent",
            warnings=[
                "pool-b-03: vm.overcommit_memory = 2, allocations over the commit limit will fail"
            ],
        ),
        _search(CHANGES, change, span="s-c"),
    ]
    inv = Investigation(incident=_BRIEF, tools=(), observations=first)
    follow = follow_query(inv)
    assert follow is not None
    touched = (
        "node-agent",
        "2030-01-01T09:45:00Z",
        "pool-b-03: vm.overcommit_memory = 2, allocations over the commit limit will fail",
    )
    board = _board(*first, _search(follow, touched, span="s-f"))
    kubernetes_findings(board)
    quiet_changes(board)
    c = board.candidates[f"{layers.PLATFORM}:node/pool-b-03"]
    assert c.status == "confirmed" and c.confidence >= 0.9
    assert {"s-c", "e-node-agent"} <= {e.span_id for e in c.evidence}


def _system_pods(labels):
    return answer(
        "get_resources",
        {
            "kind": "pods",
            "namespace": "kube-system",
            "wide": True,
            **({"show_labels": True} if labels else {}),
        },
        table(
            ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"),
            (
                "kube-proxy-q7wz2",
                "0/1",
                "CrashLoopBackOff",
                "12",
                "2h",
                "10.1.0.7",
                "w-2",
            ),
            ("kube-proxy-m4xt9", "1/1", "Running", "0", "9d", "10.1.0.6", "w-1"),
        ),
    )


@pytest.mark.rule("k8s.control-plane")
def test_a_node_agents_pod_with_no_owner_listed_belongs_to_its_daemon_set():
    cluster = Cluster.read([_system_pods(labels=False)])
    found = control_plane_faults(cluster)
    assert [f.component for f in found] == ["daemonset/kube-proxy"]


@pytest.mark.rule("board.denied-access")
@pytest.mark.rule("board.stopped-consumer")
@pytest.mark.timeout(60)
def test_hostile_denials_and_consumer_lines_stay_fast():
    huge = "403 " + "forbidden " * 40_000 + "assumed-role/" + "r" * 100_000
    board = _board(
        _errors("x", huge, "consumer " * 50_000 + "stopped"),
        _search(
            denials.SEARCH,
            ("y", "2030-01-01T09:00:00Z", "AuthorizationPolicy " * 30_000),
        ),
    )
    denied_access(board)
    stopped_consumer(board)
    assert (
        policy_named("policy/" * 50_000) is None
        or len(policy_named("policy/" * 50_000)) < 70
    )
    assert len(denials.SEARCH) <= 500


@pytest.mark.rule("board.denied-access")
def test_a_role_denied_with_no_change_to_its_grants_in_view_is_left_to_other_rules():
    board = _board(
        _errors(
            "nightly-export",
            "ClientError: AccessDenied: User: arn:aws:sts::1:assumed-role/export-role/s is not "
            "authorized to perform: s3:PutObject on resource: arn:aws:s3:::exports/x",
        ),
        _search(denials.SEARCH),
    )
    denied_access(board)
    assert f"{layers.HTTP}:export-role" not in board.candidates
