"""A worker that lost its saved position because someone deleted the store it keeps it in: the deleter is the cause.

Stream consumers, change-data-capture connectors and batch readers keep where they are in a store
of their own (Kafka Connect's offsets topic, a consumer group's committed offsets, a checkpoint
directory, a cursor table). When that store is deleted (a cleanup job pruning what looks idle, a
retention setting, a person), the worker finds no saved position at its next start and starts over
(`No previous offsets found`, `no checkpoint found`): a full re-snapshot or replay that floods it
and what it feeds, until it runs out of memory or falls hours behind. The worker is the loud victim
(OOMKilled, crash-looping, lagging) and its own line saying it found no position names the
dependency; the fault is the deletion. When a line read says a worker found no saved position
(`LOST`), the planner searches every service's lines over the hours before for a deletion of an
offsets, checkpoint or cursor store (`searches`); the first service whose own line (not an error)
deleted one, before the worker's line, is the cause (`lost_position`), citing its deletion and the
worker's line, and the worker's hypotheses are its victims.
"""

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import parse_time
from reasoning.layered.reading import (
    arg,
    as_dict,
    as_list,
    every_service_lines,
    iso,
    short,
)
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import POD_LOGS, SEARCH_LOGS, TOP_ERRORS

# A worker's own words that it found no saved position and starts over.
LOST: Final = re.compile(
    r"\bno (?:previous|prior|stored|saved|committed|existing) (?:source )?"
    r"(?:offsets?|checkpoints?|positions?|cursors?|resume tokens?|bookmarks?)"
    r"(?: (?:were |was )?(?:found|available|exist))?\b|"
    r"\b(?:offsets?|checkpoints?|cursors?|resume tokens?) (?:store |topic |file |table )?"
    r"(?:not found|is missing|are missing|was lost|were lost|is empty)\b",
    re.IGNORECASE,
)
_STORE_WORDS: Final = r"(offset|checkpoint|cursor|resume.?token|bookmark)"
_DELETE_WORDS: Final = r"(delet|drop|remov|purg|truncat)"
# Every service's lines deleting a position store, in either order (RE2 for the logs server).
SEARCH: Final = (
    rf"(?i){_DELETE_WORDS}[^\n]{{0,120}}{_STORE_WORDS}|"
    rf"{_STORE_WORDS}[^\n]{{0,120}}{_DELETE_WORDS}"
)
_DELETES: Final = re.compile(SEARCH.removeprefix("(?i)"), re.IGNORECASE)
# The store a deletion line names: a word holding offsets, checkpoint, cursor …
_STORE: Final = re.compile(
    r"[A-Za-z0-9][\w.-]{0,80}(?:offset|checkpoint|cursor)s?[\w.-]{0,40}", re.IGNORECASE
)
_NOT_CHANGE_LEVELS: Final = frozenset({"error", "err", "fatal", "critical", "panic"})
# How far back a deletion is looked for: inside the logs server's 6 h range once the window's end
# (with its fraction of a second) and the start (rounded to the second) are written out.
_LOOKBACK: Final = timedelta(hours=5, minutes=50)
_MAX_TEXT: Final = 200_000  # the head of an answer searched for a worker's line
_MAX_LINE: Final = 2000
_LIMIT: Final = 20
_CONFIDENCE: Final = 0.9


@dataclass(frozen=True)
class Lost:
    """A worker's line saying it found no saved position."""

    obs: Observation
    worker: str  # the service or pod whose line it is
    line: str
    at: datetime | None


def _lines(obs: Observation) -> Iterator[tuple[str, str, datetime | None]]:
    """(worker, line, time) of an answer that holds log lines: a pod's log, a search, top errors."""
    if obs.tool == POD_LOGS:
        pod = str(arg(obs, "pod") or "")
        for line in obs.text[:_MAX_TEXT].splitlines():
            yield pod, line[:_MAX_LINE], None
    elif obs.tool == SEARCH_LOGS:
        named = str(arg(obs, "service") or "")
        for entry in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            yield (
                str(entry.get("service") or named),
                str(entry.get("message") or "")[:_MAX_LINE],
                parse_time(str(entry.get("time") or "")),
            )
    elif obs.tool == TOP_ERRORS:
        result = as_dict(obs.result)
        service = str(result.get("service") or arg(obs, "service") or "")
        for key in ("top", "warnings"):
            for group in map(as_dict, as_list(result.get(key))):
                yield (
                    service,
                    str(group.get("sample") or group.get("signature") or "")[
                        :_MAX_LINE
                    ],
                    parse_time(str(group.get("first_seen") or "")),
                )


