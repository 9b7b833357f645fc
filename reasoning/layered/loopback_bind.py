"""A server refusing connections because it listens on loopback only: the host's own bind line is the fault.

A package upgrade that replaces a config file with the package's default (Elasticsearch without
`network.host`, Redis's `bind 127.0.0.1`, PostgreSQL's `listen_addresses = 'localhost'`), a
container built with a dev server's default host, a service started by hand: the server comes up
healthy and logs where it listens, but only on 127.0.0.1 or ::1, so every caller from another
machine is refused. The probe says `connect refused`; the callers say `connection refused`; the
server's own start line says why. Machines log under their short name (`db-03`), while the probe
names the FQDN (`db-03.dc.corp.example`), so a search for the FQDN finds none of the host's lines:
the planner also searches every service's lines for the first label of a refused FQDN
(`searches`). A line there that states the addresses a server listens on, all of them loopback
(`loopback_only`), makes the connect fault the host's, named as its own lines name it, citing that
line; the probe's finding on the FQDN is folded into it.
"""

import re
from collections.abc import Callable
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts, Probe
from reasoning.layered.reading import arg, as_dict, as_list, short
from reasoning.observations import Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

_LIMIT: Final = 20
_MAX_HOSTS: Final = 2
_MAX_LINE: Final = 4000
# A machine's own name: a first label with a letter, not an IP's first octet.
_MACHINE: Final = re.compile(r"^[a-z][a-z0-9-]{1,62}$")
# A line stating where a server listens: its bind, listen, publish or socket address.
_BINDS: Final = re.compile(
    r"\b(?:listen(?:s|ing|ers?)?|bound|bind(?:s|ing)?|bound_address(?:es)?|publish_address|"
    r"running on|serving on|accepting connections on|awaiting socket connections on|"
    r"server socket created on)\b",
    re.IGNORECASE,
)
_IPV4: Final = re.compile(r"(?<![\d.])(\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\d.])")
_LOOPBACK6: Final = re.compile(r"(?<![\w:])::1(?![\w:])")
_ANY6: Final = re.compile(r"\[::\]|(?<![\w:])::(?![\w:])")
_LOCALHOST: Final = re.compile(r"\blocalhost\b", re.IGNORECASE)


def machine_name(host: str) -> str | None:
    """The short name a machine logs under: the first label of an FQDN (`db-03` of `db-03.dc.corp.example`), None for a single label or an address."""
    labels = host.lower().rstrip(".").split(".")
    if len(labels) < 3 or not _MACHINE.match(labels[0]):
        return None
    return labels[0]


def _refused(facts: Facts) -> list[Probe]:
    return [
        p
        for p in facts.probes.values()
        if p.layer == layers.CONNECT and p.url not in facts.mcp_endpoints
    ]


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """One search of every service's lines for the short name of each FQDN whose probe failed to connect."""
    names = dict.fromkeys(
        n for p in _refused(facts) if (n := machine_name(p.host)) is not None
    )
    return [
        call(
            SEARCH_LOGS,
            {"query": name, **window, "limit": _LIMIT},
            f"connecting to {name} failed: what do its own lines say it listens on",
        )
        for name in list(names)[:_MAX_HOSTS]
    ]


def loopback_only(text: str) -> bool:
    """Whether `text` states the addresses a server listens on, every one of them loopback."""
    text = text[:_MAX_LINE]
    if not _BINDS.search(text):
        return False
    octets = [m.group(1) for m in _IPV4.finditer(text)]
    if any(o != "127" for o in octets) or _ANY6.search(text):
        return False
    return bool(octets or _LOOPBACK6.search(text) or _LOCALHOST.search(text))


def _names(line: dict[str, Any], host: str, name: str) -> str | None:
    """How the line names the host (its host label, else the short name or FQDN in its text), None when it does not."""
    labelled = str(as_dict(line.get("labels")).get("host") or "").lower()
    if labelled in (host, name):
        return labelled
    message = str(line.get("message") or "").lower()[:_MAX_LINE]
    if host in message:
        return host
    if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", message):
        return name
    return None


def _bind_line(
    board: Board, probe: Probe
) -> tuple[Observation, dict[str, Any], str] | None:
    host = probe.host.lower()
    name = machine_name(host) or host
    for obs in board.inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "service"):
            continue
        if arg(obs, "query") not in (host, name):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            named = _names(line, host, name)
            if named and loopback_only(str(line.get("message") or "")):
                return obs, line, named
    return None


def listens_on_loopback(board: Board) -> None:
    """A host refusing connections whose own line says its server listens on loopback addresses only is the connect fault, named as its lines name it."""
    for probe in _refused(board.facts):
        found = _bind_line(board, probe)
        if found is None:
            continue
        obs, line, named = found
        service = str(line.get("service") or "")
        message = str(line.get("message") or "")
        c = board.get(
            layers.CONNECT,
            named,
            f"{named} refuses connections: {service or 'its server'} listens on "
            f"loopback addresses only",
        )
        c.cite(obs, short(f"search_logs(every service): {service}: {message}", 300))
        leaf = board.candidates.get(f"{layers.CONNECT}:{probe.host}")
        if leaf is not None and leaf is not c:
            for e in leaf.evidence:
                if not any(x.span_id == e.span_id for x in c.evidence):
                    c.evidence.append(e)
                    c.sources.add(e.server)
            leaf.status, leaf.confidence = "likely", min(leaf.confidence, 0.4)
            leaf.statement += f"; a symptom of {c.id} (it listens on loopback only)"
        c.status = "confirmed"
        c.confidence = max(c.confidence, 0.9)
        c.chain = [
            board.symptom(),
            f"probe of {probe.host}: connect refused",
            f"{service} logs: {short(message, 140)}",
            c.statement,
        ]
        c.keywords = [layers.CONNECT, named, "refused", "loopback", "bind address"]
