"""Blame on the graph of what is new (issue 21 items 3 and 4): the deepest service with a new fault of its own is the root cause.

Every service whose logs were read is a node; a log message new since the window started (error or
warn level, absent from the baseline before it) either names another service (a relay of that
callee's failure: an edge caller → callee), says its client gave up on it (the caller's deadline, not
its own fault), or is the service's own. A service with an own new message whose relays point to no
callee with an own fault of its own is a root cause; the callers quoting it are its victims. A caller
whose callee's only new messages say the client gave up is the root itself: its own deadline cut the
call. This runs only when no other rule left a hypothesis standing, so it never displaces one.

Confidence follows how much of the failure it explains and how direct its evidence is (class 5): a
cause-like own message (an exception, a named cause, no symptom words) quoted by the callers that
fail is confirmed; a message no caller quotes, or one that reads as a symptom, is a lead only.
"""

import re
from dataclasses import dataclass, field

from reasoning import layers
from reasoning.layered.candidates import Board, dependency_services
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import APP_ERROR, short
from reasoning.layered.warning_leads import CAUSE, names_service

# A callee's words that its caller gave up on the request: the deadline was the caller's.
CLIENT_GAVE_UP = re.compile(
    r"client (?:cancel+ed|closed|disconnected|went away|gave up|aborted)|"
    r"context cancel+ed|cancel+ed by (?:the )?(?:client|caller)",
    re.IGNORECASE,
)
# Words of a symptom (waiting, a deadline, a server error answered): not a cause by themselves.
SYMPTOM = re.compile(
    r"time(?:d)? ?out|deadline|not ready|did not respond|no response|unavailable|"
    r"\b5\d\d\b|retry|retrying",
    re.IGNORECASE,
)
# An exception or error class named in the line: what the program itself says went wrong.
_EXCEPTION = re.compile(
    r"\b[A-Za-z][\w.]*(?:Error|Exception|Fault)\b|\b\w+\.(?:errors|exceptions)\.\w+"
)

_CONFIRMED = 0.78  # its own cause, quoted by the callers that fail
_LEAD = 0.5  # its own cause, no caller quoting it
_INDIRECT = 0.35  # its own new message reads as a symptom
_DEADLINE = 0.55  # the caller's own deadline, its callee saying the client gave up


@dataclass
class _Node:
    errors: Errors
    own: list[ErrorGroup] = field(default_factory=list)
    relays: dict[str, ErrorGroup] = field(default_factory=dict)  # callee → the line
    gave_up: ErrorGroup | None = None

    @property
    def service(self) -> str:
        return self.errors.service


def is_direct(group: ErrorGroup) -> bool:
    """An own message reads as a cause when it names an exception or a cause, or has no symptom words."""
    text = group.text
    return bool(
        _EXCEPTION.search(text)
        or CAUSE.search(text)
        or APP_ERROR.search(text)
        or not SYMPTOM.search(text)
    )


def _node(errors: Errors, others: list[str]) -> _Node:
    node = _Node(errors)
    for group in (*errors.groups, *errors.warnings):
        if not group.is_new:
            continue
        if CLIENT_GAVE_UP.search(group.text):
            node.gave_up = node.gave_up or group
            continue
        callee = next((s for s in others if names_service(group.text, s)), None)
        if callee is not None:
            node.relays.setdefault(callee, group)
        else:
            node.own.append(group)
    return node


def new_messages(board: Board) -> None:
    """When no hypothesis stands, the deepest service whose own new log messages relay no callee's fault is the root cause, its quoting callers its victims."""
    if any(c.status != "ruled_out" for c in board.candidates.values()):
        return
    facts = board.facts
    names = [*facts.errors, *facts.health, *dependency_services(board.inv, facts)]
    nodes: dict[str, _Node] = {}
    for service, errors in facts.errors.items():
        others = [n for n in dict.fromkeys(names) if n != service]
        nodes[service] = _node(errors, others)
    found = False
    for node in sorted(nodes.values(), key=lambda n: _rank(n, nodes), reverse=True):
        if node.own and not any(nodes[c].own for c in node.relays if c in nodes):
            _root(board, node, _victims(node.service, nodes))
            found = True
    if found:
        return
    for node in nodes.values():
        for callee, line in node.relays.items():
            gave_up = nodes[callee].gave_up if callee in nodes else None
            if gave_up is not None and not nodes[callee].own:
                _deadline(board, node, line, nodes[callee], gave_up)


def _victims(service: str, nodes: dict[str, _Node]) -> list[_Node]:
    return [n for n in nodes.values() if service in n.relays]


def _best(node: _Node) -> ErrorGroup:
    """Its own new message that says most: a cause before a symptom, errors before warnings, then the most lines."""
    return max(
        node.own,
        key=lambda g: (is_direct(g), g not in node.errors.warnings, g.count),
    )


def _rank(node: _Node, nodes: dict[str, _Node]) -> tuple[int, bool, bool, int]:
    if not node.own:
        return (0, False, False, 0)
    best = _best(node)
    return (
        len(_victims(node.service, nodes)),
        is_direct(best),
        best not in node.errors.warnings,
        best.count,
    )


def _level(node: _Node, group: ErrorGroup) -> str:
    return "warn" if group in node.errors.warnings else "error"


def _root(board: Board, node: _Node, victims: list[_Node]) -> None:
    service = node.service
    best = _best(node)
    direct = is_direct(best)
    first = not any(c.status != "ruled_out" for c in board.candidates.values())
    explained = (
        f"; it explains {', '.join(v.service for v in victims[:3])} failing"
        if victims
        else ""
    )
    c = board.get(
        layers.APPLICATION,
        service,
        f"{service} itself fails: its own log messages, new since the window started, say "
        f"{short(best.sample or best.signature, 100)}{explained}",
    )
    c.cite(node.errors.obs, node.errors.fact(best))
    for victim in victims:
        c.cite(victim.errors.obs, victim.errors.fact(victim.relays[service]))
    if direct and victims and first:
        c.status, c.confidence = "confirmed", _CONFIRMED
    else:
        c.status = "likely"
        c.confidence = (_LEAD if direct else _INDIRECT) - (0 if first else 0.15)
    line = f"{service} logs ({_level(node, best)}, new): {short(best.sample or best.signature, 120)}"
    called = [
        f"{v.service} fails calling {service}: {short(v.relays[service].sample, 100)}"
        for v in victims[:2]
    ]
    c.chain = [board.symptom(), *called, line, c.statement]
    c.keywords = [service, *c.keywords[1:]]


def _deadline(
    board: Board, node: _Node, line: ErrorGroup, callee: _Node, gave_up: ErrorGroup
) -> None:
    service = node.service
    c = board.get(
        layers.APPLICATION,
        service,
        f"{service} itself cuts its calls to {callee.service}: its new errors say it gave up "
        f"({short(line.sample or line.signature, 100)}) while {callee.service} logs only that "
        "its client cancelled",
    )
    c.cite(node.errors.obs, node.errors.fact(line))
    c.cite(callee.errors.obs, callee.errors.fact(gave_up))
    c.status, c.confidence = "likely", _DEADLINE
    c.chain = [
        board.symptom(),
        f"{service} logs (new): {short(line.sample or line.signature, 120)}",
        f"{callee.service} logs (new): {short(gave_up.sample or gave_up.signature, 120)}",
        c.statement,
    ]
    c.keywords = [service, callee.service]
