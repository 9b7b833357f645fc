"""A shared back end blocked by one of its users (issue 21 class 4): the party that started something new just before is the cause, the back end the mechanism, the failing callers its victims.

A database, cache or broker several services use says in its own lines, at any level, that it
holds its clients: statements queue behind a lock (`still waiting for AccessExclusiveLock`,
`Waiting for table metadata lock`), a broker's disk or memory alarm blocks publishers (`disk
resource limit alarm set`, `no space left on device`), a command stalls the single thread of a
cache (its slow log), keys are evicted en masse, or its provisioned capacity is used up (a monitor's
`ConsumedReadCapacityUnits 4000 of 4000`, `ReadThrottleEvents`, a broker's throttled producers, a
throughput or quota at its maximum), or a work queue's slots are all taken while other work waits
(a warehouse's workload manager). Its callers then fail in their own words (pool exhausted,
timeouts, throttled: `ProvisionedThroughputExceededException`), louder than it, and soon after it
began. What is new is the cause:

- a client the back end's own line names (`client_name=…`, `appName`, a service the logs know;
  not in a lock-wait line, whose label is the waiting session's); when its warnings name none, the
  planner searches its own lines at any level for client labels (`CLIENT_SEARCH`): a slow-command
  log at info says which application ran the command that holds the tickets;
- else a service whose own line says it started something (a release starting, a migration, a
  backfill or batch job, a reindex, a scheduler's catch-up creating runs) in the `LEAD` before the
  back end's first such line: the planner searches every service's lines for those words
  (`START_SEARCH`) around that moment; when the line names a scheduled job (`DAG x`, `job x-y`),
  the job is the party, not the scheduler or worker that logged it;
- else a service that does not fail itself whose own line names the resource the blocking line
  names (the table, topic, queue, bucket …) in the `LEAD` before it: the consumer that began using
  it (a parallel scan, an export, a replay), found by searching every service's lines for that
  name (`resource_search`);
- else, when the back end says it blocks every client (an alarm, a full disk, a connection
  pooler closing the clients that waited in its queue for a server connection: PgBouncer's
  `query_wait_timeout`), the back end itself.

A blocking line that was already logged before the window, or callers that began failing long
before or after it, are not this; nor is a start when the back end's own errors (read against the
hour before: `backend_read`) were logged before the window too (`failing_before`): it was failing
on its own (an archiver or a backup of its own that keeps failing until its disk fills), and the
start only brought its failure on sooner, so the back end itself is the fault.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from reasoning import layers
from reasoning.layered import lock_holders, shared_capacity, unread_services
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import ErrorGroup, Errors, Facts, parse_time
from reasoning.layered.reading import (
    arg,
    as_dict,
    as_list,
    every_service_lines,
    iso,
    short,
)
from reasoning.layered.warning_leads import names_service
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS

# A lock queue: the back end's sessions wait for a lock (the holder need not be named).
_LOCK_QUEUE: Final = (
    r"still waiting for [A-Za-z]{0,30}Lock|waiting for (?:table |the )?metadata lock|"
    r"lock wait queue|queued behind (?:a |an |the )?(?:lock|ddl|alter)"
)
# The back end blocks every client: an alarm, a full disk, publishers or writes blocked.
_HARD: Final = (
    r"\b(?:disk|memory|mem|resource)[ _-](?:resource[ _-])?(?:limit[ _-])?alarm|"
    r"\balarm (?:set|raised)|publishers? (?:will be |are |were |is )?blocked|"
    r"blocking (?:all |every )?(?:publishers|producers|writes|writers|clients)|"
    r"free disk space is insufficient|no space left on device|disk (?:is )?full|"
    r"log director(?:y|ies) \S{0,200} (?:offline|failed)|read[ -]only mode|writes? (?:are )?rejected|"
    # A search cluster's disk past its last watermark: every index with a shard there turns
    # read-only (`flood stage disk watermark [95%] exceeded … all indices on this node will be
    # marked read-only`).
    r"flood[ -]stage disk watermark[^\n]{0,40}exceeded|"
    r"(?:indices|indexes|index)\b[^\n]{0,80}\b(?:marked|set to|made) read[ -]only"
)
# A single command or client stalling the back end, or keys evicted en masse.
_STALL: Final = (
    r"\bslow ?log\b|\bslowlog\b|slow (?:command|query)\b|blocked the event loop|"
    r"\bevict(?:ed|ing|ions?)\b"
)
# Provisioned capacity used up: "4000 of 4000 provisioned", throttle events, a maximum reached.
_CONSUMED: Final = (
    r"\b(?P<used>\d[\d,.]*) (?:of|/) (?P=used) (?:provisioned|capacity|units|allowed|max\w*|"
    r"in use|used)|"
    r"\b(?:read|write|request)?throttle ?events\b|\bthrottl(?:ed|ing) (?:reads|writes|requests|"
    r"producers|consumers|clients|fetches)|autoscal\w* (?:is )?(?:at|reached) (?:its )?max|"
    r"(?:capacity|quota|throughput|tickets) (?:is |are )?(?:exhausted|used up|fully consumed|"
    r"at (?:its )?max\w*)|"
    # Concurrency tokens all taken: a storage engine's read/write tickets, a semaphore's permits,
    # a scheduler's slots (`concurrentTransactions.read out 128 available 0`, `permits available: 0`).
    r"\b(?:tickets?|permits?|slots?|semaphores?|concurrentTransactions)\b[^\n]{0,60}?"
    r"\bavailable[\"']?[ =:]+0\b(?![.,]\d)|"
    r"\b0 (?:of \d[\d,]* )?(?:tickets?|permits?|slots?) (?:available|free|left)\b"
)
# A connection pooler dropping the clients that waited in its queue for a server connection
# (PgBouncer `closing because: query_wait_timeout`, ProxySQL `Max connect timeout reached while
# reaching hostgroup`, `timed out waiting for a server connection`): its server connections are all
# held, so every client of the pool waits alike.
_QUEUED: Final = (
    r"closing because:? (?:query_wait_timeout|client_login_timeout)|"
    r"max connect timeout reached while reaching hostgroup|"
    r"(?:timed? ?out|gave up) waiting (?:in the queue )?for (?:a |an )?(?:free |idle )?"
    r"server connection"
)
# A work queue's slots all taken while another queue's work waits behind them (a warehouse's
# workload manager: `WLM queue 'etl' (concurrency 5) full; queue 'bi' waiting: 451 queries`):
# whoever filled the slots holds the ones waiting. The waiting work must be another lane's: a
# pool that is merely exhausted with requests waiting on it (`connection pool exhausted, 35
# requests waiting`) is a caller's own symptom, not a back end holding its clients.
_FULL: Final = (
    r"\b(?:queue|pool|slots?|workers?|concurrency|lanes?)\b[^\n]{0,60}?"
    r"\b(?:full|busy|saturated|exhausted)\b[^\n]{0,40}?"
    r"\b(?:queue|pool|lane|class|group)\b[^\n]{0,40}?\b(?:waiting|queued)\b"
)
BLOCKED: Final = re.compile(
    f"{_LOCK_QUEUE}|{_HARD}|{_STALL}|{_CONSUMED}|{_QUEUED}|{_FULL}", re.IGNORECASE
)
# The resource a blocking line names: a table, topic, queue … (what its consumer names too).
_RESOURCE: Final = re.compile(
    r"\b(?:table|topic|queue|bucket|stream|index|collection|keyspace|container|shard)"
    r"[\s=:]+[\"'`]?([A-Za-z0-9][\w.-]{1,80}[A-Za-z0-9])",
    re.IGNORECASE,
)
HARD: Final = re.compile(_HARD, re.IGNORECASE)
QUEUED: Final = re.compile(_QUEUED, re.IGNORECASE)
# An error class a client receives (`cluster_block_exception`, `ThrottlingException`,
# `ResourceExhaustedError`): a blocking line that carries one, when another service's new lines
# carry the same class, is a client quoting the back end's refusal, not the back end.
_ERROR_CLASS: Final = re.compile(
    r"\b[A-Za-z][A-Za-z0-9]{0,60}(?:_exception|Exception|_error|Error)\b"
)
CONSUMED: Final = re.compile(_CONSUMED, re.IGNORECASE)
LOCK_QUEUE: Final = re.compile(_LOCK_QUEUE, re.IGNORECASE)
# A party's own words that it started something new (RE2, for the search of every service).
START_SEARCH: Final = (
    r"(?i)(start(ed|ing)|launch|\bbegin|began|deploy|rolled out|migrat|backfill|"
    r"alter table|create index|reindex|vacuum full|declar|enabled|bulk (load|import|export)|"
    r"catch-?up|creat(ed|ing) \W?\w{0,20}runs?\b)"
)
_START: Final = re.compile(START_SEARCH.removeprefix("(?i)"), re.IGNORECASE)
_NOT_START_LEVELS: Final = frozenset(
    {"error", "err", "fatal", "critical", "crit", "panic"}
)
# A scheduled job a start line names (`DAG sales_x:`, `<DagRun sales_x @`, `job nightly-export`):
# the job, not the scheduler or worker that runs it, sends the back end its work. Only names of
# several words (joined by `_`, `-` or `.`), not a word of the sentence (`job started`).
_JOB: Final = re.compile(
    r"\b(?:dag|job|cron ?job|pipeline|workflow|flow)(?:[ _-]?run)?\b[\s:=<'\"`]{1,3}"
    r"([A-Za-z]\w{0,40}[_.-][\w.-]{0,40}[A-Za-z0-9])",
    re.IGNORECASE,
)
# A library and the version a release shipped (`released with @acme/kv-client 3.0.0`, `bump
# fastcache to 2.1`): when it went into several clients of the back end at once, it is the party.
_LIBRARY: Final = re.compile(
    r"\b(?:with|bump(?:s|ed)?|upgrad\w{0,3}|to)\s+"
    r"(@?[A-Za-z][\w.-]{0,60}(?:/[A-Za-z][\w.-]{0,60})?)(?:@|\s+v?)\d+\.\d+(?:\.\d+)?\b",
    re.IGNORECASE,
)
SEARCH_LIMIT: Final = 60
# A back end's own lines naming the client a command came from (RE2, for a search of the back
# end's lines at any level): a session's application label, a driver's app name, a client id.
CLIENT_SEARCH: Final = r"(?i)(application_?name|app_?name|program_?name|client_?name|client_?id)[\"']?[=: ]+"
LEAD: Final = timedelta(minutes=15)  # a start this long before the first blocking line
SLACK: Final = timedelta(
    minutes=1
)  # a start logged just after it (log clocks, buffering)
_VICTIM_BEFORE: Final = timedelta(
    minutes=2
)  # a caller may fail before the slow log is written
_VICTIM_AFTER: Final = timedelta(minutes=15)
_NAMED = 0.88  # the back end names the client
_STARTED = 0.88  # a party started something just before the back end blocked
_BACKEND = 0.84  # the back end says it blocks every client; nobody new in view


@dataclass(frozen=True)
class Blocked:
    """A back end's own line saying it blocks or holds its clients."""

    backend: str
    obs: Observation
    fact: str
    line: str
    at: datetime | None
    client: str | None

    @property
    def resource(self) -> str | None:
        """The table, topic, queue … a line of used-up capacity names (what its consumer names too)."""
        if CONSUMED.search(self.line) is None:
            return None  # a lock queue's or an alarm's words name no resource used up
        match = _RESOURCE.search(self.line)
        return match.group(1) if match else None

    @property
    def is_hard(self) -> bool:
        """It holds every client alike: an alarm, a full disk, a pooler's queue timing out."""
        return (
            HARD.search(self.line) is not None or QUEUED.search(self.line) is not None
        )