def lost(inv: Investigation) -> list[Lost]:
    """Every worker's line saying it found no saved position, one per worker, as read."""
    found: dict[str, Lost] = {}
    for obs in inv.observations:
        if not obs.is_ok or (obs.tool == SEARCH_LOGS and arg(obs, "query") == SEARCH):
            continue
        for worker, line, at in _lines(obs):
            if worker and worker.lower() not in found and LOST.search(line):
                found[worker.lower()] = Lost(obs, worker.lower(), line.strip(), at)
    return list(found.values())


def searches(
    inv: Investigation,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """When a worker found no saved position: every service's lines deleting a position store in the hours before."""
    found = lost(inv)
    end = parse_time(window.get("end", ""))
    if not found or end is None:
        return []
    return [
        call(
            SEARCH_LOGS,
            {
                "query": SEARCH,
                "regex": True,
                "start": iso(end - _LOOKBACK),
                "end": window["end"],
                "limit": _LIMIT,
            },
            f"{found[0].worker} found no saved position: who deleted the store it keeps it in",
        )
    ]


@dataclass(frozen=True)
class _Deletion:
    obs: Observation
    service: str
    line: str
    at: datetime


def _deletions(inv: Investigation, before: datetime | None) -> list[_Deletion]:
    found: list[_Deletion] = []
    for obs, line in every_service_lines(inv, SEARCH):
        service = str(line.get("service") or "").lower()
        text = str(line.get("message") or "")[:_MAX_LINE]
        at = parse_time(str(line.get("time") or ""))
        level = str(line.get("level") or "").lower()
        if (
            not service
            or at is None
            or level in _NOT_CHANGE_LEVELS
            or not _DELETES.search(text)
            or LOST.search(text)
            or (before is not None and at > before)
        ):
            continue
        found.append(_Deletion(obs, service, text, at))
    return sorted(found, key=lambda d: d.at)


def _is_worker(component: str, worker: str) -> bool:
    """Whether a hypothesis's component is the worker: its service, the workload of its pod, or
    a workload named after its service (`cdc-connect` and `strimzipodset/cdc-connect-connect`)."""
    name = component.rpartition("/")[2].lower()
    return bool(name) and (
        name == worker or worker.startswith(name + "-") or name.startswith(worker + "-")
    )


def lost_position(board: Board) -> None:
    """A worker whose own line says it found no saved position (offsets, checkpoint, cursor), after another service's line deleted the store it keeps it in, starts over because of that deletion: the deleter is the cause, the worker and its failures its victims."""
    found = lost(board.inv)
    if not found:
        return
    first = found[0]
    deletions = [
        d
        for d in _deletions(board.inv, first.at)
        if not _is_worker(d.service, first.worker)
    ]
    if not deletions:
        return
    deletion = deletions[0]
    store = _STORE.search(deletion.line)
    what = store.group(0) if store else "the store it keeps its position in"
    c = board.get(
        layers.APPLICATION,
        deletion.service,
        f"{deletion.service} deleted {what} ({short(deletion.line, 100)}); "
        f"{first.worker} found no saved position and started over",
    )
    c.cite(
        deletion.obs,
        short(f"search_logs(every service): {deletion.service}: {deletion.line}", 300),
    )
    c.cite(first.obs, short(f"{first.worker}: {first.line}", 300))
    c.status = "confirmed"
    c.confidence = max(c.confidence, _CONFIDENCE)
    c.chain = [
        board.symptom(),
        f"{first.worker} logs: {short(first.line, 140)}",
        f"{deletion.service} logs: {short(deletion.line, 140)}",
        c.statement,
    ]
    c.keywords = [deletion.service, what, "deleted", "offsets", first.worker]
    why = f"a victim of {c.id} (it deleted {what}, so the worker started over)"
    workers = {lo.worker for lo in found}
    for other in list(board.candidates.values()):
        if other is c or other.status == "ruled_out":
            continue
        if any(_is_worker(other.component, w) for w in workers):
            other.explained_by(c, why)
