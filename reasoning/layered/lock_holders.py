"""A shared database's lock held by another workload's batch (issue 21 class 4): the holder is the cause, not the statements that wait on it.

A batch, a maintenance job (reindex, vacuum full, a bulk export or backfill) or any long
transaction that holds locks on a shared database makes every other client's statements on the
same rows or table wait until their own timeout: the callers that fail (`canceling statement due
to statement timeout`, `Lock wait timeout exceeded`, `could not obtain lock`) and the database
that logs the waits are victims. The database's own lock-wait lines name the holder
(Postgres's `log_lock_waits`: `process N still waiting for ShareLock … blocking process: M
(app=…)`, `Process holding the lock: M`; MySQL's `blocking_pid`, SQL Server's blocked process
report), by its application name, its database user or a service the logs know, after the
holder's mark; a bare holder pid is looked up in the other lines the search found. When a
caller's error says its statement waited on the database, the planner searches every service's
lines for such lock waits (`SEARCH`), then the holder's own lines over the window and the hour
before (`JOB_SEARCH`): a run that started just before the waits began (or earlier runs at the
same hour: failures in waves) corroborates it. A deadlock is not this (the database resolves it
by itself, neither side holds the other for minutes): its lines are skipped.
"""

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import ErrorGroup, Errors, Facts, parse_time
from reasoning.layered.reading import arg, as_dict, as_list, belongs, short
from reasoning.layered.shared_capacity import known_services
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS

# A caller's words that its statement waited on the database until a timeout gave up.
WAITED: Final = re.compile(
    r"canceling statement due to (?:statement|lock) timeout|statement timeout|"
    r"lock wait timeout|lock timeout|lock_timeout|could not obtain lock|"
    r"timeout waiting for (?:a |the )?lock|waiting for (?:table )?(?:metadata )?lock|"
    r"LockNotAvailable|\b55P03\b|ORA-00054|resource busy and acquire",
    re.IGNORECASE,
)
# The database's own line about a lock wait, naming what holds the lock (RE2, for the search).
SEARCH: Final = (
    r"lock.*(blocking|blocked by|holding|holder|held by)|"
    r"(blocking|blocked by|holding|holder|held by).*lock|still waiting for"
)
# A lock named as such (`lock wait`, `ShareLock`, `lock_timeout`), not `blocked` or `clock`.
_LOCK: Final = re.compile(r"(?i:(?<![a-z])lock(?:s|ed|ing|_\w+)?(?![a-z]))|[a-z]Lock\b")
# Where a lock-wait line starts naming the holder; what follows it is the holder's, not the waiter's.
HOLDER_MARK: Final = re.compile(
    r"\b(?:blocking[ _-]?(?:process|pid|session|spid|thread|transaction|query|backend)s?|"
    r"blocked by(?: (?:process|pid|session|spid|thread|transaction|backend))?|"
    r"process(?:es)? holding (?:the )?lock|holding (?:the )?lock|lock(?:ed)? (?:is )?held by|"
    r"held by(?: (?:process|pid|session))?|lock holder|holder|blocker)\b",
    re.IGNORECASE,
)
# How a database names a session's client: its application name or user (Postgres %a / %u).
# How a database names a session's client, most telling first: its application name, its host or
# pod (read as the service it belongs to), its user (Postgres %a, %h, %u; `blocking_user=` too).
_VALUE = r"\s*[=:]\s*[\"']?([A-Za-z][\w.-]*[A-Za-z0-9])"
LABELS: Final = tuple(
    re.compile(rf"\b(?:[a-z]+_)?(?:{names}){_VALUE}", re.IGNORECASE)
    for names in (
        r"app|application_name|application|appname|clientapp|program_name|program|client_?name",
        r"client_?host|hostname|host|pod",
        r"usename|user|username|loginname|account",
    )
)
_PID: Final = re.compile(r"^[\s:=#(]*(\d+)\b")
_DEADLOCK: Final = re.compile(r"deadlock", re.IGNORECASE)
# A line about a request that failed (a caller's), not the database's own statement.
REQUEST_LINE: Final = re.compile(
    r"\b(?:GET|POST|PUT|PATCH|DELETE)\s+/|\bHTTP/\d|\b[45]\d\d:\s", re.IGNORECASE
)
# The holder's own lines about its runs (RE2, for the search of its logs).
JOB_SEARCH: Final = r"start|begin|began|running|finish|complet|launch|took|schedul"
_RUN_STARTED: Final = re.compile(
    r"\b(?:start(?:ed|ing|s)?|begin(?:s|ning)?|began|launch(?:ed|ing)?)\b",
    re.IGNORECASE,
)
_RUNNING: Final = re.compile(r"\b(?:running|in progress|still)\b", re.IGNORECASE)
_RUN_ENDED: Final = re.compile(
    r"\b(?:finish(?:ed)?|complet(?:ed|e)|done|took)\b", re.IGNORECASE
)
# A row-lock wait naming the transaction that holds the row (Postgres: `still waiting for
# ShareLock on transaction 918274`), not a session: the holder is that transaction, whatever
# other line describes it (a monitor's prepared or idle-in-transaction check, an activity dump).
_XID: Final = re.compile(
    r"\b(?:on|for|by|behind) (?:the )?transaction (?:id )?#?(\d{3,20})\b", re.IGNORECASE
)
SEARCH_LIMIT: Final = 50
JOB_LIMIT: Final = 20
XID_LIMIT: Final = 20
JOB_LOOKBACK: Final = timedelta(hours=1)  # earlier runs: failures in waves at each run
_LEAD: Final = timedelta(minutes=30)
_EARLIER: Final = timedelta(
    minutes=10
)  # a run line this long before the latest start: another run  # a run started this long before the waits began
_CONFIDENCE = 0.86  # the database names the holder and the callers time out waiting
_RUN_CONFIDENCE = 0.9  # and the holder's own lines show its run starting just before


