"""A load balancer that stops waiting for in-flight requests when a target drains: its draining setting, not the back end, is the fault.

When a target leaves a load balancer's pool (a deploy replaces it, a scale-in removes it), the
balancer waits its draining time (an ALB target group's `deregistration_delay`, an ELB's
connection draining, a proxy's drain timeout, a pod's `terminationGracePeriodSeconds`) before it
cuts what is still in flight. Shorter than the requests, it cuts them: the balancer's own lines say
a request failed (502, a reset, a closed connection) because its target was deregistered or
draining, in bursts at each deploy and scale-in, while the back end is healthy between them. The
fault is the balancer's setting, at the HTTP layer: the target group (pool, backend) its lines name,
else the balancer itself; a change line that lowered the setting (`deregistration_delay: "120" =>
"5"`) found by a search of every service's lines corroborates it. Its callers' 502s are the victims.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts
from reasoning.layered.reading import arg, as_dict, as_list, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# A target leaving the pool: deregistered, draining, removed from the target group / upstream.
DRAINED: Final = re.compile(
    r"deregist\w*|\bdrain(?:ed|ing)?\b|connection[ _-]draining|"
    r"removed from (?:the )?(?:target group|pool|upstream|backend)",
    re.IGNORECASE,
)
# A request that did not finish: a 5xx from the balancer, a reset, a closed connection, in flight.
CUT: Final = re.compile(
    r"\b50[234]\b|\breset\b|ConnectionReset|closed (?:the )?connection|"
    r"in[- ]flight|aborted|prematurely",
    re.IGNORECASE,
)
# The balancer's side of it: a gateway status, or its words for what it sends to (an app's own
# "SIGTERM: draining, 12 in-flight requests aborted" is a shutdown, not a balancer's cut).
BALANCER: Final = re.compile(
    r"\b50[234]\b|\btarget|\bupstream|\bbackend|balancer|\b[ae]lb\b", re.IGNORECASE
)
# The pool a balancer's line names: `target_group=x`, `target=x`, `tg=x`, `backend=x`, `upstream=x`.
_POOL: Final = re.compile(
    r"\b(?:target[_ -]?group|target|tg|backend|upstream|pool)\s*[=:]\s*[\"']?"
    r"([A-Za-z][\w.:/-]*[\w])",
)
# A change of the draining setting: `deregistration_delay: "120" => "5"`, `drain_timeout 60 -> 5`.
SETTING_CHANGE: Final = re.compile(
    r"(deregistration[_ .-]?delay|connection[_ -]?draining\w*|drain(?:ing)?[_ -]?timeout\w*|"
    r"termination[_ -]?grace[_ -]?period\w*)[^\n]{0,40}?(?:=>|->|\bto\b\s*\"?\d)",
    re.IGNORECASE,
)
# The search for those changes over every service's lines (RE2, case-insensitive).
SEARCH: Final = (
    r"(deregistration.?delay|connection.?draining|drain(ing)?.?timeout|"
    r"termination.?grace.?period)[^\n]{0,40}(=>|->|\bto\b)"
)
SEARCH_LIMIT: Final = 20
_LEAD: Final = timedelta(
    hours=2
)  # how far before the window a setting's change is looked for
_ALONE: Final = 0.82  # the balancer's own lines say the requests were cut by a drain
_CHANGED: Final = 0.9  # and a change line lowered the draining setting


@dataclass(frozen=True)
class Drained:
    """A balancer's error group saying requests were cut when their target drained."""

    errors: Errors
    group: ErrorGroup
    pool: str  # the target group / pool it names, else the balancer's own service

    @property
    def text(self) -> str:
        return self.group.sample or self.group.signature


def drained(facts: Facts) -> list[Drained]:
    """The error groups (new since the window where a baseline says) of requests cut by a drain."""
    out: list[Drained] = []
    for errors, group in facts.error_texts():
        text = group.sample or group.signature
        if group.is_stale or not (
            DRAINED.search(text) and CUT.search(text) and BALANCER.search(text)
        ):
            continue
        pool = _POOL.search(text)
        out.append(Drained(errors, group, pool.group(1) if pool else errors.service))
    return out


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """Once a balancer's lines say requests were cut by a drain: every service's lines that change
    a draining setting, from two hours before the window (a Terraform plan, a Helm diff)."""
    found = drained(facts)
    if not found:
        return []
    start = _before(window.get("start", ""))
    return [
        call(
            SEARCH_LOGS,
            {
                "query": SEARCH,
                "regex": True,
                **window,
                **({"start": start} if start else {}),
                "limit": SEARCH_LIMIT,
            },
            f"{found[0].errors.service} cuts requests when {found[0].pool}'s targets drain: "
            "which change set its draining time",
        )
    ]


def _before(start: str) -> str | None:
    try:
        moment = datetime.fromisoformat(start.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment - _LEAD).isoformat().replace("+00:00", "Z")


def _changes(inv: Investigation, facts: Facts) -> list[tuple[Observation, str, str]]:
    """(span, service, line) of every line read that changes a draining setting: a service's
    searched lines, and the lines of searches over every service (each with its service)."""
    out: list[tuple[Observation, str, str]] = []
    for service, answers in facts.searched.items():
        for obs, text in answers:
            out += [
                (obs, service, line.strip())
                for line in text.splitlines()
                if SETTING_CHANGE.search(line)
            ]
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "service"):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")
            if SETTING_CHANGE.search(message):
                out.append((obs, str(line.get("service") or ""), message.strip()))
    return out


def lb_draining(board: Board) -> None:
    """A load balancer whose own lines say requests failed (502, reset, closed) because their target was deregistered or draining cuts in-flight requests: its draining setting (the target group it names, else the balancer) is the HTTP fault, conclusive with a change line that lowered it."""
    found = drained(board.facts)
    if not found:
        return
    changed = _changes(board.inv, board.facts)
    for item in found[:2]:
        pool = item.pool
        mine = [
            c for c in changed if pool.lower() in c[2].lower() or pool == c[1]
        ] or changed
        c = board.get(
            layers.HTTP,
            pool,
            f"{pool} stops waiting for in-flight requests when its targets drain "
            f"(on {item.errors.service}): requests longer than its draining time are cut "
            "at every deploy and scale-in",
        )
        if c.status == "ruled_out":
            continue
        c.cite(item.errors.obs, item.errors.fact(item.group))
        for obs, service, line in mine[:1]:
            c.cite(obs, short(f"search_logs: {service} logs: {line}", 300))
        confidence = _CHANGED if mine else _ALONE
        c.status, c.confidence = "confirmed", max(c.confidence, confidence)
        c.chain = [
            board.symptom(),
            f"{item.errors.service}: {short(item.text, 140)}",
            *(f"{service}: {short(line, 140)}" for _, service, line in mine[:1]),
            c.statement,
        ]
        c.keywords = [pool, item.errors.service, "draining", "deregistration", "502"]
