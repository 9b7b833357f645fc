"""A server refusing connections because it cannot start: its own start failure is the connect fault.

A service that fails while it starts (it cannot read its own store, is refused by a dependency it
needs at start, finds a setting it cannot use) exits, and its supervisor (systemd, a container
runtime) starts it again and again; between the tries nothing listens on its port, so every
caller is refused. The probe of its host says `connect refused` and the callers fail in their own
words, louder than it, but the host is no fault of its own: the server behind it is, and its own
start-failure line says why (the dependency it names is where a person goes next). The host is
named as people name the server: its first label (`ledger-db` of `ledger-db.prod.example`), which
is the name its logs are kept under; the planner reads that service's errors when the probe is
refused (`reads`), and a new error line of it saying it failed to start (`STARTING`) makes the
connect fault the service's, citing that line; the probe's finding on the host is folded into it.
"""

import re
from collections.abc import Iterator
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts, Probe
from reasoning.layered.reading import GENERIC_LABELS, SERVICE_NAME, short

_MAX_HOSTS: Final = 2
_MAX_TEXT: Final = 4000  # a line's head: where a start failure is said
_CONFIDENCE: Final = 0.92  # the probe and the server's own start failure agree
# A server's own words that it failed to start (or its supervisor's about it).
STARTING: Final = re.compile(
    r"\b(?:error|failure|failed|exception) (?:while )?(?:starting|initiali[sz]ing|booting|"
    r"bootstrapping)\b|"
    r"\b(?:failed|unable|could not|couldn't|cannot|can't) (?:to )?(?:start|initiali[sz]e|boot)\b|"
    r"\b(?:start-?up|initiali[sz]ation|bootstrap|boot) (?:failed|error|aborted|exception)\b|"
    r"\bInitiali[sz]ation\w*(?:Exception|Error)\b|\baborting (?:start-?up|startup|boot)\b|"
    r"\bmain process exited\b|\bstart request repeated too quickly\b",
    re.IGNORECASE,
)


def server_name(host: str) -> str | None:
    """The name a host's server logs under: its first label when it names a service
    (`ledger-db` of `ledger-db.prod.example`), None for a generic label or an address."""
    label = host.lower().rstrip(".").split(".", 1)[0]
    if label in GENERIC_LABELS or not SERVICE_NAME.match(label):
        return None
    return label


def _refused(facts: Facts) -> Iterator[Probe]:
    for probe in facts.probes.values():
        if (
            probe.layer == layers.CONNECT
            and probe.reason == "refused"
            and probe.url not in facts.mcp_endpoints
        ):
            yield probe


def reads(facts: Facts) -> list[str]:
    """The services behind hosts whose probe was refused, not read yet: what their own lines say."""
    names = dict.fromkeys(
        n
        for p in _refused(facts)
        if (n := server_name(p.host)) is not None and n not in facts.errors
    )
    return list(names)[:_MAX_HOSTS]


def _start_failure(errors: Errors) -> ErrorGroup | None:
    """The service's first new error line saying it failed to start."""
    for group in errors.groups:
        if group.is_new and STARTING.search(group.text[:_MAX_TEXT]):
            return group
    return None


def cannot_start(board: Board) -> None:
    """A host refusing connections whose own server's new error lines say it fails to start is the connect fault of that server, named as its logs name it; the host's probe is folded into it."""
    for probe in _refused(board.facts):
        name = server_name(probe.host)
        errors = board.facts.errors.get(name or "")
        if name is None or errors is None:
            continue
        group = _start_failure(errors)
        if group is None:
            continue
        line = group.sample or group.signature
        c = board.get(
            layers.CONNECT,
            name,
            f"{name} refuses connections: it fails to start ({short(line, 120)})",
        )
        c.cite(errors.obs, errors.fact(group))
        c.cite(probe.obs, probe.fact)
        leaf = board.candidates.get(f"{layers.CONNECT}:{probe.host}")
        if leaf is not None and leaf is not c:
            for e in leaf.evidence:
                if not any(
                    x.span_id == e.span_id and x.fact == e.fact for x in c.evidence
                ):
                    c.evidence.append(e)
                    c.sources.add(e.server)
            leaf.status, leaf.confidence = "likely", min(leaf.confidence, 0.4)
            leaf.statement += f"; a symptom of {c.id} (it fails to start)"
        c.status = "confirmed"
        c.confidence = max(c.confidence, _CONFIDENCE)
        c.chain = [
            board.symptom(),
            f"probe of {probe.host}: connect refused",
            f"{name} logs: {short(line, 160)}",
            c.statement,
        ]
        c.keywords = [layers.CONNECT, name, "refused", "fails to start"]