@dataclass(frozen=True)
class Start:
    """A line of a party's own saying it started something."""

    service: str
    obs: Observation
    fact: str
    line: str
    at: datetime

    @property
    def party(self) -> str:
        """Who started it: the scheduled job the line names, else the service that logged it."""
        match = _JOB.search(self.line[:2000])
        return match.group(1).lower() if match else self.service


def _own(text: str) -> bool:
    """A back end's own blocking words, not a caller's request line quoting them."""
    return bool(BLOCKED.search(text)) and not shared_capacity.REQUEST_LINE.search(text)


def blocked(inv: Investigation, facts: Facts) -> list[Blocked]:
    """Every back end's own new lines saying it blocks its clients, earliest first."""
    known = shared_capacity.known_services(facts, inv)
    found: list[Blocked] = []
    # The services' own reads, then a top_errors of every service at once (its baseline says
    # what is new even for a service read on its own without one).
    every = [
        errors
        for obs in inv.observations
        if unread_services.is_every_service(obs) and obs.is_ok
        for _, errors in unread_services.every_service_groups(obs)
    ]
    for errors in (*facts.errors.values(), *every):
        if not errors.service:
            continue
        for group in (*errors.groups, *errors.warnings):
            text = group.sample or group.signature
            if not group.is_new or not _own(text):
                continue
            found.append(
                Blocked(
                    errors.service,
                    errors.obs,
                    errors.fact(group),
                    text,
                    parse_time(group.first_seen),
                    _client(text, errors.service, known),
                )
            )
    for obs in inv.observations:
        # Every service's lines (the start search aside), and the back end's own lines naming
        # clients (`CLIENT_SEARCH`) at any level: a slow-query log names the application a
        # stalling command came from.
        if obs.tool != SEARCH_LOGS or not obs.is_ok:
            continue
        named = str(arg(obs, "service") or "")
        query = arg(obs, "query")
        if (query != CLIENT_SEARCH) if named else (query == START_SEARCH):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            service = str(line.get("service") or named).lower()
            text = str(line.get("message") or "")
            if not service or not _own(text):
                continue
            where = f"{service}): " if named else f"every service): {service}: "
            found.append(
                Blocked(
                    service,
                    obs,
                    short(f"search_logs({where}{text}", 300),
                    text,
                    parse_time(str(line.get("time") or "")),
                    _client(text, service, known),
                )
            )
    found.sort(key=lambda b: (b.at is None, b.at or datetime.min))
    echoes = _echoes(facts, found)
    own = [b for b in found if b not in echoes]
    return own if own else found