@dataclass(frozen=True)
class Wait:
    """A database's own line about a lock wait, and the holder it names (if any)."""

    backend: str
    obs: Observation
    fact: str
    line: str
    at: datetime | None
    holder: str | None
    waiter: str | None = None  # the waiting session's client, before the holder mark


@dataclass(frozen=True)
class Run:
    """A line of the holder's own about one of its runs starting or ending."""

    obs: Observation
    fact: str
    line: str
    at: datetime | None
    is_start: bool


def waiting(facts: Facts) -> list[tuple[Errors, ErrorGroup]]:
    """Callers' error lines saying their statement waited on the database until it timed out
    (stale ones too: a batch's runs make the failures come back in waves)."""
    found = []
    for errors in facts.errors.values():
        for group in errors.groups:
            text = group.sample or group.signature
            if WAITED.search(text) and not _DEADLOCK.search(text):
                found.append((errors, group))
                break
    return found


def needs_search(inv: Investigation, facts: Facts) -> bool:
    """A caller's statements time out waiting and no search of every service's lock waits was made yet."""
    return bool(waiting(facts)) and not any(
        o.tool == SEARCH_LOGS and not arg(o, "service") and arg(o, "query") == SEARCH
        for o in inv.observations
    )


def to_search(inv: Investigation, facts: Facts) -> list[str]:
    """The holders the lock waits name whose own lines were not searched yet, most named first."""
    searched = {
        arg(o, "service")
        for o in inv.observations
        if o.tool == SEARCH_LOGS and arg(o, "query") == JOB_SEARCH
    }
    counts = Counter(w.holder for w in waits(inv, facts) if w.holder)
    return [h for h, _ in counts.most_common() if h not in searched]


def xid_query(xid: str) -> str:
    """The search (RE2) of every service's lines naming transaction `xid`."""
    return rf"(?i)(transaction|xid|txid)( id)?[ =:#(]*{xid}\b"


