"""Every service's lines naming a host whose probe failed (issue 21 class 5): the second source a probe's direct evidence needs.

A probe that fails at a layer is direct evidence, but one server's word: it is confirmed when the
logs agree. The services whose logs would agree (the proxy in front of the host, the job that
renewed its certificate) are often ones nobody named, so their top errors are never read and the
finding stays a lead however direct it is. The planner searches every service's lines for the
host's name (`searches`); a line there at error or warning level that names the host without
another failure class, or a change to the host recorded from shortly before the window to its end,
agrees (`agreeing`). The incident's wording plays no part.

A provider's API is often probed at a front host (`api.`, `www.`, `gateway.` …) while the callers'
lines name the provider by its own domain (`ratesapi.example GET /v1/latest -> 429`): when the probe
met a refusal of ours (a 4xx: a limit, a plan, an account), a second search asks for that domain
(`provider_domain`), and a line naming either agrees.
"""

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any, Final

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
from reasoning.layers import HTTP
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

_LIMIT = 20
_MAX_HOSTS = 2
_LEVELS = frozenset({"error", "err", "fatal", "critical", "crit", "warn", "warning"})
# A host's first label that only says which front of a provider answers (its API, web or gateway
# host, optionally numbered or regional: `api2`, `eu-api`, `api-eu`), not whose host it is.
_FRONT_LABEL: Final = re.compile(
    r"^(?:[a-z0-9]{1,12}-)?(?:api|apis|www|rest|gw|gateway|edge|public|graphql|rpc|ws|secure)"
    r"\d{0,2}(?:-[a-z0-9]{1,12})?$"
)


def provider_domain(host: str) -> str:
    """The domain callers name a provider by: `host` without a front label (`api.ratesapi.example`
    → `ratesapi.example`) when what remains still has two labels, else `host` itself."""
    labels = host.lower().split(".")
    if len(labels) >= 3 and _FRONT_LABEL.match(labels[0]):
        return ".".join(labels[1:])
    return host.lower()


def names_host(host: str, text: str) -> bool:
    """`text` names `host`, or the provider's own domain when `host` is one of its front hosts."""
    names = hosts_in(text)
    return host in names or provider_domain(host) in names


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """One search of every service's lines for each host whose probe failed at a layer."""
    hosts = {
        p.host: query(p)
        for p in facts.probes.values()
        if p.layer is not None and p.url not in facts.mcp_endpoints
    }
    return [
        call(
            SEARCH_LOGS,
            {"query": text, **window, "limit": _LIMIT},
            f"the probe of {host} failed: which service's lines name "
            + ("it" if text == host else f"its provider {text}"),
        )
        for host in list(hosts)[:_MAX_HOSTS]
        for text in dict.fromkeys((host, hosts[host]))
    ]


def query(probe: Probe) -> str:
    """What to search every service's lines for: the provider's domain when the probe met a
    refusal of ours (an HTTP 4xx: a limit, a plan, an account, all the provider's), else the host."""
    if probe.layer == HTTP and probe.status is not None and 400 <= probe.status < 500:
        return provider_domain(probe.host)
    return probe.host


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
            or arg(obs, "query") not in (probe.host, query(probe))
        ):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            service = str(line.get("service") or "")
            message = str(line.get("message") or "")
            level = str(line.get("level") or "").lower()
            if service in seen or not names_host(probe.host, message):
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
            or not names_host(probe.host, change.message)
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


def naming_services(inv: Investigation, facts: Facts) -> list[str]:
    """The services not read yet that only the provider-domain search found quoting a provider's
    refusal (a probe's 4xx at its front host): the callers of that provider, read like the
    incident's own (their top errors say what it answered)."""
    found: list[str] = []
    for probe in facts.probes.values():
        domain = query(probe)
        if (
            probe.layer is None
            or probe.url in facts.mcp_endpoints
            or domain == probe.host
        ):
            continue
        exact: set[str] = set()
        by_domain: list[str] = []
        for obs in inv.observations:
            if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "service"):
                continue
            asked = arg(obs, "query")
            if asked not in (probe.host, domain):
                continue
            for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
                service = str(line.get("service") or "")
                if not service:
                    continue
                if asked == probe.host:
                    exact.add(service)
                elif str(line.get("level") or "").lower() in _LEVELS and names_host(
                    probe.host, str(line.get("message") or "")
                ):
                    by_domain.append(service)
        found += [
            s
            for s in dict.fromkeys(by_domain)
            if s not in exact and s not in facts.errors and s not in found
        ]
    return found[:_MAX_HOSTS]


def _in_window(inv: Investigation, at: datetime | None) -> bool:
    """From shortly before the window began to its end."""
    start = parse_time(inv.incident.window_start or "")
    end = parse_time(inv.incident.window_end or "")
    if at is None or start is None:
        return False
    return start - LEAD <= at and (end is None or at <= end)
