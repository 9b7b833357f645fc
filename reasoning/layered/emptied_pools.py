"""A pool emptied or a route's upstream blanked by a change just before: the change's target is the cause, not the loud callers (issue 21, class 4).

A load balancer or edge proxy with nothing to send to says so in its own words: HAProxy's
`backend search has no server available`, `no healthy upstream hosts in pool x`, Envoy's `NR` with
`no upstream configured for route /api/`. Its callers log 502s and 503s and are the loud ones; the
hosts left in the pool may log overload. When a change logged shortly before the first such line
(a capacity-removal command, a drain, a config push) names the emptied pool, or the config version
the proxy says it runs, that change is the cause: a pool emptied of its hosts is a connect fault of
the pool, a route left without an upstream an http fault of the proxy's route configuration. The
planner searches every service's lines naming the pool or the version from two hours before the
window (`searches`).
"""

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts, parse_time
from reasoning.layered.reading import every_service_lines, iso, short
from reasoning.observations import Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

_MAX_LINE: Final = 2000  # characters of a line the patterns read
# A pool with no host left to send to.
_NO_HOSTS: Final = re.compile(
    r"\bhas no (?:server|host|backend|member|target)s? available\b|"
    r"\bno (?:healthy |available |active |live )?(?:upstream )?"
    r"(?:hosts?|servers?|backends?|members?|targets?) "
    r"(?:available|left|in (?:the )?(?:pool|backend|upstream|target group))\b",
    re.IGNORECASE,
)
# A route with no upstream at all: its configuration names none.
_NO_UPSTREAM: Final = re.compile(
    r"\bno (?:upstream|cluster|backend) (?:configured|defined|set)\b|"
    r"\bno route (?:configured|matched|found)\b|\bupstream (?:is )?(?:empty|unset)\b",
    re.IGNORECASE,
)
# The pool a line names: `pool search-backend`, `backend search-backend`, `upstream=api-pool`.
_POOL: Final = re.compile(
    r"\b(?:pool|backend|upstream|target[ _-]group|cluster)\s*[=:]?\s*['\"]?"
    r"([a-z][a-z0-9]{0,40}(?:[-_.][a-z0-9]{1,40}){1,6})\b",
    re.IGNORECASE,
)
# The configuration version the proxy says it runs: `config=v4412`, `config version 88`, `config=r12`.
_VERSION: Final = re.compile(
    r"\bconfig(?:uration)?(?:[ _-]?(?:version|rev))?\s*[=:#]?\s*([a-z]{0,3}\d[\w.-]{0,20}[\w])\b",
    re.IGNORECASE,
)
# A change that takes hosts out of a pool or replaces a configuration.
_ACT: Final = re.compile(
    r"\b(?:remov\w*|drain\w*|deregist\w*|disabl\w*|decommission\w*|delet\w*|terminat\w*|"
    r"scaled? (?:in|down)|push\w*|deploy\w*|appl(?:y|ied)|rolled out|reload\w*)\b|->|=>",
    re.IGNORECASE,
)
_NOT_CHANGE: Final = frozenset(
    {"error", "err", "fatal", "critical", "crit", "panic", "warn", "warning"}
)
LEAD: Final = timedelta(
    hours=2
)  # how long before its first line a change is looked for
_AFTER: Final = timedelta(
    minutes=2
)  # a change logged just after the first line still counts
SEARCH_LIMIT: Final = 20
_SEARCHES: Final = 2


@dataclass(frozen=True)
class Emptied:
    """A proxy's line saying a pool has no host (`hosts`) or a route no upstream (`route`)."""

    errors: Errors
    group: ErrorGroup
    kind: str  # hosts | route
    name: str  # the pool (hosts) or the configuration version (route); "" when unnamed
    first: datetime | None

    @property
    def component(self) -> str:
        return self.name if self.kind == "hosts" else self.errors.service

    @property
    def layer(self) -> str:
        return layers.CONNECT if self.kind == "hosts" else layers.HTTP