def _echoes(facts: Facts, found: list[Blocked]) -> list[Blocked]:
    """Blocking lines that are clients quoting the back end's refusal: they carry an error class
    that another service's new lines carry too (fellow clients got the same answer)."""
    echoes: list[Blocked] = []
    for b in found:
        classes = {m.group(0).lower() for m in _ERROR_CLASS.finditer(b.line[:4000])}
        if not classes:
            continue
        for errors in facts.errors.values():
            if errors.service in ("", b.backend):
                continue
            if any(
                g.is_new
                and any(
                    m.group(0).lower() in classes
                    for m in _ERROR_CLASS.finditer((g.sample or g.signature)[:4000])
                )
                for g in (*errors.groups, *errors.warnings)
            ):
                echoes.append(b)
                break
    return echoes


def _client(text: str, backend: str, known: set[str]) -> str | None:
    """The client a blocking line names; none in a lock wait (its label is the waiter's)."""
    if LOCK_QUEUE.search(text):
        return None
    return shared_capacity.client_named(text, backend, known)


def client_search(inv: Investigation, facts: Facts, end: str) -> dict[str, str] | None:
    """The search of the back end's own lines, at any level, for the clients they name, from the
    `LEAD` before its first blocking line to `end`, when its warnings name none: a slow-query or
    profiler line is logged at info and says which application ran the command."""
    found = blocked(inv, facts)
    if not found or any(b.client for b in found):
        return None
    backend = found[0].backend
    first = _first(found, backend)
    if first is None:
        return None
    if any(
        o.tool == SEARCH_LOGS
        and arg(o, "query") == CLIENT_SEARCH
        and arg(o, "service") == backend
        for o in inv.observations
    ):
        return None
    return {
        "service": backend,
        "query": CLIENT_SEARCH,
        "start": iso(first - LEAD),
        "end": end,
    }


