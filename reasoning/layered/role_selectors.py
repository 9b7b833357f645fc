"""A Service that sends writes to read-only replicas: its selector leaves out the role label.

A replicated store (Redis with Sentinel, PostgreSQL under Patroni or an operator, MongoDB, MySQL
group replication) marks its pods by role (`redis-role=master`, `spilo-role=replica`,
`role=primary`), and the Service writers use must select the primary's role too. When a chart or
a hand edit drops that label from the selector, the Service balances over every member: the
writes that land on a replica are refused (`READONLY You can't write against a read only replica`,
`cannot execute INSERT in a read-only transaction`, `not master`, `NotWritablePrimary`). The
callers are loud and every pod is healthy; the fault is the Service's selector (connect layer).
So when a service's new errors say a write reached a read-only replica, a Service (not headless)
whose selected pods differ in a role label its selector leaves out is the cause, and the refused
callers are its victims.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.kubernetes.kubectl import Table, selects
from reasoning.layered.unread_services import every_service_errors

READ_ONLY: Final = re.compile(
    r"\bREADONLY\b|ReadOnlyError|read[ -]only replica|in a read-only transaction|"
    r"\bnot (?:the )?(?:master|primary)\b|NotWritablePrimary|NotMaster(?:NoSlaveOk)?\b|"
    r"--read-only option|read_only\b.{0,40}\brefus",
    re.IGNORECASE,
)
# A label whose value says a member's role in a replicated store.
ROLE_VALUES: Final = frozenset(
    {
        "master",
        "primary",
        "leader",
        "writer",
        "replica",
        "slave",
        "secondary",
        "standby",
        "follower",
        "reader",
    }
)
_CONFIRMED: Final = 0.9
_HEAD: Final = 4000


def role_selectors(board: Board) -> None:
    """Writes refused by a read-only replica while a Service (not headless) selects pods that differ in a role label its selector leaves out blame that Service's selector (connect): the refused callers are its victims."""
    if board.cluster is None:
        return
    refusals = [
        (errors, group)
        for _, errors in every_service_errors(board.inv, board.facts)
        for group in (*errors.groups, *errors.warnings)
        if not group.is_stale and READ_ONLY.search(group.text[:_HEAD])
    ]
    if not refusals:
        return
    cluster = board.cluster.cluster
    for (kind, ns), table in sorted(cluster.tables.items()):
        if kind != "services":
            continue
        for row in table.rows:
            name = row.get("NAME", "")
            if not name or row.get("CLUSTER-IP", "").lower() == "none":
                continue
            selector = cluster.service_selector(ns, name) or {}
            pods = [
                p
                for p in cluster.pods(ns)
                if p.labels is not None and selects(selector, p.labels)
            ]
            mixed = _mixed_role(selector, [p.labels or {} for p in pods])
            if mixed is None:
                continue
            _blame(board, ns, name, table, mixed, refusals)
            return


def _mixed_role(
    selector: dict[str, str], labels: list[dict[str, str]]
) -> tuple[str, list[str]] | None:
    """(key, values) of a role label the selected pods differ in and the selector leaves out."""
    if len(labels) < 2:
        return None
    keys = {k for own in labels for k in own} - set(selector)
    for key in sorted(keys):
        values = sorted({own.get(key, "") for own in labels})
        roles = [v for v in values if v.lower() in ROLE_VALUES]
        if len(values) > 1 and len(roles) == len(values):
            return key, values
    return None


def _blame(
    board: Board,
    ns: str,
    name: str,
    table: Table,
    mixed: tuple[str, list[str]],
    refusals: list[tuple[Errors, ErrorGroup]],
) -> None:
    """The Service's candidate, confirmed by its row, its members' labels and the refusals."""
    assert board.cluster is not None
    key, values = mixed
    c = board.get(
        layers.CONNECT,
        f"service/{name}",
        f"service {name} selects every member of the store ({key}={'/'.join(values)}): its "
        f"selector leaves out {key}, so writes land on read-only replicas and are refused",
    )
    c.stage, c.reason = "service_routing", "SelectorMatchesReplicas"
    c.cite(table.obs, f"get services -n {ns}: {table.line(name)}")
    pods = board.cluster.cluster.table("pods", ns)
    if pods is not None:
        c.cite(
            pods.obs, f"get pods -n {ns}: members labelled {key}={', '.join(values)}"
        )
    refused: set[str] = set()
    for errors, group in refusals[:3]:
        c.cite(errors.obs, errors.fact(group))
        refused.add(errors.service)
    c.status = "confirmed"
    c.confidence = max(c.confidence, _CONFIRMED)
    c.keywords = [layers.CONNECT, "service", "selector", key, name, "read only"]
    first_errors, first = refusals[0]
    c.chain = [
        board.symptom(),
        f"{first_errors.service}: {(first.sample or first.signature)[:140]}",
        c.statement,
    ]
    why = f"a symptom of {c.id} (its writes reach read-only replicas)"
    for other in list(board.candidates.values()):
        if (
            other is not c
            and other.layer == layers.APPLICATION
            and (
                other.component in refused
                or other.component.partition("/")[2] in refused
            )
        ):
            other.explained_by(c, why)
