"""What a workload's logs say it failed to reach: the failing lines, the hosts they name, the layer.

A line counts when it says a call failed (`FAILING`); its words say the layer (DNS, connect,
authentication, else other); its targets are the `lookup` names, URL hosts, `host:port` pairs and
the namespace's service names it mentions.
"""

import re
from dataclasses import dataclass

from reasoning.layered.kubernetes.cluster import service_of_host
from reasoning.layered.reading import short
from reasoning.observations import Observation

DNS_FAIL = re.compile(
    r"no such host|nxdomain|could not resolve|name or service not known|"
    r"temporary failure in name resolution|getaddrinfo|unknown ?host|name resolution",
    re.IGNORECASE,
)
CONNECT_FAIL = re.compile(
    r"connection refused|econnrefused|connect(?:ion)? timed? ?out|i/o timeout|no route to host|"
    r"connection reset|unreachable|cannot connect|can't connect|could not connect|unable to connect|"
    r"failed to connect|dial tcp|no healthy upstream|upstream connect error|no endpoints|"
    r"does not have any active endpoint|timed out|timeout",
    re.IGNORECASE,
)
AUTH_FAIL = re.compile(
    r"password authentication failed|authentication failed|access denied for user|NOAUTH|WRONGPASS|"
    r"invalid (?:credentials|password|username)|unauthorized|login failed",
    re.IGNORECASE,
)
FAILING = re.compile(
    r"error|fail|fatal|refused|timeout|timed out|unreachable|unavailable|denied|panic|exception|"
    r"cannot|can't|could not|unable|no such host|not known|reset|"
    # A call answered with a 4xx or 5xx (`-> 401 from profile`, `upstream returned 503`).
    r"(?:->|returned|answered|status(?: code)?[:=]?) ?[45]\d\d\b|\b[45]\d\d from\b",
    re.IGNORECASE,
)
# A loopback address (with its port when given): what a container reaches inside its own pod.
LOOPBACK = re.compile(
    r"(?<![\w.])(?:127\.0\.0\.1|localhost|\[::1\]|::1)(?::\d{2,5})?(?![\w.])",
    re.IGNORECASE,
)
_HOST_PORT = re.compile(
    r"(?<![\w./-])((?:[a-z][a-z0-9-]*)(?:\.[a-z0-9-]+)*|\d{1,3}(?:\.\d{1,3}){3}):(\d{2,5})\b"
)
# A scheme is tried only where a word starts, and is short: linear on a long token.
_URL_HOST = re.compile(
    r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}://(?:[^@/\s]{1,256}@)?([a-z0-9][a-z0-9.-]*)",
    re.IGNORECASE,
)
# `lookup <host> on …` (not `lookup failed`, `lookup timed out`: words, not a host).
_LOOKUP_HOST = re.compile(
    r"\blookup (?!(?:failed|failure|error|timed|timeout|of|for)\b)([a-z0-9][a-z0-9.-]*)",
    re.IGNORECASE,
)
# The layer a failing line talks about, the first that matches.
_KINDS = (("dns", DNS_FAIL), ("auth", AUTH_FAIL), ("connect", CONNECT_FAIL))


@dataclass(frozen=True)
class Edge:
    """A workload's logs show it failing to reach something (a service, a host, an address)."""

    caller: str  # kind/name
    target: str  # the host or service name as the line says it
    service: str | None  # the namespace's service it means, if any
    kind: str  # dns | connect | auth | other
    obs: Observation
    line: str


_IP = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")


def target_port(edge: Edge) -> str | None:
    """The port the edge's line dials its target on (`10.0.0.7:6222`, `db.internal:5432`)."""
    match = re.search(rf"(?<![\w.-]){re.escape(edge.target)}:(\d{{2,5}})\b", edge.line)
    return match.group(1) if match else None


def failure_kind(line: str) -> str:
    """dns, auth or connect when the line's words say so, else other."""
    return next((kind for kind, words in _KINDS if words.search(line)), "other")


# The name a resolver failure is about: `getaddrinfo EAI_AGAIN <host>`, `UnknownHostException: <host>`,
# `Could not resolve host: <host>`.
_RESOLVE_HOST = re.compile(
    r"(?:getaddrinfo \w{1,20}|UnknownHostException:?|could not resolve(?: host)?:?) "
    r"([a-z0-9][a-z0-9-]{0,62}(?:\.[a-z0-9-]{1,63}){1,8})",
    re.IGNORECASE,
)


def line_targets(line: str, services: list[str]) -> list[str]:
    """The names a line mentions: lookups, URL hosts, host:port pairs, the namespace's services."""
    targets = [m.group(1) for m in _LOOKUP_HOST.finditer(line)]
    targets += [m.group(1) for m in _RESOLVE_HOST.finditer(line)]
    targets += [m.group(1) for m in _URL_HOST.finditer(line)]
    targets += [m.group(1) for m in _HOST_PORT.finditer(line)]
    lowered = line.lower()
    targets += [
        s
        for s in services
        if re.search(rf"(?<![\w.-]){re.escape(s)}(?![\w-])", lowered)
    ]
    return targets


def log_edges(
    caller: str,
    obs: Observation,
    text: str,
    services: list[str],
    namespace: str,
    ips: dict[str, str],
    peers: list[Edge] | None = None,
) -> list[Edge]:
    """What the failing lines of a log say the caller could not reach; `peers` collects its failed
    connections to an address of its own service (one replica dialling another: a cluster's routes)."""
    out: list[Edge] = []
    seen: set[tuple[str, str]] = set()
    for line in text.splitlines():
        if not FAILING.search(line):
            continue
        kind = failure_kind(line)
        for target in line_targets(line, services):
            target = target.lower().rstrip(".")
            service = ips.get(target) or service_of_host(target, services, namespace)
            if service is not None and f"/{service}" == caller[caller.index("/") :]:
                if (
                    peers is not None
                    and kind == "connect"
                    and _IP.fullmatch(target)
                    and (target, "peer") not in seen
                ):
                    seen.add((target, "peer"))
                    peers.append(
                        Edge(
                            caller, target, service, kind, obs, short(line.strip(), 240)
                        )
                    )
                continue  # its own name (its own listen address, its own logger)
            if (target, kind) in seen:
                continue
            seen.add((target, kind))
            out.append(
                Edge(caller, target, service, kind, obs, short(line.strip(), 240))
            )
    return out
