"""A certificate that expired during the incident, as the incident's service lost its traffic.

Rule: a probe that finds a host's certificate expired, its notAfter inside the incident's window,
while the incident's service's request rate fell below half of what it was at the window's start
and its error ratio stayed under the warning threshold (its clients stopped arriving, nothing
failed inside it), is confirmed by those metrics: the failure sits in front of the service and
began when the certificate expired. A certificate that expired before the window, or a service
whose traffic held or whose own errors rose, gets no support from this rule.
"""

from dataclasses import dataclass
from datetime import datetime

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import FACT_CHARS, Health, Probe
from reasoning.layered.reading import as_dict, short

# Below this share of its starting rate, the service has lost most of its traffic.
FELL_BELOW = 0.5


@dataclass(frozen=True)
class TrafficFell:
    health: Health
    fact: str  # the metrics, as cited
    line: str  # the causal chain's line


def expired_while_traffic_fell(board: Board, probe: Probe) -> TrafficFell | None:
    """A certificate that expired inside the window while the incident's service lost its traffic without errors is confirmed by those metrics.

    Returns the metrics to cite, else None."""
    if probe.layer != layers.TLS or probe.reason != "certificate_expired":
        return None
    not_after = _moment(
        as_dict(as_dict(probe.obs.result).get("certificate")).get("not_after")
    )
    start = _moment(board.inv.incident.window_start)
    end = _moment(board.inv.incident.window_end)
    if (
        not_after is None
        or start is None
        or end is None
        or not start <= not_after <= end
    ):
        return None
    health = board.facts.health.get(board.service)
    if health is None:
        return None
    result = as_dict(health.obs.result)
    signals = as_dict(result.get("signals"))
    rate = as_dict(signals.get("requests_per_s"))
    errors = as_dict(signals.get("error_ratio"))
    warning = as_dict(as_dict(result.get("thresholds")).get("error_ratio")).get(
        "warning"
    )
    before, now = _number(rate.get("start")), _number(rate.get("current"))
    ratio, limit = _number(errors.get("current")), _number(warning)
    if before is None or now is None or before <= 0 or now >= FELL_BELOW * before:
        return None
    if ratio is None or limit is None or ratio >= limit:
        return None  # its own errors rose: something fails inside it too
    stamp = not_after.strftime("%Y-%m-%dT%H:%M:%SZ")
    fact = short(
        f"service_health({board.service}): requests_per_s {before:g} at the window's start, "
        f"{now:g} now, error_ratio {ratio:g} (under {limit:g}); {probe.host}'s certificate "
        f"expired at {stamp}, inside the window",
        FACT_CHARS,
    )
    line = (
        f"{board.service}'s traffic fell from {before:.3g}/s to {now:.3g}/s without errors "
        f"after {probe.host}'s certificate expired at {stamp}"
    )
    return TrafficFell(health, fact, line)


def _moment(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _number(value: object) -> float | None:
    return (
        float(value)
        if isinstance(value, int | float) and not isinstance(value, bool)
        else None
    )
