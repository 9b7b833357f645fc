"""Services the survey never reaches (issue 21 items 1 and 3): what every service logs that is new.

A consumer, a batch worker or a sidecar serves no HTTP: the metrics' 5xx survey does not list it,
the incident does not name it and no caller's error names it, so its own logs were never read. When
nothing read so far explains the incident, one `top_errors` of every service at once (the logs
server groups each service's errors and warnings apart, with the hour before as a baseline) shows
which services log a pattern that is new since the window started or logged far more often than
before; those not read yet are read like the incident's own service, the most lines first, so the
usual rules (`new_messages`, `warning_leads` …) can weigh them.
"""

from collections.abc import Container
from dataclasses import dataclass
from typing import Any, Final

from reasoning.layered.facts import Errors, Facts, groups_of
from reasoning.layered.reading import as_dict, as_list
from reasoning.observations import Investigation, Observation, only_tool
from reasoning.tools import TOP_ERRORS

# A pattern logged this many times as often in the window as in the baseline rose with the incident.
ROSE_FACTOR: Final = 10
# Fewer lines than this are a blip, not a service failing (a new pattern must repeat to count).
MIN_LINES: Final = 3


@dataclass(frozen=True)
class Lead:
    """A service not read yet whose own errors or warnings are new, or rose, since the window started."""

    service: str
    lines: int  # its new or risen lines in the window
    sample: str

    @property
    def why(self) -> str:
        return (
            f"{self.service} was never read and logs {self.lines} error or warning lines "
            f"new since the window started ({self.sample[:120]})"
        )


def offered(inv: Investigation) -> bool:
    """Whether the logs server's top_errors groups every service at once (its service is optional)."""
    tool = only_tool(inv, TOP_ERRORS)
    if tool is None:
        return False
    schema = tool.input_schema
    return "service" in as_dict(schema.get("properties")) and "service" not in as_list(
        schema.get("required")
    )


def arguments(window: dict[str, str], baseline_s: int) -> dict[str, Any]:
    """top_errors' arguments for every service: errors and warnings, against the baseline."""
    return {"service": "", **window, "warnings": True, "baseline_s": baseline_s}


def is_every_service(obs: Observation) -> bool:
    """A top_errors of every service at once (no service named)."""
    return obs.tool == TOP_ERRORS and not obs.arguments.get("service")


def leads(inv: Investigation, read: Container[str]) -> list[Lead]:
    """The services of every-service top_errors answers, not in `read`, with errors or warnings new
    since the window started (or risen `ROSE_FACTOR` times against the baseline); most lines first."""
    found: dict[str, Lead] = {}
    for obs in inv.observations:
        if not is_every_service(obs) or not obs.is_ok:
            continue
        result = as_dict(obs.result)
        groups = [*as_list(result.get("top")), *as_list(result.get("warnings"))]
        for group in map(as_dict, groups):
            service = group.get("service")
            count = group.get("count")
            before = group.get("before")
            if not isinstance(service, str) or not service or service in read:
                continue
            if not isinstance(count, int) or not isinstance(before, int):
                continue
            if count < ROSE_FACTOR * before or (before and count < MIN_LINES):
                continue
            known = found.get(service)
            lines = count + (known.lines if known else 0)
            sample = known.sample if known else str(group.get("sample") or "")
            found[service] = Lead(service, lines, sample)
    # A new pattern must repeat: counted over the service, since a token the server does not
    # normalise (`report=monthly-t_10005`) splits one message into many groups of one line.
    kept = [lead for lead in found.values() if lead.lines >= MIN_LINES]
    return sorted(kept, key=lambda lead: (-lead.lines, lead.service))


def every_service_groups(obs: Observation) -> list[tuple[str, Errors]]:
    """A top_errors of every service at once as one `Errors` per group, under the service it names."""
    found: list[tuple[str, Errors]] = []
    result = as_dict(obs.result)
    for key, warn in (("top", False), ("warnings", True)):
        for raw in map(as_dict, as_list(result.get(key))):
            service = str(raw.get("service") or "").lower()
            if not service:
                continue
            groups = groups_of([raw])
            errors = Errors(
                obs, service, () if warn else groups, groups if warn else ()
            )
            found.append((service, errors))
    return found


def every_service_errors(inv: Investigation, facts: Facts) -> list[tuple[str, Errors]]:
    """Each service's errors read, then what a top_errors of every service at once shows of the others."""
    found = list(facts.errors.items())
    for obs in inv.observations:
        if is_every_service(obs) and obs.is_ok:
            found += [
                (service, errors)
                for service, errors in every_service_groups(obs)
                if service not in facts.errors
            ]
    return found
