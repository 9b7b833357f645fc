"""Changes shortly before the failures began (issue 21 item 4): a deploy, a migration, a config or DNS record edit.

What fails is a subject: a host whose path fails below HTTP, a service with a new cause in its
logs, or a caller the graph of new messages blames for its own failing calls (`blamed`: its callee
shows no fault of its own, so a change of the caller's is what to look for). A release starting and
the values it says it was configured with count as a change (`facts._CHANGE`). The planner searches every service's logs for lines naming the subject and a change word in
the half hour before its first failure (`searches`); a change found there strengthens the subject's
hypothesis, and a DNS record change places the host's failing connects at the DNS layer.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import Change, ErrorGroup, Facts, parse_time
from reasoning.layered.new_messages import client_side, graph
from reasoning.layered.reading import (
    APP_ERROR,
    about_dependency,
    error_classes,
    hosts_in,
    short,
)
from reasoning.layered.warning_leads import CAUSE, names_service

LEAD = timedelta(
    minutes=30
)  # how long before the first failure a change counts as "just before"
# The words of a change, as a RE2 pattern the logs server's regex search takes.
CHANGE_WORDS = (
    r"(deploy|rolled out|rollout|release|upgrad|migrat|config|terraform|helm|"
    r"upsert|record|drop index|alter table|image)"
)
_RELAYERED = (layers.CONNECT, layers.TLS)  # what a wrong DNS record shows as
_PATH = {layers.DNS, layers.CONNECT, layers.TLS}  # a host's fault: searched as the host


@dataclass(frozen=True)
class Subject:
    """Something that fails: a host (its path) or a service, and when its failures began."""

    name: str
    first_failure: datetime


def subjects(facts: Facts, window_start: datetime | None) -> list[Subject]:
    """Hosts a probe or the error lines show failing below HTTP, then services with a new own cause, each with its first failure."""
    found: dict[str, datetime] = {}
    for host, first in _failing_hosts(facts, window_start):
        found.setdefault(host, first)
    for errors in facts.errors.values():
        new = [
            g
            for g in (*errors.groups, *errors.warnings)
            if g.is_new
            and (CAUSE.search(g.text) or APP_ERROR.search(g.text))
            and not about_dependency(g.text)
        ]
        times = [t for g in new if (t := parse_time(g.first_seen)) is not None]
        if times:
            found.setdefault(errors.service, min(times))
    for service, line in blamed(facts):
        began = parse_time(line.first_seen)
        if began is not None:
            found.setdefault(service, began)
    return [Subject(name, first) for name, first in found.items()]


def blamed(facts: Facts) -> list[tuple[str, ErrorGroup]]:
    """Callers the graph of new messages blames for their own failing calls (their callee shows no
    fault of its own), each with its new line: a change of theirs is what to look for."""
    nodes = graph(facts, [*facts.errors, *facts.health])
    return [
        (caller.service, line)
        for caller, line, _, _ in client_side(nodes, facts.health)
        if not error_classes(line.text) & _PATH
    ]


def _failing_hosts(
    facts: Facts, window_start: datetime | None
) -> Iterator[tuple[str, datetime]]:
    named: dict[str, datetime] = {}
    for _, group in facts.error_texts():
        first = parse_time(group.first_seen)
        if first is None:
            continue
        for host in hosts_in(group.text):
            named[host] = min(first, named.get(host, first))
    for probe in facts.probes.values():
        if probe.layer in (layers.DNS, *_RELAYERED):
            first = named.get(probe.host, window_start)
            if first is not None:
                yield probe.host, first
    yield from named.items()


def search_pattern(subject: str) -> str:
    """A regex for lines naming `subject` and a change word, in either order."""
    name = re.escape(subject)
    return f"{name}.*{CHANGE_WORDS}|{CHANGE_WORDS}.*{name}"


def changes(board: Board) -> None:
    """A change recorded shortly before a component's failures began strengthens its hypothesis; a DNS record change re-layers its host's connect failure as dns."""
    facts = board.facts
    starts = {s.name: s.first_failure for s in subjects(facts, None)}
    for change in facts.changes:
        for c in list(board.candidates.values()):
            if c.status == "ruled_out" or not _names(change, c.component):
                continue
            first = starts.get(c.component)
            if change.at is None or (
                first is not None and not first - LEAD <= change.at <= first
            ):
                continue
            if change.is_dns_record and c.layer in _RELAYERED:
                _relayer(board, c, change)
            else:
                _strengthen(c, change)


def _names(change: Change, component: str) -> bool:
    if "." in component:
        return component in hosts_in(change.message)
    return names_service(change.message, component)


def _strengthen(c: Candidate, change: Change) -> None:
    """A change to the component just before it failed is a likely cause: cite it, trust it more."""
    if any(e.fact == change.fact for e in c.evidence):
        return
    c.cite(change.obs, change.fact)
    c.confidence = min(c.confidence + 0.05, 0.97)
    line = f"{c.component} changed just before it failed: {short(change.message, 120)}"
    c.chain = [*c.chain[:-1], line, *c.chain[-1:]] if c.chain else [line]
    c.keywords = [*c.keywords, "change"]


def _relayer(board: Board, failing: Candidate, change: Change) -> None:
    """The host's record was changed just before its connects failed: the fault is the record (dns), the connects its symptom."""
    host = failing.component
    c = board.get(
        layers.DNS,
        host,
        f"the DNS record of {host} was changed just before {failing.layer} to it began failing: "
        "it resolves to a wrong address",
    )
    c.cite(change.obs, change.fact)
    for e in failing.evidence:
        if not any(x.span_id == e.span_id and x.fact == e.fact for x in c.evidence):
            c.evidence.append(e)
            c.sources.add(e.server)
    c.status = "confirmed"
    c.confidence = min(max(failing.confidence, 0.9) + 0.02, 0.97)
    c.chain = [
        *failing.chain[:-1],
        f"{change.service} logs: {short(change.message, 120)}",
        c.statement,
    ]
    c.keywords = [layers.DNS, host, "dns record", "wrong address"]
    failing.status, failing.confidence = "likely", min(failing.confidence, 0.4)
    failing.statement += f"; a symptom of {c.id} (its record changed just before)"
