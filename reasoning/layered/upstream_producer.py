"""A consumer rejecting what it reads blames the producer that wrote it (issue 21 class 4): the quiet upstream, not the loud reader, is the cause.

A batch job, exporter or feed writer changes what it writes (a locale that formats decimals with a
comma, a field renamed, a date format) and logs, at info, that it wrote its output as usual. The
service that reads the output fails loudly: its parser rejects rows (`NumberFormatException: For
input string`, `invalid input syntax for type numeric`, `could not convert string to float`,
`json: cannot unmarshal`, rows rejected as invalid), and whoever depends on it warns in turn. When
the reader's new lines name what it reads (a file such as `offers.csv`, a feed or topic), the
planner searches every service's lines for that name (`searches`); the one other service whose own
line, not at error level, says it wrote, exported or published it is the producer and the cause
(`upstream_producer`), cited with the reader's rejection; the services whose new errors or warnings
began with the rejections are its victims.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts, parse_time
from reasoning.layered.reading import arg, every_service_lines, iso, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# A reader's parser rejecting its input, in several languages' and tools' words.
REJECTED: Final = re.compile(
    r"NumberFormatException|For input string|invalid input syntax for (?:type )?\w+|"
    r"could not convert string to \w+|invalid literal for \w+\(\)|Unparseable (?:date|number)|"
    r"DateTimeParseException|ParseException|JSONDecodeError|json: cannot unmarshal|"
    r"strconv\.Parse\w+: parsing|InputMismatchException|"
    r"\b(?:rows?|records?|lines?|entries|items) (?:were |was )?rejected|"
    r"\binvalid (?:price|number|decimal|amount|date|format|row|record|value)s?\b|"
    r"(?:failed|unable) to parse|cannot parse|parse error",
    re.IGNORECASE,
)
# What a reader names as its input: a file with a data extension, or a feed / topic / queue's name.
ARTIFACT: Final = re.compile(
    r"(?<![\w/.-])([A-Za-z0-9][\w-]{0,80}\.(?:csv|tsv|jsonl?|xml|parquet|avro|txt|dat|xlsx?)"
    r"(?:\.gz|\.zip)?)\b|"
    r"\b(?:feed|topic|queue|stream|export|file)[\s=:]+[\"'`]?"
    r"([A-Za-z0-9][\w.-]{2,80}[A-Za-z0-9])",
    re.IGNORECASE,
)
# A producer's own words that it wrote its output.
WROTE: Final = re.compile(
    r"\b(?:wrote|written|writing|exported|exporting|published|publishing|uploaded|uploading|"
    r"generated|produced|emitted|pushed|dumped|saved)\b",
    re.IGNORECASE,
)
_ERROR_LEVELS: Final = frozenset({"error", "err", "fatal", "critical", "crit", "panic"})
LEAD: Final = timedelta(
    hours=1
)  # how far before the window the producer's lines are searched
SLACK: Final = timedelta(minutes=2)
SEARCH_LIMIT: Final = 40
_CONFIDENCE = 0.86  # the reader rejects what one producer says it wrote


@dataclass(frozen=True)
class Rejection:
    """A reader's new line rejecting its input, and what its new lines name as that input."""

    errors: Errors
    group: ErrorGroup
    artifact: str
    at: datetime | None


def rejections(facts: Facts) -> list[Rejection]:
    """Each reader whose new errors or warnings reject their input and name what they read."""
    out = []
    for errors in facts.errors.values():
        new = [g for g in (*errors.groups, *errors.warnings) if g.is_new]
        rejecting = [
            g for g in new if REJECTED.search((g.sample or g.signature)[:2000])
        ]
        if not rejecting:
            continue
        artifact = next(
            (
                m.group(1) or m.group(2)
                for g in new
                for m in ARTIFACT.finditer((g.sample or g.signature)[:2000])
            ),
            None,
        )
        if artifact is None:
            continue
        times = [t for g in rejecting if (t := parse_time(g.first_seen)) is not None]
        # The error group the reader logs first cites the rejection best.
        group = next((g for g in rejecting if g in errors.groups), rejecting[0])
        out.append(Rejection(errors, group, artifact, min(times) if times else None))
    return out


