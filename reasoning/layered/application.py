"""The application layer (rule 5): a service that fails by itself, or is shown healthy and ruled out.

A service fails by itself when its own endpoint answers 5xx, its own logs show an application error or its
own metrics show saturation; the signs are gathered symptom first, cause last.
"""

from dataclasses import dataclass, field

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import FACT_CHARS, ErrorGroup, Errors, Health, Probe
from reasoning.layered.reading import (
    APP_ERROR,
    NAMES_UPSTREAM,
    about_dependency,
    belongs,
    error_classes,
    short,
)
from reasoning.observations import Observation

_SYMPTOM_SIGNALS = frozenset({"error_ratio", "p99_latency_s", "requests_per_s"})


@dataclass
class _Signs:
    """What shows one service failing by itself, in the order the chain tells it."""

    keywords: list[str]
    support: list[tuple[Observation, str]] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)  # for the statement
    answer: list[str] = field(
        default_factory=list
    )  # chain lines: its endpoint's answer,
    logged: list[str] = field(default_factory=list)  # its own error,
    saturated: list[str] = field(default_factory=list)  # its saturation
    own_error: str | None = None
    stale: bool = False  # the own error was logged before the window too


def applications(board: Board) -> None:
    """A service fails by itself when its own endpoint's 5xx, its own logs or its own metrics say so, two servers agreeing confirming it (the incident's service first, then every service read)."""
    facts = board.facts
    services = [board.service, *(s for s in facts.health if s != board.service)]
    services += [s for s in facts.errors if s not in services]
    for service in services:
        application(board, service)


def application(board: Board, service: str) -> None:
    """A service fails by itself when its own answers, logs or metrics say so; two servers agreeing confirm it."""
    health = board.facts.health.get(service)
    errors = board.facts.errors.get(service)
    signs = _Signs(keywords=[service])
    for probe in board.facts.probes.values():
        if _is_own_answer(probe, service):
            _answered(signs, probe, service)
    if errors is not None:
        _logged(signs, errors, service)
    if health is not None and health.saturation:
        _saturated(signs, health, service)
        if _is_leak(health):
            board.leaks.add(service)
            signs.keywords += ["connection leak", "CLOSE_WAIT"]
    if not signs.support:
        return
    c = board.get(
        layers.APPLICATION,
        service,
        f"{service} itself fails: " + ", ".join(signs.parts),
    )
    for obs, fact in signs.support:
        c.cite(obs, fact)
    symptoms = (
        [f for f in health.findings if f[0] in _SYMPTOM_SIGNALS] if health else []
    )
    if health is not None and symptoms:
        context = f"service_health({service}): " + "; ".join(f[2] for f in symptoms)
        # Its own metrics failing beside its own application error (not an upstream's) in its logs:
        # two servers agree it fails by itself. Without that error they only show it suffers.
        c.cite(
            health.obs,
            short(context, FACT_CHARS),
            is_support=signs.own_error is not None,
        )
    _grade(c, health, own_error=signs.own_error)
    if signs.stale and not signs.answer:
        stale(c)
    head = (
        f"{service}: " + "; ".join(f[2] for f in symptoms)
        if symptoms
        else board.symptom()
    )
    c.chain = [short(head, 160), *signs.answer[:1], *signs.logged, *signs.saturated]
    c.keywords = signs.keywords


def _is_own_answer(probe: Probe, service: str) -> bool:
    """A 5xx from the service's own host is its own, unless it is a gateway's answer about what lies behind it."""
    if not (belongs(probe.host, service) and probe.is_server_error):
        return False
    return not (
        probe.status in (502, 504)
        or probe.body_classes
        or NAMES_UPSTREAM.search(probe.body)
    )


def _answered(signs: _Signs, probe: Probe, service: str) -> None:
    signs.support.append((probe.obs, probe.fact))
    signs.answer.append(
        f"{probe.host} answers HTTP {probe.status} from {service} itself"
    )
    signs.parts.append(f"its endpoint answers HTTP {probe.status} itself")
    signs.keywords.append(f"http_{probe.status}")


def _own_error(errors: Errors) -> tuple[ErrorGroup, str] | None:
    """The first error group showing an application error that is not about an upstream, DNS, TLS
    or a dependency it calls (a driver's exception, a statement or server-selection timeout: the
    dependency's symptom in the caller); one new since the window started before one logged in
    the baseline too."""
    found: list[tuple[ErrorGroup, str]] = []
    for group in errors.groups:
        match = APP_ERROR.search(group.sample) or APP_ERROR.search(group.signature)
        if (
            match is None
            or NAMES_UPSTREAM.search(group.text)
            or error_classes(group.text) & {layers.DNS, layers.TLS}
            or about_dependency(group.text)
        ):
            continue
        found.append((group, match.group(0)))
    return min(found, key=lambda f: f[0].is_stale, default=None)


def _logged(signs: _Signs, errors: Errors, service: str) -> None:
    found = _own_error(errors)
    if found is None:
        return
    group, own_error = found
    signs.own_error = own_error
    signs.stale = group.is_stale
    signs.support.append((errors.obs, errors.fact(group)))
    signs.logged.append(
        f"{service} logs: {short(group.sample or group.signature, 120)}"
    )
    signs.parts.append(f"its logs show {short(own_error, 60)}")
    signs.keywords.append(own_error)


def _saturated(signs: _Signs, health: Health, service: str) -> None:
    details = "; ".join(f[2] for f in health.saturation)
    signs.support.append(
        (health.obs, short(f"service_health({service}): {details}", FACT_CHARS))
    )
    signs.saturated.append(f"{service} saturates: {short(details, 140)}")
    signs.parts.append("its own metrics show saturation")
    signs.keywords += [f[0] for f in health.saturation]


def _is_leak(health: Health) -> bool:
    """Sockets in CLOSE_WAIT beside a full pool or many open connections are a connection leak."""
    return health.has("tcp_close_wait") and (
        health.has("db_pool_utilization") or health.has("open_connections")
    )


def _grade(c: Candidate, health: Health | None, *, own_error: str | None) -> None:
    """Two agreeing servers confirm it (more with its own error named); one is a lead, saturation a stronger one."""
    agreeing = len(c.sources)
    if agreeing >= 2:
        c.status = "confirmed"
        c.confidence = min(
            0.8 + 0.05 * (agreeing - 2) + 0.05 * (own_error is not None), 0.95
        )
    else:
        c.status = "likely"
        c.confidence = 0.45 if health is not None and health.saturation else 0.4


def stale(c: Candidate) -> None:
    """An error logged before the incident began too does not explain what began with it: a lead at most."""
    c.status, c.confidence = "likely", min(c.confidence, 0.3)
    c.statement += " (logged before the window too: not new)"


def healthy_services(board: Board) -> None:
    """A service healthy by its metrics with no error lines is ruled out as failing by itself."""
    for service, health in board.facts.health.items():
        if (
            health.verdict != "healthy"
            or f"{layers.APPLICATION}:{service}" in board.candidates
        ):
            continue
        errors = board.facts.errors.get(service)
        if errors is not None and errors.groups:
            continue
        c = board.get(layers.APPLICATION, service, f"{service} itself fails")
        c.cite(health.obs, health.fact, is_support=False)
        reason = f"service_health({service}) is healthy"
        if errors is not None:
            c.cite(
                errors.obs,
                f"top_errors({service}): no error lines",
                is_support=False,
            )
            reason += " and its logs show no errors"
        c.status, c.confidence, c.reason_ruled_out = "ruled_out", 0.05, reason
