"""A rate that jumped (issue 21 class 2): a log pattern far more frequent in the window than before it.

top_errors counts each message pattern in the window and in a baseline before it (`before`). A
pattern logged in the baseline too is stale by that alone (`application.stale`): it was there
before the incident. But one logged at least `JUMP` times as often per second in the window as in
the baseline, and at least `MIN_LINES` times, began with the incident all the same. When it names a
cause of the service's own (an application error, or a cause a warning names, `warning_leads.CAUSE`)
and not an upstream's or the network's, it is a lead for that service, confirmed as a new warning
is: by its callers' failures naming it or by its own metrics failing.
"""

from dataclasses import dataclass
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import ErrorGroup, Errors, parse_time
from reasoning.layered.reading import (
    APP_ERROR,
    NAMES_UPSTREAM,
    about_dependency,
    as_dict,
    error_classes,
    short,
)
from reasoning.layered.warning_leads import CAUSE, callers_naming

JUMP: Final = 10.0  # lines per second in the window, against the baseline's
MIN_LINES: Final = 20  # fewer lines in the window are noise, whatever the ratio
STALE_SUFFIX: Final = " (logged before the window too: not new)"  # application.stale
_FAILING = ("degraded", "unhealthy")


@dataclass(frozen=True)
class Jump:
    """A pattern of one service's logs whose rate jumped from the baseline to the window."""

    errors: Errors
    group: ErrorGroup
    cause: str
    ratio: float  # the window's rate over the baseline's

    @property
    def words(self) -> str:
        return f"{self.ratio:.0f} times as often as before the window"


def jumped(errors: Errors, group: ErrorGroup) -> float | None:
    """How many times its baseline rate a pattern logged before the window is logged in it, when
    that is at least `JUMP` over at least `MIN_LINES` lines; None otherwise (or without a baseline)."""
    if not group.before or group.count < MIN_LINES:
        return None
    window, baseline = _seconds(errors, "window"), _seconds(errors, "baseline")
    if window is None or baseline is None:
        return None
    ratio = (group.count / window) / (group.before / baseline)
    return ratio if ratio >= JUMP else None


def rate_jumps(board: Board) -> None:
    """A log pattern of a service's own cause logged before the window too, but many times as often in it, is a lead for that service, confirmed by its callers' failures naming it or its own failing metrics."""
    for errors in board.facts.errors.values():
        jump = _jump(errors)
        if jump is not None:
            _hypothesis(board, jump)


def _jump(errors: Errors) -> Jump | None:
    """The service's most frequent pattern that names a cause of its own and whose rate jumped."""
    for group in (*errors.groups, *errors.warnings):
        match = CAUSE.search(group.text) or (
            APP_ERROR.search(group.text) if group in errors.groups else None
        )
        if (
            match is None
            or NAMES_UPSTREAM.search(group.text)
            or error_classes(group.text) & {layers.DNS, layers.CONNECT, layers.TLS}
            or about_dependency(group.text)
        ):
            continue
        ratio = jumped(errors, group)
        if ratio is not None:
            return Jump(errors, group, match.group(0), ratio)
    return None


def _hypothesis(board: Board, jump: Jump) -> None:
    service = jump.errors.service
    facts = board.facts
    said = f"its logs show {short(jump.cause, 60)} {jump.words}"
    c = board.get(layers.APPLICATION, service, f"{service} itself fails: {said}")
    if c.stage is not None:
        return  # a Kubernetes finding's own: its stage rules grade it
    c.statement = c.statement.replace(STALE_SUFFIX, "")
    if said not in c.statement:
        c.statement += f"; {said}"
    c.cite(jump.errors.obs, f"{jump.errors.fact(jump.group)} ({jump.words})")
    callers = callers_naming(board, c, service)
    health = facts.health.get(service)
    metrics_fail = health is not None and health.verdict in _FAILING
    if health is not None and metrics_fail:
        c.cite(health.obs, health.fact)
    _grade(c, callers=bool(callers), metrics_fail=metrics_fail)
    line = f"{service} logs {jump.words}: {short(jump.group.sample or jump.group.signature, 100)}"
    if line not in c.chain:
        called = [f"{caller} fails calling {service}" for caller in callers[:2]]
        c.chain = [board.symptom(), *called, line, c.statement]
    c.keywords = [service, jump.cause, *(k for k in c.keywords if k != service)]


def _grade(c: Candidate, *, callers: bool, metrics_fail: bool) -> None:
    """Callers or its own metrics agreeing confirm it (both, more); alone it is a lead, never stale."""
    if callers or metrics_fail:
        confidence = 0.82 + 0.05 * (callers and metrics_fail)
        if c.status != "confirmed" or c.confidence < confidence:
            c.status, c.confidence = "confirmed", confidence
    elif c.status != "confirmed":
        c.status, c.confidence = "likely", max(c.confidence, 0.5)


def _seconds(errors: Errors, key: str) -> float | None:
    """The length of top_errors' `window` or `baseline`, from its answer (else its arguments)."""
    span = as_dict(as_dict(errors.obs.result).get(key))
    start, end = (
        parse_time(str(span.get("start") or "")),
        parse_time(str(span.get("end") or "")),
    )
    if start is not None and end is not None and end > start:
        return (end - start).total_seconds()
    if key == "baseline":
        value = errors.obs.arguments.get("baseline_s")
        return float(value) if isinstance(value, int) and value > 0 else None
    start = parse_time(str(errors.obs.arguments.get("start") or ""))
    end = parse_time(str(errors.obs.arguments.get("end") or ""))
    if start is not None and end is not None and end > start:
        return (end - start).total_seconds()
    return None
