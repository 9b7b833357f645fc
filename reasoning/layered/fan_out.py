"""A service whose own new lines say one operation makes tens of calls downstream (an N+1 fan-out) is the cause; the line that shows the calls multiplied is cited, and the callee they load is its victim.

An N+1 (a resolver or loop that calls a back end once per item instead of once per batch) shows as a
count: the service's own slow-operation line states how many downstream calls one operation made
(`"downstreamCalls":241`, `queries=480`), a trace store's or profiler's line lists the calls one
request made (`241 x GET pricing /v1/prices/{sku}`), an ORM warns of an `N+1`. `searches` asks every
service's lines for the multiplied calls once a service's own new line states such a count;
`fan_out` makes that service's hypothesis cite its count line and the multiplied-calls line that
belongs to it (same count, names it, or shares the operation's name), and the callee named there,
whose queue the calls fill, yields to it.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts
from reasoning.layered.reading import as_dict, as_list, short
from reasoning.layered.warning_leads import names_service
from reasoning.observations import Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# A service's own count of the calls one operation made downstream.
OWN_COUNT: Final = re.compile(
    r"\b(?:downstream[ _]?calls|outbound[ _]?calls|backend[ _]?calls|db[ _]?calls|"
    r"sub[ _-]?requests|query[ _]?count|queries|sql[ _]?count|statements|fetch(?:es)?[ _]?count|"
    r"calls)\"?\s?[:=]\s?\"?(\d{1,7})\b",
    re.IGNORECASE,
)
# A line listing the same call made many times (a trace's or profiler's summary, an N+1 warning).
MULTIPLIED: Final = re.compile(
    r"\b(\d{1,7}) ?x ?(?:GET|POST|PUT|PATCH|DELETE|HEAD|SELECT|UPDATE|INSERT|call|query|rpc)\b|"
    r"\bN ?\+ ?1\b|"
    r"\b(\d{1,7}) (?:identical |repeated |sequential )?(?:calls|queries|requests|round[- ]?trips|"
    r"statements|fetches) (?:to|per|for|against)\b",
    re.IGNORECASE,
)
# The same, as an RE2 pattern for the logs server.
MULTIPLIED_QUERY: Final = (
    r"[0-9]{2,7} ?x ?(GET|POST|PUT|PATCH|DELETE|SELECT|UPDATE|INSERT|call|query|rpc)\b"
    r"|N ?\+ ?1\b"
    r"|[0-9]{2,7} (identical |repeated |sequential )?(calls|queries|requests|round.?trips|statements|fetches) (to|per|for|against)\b"
)
FAN_OUT_MIN: Final = (
    20  # calls per operation that make it a fan-out, not a page of a few reads
)
_TEXT_CHARS: Final = 2000
_SEARCH_LIMIT: Final = 10
# An identifier in CamelCase or with an underscore: an operation's or a query's name.
_OPERATION: Final = re.compile(
    r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[a-z0-9]+_[a-z0-9_]+\b"
)
_CONFIDENCE: Final = 0.84


@dataclass(frozen=True)
class _Count:
    errors: Errors
    group: ErrorGroup
    count: int


def _text(value: str) -> str:
    return value[:_TEXT_CHARS]


def _counts(facts: Facts) -> list[_Count]:
    """Each service's first new line stating a fan-out of at least FAN_OUT_MIN calls per operation."""
    found: list[_Count] = []
    for errors in facts.errors.values():
        for group in (*errors.warnings, *errors.groups):
            if group.is_stale:
                continue
            text = _text(group.sample or group.signature)
            counts = [int(m.group(1)) for m in OWN_COUNT.finditer(text)]
            counts += [
                int(n) for m in MULTIPLIED.finditer(text) for n in m.groups() if n
            ]
            best = max(counts, default=0)
            if best >= FAN_OUT_MIN:
                found.append(_Count(errors, group, best))
                break
    return found


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """Once a service's own new line states a fan-out: every service's lines listing calls made many times."""
    counts = _counts(facts)
    if not counts:
        return []
    names = ", ".join(c.errors.service for c in counts[:3])
    return [
        call(
            SEARCH_LOGS,
            {
                "query": MULTIPLIED_QUERY,
                "regex": True,
                **window,
                "limit": _SEARCH_LIMIT,
            },
            f"{names} says one operation makes tens of downstream calls: which lines (traces, "
            "profilers) list the calls multiplied",
        )
    ]


def _multiplied_lines(observations: list[Observation]) -> list[tuple[Observation, str]]:
    found: list[tuple[Observation, str]] = []
    for obs in observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok:
            continue
        if as_dict(obs.arguments).get("query") != MULTIPLIED_QUERY:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = _text(str(line.get("message") or ""))
            if MULTIPLIED.search(message):
                service = str(line.get("service") or "")
                found.append((obs, f"{service}: {message}" if service else message))
    return found


def _belongs(line: str, count: _Count) -> bool:
    """The multiplied-calls line is about this service's operation: same count, names it, or its operation."""
    own = _text(count.group.sample or count.group.signature)
    numbers = {int(n) for m in MULTIPLIED.finditer(line) for n in m.groups() if n}
    if count.count in numbers:
        return True
    if names_service(line, count.errors.service):
        return True
    operations = set(_OPERATION.findall(own))
    return any(op in line for op in operations)


def fan_out(board: Board) -> None:
    """A service whose own new line says one operation made tens of downstream calls is the cause at the application layer, citing the line that lists those calls multiplied; the callee that line names is its victim."""
    lines = _multiplied_lines(board.inv.observations)
    for count in _counts(board.facts):
        mine = [(o, text) for o, text in lines if _belongs(text, count)]
        if not mine:
            continue
        _blame(board, count, mine[0])


def _blame(board: Board, count: _Count, line: tuple[Observation, str]) -> None:
    service = count.errors.service
    obs, text = line
    c = board.get(
        layers.APPLICATION,
        service,
        f"{service} makes {count.count} downstream calls for one operation (an N+1 fan-out) "
        "and loads what it calls",
    )
    c.cite(count.errors.obs, count.errors.fact(count.group))
    c.cite(obs, short(f"search_logs: {text}", 300))
    release = next(
        (ch for ch in board.facts.changes if names_service(ch.message, service)), None
    )
    if release is not None:
        c.cite(release.obs, release.fact)
    if c.status != "ruled_out":
        c.status = "confirmed"
        c.confidence = max(c.confidence, _CONFIDENCE + 0.04 * (release is not None))
    if "n+1" not in c.statement.lower():
        c.statement = (
            f"{service} makes {count.count} downstream calls for one operation (an N+1 "
            f"fan-out); {c.statement}"
        )
    c.chain = [
        board.symptom(),
        f"{service} logs: {short(_text(count.group.sample or count.group.signature), 120)}",
        short(text, 160),
        *(
            [f"{release.service} logs: {short(release.message, 120)}"]
            if release
            else []
        ),
        c.statement,
    ]
    for word in (service, "n+1", "fan-out", "batch"):
        if word not in c.keywords:
            c.keywords.append(word)
    for other in list(board.candidates.values()):
        if (
            other is not c
            and other.layer == layers.APPLICATION
            and other.component != service
            and names_service(text, other.component)
        ):
            other.explained_by(
                c, f"a symptom of {c.id} (its calls multiplied per operation)"
            )
