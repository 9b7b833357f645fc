"""A broker's policy that drops the messages of a queue it was not meant for (issue 21 class 4): the policy the broker's own line names is the cause, the queue's owner that misses the work its victim.

A message broker applies a policy (a length cap, an overflow mode, a message TTL) to every queue
whose name its pattern matches; a pattern wider than meant (`.*`) caps the queues of other teams
too. When one of them backs up behind a slow consumer the broker drops, rejects or expires its
messages and says so in its own line at info (`queue 'q' … policy 'p' in effect … max-length
reached, dropping from head`). Nobody logs an error but the owner that misses the work later
(`no receipt after 30 min`, work that never arrived). When the incident or a service's new lines
say work went missing, the planner searches every service's lines for a policy and a dropping
word (`SEARCH`) from `LEAD` before the window. A line that names a queue, a policy and a drop is
the cause: the policy it names, cited with that line and the line that set the policy when the
search found it; the services whose new errors began after the first drop are its victims.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts, parse_time
from reasoning.layered.reading import every_service_lines, iso, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# A policy and what it does to messages, in one line (RE2 for the logs server).
SEARCH: Final = r"(?i)polic(y|ies)\W.{0,300}(drop|discard|reject|overflow|max-?length|dead-?letter|expire)"
SEARCH_LIMIT: Final = 40
LEAD: Final = timedelta(
    hours=2
)  # a policy set this long before the window is still in force
# Work a service or the incident says went missing: never arrived, no output after a wait, lost.
MISSING: Final = re.compile(
    r"\bnever (?:got|received|arrived|delivered|processed|sent|came)\b|"
    r"\bno [\w-]{1,30} (?:after|within)\b|\bmissing\b|\b(?:lost|disappeared|vanished)\b|"
    r"\bnot (?:received|delivered|processed|arrived)\b",
    re.IGNORECASE,
)
# The policy a line names (`policy 'cap-all'`, `policy=cap-all`).
_POLICY: Final = re.compile(
    r"\bpolicy[\s:=]{1,3}[\"'`]?([A-Za-z0-9][\w.:-]{0,80}[A-Za-z0-9])", re.IGNORECASE
)
# The broker doing it to a queue's messages now: dropping, rejecting, discarding, expiring.
_DROPPING: Final = re.compile(
    r"\b(?:dropp(?:ing|ed)|discard(?:ing|ed)|reject(?:ing|ed)|expir(?:ing|ed)|"
    r"dead-?letter(?:ing|ed))\b|\bmax-?length reached\b",
    re.IGNORECASE,
)
_QUEUE: Final = re.compile(
    r"\bqueue[\s:=]{1,3}[\"'`]?([A-Za-z0-9][\w.:-]{0,120}[A-Za-z0-9])", re.IGNORECASE
)
# The line that set the policy (`set policy 'p' … pattern '.*'`, `policy p applied`).
_SET: Final = re.compile(
    r"\b(?:set|added|created|applied|updated|declared)\b[^\n]{0,40}\bpolicy\b|"
    r"\bpolicy\b[^\n]{0,120}\b(?:set|added|created|applied|updated)\b",
    re.IGNORECASE,
)
_TEXT_CHARS: Final = 4000  # a line's words read; the rest of a huge line is not
_CONFIDENCE = 0.88


@dataclass(frozen=True)
class _Line:
    service: str
    obs: Observation
    text: str
    at: datetime | None

    @property
    def fact(self) -> str:
        return short(f"search_logs(every service): {self.service}: {self.text}", 300)


def _missing(inv: Investigation, facts: Facts) -> bool:
    """The incident or a service's new errors or warnings say work went missing."""
    brief = inv.incident
    words = [brief.title, brief.description, *brief.symptoms]
    words += [
        g.sample or g.signature
        for errors in facts.errors.values()
        for g in (*errors.groups, *errors.warnings)
        if g.is_new
    ]
    return any(MISSING.search(w[:_TEXT_CHARS]) for w in words if w)


