"""A quiet back end behind louder callers (issue 21 class 4): the back end's own fault, not the callers' errors, is the cause.

A database, cache or search cluster rarely logs an error of its own when it degrades: a disk
controller switches its cache to write-through, it reaches its memory ceiling and refuses writes, it
turns read-only. What knows it is an exporter's gauges labelled with its instance, a controller's or
agent's warning naming it, or its answer as its callers relay it. Its callers meanwhile fail loudly
in their own words (a pool with no connection to lend, timeouts, 5xx) and outrank it. The back end
is the fault when it shows one of its own:

- its callers' new errors quote its refusal in its product's own words (Redis `OOM command not
  allowed`, `READONLY`, MySQL `Too many connections`, PostgreSQL `too many clients already`,
  Elasticsearch `cluster_block_exception` …), and exactly one instance of that product is known: an
  instance whose gauges carry the product's prefix (`redis_*`, `mysql_*`, `pg_*` …) or a host the
  callers' lines name after it (`refusal`);
- or one of its gauges stepped up at the start (the window's last half at least `STEP` times the
  hour before) and a line not at error level names the instance and says its state changed
  (`changed to`, `switched to`, `fell back to`, `a -> b`), or names it or was logged on it (its
  host label) and says work began there (an antivirus scan, a backup, a defragmentation: the
  host's disk and CPU are the back end's), in the `LEAD` before its callers' first new error
  (`state_change`). The planner searches every service's lines naming such an instance
  (`searches`) when none was read, then, when no line writes its name, every service's lines
  saying work began (`WORK_SEARCH`).

Its callers, whose new errors began after it, are its victims (leads below it).
"""

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from statistics import median
from typing import Any, Final

from reasoning import layers
from reasoning.layered import backend_gauges, metric_trends
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts, parse_time
from reasoning.layered.reading import (
    POOL_EXHAUSTED,
    arg,
    as_dict,
    as_list,
    hosts_in,
    iso,
    short,
)
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# A back end's refusal in its product's own words, with the gauge prefixes and name words of the
# product (how an instance of it is known).
REFUSALS: Final = (
    (
        re.compile(
            r"\bOOM command not allowed|\bREADONLY You can'?t write|\bMISCONF\b|"
            r"max(?:imum)? number of clients reached|\bBUSY Redis is busy|"
            r"\bLOADING Redis is loading",
            re.IGNORECASE,
        ),
        ("redis", "valkey", "keydb"),
    ),
    (
        re.compile(
            r"SERVER_ERROR out of memory|\bSERVER_ERROR object too large", re.IGNORECASE
        ),
        ("memcached", "memcache"),
    ),
    (
        re.compile(
            r"too many clients already|remaining connection slots are reserved|"
            r"cannot execute \w+ in a read-only transaction|"
            r"database is not accepting commands to avoid wraparound",
            re.IGNORECASE,
        ),
        ("pg", "postgres", "postgresql"),
    ),
    (
        re.compile(
            r"\bToo many connections\b|running with the --(?:super-)?read-only option|"
            r"\bThe table '?[\w.]{1,80}'? is full|ER_CON_COUNT_ERROR",
            re.IGNORECASE,
        ),
        ("mysql", "mariadb"),
    ),
    (
        re.compile(
            r"cluster_block_exception|index read-only / allow delete|"
            r"es_rejected_execution_exception|circuit_breaking_exception",
            re.IGNORECASE,
        ),
        ("elasticsearch", "opensearch", "es"),
    ),
    (
        re.compile(
            r"\bNotWritablePrimary\b|\bnot master\b|\bnot primary\b", re.IGNORECASE
        ),
        ("mongodb", "mongo"),
    ),
)
# A caller waiting on what it calls: its pool has nothing to lend, or its call timed out.
WAITING: Final = re.compile(
    POOL_EXHAUSTED
    + r"|pool (?:is )?exhausted|pool timeout|timed? ?out|deadline exceeded|\b50[234]\b",
    re.IGNORECASE,
)
# A line saying a thing's state or setting changed (a controller's cache policy, a mode, a role).
STATE_CHANGE: Final = re.compile(
    r"\b(?:changed|switched|fell back|falling back|went|transitioned|degraded|reverted|"
    r"set|moved|demoted|downgraded) (?:back )?(?:to|into)\b|"
    r"(?:->|=>|→)|\bfrom [^\s]{1,40} to [^\s]",
    re.IGNORECASE,
)
# Work that began on a host (RE2, case-insensitive on the logs server): an antivirus or integrity
# scan, a backup or snapshot, a defragmentation, an index rebuild, a vacuum or compaction; a line
# saying so shares the host's disk and CPU with the back end on it.
WORK_SEARCH: Final = (
    r"\b(scan|backup|snapshot|defrag[a-z]*|rebuild|reindex|vacuum|compaction|checkdb|"
    r"integrity check|maintenance (job|task|plan))\b[^\n]{0,60}\b(has started|started|starting|"
    r"began|begun|launched|triggered|in progress)\b|"
    r"\bstart(ed|ing) (a |an |the )?(full |quick |scheduled |weekly |nightly )?(scan|backup|"
    r"snapshot|defrag[a-z]*|vacuum|compaction|reindex|rebuild)\b"
)
WORK_STARTED: Final = re.compile(WORK_SEARCH, re.IGNORECASE)
# The labels by which a line names the host or instance it was logged on.
_HOST_LABELS: Final = frozenset(
    {"host", "hostname", "instance", "node", "server", "computer", "machine"}
)
_ERROR_LEVELS: Final = frozenset({"error", "err", "fatal", "critical", "crit", "panic"})
# A series that grows by itself (a counter) or says what is left says nothing by stepping up.
_NOT_STEPS: Final = re.compile(r"_(?:total|count|sum|created|bucket)$|info$")
STEP: Final = 5.0  # the window's last half over the hour before
LEAD: Final = timedelta(
    minutes=30
)  # a state change this long before the callers' errors
SLACK: Final = timedelta(
    minutes=2
)  # callers may fail a little before the line is written
SEARCH_LIMIT: Final = 40
_REFUSED = (
    0.88  # the callers quote the back end's own refusal, one instance of it known
)
_CHANGED = 0.88  # its gauges stepped up and a line says its state changed just before
_BOTH = 0.92


