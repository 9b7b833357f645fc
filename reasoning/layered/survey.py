"""The survey that starts a diagnosis whose service name resolves to nothing: everything unhealthy.

Two metric queries list every service the metrics know with its share of 5xx answers; the services
are then read as the incident's own would be (health, top errors), the most failing first. The one
failing most stands for the incident's service (what users see failing); the others are read all the
same, so a cause among them is found by the usual rules.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from reasoning.layered.facts import Facts
from reasoning.layered.reading import as_dict, as_list
from reasoning.observations import Investigation
from reasoning.tools import QUERY_METRIC

REQUESTS: Final = "sum by (service) (rate(http_requests_total[5m]))"
ERRORS: Final = 'sum by (service) (rate(http_requests_total{code=~"5.."}[5m]))'
QUERIES: Final = (REQUESTS, ERRORS)
UNHEALTHY_RATIO: Final = (
    0.01  # the metrics server's own warning threshold for the error ratio
)
_BAD_VERDICTS: Final = {"unhealthy": 2, "degraded": 1}


@dataclass(frozen=True)
class Unhealthy:
    service: str
    why: str
    score: tuple[
        float, int, int
    ]  # 5xx share, verdict rank, error lines: larger fails more


def error_ratios(inv: Investigation) -> dict[str, float] | None:
    """Each metric-known service's worst 5xx share in the window; None until both queries answered."""
    answers: dict[str, dict[str, dict[float, float]]] = {}
    for obs in inv.observations:
        promql = obs.arguments.get("promql")
        if obs.tool != QUERY_METRIC or promql not in QUERIES or not obs.is_ok:
            continue
        per_service = answers.setdefault(str(promql), {})
        for series in map(as_dict, as_list(as_dict(obs.result).get("series"))):
            service = as_dict(series.get("metric")).get("service")
            if not isinstance(service, str) or not service:
                continue
            points = per_service.setdefault(service.lower(), {})
            for pair in as_list(series.get("values")):
                try:
                    points[float(pair[0])] = float(pair[1])
                except (TypeError, ValueError, IndexError):
                    continue
    if REQUESTS not in answers:
        return None
    errors = answers.get(ERRORS, {})
    ratios: dict[str, float] = {}
    for service, requests in answers[REQUESTS].items():
        failed = errors.get(service, {})
        ratios[service] = max(
            (failed.get(t, 0.0) / r for t, r in requests.items() if r > 0),
            default=0.0,
        )
    return ratios


def surveyed(ratios: dict[str, float], logged: Iterable[str], limit: int) -> list[str]:
    """Whom the survey reads: the metric-known services, most failing first, then the logs' own names."""
    ordered = sorted(ratios, key=lambda s: (-ratios[s], s))
    ordered += [s for s in logged if s not in ordered]
    return ordered[:limit]


def unhealthy(facts: Facts, ratios: dict[str, float]) -> list[Unhealthy]:
    """Every service with 5xx answers, a bad health verdict or error lines; the most failing first."""
    names = [*ratios, *(s for s in facts.health if s not in ratios)]
    names += [s for s in facts.errors if s not in names]
    found: list[Unhealthy] = []
    for service in names:
        ratio = ratios.get(service, 0.0)
        health = facts.health.get(service)
        verdict = health.verdict if health is not None else ""
        errors = facts.errors.get(service)
        lines = sum(g.count for g in errors.groups) if errors is not None else 0
        why: list[str] = []
        if ratio >= UNHEALTHY_RATIO:
            why.append(f"{ratio:.0%} 5xx")
        if verdict in _BAD_VERDICTS:
            why.append(f"metrics {verdict}")
        if lines:
            why.append(f"{lines} error lines")
        if why:
            found.append(
                Unhealthy(
                    service,
                    ", ".join(why),
                    (round(ratio, 3), _BAD_VERDICTS.get(verdict, 0), lines),
                )
            )
    found.sort(key=lambda u: (-u.score[0], -u.score[1], -u.score[2], u.service))
    return found
