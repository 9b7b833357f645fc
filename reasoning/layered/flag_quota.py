"""A provider's quota spent by our own change (issue 21 class 4): the caller's application, not the provider, is the fault.

A third party refusing our key because its daily, monthly or plan allowance is used up (`daily
request limit exceeded for key`, `monthly quota exceeded for project`) is no outage of the
provider: it answers as agreed, and what changed is how much we ask. When a feature flag of ours
was rolled out (`rollout 10% -> 100%`, `enabled for everyone`) in the hours before the first
refusal, and the flag's name shares a word with the incident, the refusal or the caller, the flag
changed our call volume: the calling service's application fault, with the flag's change cited
as what spent the quota; a release of the calling service in those hours is such a change too. The
planner searches every service's lines for flag changes and the refused services' releases over
the hours before (`searches`); without such a change in view the provider's limit stays the http
fault `shared_limits` makes of it, and a provider answering 5xx stays an outage.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import FACT_CHARS, ErrorGroup, Errors, Facts, parse_time
from reasoning.layered.reading import every_service_lines, incident_text, short
from reasoning.layered.shared_limits import LIMITED
from reasoning.layered.storage_quota import STORAGE_QUOTA
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS

# An allowance counted over a day, a month or a plan, spent: not a per-second throttle.
ALLOWANCE: Final = re.compile(
    r"\b(?:daily|monthly|per[ -]day|per[ -]month|billing period)\b[^\n]{0,40}?"
    r"\b(?:limit|quota|allowance|credits?|requests?)\b|"
    r"\b(?:quota|allowance|credits?)\b[^\n]{0,30}?\b(?:exceeded|exhausted|spent|used up|reached)\b"
    r"[^\n]{0,30}?\b(?:key|account|project|plan|subscription)\b|"
    r"\b(?:request|usage) limit\b[^\n]{0,30}?\b(?:exceeded|reached)\b[^\n]{0,30}?"
    r"\b(?:key|account|project|plan)\b",
    re.IGNORECASE,
)
# A feature flag's change of audience, as flag services and their audits say it.
FLAG_QUERY: Final = (
    r"(?i)(feature[ _-]?flag|\bflag\b)[^\n]{0,120}(rollout|rolled out|->|=>|enabled|"
    r"turned on|switched on|percentage|targeting|[0-9]+ ?%)"
)
FLAG: Final = re.compile(FLAG_QUERY.removeprefix("(?i)"), re.IGNORECASE)
# A release of the calling service, as deploy tools and the service itself say it.
_RELEASE_WORDS: Final = r"(deployed|released|rolled out|upgraded to|[0-9]+[.][0-9]+[.][0-9]+[^ ]* (started|starting))"
_MAX_NAME: Final = 60
_MAX_QUERY: Final = 500
_FLAG_NAME: Final = re.compile(
    r"\bflag[\s:=\"'`]+([A-Za-z0-9][A-Za-z0-9_.:-]{2,80})", re.IGNORECASE
)
LOOKBACK: Final = timedelta(hours=6) - timedelta(
    minutes=1
)  # within the logs server's 6 h
SEARCH_LIMIT: Final = 20
_WORD: Final = re.compile(r"[a-z]{4,}")
_CONFIDENCE: Final = (
    0.9  # the provider's own words for our allowance, and our change before it
)


@dataclass(frozen=True)
class _Spent:
    errors: Errors
    group: ErrorGroup


@dataclass(frozen=True)
class _Flag:
    obs: Observation
    service: str
    name: str
    message: str
    at: datetime | None


def spent_allowances(facts: Facts) -> list[_Spent]:
    """The services whose new lines quote a provider refusing our allowance (a day's or a plan's)."""
    found: list[_Spent] = []
    for errors in facts.errors.values():
        for group in (*errors.groups, *errors.warnings):
            text = (group.sample or group.signature)[:4000]
            if (
                group.is_new
                and LIMITED.search(text)
                and ALLOWANCE.search(text)
                and not STORAGE_QUOTA.search(text)
            ):
                found.append(_Spent(errors, group))
                break
    return found


def _lookback(window: dict[str, str]) -> dict[str, str] | None:
    end = parse_time(window.get("end", ""))
    if end is None:
        return None
    begin = (end - LOOKBACK).isoformat(timespec="seconds").replace("+00:00", "Z")
    return {"start": begin, "end": window["end"]}


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], Any],
    window: dict[str, str],
) -> list[Any]:
    """Every service's feature-flag changes over the hours before, when a provider refuses our allowance."""
    span = _lookback(window)
    spent = spent_allowances(facts)
    if span is None or not spent:
        return []
    return [
        call(
            SEARCH_LOGS,
            {"query": query(spent), "regex": True, **span, "limit": SEARCH_LIMIT},
            "a provider says our allowance is spent: which flag of ours changed how much we ask",
        )
    ]


