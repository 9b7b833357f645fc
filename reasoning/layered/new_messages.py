"""Blame on the graph of what is new (issue 21 items 3 and 4): the deepest service with a new fault of its own is the root cause.

Every service whose logs were read is a node; a log message new since the window started (error or
warn level, absent from the baseline before it) either names another service (a relay of that
callee's failure: an edge caller → callee), names a service as the client it limits (a rate limit or
quota "for client X": the client's load is the fault, not the callee's), says its client gave up on
it (the caller's deadline, not its own fault), or is the service's own. A service with an own new
message whose relays point to no callee with an own fault is a root cause; the callers quoting it
are its victims. A caller whose callee has no own fault is the root itself (`client_side`): the
callee names it as the client over its limit, says its client gave up, or logs nothing new and is
healthy by its metrics (the caller refuses the call itself: a breaker held open, a client setting).

The graph's blame competes with the other rules' hypotheses rather than waiting for none to stand
(it runs before `changes`, which then strengthens it): a hypothesis standing on one of its victims
yields to it, and one that explains nothing more than another rule's stays a lead below it.
Confidence follows how much of the failure it explains and how direct its evidence is (class 5): a
cause-like own message (an exception, a named cause, no symptom words) quoted by the callers that
fail is confirmed; a caller's own exception about a quiet, healthy callee is confirmed when its own
metrics fail or callers quote it; a client over its callee's limit is confirmed when the callee's
request rate rose several-fold; a message no caller quotes, or one that reads as a symptom, is a
lead only.
"""

import re
from dataclasses import dataclass, field

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate, dependency_services
from reasoning.layered.facts import ErrorGroup, Errors, Facts, Health
from reasoning.layered.reading import (
    APP_ERROR,
    OWN_SLOW_WORK,
    about_dependency,
    as_dict,
    error_classes,
    short,
)
from reasoning.layered.warning_leads import CAUSE, names_service