def emptied(facts: Facts) -> list[Emptied]:
    """Each service's lines (not older than the window) saying a pool has no host or a route no upstream."""
    out: list[Emptied] = []
    for errors in facts.errors.values():
        for group in (*errors.groups, *errors.warnings):
            if group.is_stale:
                continue
            text = group.text[:_MAX_LINE]
            if _NO_HOSTS.search(text):
                pool = _POOL.search(text)
                if pool is None:
                    continue
                kind, name = "hosts", pool.group(1)
            elif _NO_UPSTREAM.search(text):
                version = _VERSION.search(text)
                kind, name = "route", version.group(1) if version else ""
            else:
                continue
            out.append(Emptied(errors, group, kind, name, parse_time(group.first_seen)))
    return out


# The search's change words (RE2, case-insensitive on the logs server), as `_ACT` reads them.
_ACT_QUERY: Final = (
    r"(remov|drain|deregist|disabl|decommission|delet|terminat|scaled? (in|down)|push|deploy|"
    r"appl(y|ied)|rolled out|reload|->|=>)"
)


def query(name: str) -> str:
    """An RE2 pattern for a line naming `name` in any spelling (`search-backend` also as
    `search_backend-*`) and a change word, in either order: the proxy's own flood of failures
    does not crowd the change out of the answer."""
    parts = [re.escape(p) for p in re.split(r"[-_.]", name.lower()) if p]
    spelled = "[-_. ]?".join(parts)
    return f"{spelled}.*{_ACT_QUERY}|{_ACT_QUERY}.*{spelled}"


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """For each emptied pool or blanked route (at most two), every service's lines naming it, from two hours before the window."""
    start = parse_time(window.get("start", ""))
    if start is None:
        return []
    names = list(dict.fromkeys(e.name for e in emptied(facts) if e.name))
    return [
        call(
            SEARCH_LOGS,
            {
                "query": query(name),
                "regex": True,
                "start": iso(start - LEAD),
                "end": window.get("end") or "now",
                "limit": SEARCH_LIMIT,
            },
            f"a proxy finds nothing to send to in {name}: which change named it",
        )
        for name in names[:_SEARCHES]
    ]


def _change_lines(
    board: Board, found: Emptied
) -> Iterator[tuple[Observation, str, str]]:
    """(answer, service, message) of the lines naming the pool or version that record a change just before its first line."""
    for obs, line in every_service_lines(board.inv, query(found.name)):
        message = str(line.get("message") or "")[:_MAX_LINE]
        level = str(line.get("level") or "").lower()
        if level in _NOT_CHANGE or _NO_HOSTS.search(message):
            continue
        if _NO_UPSTREAM.search(message) or not _ACT.search(message):
            continue
        at = parse_time(str(line.get("time") or ""))
        if found.first is not None and (
            at is None or not found.first - LEAD <= at <= found.first + _AFTER
        ):
            continue
        yield obs, str(line.get("service") or ""), message


def emptied_pools(board: Board) -> None:
    """A proxy's own line that a pool has no host left (or a route no upstream configured), after a change that names that pool (or the config version the proxy runs), is the cause: the pool at connect (or the proxy's route configuration at http), cited by its line and the change; its callers' 5xx are victims."""
    for found in emptied(board.facts):
        if not found.name:
            continue
        change = next(_change_lines(board, found), None)
        if change is None:
            continue
        obs, service, message = change
        proxy = found.errors.service
        what = (
            f"{proxy} has no host left in pool {found.name}"
            if found.kind == "hosts"
            else f"{proxy} has no upstream configured for a route under config {found.name}"
        )
        c = board.get(
            found.layer,
            found.component,
            f"{what}: a change just before emptied it ({short(message, 120)})",
        )
        c.cite(found.errors.obs, found.errors.fact(found.group))
        c.cite(obs, short(f"search_logs: {service} logs a change: {message}", 300))
        c.status = "confirmed"
        c.confidence = max(c.confidence, 0.93)
        c.chain = [
            board.symptom(),
            f"{proxy}: {short(found.group.sample or found.group.signature, 140)}",
            f"{service} logs: {short(message, 140)}",
            c.statement,
        ]
        c.keywords = [found.layer, found.component, "change", "pool", "upstream"]