def query(spent: list[_Spent]) -> str:
    """The flag changes of every service, and the releases of the services refused (at most
    `_MAX_QUERY` characters: the logs server's limit)."""
    out = FLAG_QUERY
    for name in dict.fromkeys(s.errors.service[:_MAX_NAME] for s in spent):
        more = f"|{re.escape(name)}[^\\n]{{0,80}}{_RELEASE_WORDS}"
        if len(out) + len(more) <= _MAX_QUERY:
            out += more
    return out


def _releases(inv: Investigation, service: str) -> list[_Flag]:
    """Lines of the hours before saying `service` was released (a new version deployed)."""
    pattern = re.compile(
        rf"{re.escape(service)}[^\n]{{0,80}}{_RELEASE_WORDS}", re.IGNORECASE
    )
    out: list[_Flag] = []
    for obs, line in _searched(inv):
        message = str(line.get("message") or "")[:4000]
        if _is_failure(line) or not pattern.search(message):
            continue
        at = parse_time(str(line.get("time") or ""))
        out.append(_Flag(obs, str(line.get("service") or ""), service, message, at))
    return out


def _searched(inv: Investigation) -> list[tuple[Observation, dict[str, Any]]]:
    """The lines of every answered every-service search this module asked for."""
    out: list[tuple[Observation, dict[str, Any]]] = []
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or obs.arguments.get("service"):
            continue
        asked = str(obs.arguments.get("query") or "")
        if asked.startswith(FLAG_QUERY):
            out += [(obs, line) for _, line in every_service_lines(inv, asked)][:200]
    return out


def _is_failure(line: dict[str, Any]) -> bool:
    return str(line.get("level") or "").lower() in ("error", "fatal", "critical")


def _flags(inv: Investigation) -> list[_Flag]:
    out: list[_Flag] = []
    for obs, line in _searched(inv):
        message = str(line.get("message") or "")[:4000]
        if _is_failure(line) or not FLAG.search(message):
            continue
        name = _FLAG_NAME.search(message)
        if name is None:
            continue
        out.append(
            _Flag(
                obs,
                str(line.get("service") or ""),
                name.group(1).strip("\"'`.,;:"),
                message,
                parse_time(str(line.get("time") or "")),
            )
        )
    return out


def _shares_word(name: str, texts: list[str]) -> bool:
    words = set(_WORD.findall(name.lower()))
    return any(w in text for text in texts for w in words)


def flag_quota(board: Board) -> None:
    """A provider refusing our key because a day's, month's or plan's allowance is spent, after a feature flag of ours that shares a word with the incident, the refusal or the caller, or the caller's own release, went out in the hours before, is the calling service's application fault: our change spent the quota."""
    spent = spent_allowances(board.facts)
    if not spent:
        return
    flags = _flags(board.inv)
    incident = incident_text(board.inv).lower()
    for item in spent:
        service = item.errors.service
        text = (item.group.sample or item.group.signature).lower()
        first = parse_time(item.group.first_seen)
        related = [
            f
            for f in flags
            if (first is None or f.at is None or f.at <= first)
            and _shares_word(f.name, [incident, text, service.lower()])
        ]
        kind = "flag"
        if not related:
            related = [
                r
                for r in _releases(board.inv, service)
                if first is None or r.at is None or r.at <= first
            ]
            kind = "release"
        if not related:
            continue
        flag = max(related, key=lambda f: f.at.timestamp() if f.at else 0.0)
        _blame(board, item, flag, kind)


def _blame(board: Board, item: _Spent, flag: _Flag, kind: str) -> None:
    service = item.errors.service
    said = short(item.group.sample or item.group.signature, 120)
    what = f"flag {flag.name} was rolled out" if kind == "flag" else "its release"
    c = board.get(
        layers.APPLICATION,
        service,
        f"{service} spent a provider's allowance after {what} "
        f"({short(flag.message, 100)}): the provider refuses our key ({said})",
    )
    if short(flag.message, 100) not in c.statement:
        c.statement += (
            f"; after {what} ({short(flag.message, 100)}) the provider refused our key"
        )
    c.cite(item.errors.obs, item.errors.fact(item.group))
    c.cite(
        flag.obs,
        short(
            f"search_logs(every service): {flag.service}: {flag.message}", FACT_CHARS
        ),
    )
    c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
    c.reason_ruled_out = None
    c.chain = [
        board.symptom(),
        f"{flag.service or 'a flag service'} logs: {short(flag.message, 120)}",
        f"{service} logs (new): {said}",
        c.statement,
    ]
    c.keywords = [service, flag.name, kind, "quota", *c.keywords]
    for other in board.candidates.values():
        if other is c or other.layer != layers.HTTP or other.status == "ruled_out":
            continue
        if other.component == service or other.component.lower() in said.lower():
            other.explained_by(
                c, f"its refusals answer {service}'s own calls after {what} ({c.id})"
            )
