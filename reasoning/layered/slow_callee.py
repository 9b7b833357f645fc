"""A quiet service its callers time out on, whose own latency rose, is a lead of its own (issue 21: performance, no error at first).

A service that turns slow without failing logs no error: its callers do (`did not answer within
2000ms`, `timed out waiting for quotes`, `deadline exceeded calling pricing`). Their lines name it
and say they waited; its own metrics show its p99 latency risen. Nothing else makes it a
hypothesis (its logs are quiet, its endpoint answers), so without this the diagnosis has no lead
at all. The named, slow, quiet service is an application lead (likely, never confirmed on this
alone; confirmed when its own release or deploy is logged in the half hour before its callers'
first timeout): what makes it slow is read next (`cited_lines`: the lines naming the version it runs and
the libraries it ships, its stack dumps). A deeper cause found elsewhere (its database, the link)
outranks it.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.changes import LEAD
from reasoning.layered.facts import Change, ErrorGroup, Facts, parse_time
from reasoning.layered.reading import short
from reasoning.layered.warning_leads import names_service

# A caller's words that it waited for an answer that did not come in time.
_WAITED: Final = re.compile(
    r"(?i)\bdid(?: not|n't) (?:answer|respond|reply)\b|\btimed? ?out\b|\btimeout\b|"
    r"\bdeadline exceeded\b|\bDeadlineExceeded\b|\btook too long\b|\bno (?:answer|response) "
    r"(?:from|within)\b"
)
_LEAD: Final = 0.6
_CONFIRMED: Final = 0.8


def _own_release(facts: Facts, service: str, groups: list[ErrorGroup]) -> Change | None:
    """The service's own change (a release starting, a deploy) in the half hour before its callers'
    first timeout: what made it slow."""
    firsts = [t for g in groups if (t := parse_time(g.first_seen)) is not None]
    if not firsts:
        return None
    first = min(firsts)
    for change in facts.changes:
        if (
            change.at is not None
            and change.service.lower() == service.lower()
            and first - LEAD <= change.at <= first
        ):
            return change
    return None


def slow_callee(board: Board) -> None:
    """A service whose callers' new errors say they timed out waiting on it, whose own p99 latency rose and whose own logs hold no error or warning, is an application lead: slow by itself, not failing; confirmed when its own release is logged in the half hour before its callers' first timeout."""
    facts = board.facts
    for service, health in facts.health.items():
        errors = facts.errors.get(service)
        if (
            not health.has("p99_latency_s")
            or errors is None
            or errors.groups
            or errors.warnings  # its own warnings are the warning rules' to judge
            or health.has("error_ratio")
        ):
            continue
        callers = [
            (e, g)
            for e, g in facts.error_texts()
            if e.service != service
            and not g.is_stale
            and _WAITED.search(g.text[:2000])
            and names_service(g.text[:2000], service)
        ]
        if not callers:
            continue
        latency = next(f[2] for f in health.findings if f[0] == "p99_latency_s")
        c = board.get(
            layers.APPLICATION,
            service,
            f"{service} answers too slowly for its callers ({latency}) while it logs no "
            "error: it is slow by itself",
        )
        if c.status == "ruled_out" or c.confidence >= _LEAD:
            continue
        for e, g in callers[:2]:
            c.cite(e.obs, e.fact(g))
        c.cite(health.obs, health.fact)
        c.status, c.confidence = "likely", _LEAD
        c.chain = [
            board.symptom(),
            *(
                f"{e.service} times out waiting on {service}: {short(g.sample, 100)}"
                for e, g in callers[:2]
            ),
            f"{service}'s own p99 latency rose ({latency}); its logs hold no error",
        ]
        # Its own release started just before its callers began to time out: that release.
        release = _own_release(facts, service, [g for _, g in callers])
        if release is not None:
            c.cite(release.obs, release.fact)
            c.status, c.confidence = "confirmed", _CONFIRMED
            c.statement += (
                f"; it began with its own change: {short(release.message, 140)}"
            )
            c.chain.append(
                f"{service} changed just before: {short(release.message, 120)}"
            )
        c.keywords = [service, "latency", "slow", "timeout"]