@dataclass
class Instance:
    """A back end known by an exporter's gauges: its gauge prefixes and those that stepped up."""

    name: str
    families: set[str] = field(default_factory=set)
    steps: list[tuple[Observation, str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Line:
    """A line, not at error level, naming an instance and saying its state changed."""

    obs: Observation
    service: str
    at: datetime | None
    message: str

    @property
    def fact(self) -> str:
        return short(f"search_logs(every service): {self.service}: {self.message}", 300)


def instances(inv: Investigation, facts: Facts) -> dict[str, Instance]:
    """The instances the unlabelled gauges measure, with the gauges that stepped up at the start."""
    start = parse_time(inv.incident.window_start or "")
    known = {*facts.errors, *facts.health}
    found: dict[str, Instance] = {}
    for obs, name, labels, points in metric_trends.answered_series(
        inv, backend_gauges.QUERY
    ):
        who = backend_gauges.owner(labels, known)
        if who is None:
            continue
        instance = found.setdefault(who, Instance(who))
        instance.families.add(name.split("_", 1)[0].lower())
        if (
            start is None
            or _NOT_STEPS.search(name)
            or backend_gauges.RESOURCE.search(name)
        ):
            continue
        words = stepped(points, start.timestamp())
        if words is not None:
            instance.steps.append((obs, name, words))
    return found


def stepped(points: list[tuple[float, float]], start: float) -> str | None:
    """The window's last half at least `STEP` times the hour before (from a level above zero)."""
    before = [v for t, v in points if t < start]
    inside = [(t, v) for t, v in points if t >= start]
    if len(before) < 3 or len(inside) < 4:
        return None
    half = inside[0][0] + (inside[-1][0] - inside[0][0]) / 2
    after = [v for t, v in inside if t >= half]
    was, now = median(before), median(after)
    if now <= 0 or now < STEP * was or min(after) <= was:
        return None
    return f"{was:g} in the hour before, {now:g} in the window's last half"


def _names(text: str, instance: str) -> bool:
    return (
        re.search(rf"(?<![\w-]){re.escape(instance)}(?![\w-])", text, re.IGNORECASE)
        is not None
    )


def _lines(inv: Investigation) -> Iterator[tuple[Observation, dict[str, Any]]]:
    """Every line of every answered search of every service's lines."""
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "service"):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            yield obs, line


def _logged_on(line: dict[str, Any], instance: str) -> bool:
    """The line's labels say it was logged on `instance` (its host, node or instance label)."""
    return any(
        str(key).lower() in _HOST_LABELS and str(value).lower() == instance.lower()
        for key, value in as_dict(line.get("labels")).items()
    )


def state_lines(inv: Investigation, instance: str) -> list[Line]:
    """The lines, not at error level, naming `instance` (or logged on it) and saying a state of it
    changed or work began on it, earliest first."""
    out: dict[str, Line] = {}
    for obs, line in _lines(inv):
        message = str(line.get("message") or "")
        level = str(line.get("level") or "").lower()
        if level in _ERROR_LEVELS or message in out:
            continue
        head = message[:2000]
        if not (_names(head, instance) or _logged_on(line, instance)) or not (
            STATE_CHANGE.search(head) or WORK_STARTED.search(head)
        ):
            continue
        out[message] = Line(
            obs,
            str(line.get("service") or ""),
            parse_time(str(line.get("time") or "")),
            message,
        )
    return sorted(out.values(), key=lambda x: (x.at is None, x.at or datetime.min))


def searches(
    inv: Investigation,
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
    *,
    regex: bool = False,
) -> list[PlannedCall | None]:
    """Every service's lines naming an instance whose gauges stepped up, when callers fail and no
    such search was made; when the name is written in no line (hosts are often only a line's
    label), every service's lines saying work began (`WORK_SEARCH`, where the search takes a regex)."""
    start = parse_time(window.get("start", ""))
    if start is None or not _victims(facts, None):
        return []
    asked = {arg(o, "query") for o in inv.observations if o.tool == SEARCH_LOGS}
    since = {"start": iso(start - LEAD), "end": window.get("end", "")}
    calls: list[PlannedCall | None] = []
    for instance in instances(inv, facts).values():
        query = instance.name  # a plain search: the name as it is written
        if not instance.steps or state_lines(inv, instance.name):
            continue
        if query not in asked:
            calls.append(
                call(
                    SEARCH_LOGS,
                    {"query": query, **since, "limit": SEARCH_LIMIT},
                    f"{instance.name}'s gauges stepped up at the start while callers fail: "
                    "what the lines say of it",
                )
            )
        elif regex and WORK_SEARCH not in asked:
            asked.add(WORK_SEARCH)
            calls.append(
                call(
                    SEARCH_LOGS,
                    {
                        "query": WORK_SEARCH,
                        "regex": True,
                        **since,
                        "limit": SEARCH_LIMIT,
                    },
                    f"no line names {instance.name}, whose gauges stepped up: which work "
                    "(a scan, a backup) began on a host",
                )
            )
    return calls[:2]


def _victims(
    facts: Facts, since: datetime | None
) -> list[tuple[Errors, ErrorGroup, datetime | None]]:
    """Each service's first new error (one a caller waiting on a back end logs first), from `since`."""
    found = []
    for errors in facts.errors.values():
        groups = []
        for group in errors.groups:
            began = parse_time(group.first_seen)
            if not group.is_new:
                continue
            if since is not None and (began is None or began < since - SLACK):
                continue
            groups.append((group, began))
        if groups:
            groups.sort(key=lambda g: not WAITING.search(g[0].text))
            found.append((errors, groups[0][0], groups[0][1]))
    return found


def _refused(
    facts: Facts, known: dict[str, Instance]
) -> list[tuple[str, Errors, ErrorGroup]]:
    """(instance, caller, its error) for each caller quoting a back end's refusal whose product
    has exactly one instance known."""
    out = []
    for errors in facts.errors.values():
        for group in errors.groups:
            if not group.is_new:
                continue
            text = group.sample or group.signature
            words = next((w for p, w in REFUSALS if p.search(text)), None)
            if words is None:
                continue
            named = {
                h
                for h in hosts_in(text[:2000])
                if any(w in re.split(r"[\W_]+", h.lower()) for w in words)
            }
            matching = {
                i.name
                for i in known.values()
                if i.families & set(words)
                or any(w in re.split(r"[\W_]+", i.name) for w in words)
            } | {re.sub(r":\d+$", "", h).lower() for h in named}
            if len(matching) == 1:
                out.append((next(iter(matching)), errors, group))
                break
    return out


def quiet_backend(board: Board) -> None:
    """A back end whose own fault shows quietly (its callers quote its refusal in its product's words and one instance of it is known, or its gauges stepped up at the start and a line not at error level, naming it or logged on it, says its state changed or work began on it just before its callers' errors) is the cause; the louder callers are its victims."""
    known = instances(board.inv, board.facts)
    blamed: dict[str, list[tuple[Errors, ErrorGroup]]] = {}
    for name, errors, group in _refused(board.facts, known):
        blamed.setdefault(name, []).append((errors, group))
    changed: dict[str, Line] = {}
    for instance in known.values():
        if not instance.steps:
            continue
        victims = _victims(board.facts, None)
        first = min((b for _, _, b in victims if b is not None), default=None)
        if first is None or not any(WAITING.search(g.text) for _, g, _ in victims):
            continue
        near = [
            line
            for line in state_lines(board.inv, instance.name)
            if line.at is not None and first - LEAD <= line.at <= first + SLACK
        ]
        if near:
            changed[instance.name] = near[-1]
    for name in dict.fromkeys([*blamed, *changed]):
        _blame(board, known.get(name), name, blamed.get(name, []), changed.get(name))


def _blame(
    board: Board,
    instance: Instance | None,
    name: str,
    quotes: list[tuple[Errors, ErrorGroup]],
    change: Line | None,
) -> None:
    since = change.at if change is not None else None
    victims = [(e, g) for e, g, _ in _victims(board.facts, since) if e.service != name]
    if not victims:
        return
    who = ", ".join(dict.fromkeys(e.service for e, _ in victims[:3]))
    if change is not None:
        statement = (
            f"{name} degraded on its own ({short(change.message, 120)}) just before "
            f"{who} began failing on it"
        )
    else:
        statement = (
            f"{name} refuses its callers itself ({short(quotes[0][1].sample, 90)}); "
            f"{who} relay its answer"
        )
    c = board.get(layers.APPLICATION, name, statement)
    if c.status == "ruled_out" or c.stage is not None:
        return
    confidence = _BOTH if change and quotes else (_CHANGED if change else _REFUSED)
    if c.status != "confirmed" or c.confidence < confidence:
        c.statement = statement
    if change is not None:
        c.cite(change.obs, change.fact)
    for errors, group in quotes[:2]:
        c.cite(errors.obs, errors.fact(group))
    for obs, metric, words in (instance.steps if instance else [])[:2]:
        c.cite(obs, short(f"query_metric {metric}{{{name}}}: stepped up: {words}", 300))
    for errors, group in victims[:2]:
        c.cite(errors.obs, errors.fact(group))
    c.status, c.confidence = "confirmed", max(c.confidence, confidence)
    c.chain = [
        board.symptom(),
        *(
            f"{e.service} fails: {short(g.sample or g.signature, 100)}"
            for e, g in victims[:2]
        ),
        *([f"{change.service} logs: {short(change.message, 140)}"] if change else []),
        c.statement,
    ]
    c.keywords = list(dict.fromkeys([name, "back end", "quiet back end"]))
    for errors, _ in victims:
        victim = board.candidates.get(f"{layers.APPLICATION}:{errors.service}")
        if victim is not None and victim is not c:
            victim.explained_by(c, f"a victim of {c.id} (its back end's own fault)")