def _first(found: list[Blocked], backend: str) -> datetime | None:
    return next((b.at for b in found if b.backend == backend and b.at), None)


def resource_search(inv: Investigation, facts: Facts) -> dict[str, str] | None:
    """The search of every service's lines naming the resource a blocking line names (no client
    named), over the `LEAD` before it, when not made yet: who began using it."""
    found = blocked(inv, facts)
    if not found or any(b.client for b in found):
        return None
    line = found[0]
    if line.resource is None or line.at is None:
        return None
    query = re.escape(line.resource)
    if any(
        o.tool == SEARCH_LOGS and arg(o, "query") == query and not arg(o, "service")
        for o in inv.observations
    ):
        return None
    return {"query": query, "start": iso(line.at - LEAD), "end": iso(line.at)}


def _consumer(
    inv: Investigation, facts: Facts, line: Blocked, backend: str
) -> Start | None:
    """The first line, in the `LEAD` before the blocking line, of a service that does not fail
    itself naming the resource the blocking line names."""
    if line.resource is None or line.at is None:
        return None
    query = re.escape(line.resource)
    near: list[Start] = []
    for obs, entry in every_service_lines(inv, query):
        service = str(entry.get("service") or "").lower()
        text = str(entry.get("message") or "")
        at = parse_time(str(entry.get("time") or ""))
        level = str(entry.get("level") or "").lower()
        if (
            not service
            or service == backend
            or at is None
            or not line.at - LEAD <= at <= line.at
            or level in _NOT_START_LEVELS
            or BLOCKED.search(text)
            or _fails_now(facts, service)
        ):
            continue
        near.append(
            Start(
                service,
                obs,
                short(f"search_logs(every service): {service}: {text}", 300),
                text,
                at,
            )
        )
    return min(near, key=lambda s: s.at) if near else None