def xid_search(inv: Investigation, facts: Facts) -> str | None:
    """The transaction the lock waits name as holding the rows, when none names a session and no
    search of every service's lines for it was made yet (`xid_query`)."""
    if not waiting(facts):
        return None
    found = list(waits(inv, facts))
    if any(w.holder for w in found):
        return None
    counts = Counter(x for w in found if (x := _xid(w.line)))
    if not counts:
        return None
    xid = counts.most_common(1)[0][0]
    query = xid_query(xid)
    if any(
        o.tool == SEARCH_LOGS and not arg(o, "service") and arg(o, "query") == query
        for o in inv.observations
    ):
        return None
    return query


def _xid(text: str) -> str | None:
    match = _XID.search(text)
    return match.group(1) if match else None


def _described(inv: Investigation, xid: str) -> tuple[Observation, str, str] | None:
    """(observation, service, line) of the first line that describes transaction `xid` itself
    (not another wait on it), from the search of every service for it."""
    query = xid_query(xid)
    for obs in _every_service_searches(inv):
        if arg(obs, "query") != query:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            text = str(line.get("message") or "")
            service = str(line.get("service") or "").lower()
            if not service or "waiting for" in text.lower() or _XID.search(text):
                continue
            if not re.search(rf"\b{xid}\b", text):
                continue
            return obs, service, text
    return None


def _known(inv: Investigation, facts: Facts) -> set[str]:
    names = known_services(facts, inv)
    for obs in _every_service_searches(inv):
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            if line.get("service"):
                names.add(str(line["service"]).lower())
    return names


def _every_service_searches(inv: Investigation) -> Iterator[Observation]:
    for obs in inv.observations:
        if obs.tool == SEARCH_LOGS and obs.is_ok and not arg(obs, "service"):
            yield obs


def label_of(text: str) -> str | None:
    """The client a session's text names, by the most telling label it has."""
    for label in LABELS:
        match = label.search(text)
        if match is not None:
            return match.group(1)
    return None


def _name(value: str, known: set[str]) -> str:
    """A label's value as the service the logs know (`ledger_export` is ledger-export, the pod
    `ledger-export-29041-x7k2p` and the host `ledger-export-1.jobs.internal` too)."""
    lowered = value.lower()
    for candidate in (lowered, lowered.replace("_", "-")):
        if candidate in known:
            return candidate
        owners = [n for n in known if belongs(candidate, n)]
        if owners:
            return max(owners, key=len)
    return lowered


def holder_of(
    text: str, backend: str, known: set[str]
) -> tuple[str | None, str | None]:
    """(the holder's name, the holder's pid) a lock-wait line names after its holder mark."""
    mark = HOLDER_MARK.search(text)
    if mark is None:
        return None, None
    tail = text[mark.end() :]
    pid_match = _PID.match(tail)
    pid = pid_match.group(1) if pid_match else None
    label = label_of(tail)
    if label is not None:
        return _name(label, known), pid
    lowered = tail.lower()
    named = [
        n
        for n in known
        if n != backend and re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", lowered)
    ]
    return (max(named, key=len) if named else None), pid


def _by_pid(pid: str, lines: list[str], known: set[str]) -> str | None:
    """The client a session's own line names for `pid` (its log prefix: `[pid] app=…`,
    `pid=… user=…`), read before any holder mark the line has."""
    for text in lines:
        mark = HOLDER_MARK.search(text)
        own = text[: mark.start()] if mark else text
        if re.search(rf"(?:\[|\bpid[=: ]+){pid}\b", own):
            label = label_of(own)
            if label is not None:
                return _name(label, known)
    return None


def _waiter(text: str, backend: str, known: set[str]) -> str | None:
    """The waiting session's client: the label before the holder mark (its log prefix)."""
    mark = HOLDER_MARK.search(text)
    label = label_of(text[: mark.start()] if mark else text)
    name = _name(label, known) if label else None
    return name if name != backend else None