# A callee's words that its caller gave up on the request: the deadline was the caller's.
CLIENT_GAVE_UP = re.compile(
    r"client (?:cancel+ed|closed|disconnected|went away|gave up|aborted)|"
    r"context cancel+ed|cancel+ed by (?:the )?(?:client|caller)",
    re.IGNORECASE,
)
# A callee's words that a client is over what it may ask: its load, not the callee, is the fault.
_LIMITED = re.compile(
    r"rate[ -]?limit|quota|too many requests|\b429\b|throttl|limit \S+ exceeded|exceeded",
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
_DEADLINE = 0.55  # the caller's own doing, its callee saying so or showing no fault
_LOAD_RISE = 3.0  # the callee's request rate over its start: its clients ask far more
_FAILING = ("degraded", "unhealthy")
_NETWORK = {
    layers.DNS,
    layers.CONNECT,
    layers.TLS,
}  # a path fault, not the caller's doing


@dataclass
class _Node:
    errors: Errors
    own: list[ErrorGroup] = field(default_factory=list)
    relays: dict[str, ErrorGroup] = field(default_factory=dict)  # callee → the line
    gave_up: ErrorGroup | None = None
    # caller → the line that names it as the client over a limit (its load is the fault)
    clients: dict[str, ErrorGroup] = field(default_factory=dict)

    @property
    def service(self) -> str:
        return self.errors.service

    @property
    def quiet(self) -> bool:
        """No new message of its own at all: nothing in its logs says it fails."""
        return not (self.own or self.relays or self.gave_up or self.clients)


def is_direct(group: ErrorGroup) -> bool:
    """An own message reads as a cause when it names an exception or a cause, its own slow work (a
    slow query or handler, a query plan) or has no symptom words; a client's symptom of a
    dependency it calls (its driver's exception, a statement or server-selection timeout, a
    callee's timing) never does: the dependency's evidence decides."""
    text = group.text
    if about_dependency(text):
        return False
    return bool(
        _EXCEPTION.search(text)
        or CAUSE.search(text)
        or APP_ERROR.search(text)
        or OWN_SLOW_WORK.search(text)
        or not SYMPTOM.search(text)
    )


def names_client(text: str, service: str) -> bool:
    """True when `text` names `service` as the client it limits or refuses (a quota or rate limit for it)."""
    name = re.escape(service.lower())
    lowered = text.lower()
    return bool(
        _LIMITED.search(lowered)
        and re.search(
            rf"\b(?:client|caller|consumer|tenant)[\s=:'\"]+{name}(?![\w-])", lowered
        )
    )


def _node(errors: Errors, others: list[str]) -> _Node:
    node = _Node(errors)
    for group in (*errors.groups, *errors.warnings):
        if not group.is_new:
            continue
        if CLIENT_GAVE_UP.search(group.text):
            node.gave_up = node.gave_up or group
            continue
        client = next((s for s in others if names_client(group.text, s)), None)
        if client is not None:
            node.clients.setdefault(client, group)
            continue
        callee = next((s for s in others if names_service(group.text, s)), None)
        if callee is not None:
            node.relays.setdefault(callee, group)
        else:
            node.own.append(group)
    return node


def graph(facts: Facts, names: list[str]) -> dict[str, _Node]:
    """Every service whose logs were read, its new messages sorted into own, relays, client blame."""
    nodes: dict[str, _Node] = {}
    for service, errors in facts.errors.items():
        others = [n for n in dict.fromkeys(names) if n != service]
        nodes[service] = _node(errors, others)
    return nodes


def roots(nodes: dict[str, _Node]) -> list[_Node]:
    """The services with an own new message whose relays point to no callee with an own fault."""
    return [
        node
        for node in sorted(nodes.values(), key=lambda n: _rank(n, nodes), reverse=True)
        if node.own and not any(nodes[c].own for c in node.relays if c in nodes)
    ]


def client_side(
    nodes: dict[str, _Node], health: dict[str, Health]
) -> list[tuple[_Node, ErrorGroup, _Node, str]]:
    """Callers whose failing calls are their own doing: (caller, its line, callee, why).

    The callee has no fault of its own, and either names the caller as the client over its limit
    (`load`), says its client gave up (`deadline`), or logs nothing new and is healthy by its
    metrics (`quiet`: the caller refuses or breaks the call itself).
    """
    found = []
    for node in nodes.values():
        if node.own:
            continue
        for callee_name, line in node.relays.items():
            callee = nodes.get(callee_name)
            if callee is None or callee.own:
                continue
            if node.service in callee.clients:
                found.append((node, line, callee, "load"))
            elif callee.gave_up is not None:
                found.append((node, line, callee, "deadline"))
            elif (
                callee.quiet
                and _healthy(health.get(callee_name))
                and not error_classes(line.text) & _NETWORK
            ):
                found.append((node, line, callee, "quiet"))
    return found


def new_messages(board: Board) -> None:
    """The deepest service whose own new log messages relay no callee's fault is a root cause, its quoting callers its victims; a caller whose callee has no fault of its own fails by its own doing."""
    facts = board.facts
    standing = [c for c in board.candidates.values() if c.status != "ruled_out"]
    names = [*facts.errors, *facts.health, *dependency_services(board.inv, facts)]
    nodes = graph(facts, names)
    for node in roots(nodes):
        _root(board, node, _victims(node.service, nodes), standing)
    for caller, line, callee, why in client_side(nodes, facts.health):
        victims = _victims(caller.service, nodes)
        _client_side(board, caller, line, callee, why, standing, victims)


def _healthy(health: Health | None) -> bool:
    return health is not None and health.verdict not in _FAILING


def _failing(health: Health | None) -> bool:
    return health is not None and health.verdict in _FAILING


def _settle(
    c: Candidate,
    status: str,
    confidence: float,
    standing: list[Candidate],
    explains: list[str],
) -> None:
    """Give `c` the status its evidence earns; a standing hypothesis it explains (a victim) yields to it.

    A hypothesis another rule made keeps what it had when this says less.
    """
    explained = [o for o in standing if o is not c and o.component in explains]
    for other in explained:
        if other.confidence >= confidence:
            confidence = min(max(confidence, other.confidence + 0.02), 0.9)
            status = "confirmed" if status == "confirmed" else other.status
        other.status, other.confidence = "likely", min(other.confidence, 0.4)
        other.statement += f"; a victim of {c.id}"
    if c.confidence >= confidence and c.status == "confirmed":
        return
    c.status, c.confidence = (
        status,
        max(confidence, c.confidence if c in standing else 0),
    )


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


def _root(
    board: Board, node: _Node, victims: list[_Node], standing: list[Candidate]
) -> None:
    service = node.service
    best = _best(node)
    direct = is_direct(best)
    own_metrics = _failing(board.facts.health.get(service))
    explained = (
        f"; it explains {', '.join(v.service for v in victims[:3])} failing"
        if victims
        else ""
    )
    fresh = f"{layers.APPLICATION}:{service}" not in board.candidates
    c = board.get(
        layers.APPLICATION,
        service,
        f"{service} itself fails: its own log messages, new since the window started, say "
        f"{short(best.sample or best.signature, 100)}{explained}",
    )
    c.cite(node.errors.obs, node.errors.fact(best))
    for victim in victims:
        c.cite(victim.errors.obs, victim.errors.fact(victim.relays[service]))
    if own_metrics and not victims:
        health = board.facts.health[service]
        c.cite(health.obs, health.fact)
    if fresh:
        line = f"{service} logs ({_level(node, best)}, new): {short(best.sample or best.signature, 120)}"
        called = [
            f"{v.service} fails calling {service}: {short(v.relays[service].sample, 100)}"
            for v in victims[:2]
        ]
        c.chain = [board.symptom(), *called, line, c.statement]
        c.keywords = [service, *c.keywords[1:]]
    alone = not [o for o in standing if o is not c]
    explains = [v.service for v in victims]
    if direct and victims:
        _settle(c, "confirmed", _CONFIRMED, standing, explains)
    elif alone or victims:
        _settle(c, "likely", _LEAD if direct else _INDIRECT, standing, explains)
    else:  # another rule stands and this explains nothing more: a lead below it
        lead = (_LEAD if direct else _INDIRECT) - 0.15
        _settle(c, "likely", lead, standing, explains)


_CLIENT_SIDE = {
    "load": "names {caller} as the client over its limit",
    "deadline": "logs only that its client cancelled",
    "quiet": "logs nothing new and is healthy by its metrics",
}


def _client_side(
    board: Board,
    node: _Node,
    line: ErrorGroup,
    callee: _Node,
    why: str,
    standing: list[Candidate],
    victims: list[_Node],
) -> None:
    """The caller's own doing: its new errors name a callee that has no fault of its own."""
    service = node.service
    said = _CLIENT_SIDE[why].format(caller=service)
    fresh = f"{layers.APPLICATION}:{service}" not in board.candidates
    c = board.get(
        layers.APPLICATION,
        service,
        f"{service} itself fails its calls to {callee.service}: its new errors say "
        f"{short(line.sample or line.signature, 100)} while {callee.service} {said}",
    )
    c.cite(node.errors.obs, node.errors.fact(line))
    answer = callee.clients.get(service) if why == "load" else callee.gave_up
    if answer is not None:
        c.cite(callee.errors.obs, callee.errors.fact(answer))
    callee_health = board.facts.health.get(callee.service)
    if why == "quiet" and callee_health is not None:
        c.cite(callee_health.obs, callee_health.fact)
    for victim in victims:
        c.cite(victim.errors.obs, victim.errors.fact(victim.relays[service]))
    if fresh:
        c.chain = [
            board.symptom(),
            f"{service} logs (new): {short(line.sample or line.signature, 120)}",
            f"{callee.service} {said}",
            c.statement,
        ]
        c.keywords = [service, callee.service]
    own_metrics = _failing(board.facts.health.get(service))
    corroborated = (why == "load" and _rate_rose(callee_health)) or (
        why == "quiet" and is_direct(line) and (own_metrics or bool(victims))
    )
    explains = [v.service for v in victims]
    if corroborated:
        _settle(c, "confirmed", _CONFIRMED, standing, explains)
    else:
        _settle(c, "likely", _DEADLINE, standing, explains)


def _rate_rose(health: Health | None) -> bool:
    """The callee's request rate rose several-fold over the window: its clients ask far more."""
    if health is None:
        return False
    signal = as_dict(
        as_dict(as_dict(health.obs.result).get("signals")).get("requests_per_s")
    )
    start, current = signal.get("start"), signal.get("current")
    if not isinstance(start, int | float) or not isinstance(current, int | float):
        return False
    return start > 0 and current >= _LOAD_RISE * start
