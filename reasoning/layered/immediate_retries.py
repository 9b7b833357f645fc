"""A caller that retries a back end at once (no wait between attempts) while that back end sheds load is the cause; the back end is its victim.

Retries without a wait multiply a caller's request rate the moment its calls start failing: one
slow second on the back end (a GC pause, a restart, a cache reload) becomes N times the load, the
back end's queue stays full, and the retries keep it full long after the trigger ended. The
caller's own new lines say so (`retrying in 0ms (attempt 8/8)`, `retrying immediately`,
`backoff=none`) and name the back end; the back end's own new lines say it rejects or sheds work
(`queue full, rejecting`, `too many requests`, `overloaded`). The caller is then the cause at the
application layer; the back end, and whatever its own lines show as the trigger, its victim. This is
not `retry_storms`, which needs the back end to name its top caller.
"""

import re
from dataclasses import dataclass
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts
from reasoning.layered.reading import NOT_SERVICES, short, upstreams, url_services
from reasoning.layered.warning_leads import names_service

# A caller's words for trying again with no wait: a zero delay, `immediately`, no backoff.
NO_WAIT_RETRY: Final = re.compile(
    r"\bretr(?:y|ying|ies)\b[^;\n]{0,30}?\bin 0 ?(?:ms|s|us|ns)?\b(?:[^.\d]|$)|"
    r"\bretr(?:y|ying)\b[^;\n]{0,20}?\b(?:immediately|at once|right away|"
    r"without (?:any )?(?:delay|backoff|wait|sleep))\b|"
    r"\bback-?off[ _]?(?:ms|s)?\s?[=:]\s?(?:none|off|disabled|0(?: ?ms| ?s)?\b)|"
    r"\bno back-?off\b|"
    r"\bretr(?:y|ying)\b[^;\n]{0,40}?\b(?:delay|wait|sleep)\s?[=:]\s?0 ?(?:ms|s)?\b",
    re.IGNORECASE,
)
# A back end's own words for refusing work because it has too much of it.
SHEDDING: Final = re.compile(
    r"\bqueue (?:is )?(?:full|overflow(?:ed)?)\b|\brejecting\b|\bshedding\b|\bload[ -]?shed|"
    r"\boverload(?:ed)?\b|\btoo many (?:requests|concurrent|in-?flight)\b|\bserver (?:is )?busy\b|"
    r"\bat capacity\b|\bbackpressure\b|\bconcurrency limit\b|\bworker pool (?:is )?exhausted\b|"
    r"\bno (?:free|idle|available) workers?\b",
    re.IGNORECASE,
)
# A back end a retry line names: `ledger-core call failed`, `call to ledger-core`, `503 from ledger-core`.
_NAMED_CALLEE: Final = re.compile(
    r"\b([a-z][a-z0-9]*(?:-[a-z0-9]+)+) (?:call|request|rpc|query)s?\b|"
    r"\b(?:call(?:ing|s)?|request(?:ing|s)?|rpc|to|from|upstream|backend)[ =:]+"
    r"([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\b"
)
_TEXT_CHARS: Final = 2000  # of a line's sample, what the patterns read
_CONFIDENCE: Final = 0.88


@dataclass(frozen=True)
class _Storm:
    caller: Errors
    retry: ErrorGroup
    callee: Errors
    shed: ErrorGroup


def _text(group: ErrorGroup) -> str:
    return (group.sample or group.signature)[:_TEXT_CHARS]


def _new(errors: Errors) -> tuple[ErrorGroup, ...]:
    return tuple(g for g in (*errors.warnings, *errors.groups) if not g.is_stale)


def named_callees(text: str) -> list[str]:
    """The back ends a retry line names (hyphenated service names, upstreams, URL hosts)."""
    found: list[str] = []
    for name in (
        *(n for m in _NAMED_CALLEE.finditer(text) for n in m.groups() if n),
        *upstreams(text),
        *url_services(text),
    ):
        name = name.lower()
        if name not in found and name not in NOT_SERVICES and "." not in name:
            found.append(name)
    return found


def callees_to_read(facts: Facts) -> list[str]:
    """The back ends a caller's new no-wait retry line names, not read yet: do they shed load."""
    out: list[str] = []
    for caller in facts.errors.values():
        for group in _new(caller):
            text = _text(group)
            if not NO_WAIT_RETRY.search(text):
                continue
            for name in named_callees(text):
                if (
                    name != caller.service.lower()
                    and name not in facts.errors
                    and name not in out
                ):
                    out.append(name)
    return out[:2]


def storms(board: Board) -> list[_Storm]:
    """Each caller's new no-wait retry line naming a back end whose own new lines shed load."""
    found: list[_Storm] = []
    facts = board.facts
    for caller in facts.errors.values():
        retry = next((g for g in _new(caller) if NO_WAIT_RETRY.search(_text(g))), None)
        if retry is None:
            continue
        for callee in facts.errors.values():
            if callee.service.lower() == caller.service.lower() or not names_service(
                _text(retry), callee.service
            ):
                continue
            shed = next((g for g in _new(callee) if SHEDDING.search(_text(g))), None)
            if shed is not None:
                found.append(_Storm(caller, retry, callee, shed))
                break
    return found


def immediate_retries(board: Board) -> None:
    """A caller whose new lines retry a named back end with no wait, while that back end's own new lines say it sheds load, is the cause at the application layer; the back end is its victim."""
    for storm in storms(board):
        _blame(board, storm)


def _blame(board: Board, storm: _Storm) -> None:
    caller, callee = storm.caller.service, storm.callee.service
    c = board.get(
        layers.APPLICATION,
        caller,
        f"{caller} retries its failed calls to {callee} with no wait between attempts and "
        f"multiplies its load on it: {callee} sheds the extra load",
    )
    c.cite(storm.caller.obs, storm.caller.fact(storm.retry))
    c.cite(storm.callee.obs, storm.callee.fact(storm.shed))
    release = next(
        (
            ch
            for ch in board.facts.changes
            if names_service(ch.message, caller)
            and not names_service(ch.message, callee)
        ),
        None,
    )
    if release is not None:
        c.cite(release.obs, release.fact)
    c.status = "confirmed"
    c.confidence = max(c.confidence, _CONFIDENCE + 0.03 * (release is not None))
    c.chain = [
        board.symptom(),
        f"{callee} logs: {short(_text(storm.shed), 120)}",
        f"{caller} logs: {short(_text(storm.retry), 120)}",
        *(
            [f"{release.service} logs: {short(release.message, 120)}"]
            if release
            else []
        ),
        c.statement,
    ]
    for word in (caller, "retry storm", "retries", "backoff"):
        if word not in c.keywords:
            c.keywords.append(word)
    victim = board.candidates.get(f"{layers.APPLICATION}:{callee}")
    if victim is not None:
        victim.explained_by(
            c, f"a symptom of {c.id} (its retries without a wait multiply the load)"
        )
