"""Pooled connections that go stale while idle (issue 21 class 5): the client's pool, not its back end, is the fault.

A connection pool that keeps more connections idle than it used to, longer than something on the
path (a load balancer, a NAT, a firewall, the server's own timeout) lets them live, hands out
connections that were silently dropped: the first query on one fails, the pool validates, retries
on another, and requests slow down without an error reaching the user. The pool says so itself
(`STALE`: a connection that failed validation, advice to shorten its max lifetime or keep it
alive) in new warnings, while its own gauge of idle or open connections stepped up at the start
(`metric_trends.stepped_up`). Both together, on a service whose health is failing, confirm it.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered import metric_trends
from reasoning.layered.candidates import Board

# A pool's own words for a connection that went stale while idle.
STALE: Final = re.compile(
    r"failed to validate connection|shorter max_?lifetime|max[_-]?lifetime|"
    r"idle[_ -]?timeout|keep_?alive",
    re.IGNORECASE,
)
_FAILING = ("degraded", "unhealthy")
_CONFIDENCE = 0.84


def stale_pool(board: Board) -> None:
    """A service whose pool logs new warnings of connections that failed validation after idling (or advice to shorten their lifetime) while its own idle or open connections stepped up at the start is its own fault when its health fails: it hands out connections the path already dropped."""
    stepped = {t.service: t for t in metric_trends.stepped_up(board.inv)}
    for service, trend in stepped.items():
        health = board.facts.health.get(service)
        errors = board.facts.errors.get(service)
        if health is None or health.verdict not in _FAILING or errors is None:
            continue
        stale = [
            g
            for g in (*errors.groups, *errors.warnings)
            if g.is_new and STALE.search(g.sample or g.signature)
        ]
        if not stale:
            continue
        group = max(stale, key=lambda g: g.count)
        c = board.get(
            layers.APPLICATION,
            service,
            f"{service} itself fails: its pool hands out connections that went stale while idle",
        )
        if c.stage is not None:
            continue
        said = "its pool's connections go stale while idle"
        if said not in c.statement:
            c.statement += f"; {said}"
        c.cite(errors.obs, errors.fact(group))
        c.cite(trend.obs, trend.fact)
        c.cite(health.obs, health.fact)
        c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
        c.chain = [
            board.symptom(),
            f"{service}: {trend.fact}",
            f"{service} logs: {(group.sample or group.signature)[:120]}",
            c.statement,
        ]
        c.keywords = [service, "connection pool", "max lifetime", *c.keywords]
