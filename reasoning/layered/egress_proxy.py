"""A caller whose calls fail going via an egress proxy that a proxy setting put in its path: a connect-layer fault of that proxy hop, not the caller's own.

A client's error line that names the proxy it went through (`via proxy.example:3128`, `through
proxy fwd-2.example:8080`) shows its calls leave through that proxy, a hop with its own distance
and limits. A proxy variable (`HTTPS_PROXY`, `http_proxy`, `ALL_PROXY`) set to that host in some
service's lines (a configuration run, an environment file) is the change that put it there, often
hours before; the proxy's own tunnel lines (`CONNECT api.example:443`) show the calls it carries.
The planner searches every service's lines for the setting, in two six-hour slices before the
window's end (`SETTING_SEARCH`), and for tunnel lines in the window (`TUNNEL_SEARCH`); the rule
(`egress_proxy`) concludes at the connect layer of the proxy host, confirmed when a setting names
it, a lead with the hop alone; the caller's own hypothesis becomes its symptom.
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

# A hop a client names in its error: "via <host>:<port>", "through proxy <host>:<port>".
HOP: Final = re.compile(
    r"\b(?:via|through|using)\s+(?:the\s+)?(?:(?:egress|forward|https?)\s+)?(?:proxy\s+)?"
    r"(?:https?://)?([a-z0-9][a-z0-9.-]*):(\d{2,5})\b",
    re.IGNORECASE,
)
# A proxy variable set to a host: `HTTPS_PROXY=http://fwd.example:3128`, `http_proxy: "…"`.
SETTING: Final = re.compile(
    r"\b(?:https?|all)_proxy\b\s*[=:]\s*[\"']?(?:https?://)?(?:[^@\s/\"']{1,128}@)?([a-z0-9][a-z0-9.-]{0,252})",
    re.IGNORECASE,
)
# The same, as an RE2 pattern for the logs' search of every service (case-insensitive there).
SETTING_SEARCH: Final = r"(https?|all)_proxy *[=:]"
# A forward proxy's tunnel line: `CONNECT api.example:443` (squid, Envoy, a CONNECT log).
TUNNEL: Final = re.compile(r"\bCONNECT [a-z0-9][a-z0-9.-]*:\d{2,5}\b|\bTCP_TUNNEL/\d")
TUNNEL_SEARCH: Final = r"CONNECT [a-z0-9.-]+:[0-9]+|TCP_TUNNEL/[0-9]"
_SLICE: Final = timedelta(hours=6)  # the logs server's longest window
_SLICES: Final = 2
_LIMIT: Final = 20
_CONFIDENCE: Final = (
    0.86  # the hop the caller names and the setting that put it there agree
)
_LEAD: Final = 0.55


@dataclass(frozen=True)
class Hop:
    errors: Errors
    group: ErrorGroup
    host: str  # lower case


def _host(raw: str) -> str:
    return raw.strip(".-").lower()


def hops(facts: Facts) -> list[Hop]:
    """Each failing service's first error or warning group naming a proxy it goes through."""
    out: list[Hop] = []
    for errors in facts.errors.values():
        for group in (*errors.groups, *errors.warnings):
            text = group.sample or group.signature
            match = HOP.search(text)
            if match is None or "proxy" not in text.lower():
                continue
            host = _host(match.group(1))
            if "." in host or "-" in host:
                out.append(Hop(errors, group, host))
                break
    return out


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
    end: datetime | None,
) -> list[PlannedCall | None]:
    """Every service's proxy settings (two six-hour slices back from the window's end) and tunnel
    lines (in the window), once some caller's error names a proxy hop."""
    found = hops(facts)
    if not found:
        return []
    names = ", ".join(sorted({h.host for h in found}))
    calls: list[PlannedCall | None] = [
        call(
            SEARCH_LOGS,
            {"query": TUNNEL_SEARCH, "regex": True, **window, "limit": _LIMIT},
            f"errors go via the proxy {names}: the proxy's own tunnel lines",
        )
    ]
    if end is not None:
        for n in range(_SLICES):
            calls.append(
                call(
                    SEARCH_LOGS,
                    {
                        "query": SETTING_SEARCH,
                        "regex": True,
                        "start": _iso(end - _SLICE * (n + 1)),
                        "end": _iso(end - _SLICE * n),
                        "limit": _LIMIT,
                    },
                    f"errors go via the proxy {names}: the setting that routes calls through it",
                )
            )
    return calls


def _searched(
    inv: Investigation, query: str
) -> list[tuple[Observation, dict[str, Any]]]:
    out: list[tuple[Observation, dict[str, Any]]] = []
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "service"):
            continue
        if arg(obs, "query") != query:
            continue
        out.extend(
            (obs, as_dict(line)) for line in as_list(as_dict(obs.result).get("lines"))
        )
    return out


def _is_proxys(line: dict[str, Any], host: str) -> bool:
    """Whether a line is the proxy host's own: a label names it, or its service is the host's first word."""
    labels = as_dict(line.get("labels"))
    if any(str(v).lower() == host for v in labels.values()):
        return True
    service = str(line.get("service") or "").lower()
    return bool(service) and host.split(".")[0] == service


def egress_proxy(board: Board) -> None:
    """A proxy hop a caller's failing calls name, put in its path by a proxy setting, is the connect-layer cause; the caller is its symptom."""
    for hop in hops(board.facts):
        settings = [
            (obs, str(line.get("message") or ""))
            for obs, line in _searched(board.inv, SETTING_SEARCH)
            if any(
                _host(m.group(1)) == hop.host
                for m in SETTING.finditer(str(line.get("message") or ""))
            )
        ]
        tunnels = [
            (obs, str(line.get("message") or ""))
            for obs, line in _searched(board.inv, TUNNEL_SEARCH)
            if TUNNEL.search(str(line.get("message") or ""))
            and _is_proxys(line, hop.host)
        ]
        caller = hop.errors.service
        c = board.get(
            layers.CONNECT,
            hop.host,
            f"{caller}'s calls go via the proxy {hop.host}, a hop in their path",
        )
        c.cite(hop.errors.obs, hop.errors.fact(hop.group))
        if tunnels:
            obs, message = tunnels[0]
            c.cite(
                obs, short(f"search_logs(every service): {hop.host}: {message}", 300)
            )
        chain = [
            board.symptom(),
            f"{caller}: {short(hop.group.sample or hop.group.signature, 120)}",
        ]
        if settings:
            obs, message = settings[0]
            c.cite(
                obs, short(f"search_logs(every service): proxy setting: {message}", 300)
            )
            c.statement = (
                f"{caller}'s calls go via the proxy {hop.host}, which a proxy setting put in "
                "their path"
            )
            c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
            chain.append(f"a proxy setting names {hop.host}: {short(message, 120)}")
            own = board.candidates.get(f"{layers.APPLICATION}:{caller}")
            if own is not None and own.status != "ruled_out":
                own.status, own.confidence = "likely", min(own.confidence, 0.4)
                own.statement += f"; a symptom of {c.id} (its calls go via that proxy)"
        elif c.status != "confirmed":
            c.status, c.confidence = "likely", max(c.confidence, _LEAD)
        c.chain = [*chain, c.statement]
        c.keywords = [hop.host, "proxy", "HTTPS_PROXY", caller]