def searches(
    inv: Investigation,
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """Every service's lines about a policy dropping messages, once work is said to be missing."""
    start = parse_time(window.get("start", ""))
    if start is None or not _missing(inv, facts):
        return []
    if any(True for _ in every_service_lines(inv, SEARCH)) or any(
        o.tool == SEARCH_LOGS and o.arguments.get("query") == SEARCH
        for o in inv.observations
    ):
        return []
    arguments = {
        "query": SEARCH,
        "regex": True,
        "start": iso(start - LEAD),
        "end": window["end"],
        "limit": SEARCH_LIMIT,
    }
    return [
        call(
            SEARCH_LOGS,
            arguments,
            "work went missing: does a broker's policy drop a queue's messages",
        )
    ]


def _lines(inv: Investigation) -> list[_Line]:
    found = []
    for obs, entry in every_service_lines(inv, SEARCH):
        service = str(entry.get("service") or "").lower()
        text = str(entry.get("message") or "")[:_TEXT_CHARS]
        if service and text:
            found.append(
                _Line(service, obs, text, parse_time(str(entry.get("time") or "")))
            )
    found.sort(key=lambda x: (x.at is None, x.at or datetime.min))
    return found


def _victims(
    facts: Facts, broker: str, since: datetime | None
) -> list[tuple[Errors, ErrorGroup]]:
    """Services other than the broker whose new errors began after the first drop."""
    found = []
    for errors in facts.errors.values():
        if errors.service in ("", broker):
            continue
        for group in errors.groups:
            began = parse_time(group.first_seen)
            if group.is_new and (since is None or began is None or began >= since):
                found.append((errors, group))
                break
    return found


def dropping_policy(board: Board) -> None:
    """A broker's own line saying a policy it names drops, rejects or expires a queue's messages, while work is said to be missing, blames that policy (application); the services whose new errors began after it are its victims."""
    lines = _lines(board.inv)
    drop = next(
        (
            x
            for x in lines
            if _DROPPING.search(x.text)
            and _QUEUE.search(x.text)
            and _POLICY.search(x.text)
            and not _SET.search(x.text)
        ),
        None,
    )
    if drop is None:
        return
    policy_match = _POLICY.search(drop.text)
    queue_match = _QUEUE.search(drop.text)
    if policy_match is None or queue_match is None:
        return
    policy, queue = policy_match.group(1), queue_match.group(1)
    set_line = next(
        (
            x
            for x in lines
            if x.service == drop.service
            and _SET.search(x.text)
            and (m := _POLICY.search(x.text)) is not None
            and m.group(1) == policy
        ),
        None,
    )
    victims = _victims(board.facts, drop.service, drop.at)
    who = ", ".join(e.service for e, _ in victims[:3]) or "its consumers"
    statement = (
        f"{drop.service}'s policy {policy} drops the messages of {queue} "
        f"({short(drop.text, 100)}); {who} miss the work"
    )
    c = board.get(layers.APPLICATION, policy, statement)
    if c.stage is not None:
        return
    c.statement = statement
    c.cite(drop.obs, drop.fact)
    if set_line is not None:
        c.cite(set_line.obs, set_line.fact)
    for errors, group in victims[:2]:
        c.cite(errors.obs, errors.fact(group))
    c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
    c.chain = [
        board.symptom(),
        *(
            f"{e.service} fails: {short(g.sample or g.signature, 100)}"
            for e, g in victims[:2]
        ),
        f"{drop.service} logs: {short(drop.text, 140)}",
        *(
            [f"{set_line.service} logs: {short(set_line.text, 140)}"]
            if set_line
            else []
        ),
        statement,
    ]
    c.keywords = list(
        dict.fromkeys([policy, queue, drop.service, "policy", "dropped messages"])
    )
    why = f"a victim of {c.id} (its messages are dropped by the policy)"
    for errors, _ in victims:
        victim = board.candidates.get(f"{layers.APPLICATION}:{errors.service}")
        if victim is not None and victim is not c:
            victim.explained_by(c, why)
    broker = board.candidates.get(f"{layers.APPLICATION}:{drop.service}")
    if broker is not None and broker is not c:
        broker.explained_by(c, why)