def _fails_now(facts: Facts, service: str) -> bool:
    errors = facts.errors.get(service)
    return errors is not None and any(g.is_new for g in errors.groups)


def search_window(inv: Investigation, facts: Facts) -> dict[str, str] | None:
    """Where to search every service's start lines: around the first blocking line of a back end
    that names no client, when no such search was made yet."""
    if any(
        o.tool == SEARCH_LOGS and arg(o, "query") == START_SEARCH
        for o in inv.observations
    ):
        return None
    found = blocked(inv, facts)
    if not found or any(b.client for b in found):
        return None
    first = _first(found, found[0].backend)
    if first is None:
        return None
    return {"start": iso(first - LEAD), "end": iso(first + SLACK)}


def starts(inv: Investigation) -> Iterator[Start]:
    """Every service's own lines about starting something, from the search of every service."""
    for obs, line in every_service_lines(inv, START_SEARCH):
        service = str(line.get("service") or "").lower()
        text = str(line.get("message") or "")
        at = parse_time(str(line.get("time") or ""))
        level = str(line.get("level") or "").lower()
        if (
            not service
            or at is None
            or level in _NOT_START_LEVELS
            or not _START.search(text)
            or lock_holders.REQUEST_LINE.search(text)
            or BLOCKED.search(text)
        ):
            continue
        yield Start(
            service,
            obs,
            short(f"search_logs(every service): {service}: {text}", 300),
            text,
            at,
        )


def _victims(
    facts: Facts, backend: str, party: str, first: datetime | None
) -> list[tuple[Errors, ErrorGroup]]:
    """Other services whose new errors began around the back end's first blocking line."""
    found = []
    for errors in facts.errors.values():
        if errors.service in ("", backend, party):
            continue
        for group in errors.groups:
            began = parse_time(group.first_seen)
            if not group.is_new or began is None:
                continue
            if (
                first is None
                or first - _VICTIM_BEFORE <= began <= first + _VICTIM_AFTER
            ):
                found.append((errors, group))
                break
    return found


def shared_backend(board: Board) -> None:
    """A shared back end whose own new lines say it holds its clients (a lock queue, an alarm blocking publishers, a stalling command, mass evictions, concurrency tickets all taken, a work queue full while other work waits, a pooler dropping the clients its queue held too long) while other services begin failing is blocked by the client it names (in those lines, or in its own slow-command lines at any level), else by the service (or the scheduled job its line names) that started something just before, else (an alarm, a full disk, a pooler's queue timing out) it is the fault itself; the failing callers are its victims."""
    found = blocked(board.inv, board.facts)
    if not found:
        return
    named = next((b for b in found if b.client), None)
    if named is not None and named.client is not None:
        first = _first(found, named.backend)
        victims = _victims(board.facts, named.backend, named.client, first)
        if victims and not _explained(board, named.backend):
            shipped = _shipped(board.facts, named.client, victims, first)
            if shipped is None:
                _blame(board, named.client, named, victims, None)
                return
            library, change = shipped
            _blame(board, library, named, victims, change)
            _victim(
                board.candidates.get(f"{layers.APPLICATION}:{named.client}"),
                board.candidates[f"{layers.APPLICATION}:{library}"],
            )
        return
    backend = found[0].backend
    if _explained(board, backend):
        return
    first = _first(found, backend)
    started = _started(board.inv, backend, first) or _consumer(
        board.inv, board.facts, found[0], backend
    )
    if started is not None and failing_before(board.facts, backend):
        started = None  # a trigger: the back end was failing on its own before it
    party = started.party if started else backend
    victims = _victims(board.facts, backend, party, first)
    if not victims:
        return
    if started is not None:
        _blame(board, party, found[0], victims, started)
        return
    hard = next((b for b in found if b.backend == backend and b.is_hard), None)
    if hard is not None:
        _blame(board, backend, hard, victims, None)


def failing_before(facts: Facts, backend: str) -> bool:
    """Whether the back end's own errors (not its blocking words) were logged before the window
    too: it was failing on its own before anyone started anything (an archiver, a replication or
    a backup of its own that keeps failing until its disk fills), so a start is a trigger only."""
    errors = facts.errors.get(backend)
    return errors is not None and any(
        g.is_stale and not BLOCKED.search((g.sample or g.signature)[:4000])
        for g in errors.groups
    )