def searches(
    inv: Investigation,
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """Every service's lines naming what a rejecting reader reads, when not searched yet."""
    start = parse_time(window.get("start", ""))
    if start is None:
        return []
    asked = {arg(o, "query") for o in inv.observations if o.tool == SEARCH_LOGS}
    calls: list[PlannedCall | None] = []
    for found in rejections(facts)[:2]:
        query = found.artifact  # a plain search: the name as it is written
        if query in asked:
            continue
        asked.add(query)
        calls.append(
            call(
                SEARCH_LOGS,
                {
                    "query": query,
                    "start": iso(start - LEAD),
                    "end": window.get("end", ""),
                    "limit": SEARCH_LIMIT,
                },
                f"{found.errors.service} rejects what it reads from {found.artifact}: "
                "who writes it",
            )
        )
    return calls


def _producers(
    inv: Investigation, found: Rejection
) -> dict[str, tuple[Observation, str]]:
    """Services other than the reader whose own lines (not errors) say they wrote the artifact."""
    out: dict[str, tuple[Observation, str]] = {}
    for obs, line in every_service_lines(inv, found.artifact):
        service = str(line.get("service") or "").lower()
        message = str(line.get("message") or "")[:2000]
        level = str(line.get("level") or "").lower()
        if (
            not service
            or service == found.errors.service
            or level in _ERROR_LEVELS
            or found.artifact.lower() not in message.lower()
            or not WROTE.search(message)
            or REJECTED.search(message)
        ):
            continue
        out.setdefault(service, (obs, message))
    return out


def upstream_producer(board: Board) -> None:
    """A reader whose new lines reject the input it reads and name it (a file, a feed) blames the one other service whose own line says it wrote that input: the producer is the cause, the reader and those failing with it its victims."""
    for found in rejections(board.facts):
        producers = _producers(board.inv, found)
        if len(producers) != 1:
            continue
        producer, (obs, message) = next(iter(producers.items()))
        _blame(board, found, producer, obs, message)
        return


def _blame(
    board: Board, found: Rejection, producer: str, obs: Observation, message: str
) -> None:
    reader = found.errors.service
    c = board.get(
        layers.APPLICATION,
        producer,
        f"{producer} writes {found.artifact} in a form {reader} rejects "
        f"({short(found.group.sample or found.group.signature, 90)})",
    )
    if c.status == "ruled_out" or c.stage is not None:
        return
    c.cite(found.errors.obs, found.errors.fact(found.group))
    c.cite(obs, short(f"search_logs(every service): {producer}: {message}", 300))
    health = board.facts.health.get(reader)
    if health is not None and health.verdict in ("degraded", "unhealthy"):
        c.cite(health.obs, health.fact)
    c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
    c.chain = [
        board.symptom(),
        f"{reader} rejects its input: {short(found.group.sample or found.group.signature, 120)}",
        f"{producer} logs: {short(message, 140)}",
        c.statement,
    ]
    c.keywords = list(dict.fromkeys([producer, found.artifact, "upstream producer"]))
    since = found.at
    for errors in board.facts.errors.values():
        if errors.service == producer:
            continue
        began = [
            t
            for g in (*errors.groups, *errors.warnings)
            if g.is_new and (t := parse_time(g.first_seen)) is not None
        ]
        if not began or (since is not None and min(began) < since - SLACK):
            continue
        victim = board.candidates.get(f"{layers.APPLICATION}:{errors.service}")
        if victim is not None and victim is not c:
            victim.explained_by(
                c, f"a victim of {c.id} (it fails on what {producer} wrote)"
            )
