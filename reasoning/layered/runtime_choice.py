"""A slow service whose runtime chose a different setting at its last start: its own start-up line, at info level, is the fault.

A runtime sizes itself from what it finds at start: the JVM picks its garbage collector and heap
from the CPUs and memory it sees, a Go program its GOMAXPROCS, a server its worker count, a
database its buffer sizes. A change to what the process is given (a container's or a task's CPU
halved, a memory limit cut, a flag dropped) makes it choose differently, and it says so once, at
info level, when it starts (`[gc] Using Serial`, `using 1 worker`, `selected allocator ...`).
Nothing errs; latency rises; the callers in front complain and look guilty. For a service that is
slow and logs no new error, the planner reads its own lines that state such a choice over the
window and the hours before (`searches`); a line whose choice differs from what the same line said
at an earlier start (`choices`) makes the service the application fault, citing both lines.
"""

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts, parse_time
from reasoning.layered.reading import arg, as_dict, as_list, iso, short
from reasoning.observations import Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

_MAX_LINE: Final = 2000
_MAX_SERVICES: Final = 2
BEFORE: Final = timedelta(hours=3)  # earlier starts to compare with
_SUBJECTS: Final = (
    r"gc|collector|heap|allocator|mode|engine|driver|scheduler|workers?|threads?|"
    r"processors?|cpus?|cores?|gomaxprocs"
)
_VERBS: Final = (
    r"using|selected|chose|chosen|picked|defaulting to|fell back to|falling back to"
)
QUERY: Final = (
    rf"\b({_VERBS}) [a-z0-9 ._+-]{{0,30}}\b({_SUBJECTS})\b|"
    rf"\b({_SUBJECTS})\b.{{0,20}}\b({_VERBS}) "
)
# A stated choice: the words before it, the verb, and the value chosen.
_CHOICE: Final = re.compile(
    rf"^(?P<before>[^\n]{{0,200}}?)\b(?P<verb>{_VERBS})\s+(?P<value>[\w.+-]{{1,40}})",
    re.IGNORECASE,
)
_SUBJECT: Final = re.compile(rf"\b(?:{_SUBJECTS})\b", re.IGNORECASE)
_WORD: Final = re.compile(r"[a-z]{2,}")


def _slow_quiet(facts: Facts) -> list[str]:
    """Services slow by their p99 that log no new error or warning of their own."""
    out: list[str] = []
    for service, health in facts.health.items():
        if not health.has("p99_latency_s"):
            continue
        errors = facts.errors.get(service)
        if (
            errors is None
            or errors.groups
            or any(not w.is_stale for w in errors.warnings)
        ):
            continue
        out.append(service)
    return out[:_MAX_SERVICES]


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """For each slow service that logs no error, its own lines stating a choice its runtime made at start, over the window and the hours before."""
    start = parse_time(window.get("start", ""))
    if start is None:
        return []
    return [
        call(
            SEARCH_LOGS,
            {
                "service": service,
                "query": QUERY,
                "regex": True,
                "start": iso(start - BEFORE),
                "end": window.get("end") or "now",
                "limit": 20,
            },
            f"{service} is slow and logs no error: the choices its runtime states at start "
            "(collector, heap, workers), against its earlier starts",
        )
        for service in _slow_quiet(facts)
    ]


def choice(text: str) -> tuple[tuple[str, ...], str] | None:
    """A start-up line's choice: (the words naming what was chosen, the value), None when the line states none."""
    head = text[:_MAX_LINE]
    m = _CHOICE.search(head)
    if m is None or not _SUBJECT.search(head):
        return None
    words = tuple(_WORD.findall(m.group("before").lower())[-3:])
    return (*words, m.group("verb").lower()), m.group("value").lower()


def _lines(obs: Observation) -> list[tuple[str, str]]:
    """(time, message) of an answer's lines, oldest first."""
    rows = [
        (str(line.get("time") or ""), str(line.get("message") or ""))
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines")))
    ]
    return sorted(rows)


def choices(obs: Observation) -> tuple[str, str] | None:
    """The latest start-up line whose choice differs from an earlier line of the same words: (earlier, latest)."""
    first: dict[tuple[str, ...], tuple[str, str]] = {}
    found: tuple[str, str] | None = None
    for _, message in _lines(obs):
        parsed = choice(message)
        if parsed is None:
            continue
        key, value = parsed
        if key not in first:
            first[key] = (value, message)
        elif first[key][0] != value:
            found = (first[key][1], message)
    return found


def runtime_choice(board: Board) -> None:
    """A slow service that logs no error, whose runtime states at its last start a choice (collector, heap, workers) different from the one it stated at an earlier start, is the application fault: what it was given changed, and its callers' complaints are symptoms."""
    for obs in board.inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "query") != QUERY:
            continue
        service = arg(obs, "service")
        health = board.facts.health.get(service)
        if not service or health is None or not health.has("p99_latency_s"):
            continue
        found = choices(obs)
        if found is None:
            continue
        earlier, latest = found
        c = board.get(
            layers.APPLICATION,
            service,
            f"{service} is slow since its runtime chose differently at its last start "
            f"({short(latest, 80)}, where it said {short(earlier, 80)} before): what it was "
            "given (CPUs, memory, flags) changed",
        )
        c.cite(obs, short(f"search_logs({service}): {latest}", 300))
        c.cite(obs, short(f"search_logs({service}) earlier: {earlier}", 300))
        c.cite(health.obs, health.fact)
        c.status = "confirmed"
        c.confidence = max(c.confidence, 0.9)
        c.chain = [
            board.symptom(),
            health.fact,
            f"{service} at an earlier start: {short(earlier, 120)}",
            f"{service} at its last start: {short(latest, 120)}",
            c.statement,
        ]
        c.keywords = [layers.APPLICATION, service, "gc", "heap", "cpu", "start-up"]
