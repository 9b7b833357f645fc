"""Every service's lines naming a host whose probe failed (issue 21 class 5): the second source a probe's direct evidence needs.

A probe that fails at a layer is direct evidence, but one server's word: it is confirmed when the
logs agree. The services whose logs would agree (the proxy in front of the host, the job that
renewed its certificate) are often ones nobody named, so their top errors are never read and the
finding stays a lead however direct it is. The planner searches every service's lines for the
host's name (`searches`); a line there at error or warning level that names the host without
another failure class, or a change to the host recorded from shortly before the window to its end,
agrees (`agreeing`). The incident's wording plays no part.
"""

from collections.abc import Callable
from datetime import datetime
from typing import Any

from reasoning.layered.changes import LEAD
from reasoning.layered.facts import Facts, Probe, parse_time
from reasoning.layered.reading import (
    arg,
    as_dict,
    as_list,
    error_classes,
    hosts_in,
    short,
)
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

_LIMIT = 20
_MAX_HOSTS = 2
_LEVELS = frozenset({"error", "err", "fatal", "critical", "crit", "warn", "warning"})


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """One search of every service's lines for each host whose probe failed at a layer."""
    hosts = [
        p.host
        for p in facts.probes.values()
        if p.layer is not None and p.url not in facts.mcp_endpoints
    ]
    return [
        call(
            SEARCH_LOGS,
            {"query": host, **window, "limit": _LIMIT},
            f"the probe of {host} failed: which service's lines name it",
        )
        for host in list(dict.fromkeys(hosts))[:_MAX_HOSTS]
    ]


def agreeing(
    inv: Investigation, facts: Facts, probe: Probe, layer: str
) -> list[tuple[Observation, str, str]]:
    """(answer, fact, chain line) for each line of those searches that agrees with the probe."""
    found: list[tuple[Observation, str, str]] = []
    seen: set[str] = set()
    for obs in inv.observations:
        if (
            obs.tool != SEARCH_LOGS
            or not obs.is_ok
            or arg(obs, "service")
            or arg(obs, "query") != probe.host
        ):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            service = str(line.get("service") or "")
            message = str(line.get("message") or "")
            level = str(line.get("level") or "").lower()
            if service in seen or probe.host not in hosts_in(message):
                continue
            classes = error_classes(message)
            if level in _LEVELS and (not classes or layer in classes):
                seen.add(service)
                found.append(
                    (
                        obs,
                        short(f"search_logs(every service): {service}: {message}", 300),
                        f"{service} logs: {short(message, 120)}",
                    )
                )
    for change in facts.changes:
        if (
            change.service in seen
            or probe.host not in hosts_in(change.message)
            or not _in_window(inv, change.at)
        ):
            continue
        seen.add(change.service)
        found.append(
            (
                change.obs,
                change.fact,
                f"{probe.host} changed just before: {short(change.message, 120)}",
            )
        )
    return found


def _in_window(inv: Investigation, at: datetime | None) -> bool:
    """From shortly before the window began to its end."""
    start = parse_time(inv.incident.window_start or "")
    end = parse_time(inv.incident.window_end or "")
    if at is None or start is None:
        return False
    return start - LEAD <= at and (end is None or at <= end)