def waits(inv: Investigation, facts: Facts) -> Iterator[Wait]:
    """Every database's own lock-wait line the searches of every service found, with its holder."""
    known = _known(inv, facts)
    for obs in _every_service_searches(inv):
        lines = [
            (str(line.get("service") or "").lower(), line)
            for line in map(as_dict, as_list(as_dict(obs.result).get("lines")))
        ]
        messages = [str(line.get("message") or "") for _, line in lines]
        for service, line in lines:
            text = str(line.get("message") or "")
            if (
                not service
                or not _LOCK.search(text)
                or _DEADLOCK.search(text)
                or REQUEST_LINE.search(text)
                or not (HOLDER_MARK.search(text) or "waiting for" in text.lower())
            ):
                continue
            holder, pid = holder_of(text, service, known)
            if holder is None and pid is not None:
                holder = _by_pid(pid, messages, known)
            yield Wait(
                service,
                obs,
                short(f"search_logs(every service): {service}: {text}", 300),
                text,
                parse_time(str(line.get("time") or "")),
                holder if holder != service else None,
                _waiter(text, service, known),
            )


def runs(inv: Investigation, holder: str) -> list[Run]:
    """The holder's own lines about its runs starting or ending (its search with `JOB_SEARCH`)."""
    found: list[Run] = []
    for obs in inv.observations:
        if not (
            obs.tool == SEARCH_LOGS
            and obs.is_ok
            and arg(obs, "service") == holder
            and arg(obs, "query") == JOB_SEARCH
        ):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            text = str(line.get("message") or "")
            started, ended = _RUN_STARTED.search(text), _RUN_ENDED.search(text)
            if not (started or ended or _RUNNING.search(text)):
                continue
            found.append(
                Run(
                    obs,
                    short(f"search_logs({holder}): {text}", 300),
                    text,
                    parse_time(str(line.get("time") or "")),
                    is_start=bool(started) and not ended,
                )
            )
    return found


def lock_holders(board: Board) -> None:
    """A workload that a shared database's own lock-wait lines name as holding the locks its callers' statements time out on is the cause (a batch or maintenance job, its run starting just before the waits corroborating it), or the transaction they name when another line describes it (a prepared or idle-in-transaction session); the callers and the database are its victims."""
    if not (callers := waiting(board.facts)):
        return
    found = list(waits(board.inv, board.facts))
    named = [w for w in found if w.holder]
    if not named:
        _transaction(board, found, callers)
        return
    holder = Counter(w.holder for w in named).most_common(1)[0][0]
    assert holder is not None
    held = [w for w in named if w.holder == holder]
    _blame(board, holder, held, callers)


def _started_before(
    held: list[Wait], callers: list[tuple[Errors, ErrorGroup]], mine: list[Run]
) -> Run | None:
    """The holder's run that started last before the waits began (the first wait read, the
    callers' first timeout in the window), within the lead."""
    times = [w.at for w in held if w.at is not None]
    times += [t for _, g in callers if (t := parse_time(g.first_seen)) is not None]
    if not times:
        return None
    first = min(times)
    starts = [
        r
        for r in mine
        if r.is_start and r.at is not None and first - _LEAD <= r.at <= first
    ]
    return max(starts, key=lambda r: r.at or first) if starts else None


def _earlier(started: Run | None, mine: list[Run]) -> Run | None:
    """A line of an earlier run of the holder's, well before the one that started just before."""
    if started is None or started.at is None:
        return None
    cut = started.at - _EARLIER
    return next((r for r in mine if r.at is not None and r.at < cut), None)


