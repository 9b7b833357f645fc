"""Name lookups that succeed slowly: DNS as the cause of timeouts that are not DNS failures.

Rules:
- a caller's lines that time its name lookups (`dns 5012ms`, `resolve <host> took 5136ms`,
  `lookup <host> took 5.1s`) at a second or more show the DNS layer spending the call's time
  budget, though every lookup ends in an answer: a hypothesis at the dns layer about that host;
- a line (the resolver's, or anyone's) about a query for `<host>.<suffix>`, where `<host>` is a
  name whose lookups are slow, shows the resolver's search list expanding it first (ndots, search
  domains): the hypothesis is that expanded name, and `<suffix>` is the search domain to take out
  of the resolver's configuration.

Confirmed as a logged path is: two servers agree (the lines, and the caller's metrics failing); the
lines alone are a lead. Lines all logged before the window too make a lead at most.
"""

import re
from dataclasses import dataclass

from reasoning import layers
from reasoning.layered.application import stale
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import hosts_in, short

# A lookup's duration: a lookup word, then (within the clause) a number of ms or s.
_TIMED = re.compile(
    r"\b(?:dns|resolv(?:e|ing|ed)|lookup|name resolution)\b[^;,()\n]{0,80}?"
    r"\b(\d+(?:\.\d+)?)\s*(ms|s)\b",
    re.IGNORECASE,
)
SLOW_MS = 1000.0
_FAILING = ("degraded", "unhealthy")


@dataclass(frozen=True)
class Lookup:
    errors: Errors
    group: ErrorGroup
    host: str
    ms: float


def slow_lookups(board: Board) -> None:
    """Lines timing a host's name lookups at a second or more make a DNS hypothesis about it, the search-list expansion of it (`<host>.<suffix>`) when a line shows that name asked."""
    lookups = _slow(board)
    if not lookups:
        return
    texts = [
        (errors, group)
        for errors in board.facts.errors.values()
        for group in (*errors.groups, *errors.warnings)
    ]
    by_host: dict[str, list[Lookup]] = {}
    for lookup in lookups:
        by_host.setdefault(lookup.host, []).append(lookup)
    for host, seen in by_host.items():
        expanded = _expansions(host, texts)
        worst = max(lookup.ms for lookup in seen)
        if expanded:
            name, errors, group = expanded[0]
            suffix = name[len(host) + 1 :]
            statement = (
                f"lookups of {host} take up to {worst:.0f} ms: the resolver's search list "
                f"asks {name} first (search domain {suffix}), which answers slowly"
            )
            component = name
        else:
            statement = f"DNS lookups of {host} succeed slowly (up to {worst:.0f} ms)"
            component = host
        c = board.get(layers.DNS, component, statement)
        if expanded:
            c.statement = statement  # why the expanded name's lookups fail or crawl
        for lookup in seen:
            c.cite(lookup.errors.obs, lookup.errors.fact(lookup.group))
            line = f"{lookup.errors.service} logs: {short(lookup.group.sample or lookup.group.signature, 120)}"
            if line not in c.chain:
                c.chain.append(line)
            health = board.facts.health.get(lookup.errors.service)
            if health is not None and health.verdict in _FAILING:
                c.cite(health.obs, health.fact)
        for _, errors, group in expanded:
            c.cite(errors.obs, errors.fact(group))
        c.keywords = [layers.DNS, host, component]
        confidence = 0.85 if len(c.sources) >= 2 else 0.6
        if c.status != "confirmed" or c.confidence < confidence:
            c.status = "confirmed" if len(c.sources) >= 2 else "likely"
            c.confidence = max(c.confidence, confidence)
        if all(lookup.group.is_stale for lookup in seen):
            stale(c)


def _slow(board: Board) -> list[Lookup]:
    """The error and warning groups that time a host's lookup at SLOW_MS or more."""
    found: list[Lookup] = []
    for errors in board.facts.errors.values():
        for group in (*errors.groups, *errors.warnings):
            text = group.sample or group.signature
            ms = max(
                (
                    float(m.group(1)) * (1000.0 if m.group(2).lower() == "s" else 1.0)
                    for m in _TIMED.finditer(text)
                ),
                default=0.0,
            )
            hosts = hosts_in(text)
            if ms >= SLOW_MS and hosts:
                found.append(Lookup(errors, group, hosts[0], ms))
    return found


def _expansions(
    host: str, texts: list[tuple[Errors, ErrorGroup]]
) -> list[tuple[str, Errors, ErrorGroup]]:
    """The names `<host>.<suffix>` the lines show asked, with the group that shows each."""
    out: list[tuple[str, Errors, ErrorGroup]] = []
    for errors, group in texts:
        for name in hosts_in(group.sample or group.signature):
            if name.startswith(f"{host}.") and all(n != name for n, _, _ in out):
                out.append((name, errors, group))
    return out
