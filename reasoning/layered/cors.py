"""A service refusing browsers' cross-origin requests (CORS): an HTTP fault of the refusing service, caused by its allow-list.

A browser sends a preflight (OPTIONS) before a cross-origin call; a gateway or API whose allowed
origins lack the page's origin answers it 403 ("CORS preflight rejected", "origin … not allowed") and
the browser never makes the call ("blocked by CORS policy"). Nothing crashes: the service answers,
server-side callers are fine, and the refusal lines are warnings. The service that logs the refusal
is at fault at the HTTP layer (`cors`), not as an application failure; the planner searches every
service's lines naming the allow-list from shortly before the refusals began (`searches`), and a
change there (an apply, a reload that set it) is cited as what began it, making the finding conclusive.
"""

import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts, parse_time
from reasoning.layered.reading import arg, as_dict, as_list, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# A refusal as the refusing service logs it (not the browser's report of it).
REFUSAL: Final = re.compile(
    r"\bCORS\b.{0,60}\b(?:reject|refus|denied|deny|not allowed|disallowed|forbidden)|"
    r"\bpreflight\b.{0,60}\b(?:reject|refus|denied|not allowed|disallowed|forbidden|403)|"
    r"\borigin\b.{0,80}\b(?:not allowed|not permitted|disallowed|not in (?:the )?allow)",
    re.IGNORECASE,
)
_BROWSER: Final = re.compile(
    r"blocked by CORS policy|Access to \w+ at '", re.IGNORECASE
)
# The allow-list's setting, as a search query (plain text the logs server matches) and as a pattern.
QUERY: Final = "cors"
_SETTING: Final = re.compile(
    r"cors|allowed[_ .-]?origins|access[_-]control[_-]allow[_-]origin", re.IGNORECASE
)
_CHANGED: Final = re.compile(
    r"\b(?:chang|modif|reload|updat|appl(?:y|ied)|set\b|revert|remov|deploy|config|complete)",
    re.IGNORECASE,
)
_NOT_CHANGE_LEVELS: Final = frozenset(
    {"error", "err", "fatal", "critical", "crit", "warn", "warning"}
)
_LEAD: Final = timedelta(minutes=30)


def refusals(facts: Facts) -> Iterator[tuple[Errors, ErrorGroup]]:
    """Each service's error or warning group that refuses a cross-origin request."""
    for errors in facts.errors.values():
        for group in (*errors.groups, *errors.warnings):
            if REFUSAL.search(group.text) and not _BROWSER.search(group.text):
                yield errors, group


def _first(facts: Facts) -> str | None:
    times = [
        t for _, g in refusals(facts) if (t := parse_time(g.first_seen)) is not None
    ]
    return min(times).isoformat().replace("+00:00", "Z") if times else None


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """One search of every service's lines naming CORS from shortly before the refusals began to their start."""
    first = _first(facts)
    if first is None:
        return []
    end = parse_time(first)
    start = parse_time(window.get("start", ""))
    begin = min(start, end) - _LEAD if start is not None and end is not None else None
    arguments: dict[str, Any] = {
        "query": QUERY,
        "start": begin.isoformat().replace("+00:00", "Z") if begin else window["start"],
        "end": first,
        "limit": 20,
    }
    return [
        call(
            SEARCH_LOGS,
            arguments,
            "cross-origin requests are refused: what changed the CORS allow-list just before",
        )
    ]


def _changes(inv: Investigation) -> list[tuple[Observation, str]]:
    """Lines of the CORS searches that change or reload the allow-list (not refusals, not errors)."""
    found: list[tuple[Observation, str]] = []
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "query") != QUERY:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")
            level = str(line.get("level") or "").lower()
            if (
                level in _NOT_CHANGE_LEVELS
                or REFUSAL.search(message)
                or _BROWSER.search(message)
                or not _SETTING.search(message)
                or not _CHANGED.search(message)
            ):
                continue
            found.append((obs, f"{line.get('service') or '?'}: {message}"))
    return found


def cors(board: Board) -> None:
    """A service whose own lines refuse cross-origin requests (CORS preflight rejected, origin not allowed) has an HTTP fault, its allow-list; a change to that list just before makes it conclusive."""
    found: dict[str, list[tuple[Errors, ErrorGroup]]] = {}
    for errors, group in refusals(board.facts):
        found.setdefault(errors.service, []).append((errors, group))
    if not found:
        return
    changes = _changes(board.inv)
    for service, groups in found.items():
        c = board.get(
            layers.HTTP,
            service,
            f"{service} refuses browsers' cross-origin requests: the origin the pages come "
            "from is not in its CORS allow-list (preflight refused), so no call from them runs",
        )
        for errors, group in groups:
            c.cite(errors.obs, errors.fact(group))
        chain = [
            board.symptom(),
            f"{service} logs: {short(groups[0][1].sample or groups[0][1].signature, 140)}",
        ]
        names = (service, service.replace("-", "_"))
        named = [(o, t) for o, t in changes if any(n in t.lower() for n in names)]
        for obs, text in (named or changes)[:2]:
            c.cite(obs, short(f"search_logs: {text}", 300))
            chain.append(f"the allow-list changed just before: {short(text, 120)}")
        changed = len(chain) > 2
        c.status = "confirmed" if changed else "likely"
        c.confidence = 0.92 if changed else 0.7
        c.chain = [*chain, c.statement]
        c.keywords = [layers.HTTP, "cors", "origin", service]
        own = board.candidates.get(f"{layers.APPLICATION}:{service}")
        if (
            own is not None
            and own.status != "ruled_out"
            and own.confidence < c.confidence
        ):
            own.status, own.confidence = "ruled_out", min(own.confidence, 0.2)
            own.reason_ruled_out = f"explained by {c.id}: {c.statement}"
