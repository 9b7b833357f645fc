"""A route repointed at the wrong Service: a change set a route rule's backend to another Service, which fails the requests it now gets.

Rule: a change line that sets the backend of a route object's rule (a Gateway API HTTPRoute or
GRPCRoute `backendRefs[…].name`, an Ingress's `backend.service.name`, a VirtualService's
`destination.host`: `old -> new`), after which the new backend answers the requests it now gets
with failures (404, no route, 5xx in its own lines, or in the gateway's access lines for that
route), makes the route the fault at the HTTP layer (`HTTPRouteWrongBackend`), not the new
backend, which only answers requests it was never meant to serve, nor the old one, left idle. The
planner searches every service's lines for the route's name once the change is in view, for the
gateway's access lines (Envoy Gateway names a route's cluster `httproute/<ns>/<name>/rule/<n>`).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.reading import short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

_ROUTE: Final = re.compile(
    r"\b(HTTPRoute|GRPCRoute|TLSRoute|TCPRoute|Ingress|VirtualService|IngressRoute)s?\b"
    r"[\s:/]+(?:([a-z0-9][a-z0-9-]*)/)?([a-z0-9][a-z0-9.-]*[a-z0-9])",
    re.IGNORECASE,
)
_BACKEND: Final = re.compile(
    r"(?:rules\[(\d+)\][\w.\[\]]*?)?"
    r"(?:backendRefs?\[\d+\]\.name|backend(?:\.service)?\.name|service\.name|destination\.host"
    r"|serviceName|backend|service)[\"']?\s*[:=]?\s*[\"']?([a-z0-9][a-z0-9.-]*)[\"']?"
    r"\s*(?:->|=>|→)\s*[\"']?([a-z0-9][a-z0-9.-]*[a-z0-9])",
    re.IGNORECASE,
)
# A failed answer in a line: a 404 or 5xx status, or the words of a server with no handler.
_FAILED: Final = re.compile(
    r"(?:response_code|status|code)[\"']?\s*[:=]\s*[\"']?(?:404|5\d\d)\b|\s(?:404|5\d\d)\s"
    r"|\bno route\b|\bnot found\b|\bno handler\b",
    re.IGNORECASE,
)
_CONFIDENCE: Final = 0.92
SEARCH_LIMIT: Final = 20


@dataclass(frozen=True)
class Repoint:
    """A change line that set a route rule's backend from `old` to `new`."""

    obs: Observation
    service: str  # who logged the change
    message: str
    kind: str  # httproute, ingress …
    namespace: str
    name: str
    rule: str
    old: str
    new: str

    @property
    def component(self) -> str:
        return f"{self.kind}/{self.name}"

    @property
    def query(self) -> str:
        """A regex for the gateway's lines about the route (its cluster or route name)."""
        named = re.escape(self.name)
        if self.namespace:
            return f"{self.kind}/{re.escape(self.namespace)}/{named}/"
        return f"{self.kind}/[a-z0-9-]+/{named}/"


def _search_lines(inv: Investigation) -> list[tuple[Observation, dict[str, Any]]]:
    out: list[tuple[Observation, dict[str, Any]]] = []
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or not isinstance(obs.result, dict):
            continue
        for line in obs.result.get("lines") or []:
            if isinstance(line, dict):
                out.append((obs, line))
    return out


def repointed(inv: Investigation) -> list[Repoint]:
    """The change lines that set a route's backend to another Service, one per route."""
    out: dict[str, Repoint] = {}
    for obs, line in _search_lines(inv):
        message = str(line.get("message") or "")[:4000]
        level = str(line.get("level") or "").lower()
        if level in ("error", "fatal", "critical"):
            continue
        route = _ROUTE.search(message)
        if route is None:
            continue
        change = _BACKEND.search(message, route.end())
        if change is None or change.group(2) == change.group(3):
            continue
        kind = route.group(1).lower()
        r = Repoint(
            obs,
            str(line.get("service") or ""),
            message,
            kind,
            (route.group(2) or "").lower(),
            route.group(3).lower(),
            change.group(1) or "",
            change.group(2).lower(),
            change.group(3).lower(),
        )
        out.setdefault(r.component, r)
    return list(out.values())


def searches(
    inv: Investigation,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, Any],
) -> list[PlannedCall | None]:
    """Every service's lines naming a repointed route (the gateway's access lines), once each."""
    asked = {
        str(o.arguments.get("query")) for o in inv.observations if o.tool == SEARCH_LOGS
    }
    calls: list[PlannedCall | None] = []
    for r in repointed(inv)[:2]:
        if r.query in asked:
            continue
        calls.append(
            call(
                SEARCH_LOGS,
                {**window, "query": r.query, "regex": True, "limit": SEARCH_LIMIT},
                f"a change set {r.component}'s backend {r.old} -> {r.new}: what the gateway "
                "logs for that route",
            )
        )
    return calls


def route_backend(board: Board) -> None:
    """A change that set a route rule's backend to another Service, which then fails the requests it gets (404, no route, 5xx), makes the route the fault at the HTTP layer, not the backend that answers requests never meant for it."""
    for r in repointed(board.inv):
        failed = _failing(board, r)
        if not failed:
            continue
        statement = (
            f"{r.component} sends "
            + (f"rule {r.rule}'s " if r.rule else "its ")
            + f"requests to {r.new} instead of {r.old} (changed by {r.service or 'a change'}: "
            f"{short(r.message, 120)}); {r.new} fails them ({short(failed[0][1], 120)})"
        )
        c = board.get(layers.HTTP, r.component, statement)
        if c.status == "ruled_out":
            continue
        for obs, fact in failed[:3]:
            c.cite(obs, fact)
        c.cite(
            r.obs, f"search_logs: {r.service} logs a change: {short(r.message, 240)}"
        )
        c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
        c.stage, c.reason = "service_routing", "HTTPRouteWrongBackend"
        c.chain = [
            board.symptom(),
            f"{r.service} logs a change: {short(r.message, 140)}",
            f"{r.new} fails the requests: {short(failed[0][1], 140)}",
            c.statement,
        ]
        c.keywords = [r.kind, r.name, "backend", r.new, r.old]
        for other in board.candidates.values():
            if other is c or other.status == "ruled_out":
                continue
            if other.component in (r.new, r.old) or other.component.endswith(
                (f"/{r.new}", f"/{r.old}")
            ):
                other.explained_by(
                    c, f"{r.component} sends it requests meant for {r.old}"
                )


def _failing(board: Board, r: Repoint) -> list[tuple[Observation, str]]:
    """What shows the route's requests failing: the gateway's lines for the route with a failed
    status, then the new backend's own failing groups."""
    out: list[tuple[Observation, str]] = []
    route = re.compile(r.query, re.IGNORECASE)
    for obs, line in _search_lines(board.inv):
        message = str(line.get("message") or "")[:4000]
        if route.search(message) and _FAILED.search(message):
            out.append((obs, f"{line.get('service') or 'gateway'} logs: {message}"))
            break
    errors = board.facts.errors.get(r.new)
    if errors is not None:
        for g in (*errors.groups, *errors.warnings):
            if _FAILED.search(g.sample or g.signature):
                out.append((errors.obs, errors.fact(g)))
                break
    return out