def _blame(
    board: Board,
    holder: str,
    held: list[Wait],
    callers: list[tuple[Errors, ErrorGroup]],
) -> None:
    backend = held[0].backend
    victims = [(e, g) for e, g in callers if e.service != holder]
    mine = runs(board.inv, holder)
    started = _started_before(held, victims or callers, mine)
    c = board.get(
        layers.APPLICATION,
        holder,
        f"{holder} holds locks on the shared {backend} that {', '.join(e.service for e, _ in victims[:3]) or 'its clients'} "
        f"wait on: {backend}'s lock waits name it as the holder",
    )
    c.cite(held[0].obs, held[0].fact)
    if started is not None:
        c.cite(started.obs, started.fact)
        c.statement += f" (its run started just before: {short(started.line, 80)})"
    earlier = _earlier(started, mine)
    if earlier is not None:
        c.cite(earlier.obs, earlier.fact)
        if any(g.is_stale for _, g in victims):
            c.statement += (
                "; an earlier run matches the callers' failures before the window: they come "
                "in waves with its runs"
            )
    else:
        other = next((r for r in mine if r is not started), None)
        if other is not None:
            c.cite(other.obs, other.fact)
    for errors, group in victims[:2]:
        c.cite(errors.obs, errors.fact(group))
    confidence = _RUN_CONFIDENCE if started is not None else _CONFIDENCE
    c.status, c.confidence = "confirmed", max(c.confidence, confidence)
    c.chain = [
        board.symptom(),
        *(
            f"{e.service} waits on {backend} until it gives up: {short(g.sample or g.signature, 100)}"
            for e, g in victims[:2]
        ),
        f"{backend} logs: {short(held[0].line, 140)}",
        *([f"{holder} logs: {short(started.line, 120)}"] if started else []),
        c.statement,
    ]
    c.keywords = [holder, backend, "lock holder", "lock wait", "long transaction"]
    for errors, _ in victims:
        _victim(board.candidates.get(f"{layers.APPLICATION}:{errors.service}"), c)
    if backend != holder:
        _victim(board.candidates.get(f"{layers.APPLICATION}:{backend}"), c)


def _transaction(
    board: Board, found: list[Wait], callers: list[tuple[Errors, ErrorGroup]]
) -> None:
    """Lock waits that name a transaction, not a session, as the holder: that transaction is the
    cause when another line describes it (how old it is, that it is prepared or idle, who owns it)."""
    counts = Counter(x for w in found if (x := _xid(w.line)))
    if not counts:
        return
    xid = counts.most_common(1)[0][0]
    described = _described(board.inv, xid)
    if described is None:
        return
    obs, service, text = described
    held = [w for w in found if _xid(w.line) == xid]
    backend = held[0].backend
    victims = [(e, g) for e, g in callers if e.service != backend]
    who = ", ".join(e.service for e, _ in victims[:3]) or "its clients"
    holder = f"transaction {xid}"
    c = board.get(
        layers.APPLICATION,
        holder,
        f"{holder} holds the rows on the shared {backend} that {who} wait on ({backend}'s lock "
        f"waits name it); {service} says of it: {short(text, 120)}",
    )
    c.cite(obs, short(f"search_logs(every service): {service}: {text}", 300))
    c.cite(held[0].obs, held[0].fact)
    for errors, group in victims[:2]:
        c.cite(errors.obs, errors.fact(group))
    c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
    c.chain = [
        board.symptom(),
        *(
            f"{e.service} waits on {backend} until it gives up: {short(g.sample or g.signature, 100)}"
            for e, g in victims[:2]
        ),
        f"{backend} logs: {short(held[0].line, 140)}",
        f"{service} logs: {short(text, 140)}",
        c.statement,
    ]
    c.keywords = [holder, backend, "lock holder", "lock wait", "long transaction"]
    for errors, _ in victims:
        _victim(board.candidates.get(f"{layers.APPLICATION}:{errors.service}"), c)
    _victim(board.candidates.get(f"{layers.APPLICATION}:{backend}"), c)


def _victim(victim: Candidate | None, cause: Candidate) -> None:
    if victim is not None:
        victim.explained_by(
            cause, f"a victim of {cause.id} (it holds the locks its statements wait on)"
        )