def backend_read(inv: Investigation, facts: Facts) -> str | None:
    """The back end whose own errors are worth reading (against the hour before) before a client
    that started something just before it blocked is blamed: was it failing before already."""
    found = blocked(inv, facts)
    if not found or any(b.client for b in found):
        return None
    backend = found[0].backend
    if backend in facts.errors or not any(
        b.backend == backend and b.is_hard for b in found
    ):
        return None
    if _started(inv, backend, _first(found, backend)) is None:
        return None
    return backend


def _shipped(
    facts: Facts,
    client: str,
    victims: list[tuple[Errors, ErrorGroup]],
    first: datetime | None,
) -> tuple[str, Start] | None:
    """A library a release shipped, in the `LEAD` before the back end's first blocking line, into
    the client it names and into one of the failing callers too: what they now have in common."""
    if first is None:
        return None
    for change in facts.changes:
        if change.at is None or not first - LEAD <= change.at <= first + SLACK:
            continue
        text = change.message[:2000]
        match = _LIBRARY.search(text)
        if match is None or names_service(match.group(1), client):
            continue
        if names_service(text, client) and any(
            names_service(text, e.service) for e, _ in victims
        ):
            start = Start(change.service, change.obs, change.fact, text, change.at)
            return match.group(1).lower(), start
    return None


def _explained(board: Board, backend: str) -> bool:
    """Another rule already confirmed who holds or fills this back end."""
    return any(
        c.status == "confirmed" and backend in c.keywords and c.component != backend
        for c in board.candidates.values()
    )


def _started(inv: Investigation, backend: str, first: datetime | None) -> Start | None:
    """The last start of a service other than the back end in the `LEAD` before its first
    blocking line (or just after it)."""
    if first is None:
        return None
    near = [
        s
        for s in starts(inv)
        if s.service != backend and first - LEAD <= s.at <= first + SLACK
    ]
    return max(near, key=lambda s: s.at) if near else None


def _blame(
    board: Board,
    party: str,
    line: Blocked,
    victims: list[tuple[Errors, ErrorGroup]],
    started: Start | None,
) -> None:
    backend = line.resource or line.backend
    who = ", ".join(e.service for e, _ in victims[:3])
    if party == backend:
        statement = f"{backend} blocks every client ({short(line.line, 90)}): {who} fail behind it"
        confidence = _BACKEND
    elif started is not None and line.client and party != line.client:
        statement = (
            f"{party}, shipped into {line.client} and its fellow callers just before "
            f"({short(started.line, 90)}), makes {line.client} hold the shared {backend} "
            f"({short(line.line, 90)}); {who} fail behind it"
        )
        confidence = _STARTED
    elif started is not None:
        statement = (
            f"{party} started something just before the shared {backend} began holding its "
            f"clients ({short(started.line, 90)}); {who} fail behind it"
        )
        confidence = _STARTED
    else:
        statement = (
            f"{party} blocks the shared {backend}, which names it in its own lines "
            f"({short(line.line, 90)}); {who} fail behind it"
        )
        confidence = _NAMED
    c = board.get(layers.APPLICATION, party, statement)
    if c.stage is not None:
        return
    if c.status != "confirmed" or c.confidence < confidence:
        c.statement = (
            statement  # what it was read as alone is the symptom, not the cause
        )
    c.cite(line.obs, line.fact)
    if started is not None:
        c.cite(started.obs, started.fact)
    for errors, group in victims[:2]:
        c.cite(errors.obs, errors.fact(group))
    c.status, c.confidence = "confirmed", max(c.confidence, confidence)
    c.chain = [
        board.symptom(),
        *(
            f"{e.service} fails: {short(g.sample or g.signature, 100)}"
            for e, g in victims[:2]
        ),
        f"{backend} logs: {short(line.line, 140)}",
        *([f"{party} logs: {short(started.line, 120)}"] if started else []),
        c.statement,
    ]
    c.keywords = list(
        dict.fromkeys([party, backend, "shared back end", "blocked clients"])
    )
    for errors, _ in victims:
        _victim(board.candidates.get(f"{layers.APPLICATION}:{errors.service}"), c)
    for holder in {backend, line.backend} - {party}:
        _victim(board.candidates.get(f"{layers.APPLICATION}:{holder}"), c)


def _victim(victim: Candidate | None, cause: Candidate) -> None:
    if victim is not None:
        victim.explained_by(
            cause, f"a victim of {cause.id} (it blocks the shared back end)"
        )
