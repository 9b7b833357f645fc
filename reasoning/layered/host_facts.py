"""Facts about a host that no service's own rule reads (issue 21 classes 1 and 4): the host, not the service failing on it.

A process fails the way its host makes it fail, and says so in its own words, while the fact that
explains it is logged by someone else: a provisioning run that mounted `/tmp` `noexec` (the
service's `failed to map segment from shared object`), a time daemon that cannot reach its servers
(the partner's `timestamp outside tolerance (skew 412s)`), a hypervisor that steals the VM's CPU
(`%steal 41.3` in sysstat, the callers' timeouts naming that VM), a unit file rewritten without
its `LimitNOFILE` (the service's `accept4: too many open files`), a NAT gateway out of source ports
(`ErrorPortAllocation`, its callers' connect timeouts). Each fact is one row of `FACTS`: the
symptom words that make the planner search every service's lines for the fact (`searches`), the
fact's own words, and how the two are tied together (a mount point under the failing path, the
host the slow lines name, the unit of the failing service). The fact's owner (the host in its
labels or words, the unit, the gateway) is the hypothesis; the services failing on it are
explained by it. A fact without its symptom, or a symptom whose tie does not hold (a `noexec`
mount of another path, steal on a host nothing slow names, a raised limit), blames nothing.
"""

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered import unread_services
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import FACT_CHARS, ErrorGroup, Errors, Facts, parse_time
from reasoning.layered.reading import as_dict, every_service_lines, iso, short
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS

# A host is provisioned, or a unit rewritten, hours before its processes next run into it; the
# logs server answers at most six hours at once.
LOOKBACK: Final = timedelta(hours=6)
SPAN: Final = timedelta(hours=5, minutes=50)
SEARCH_LIMIT: Final = 40
_TEXT: Final = 2000  # the most of a line or group the rules read
_LABELS: Final = ("host", "hostname", "instance", "node", "pod")
# A host-like name: a word ending in a dash and a number (`batch-02`, `api-03`, `web-7b`).
_HOST_WORD: Final = re.compile(
    r"(?<![\w./-])([a-z][a-z0-9]*(?:-[a-z0-9]+)*-\d+[a-z]?)(?![\w-])", re.IGNORECASE
)
_CONFIDENCE: Final = 0.93  # the fact's own line and the symptom it explains

# --- the symptoms (in a service's error or warning groups) ----------------------------------------

# (`clock_skew` reads these two too.) A signed request or token refused because the sender's clock is off.
SKEWED: Final = re.compile(
    r"requesttimetooskewed|\bclock skew\b|\btime ?skew\b|\bskew too great\b|"
    r"difference between the request time and the current time|"
    r"\bclock (?:is )?(?:behind|ahead|out of sync)\b|"
    r"\bused before (?:issued|its nbf|nbf)\b|\b(?:token|jwt) (?:is )?not (?:yet )?valid yet\b|"
    r"\bcertificate (?:is )?not yet valid\b|\bsignature not yet current\b|"
    # a partner checking a signed timestamp: `timestamp outside tolerance (skew 412s)`
    r"\btimestamp (?:is )?outside (?:the )?(?:allowed |accepted )?(?:tolerance|window|range)\b|"
    r"\bskew(?:ed)? (?:of )?\d+ ?m?s\b",
    re.IGNORECASE,
)
# A time daemon saying the clock is not synchronised.
UNSYNCED: Final = re.compile(
    r"\bcan'?t synchroni[sz]e\b|\bno selectable sources\b|\bnot synchroni[sz]ed\b|"
    r"\bunsynchroni[sz]ed\b|\bno (?:ntp )?servers? reachable\b|"
    r"\btime ?sync(?:hroni[sz]ation)? (?:failed|lost)\b|"
    r"\bsystem clock synchronized: no\b|\bclock_unsynchroni[sz]ed\b",
    re.IGNORECASE,
)

# A shared object or program refused an executable mapping (a file system mounted noexec).
EXEC_REFUSED: Final = re.compile(
    r"failed to map segment from shared object|"
    r"(?:cannot|could not|couldn't|unable to) (?:execute|exec|run)\b[^\n]{0,120}"
    r"(?:permission denied|operation not permitted)|"
    r"\bexec(?:ve)?\b[^\n]{0,80}(?:permission denied|EACCES|operation not permitted)",
    re.IGNORECASE,
)
# A process out of its own descriptors (not the kernel's table: that is `host_exhaustion`'s).
OUT_OF_FILES: Final = re.compile(
    r"too many open files(?! in system)|\bEMFILE\b", re.IGNORECASE
)
# A request slow or timed out.
SLOW: Final = re.compile(
    r"\bslow (?:request|query|response)|\btook \d+(?:\.\d+)? ?(?:s|ms|seconds)\b|"
    r"\btime[ -]?out\b|\btimed out\b|\bdeadline exceeded\b",
    re.IGNORECASE,
)
# A connection that cannot be opened from our side (a timeout on connect, no source address).
CONNECT_FAILED: Final = re.compile(
    r"\bi/o timeout\b[^\n]{0,40}\bconnect\b|\bdial tcp\b[^\n]{0,80}\b(?:i/o timeout|timed out)|"
    r"\bconnect(?:ion)? timed out\b|\bconnect timeout\b|cannot assign requested address|"
    r"\bEADDRNOTAVAIL\b",
    re.IGNORECASE,
)

# --- the facts (any service's lines) ---------------------------------------------------------------

# A mount with noexec, and the mount point it names (`mount /tmp tmpfs nodev,nosuid,noexec`).
NOEXEC: Final = re.compile(r"\bnoexec\b", re.IGNORECASE)
_MOUNT_POINT: Final = re.compile(r"(?<![\w.])(/[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*)")
# A time daemon that cannot reach its servers (besides `clock_skew.UNSYNCED`).
TIME_DAEMON_TIMEOUT: Final = re.compile(
    r"\btimed out waiting for reply from\b[^\n]{0,120}(?::123\b|\bntp\b)|"
    r"\b(?:timesyncd|chronyd?|ntpd)\b[^\n]{0,80}\b(?:timed out|no reply|unreachable)\b",
    re.IGNORECASE,
)
# CPU stolen by the hypervisor: `%steal 41.3`, `steal=38%`, `cpu steal 40%`.
STEAL: Final = re.compile(
    r"%steal[=: ]+(\d+(?:\.\d+)?)|\bsteal[=: ]+(\d+(?:\.\d+)?) ?%|\bcpu steal[=: ]+(\d+(?:\.\d+)?)",
    re.IGNORECASE,
)
STOLEN: Final = 10.0  # percent of the CPU stolen that slows what runs there
# A descriptor limit named: systemd's LimitNOFILE, a nofile ulimit.
NOFILE: Final = re.compile(r"\bLimitNOFILE\b|\bnofile\b|\bulimit -n\b", re.IGNORECASE)
# ... removed (a diff's `- LimitNOFILE=…`, `dropped`, `without`) or set low (≤ 4096).
_NOFILE_LOST: Final = re.compile(
    r"(?:^|[\s(])-\s*LimitNOFILE\b|\b(?:removed|dropped|lost|without|missing|no)\b[^\n]{0,40}"
    r"\b(?:LimitNOFILE|nofile)\b|\b(?:LimitNOFILE|nofile)\b[^\n]{0,40}\b(?:removed|dropped|lost|missing)\b",
    re.IGNORECASE,
)
_NOFILE_VALUE: Final = re.compile(
    r"\b(?:LimitNOFILE|nofile|ulimit -n)\b\s*[=: ]\s*(\d+)", re.IGNORECASE
)
LOW_NOFILE: Final = 4096
_UNIT: Final = re.compile(r"\b([a-z][\w@.-]*)\.service\b", re.IGNORECASE)
# A NAT gateway out of source ports.
PORT_ALLOCATION: Final = re.compile(
    r"\bErrorPortAllocation\b|\bport allocation (?:error|fail\w*)\b|"
    r"\b(?:SNAT|source|NAT) ports? (?:exhaust\w*|allocation fail\w*)|"
    r"\bout of (?:SNAT|source|NAT) ports\b",
    re.IGNORECASE,
)
_NAT_ID: Final = re.compile(
    r"\b(nat-[0-9a-z]{4,}|natgw-[0-9a-z]+|ngw-[0-9a-z]+)\b|"
    r"\bNAT ?Gateway[/: ]+([A-Za-z0-9][\w.-]{2,62})",
    re.IGNORECASE,
)

# The searches of every service's lines (RE2 for the logs server).
NOEXEC_SEARCH: Final = r"(?i)\bnoexec\b"
CLOCK_SEARCH: Final = (
    r"(?i)timed out waiting for reply|can'?t synchroni[sz]e|no selectable sources|"
    r"clock synchronized: no|unsynchroni[sz]ed|not synchroni[sz]ed|no (ntp )?servers? reachable"
)
STEAL_SEARCH: Final = r"(?i)%steal[=: ]+[1-9][0-9]|steal[=: ]+[1-9][0-9](\.[0-9]+)? ?%"
NOFILE_SEARCH: Final = r"(?i)LimitNOFILE|\bnofile\b|ulimit -n"
PORTS_SEARCH: Final = (
    r"(?i)ErrorPortAllocation|port allocation (error|fail)|(SNAT|source|NAT) ports? "
    r"(exhaust|allocation fail)|out of (SNAT|source|NAT) ports"
)


@dataclass(frozen=True)
class Line:
    """A line read: its answer, its service, its text, its labels (a group of top_errors has none)."""

    obs: Observation
    service: str
    text: str
    labels: dict[str, Any]
    fact: str

    @property
    def host(self) -> str:
        for label in _LABELS:
            value = str(self.labels.get(label) or "").strip().lower()
            if value:
                return re.sub(r":\d+$", "", value)[:253]
        match = _HOST_WORD.search(self.text)
        return match.group(1).lower() if match else ""


def _groups(inv: Investigation, facts: Facts) -> Iterator[tuple[Errors, ErrorGroup]]:
    """Every error and warning group read, the incident's services' and every service's at once."""
    for _, errors in unread_services.every_service_errors(inv, facts):
        for group in (*errors.groups, *errors.warnings):
            yield errors, group


def symptoms(inv: Investigation, facts: Facts, pattern: re.Pattern[str]) -> list[Line]:
    """The error or warning groups whose text matches `pattern`, as lines (no labels)."""
    found: list[Line] = []
    for errors, group in _groups(inv, facts):
        text = (group.sample or group.signature)[:_TEXT]
        if pattern.search(text):
            found.append(Line(errors.obs, errors.service, text, {}, errors.fact(group)))
    return found


def fact_lines(board: Board, query: str, pattern: re.Pattern[str]) -> list[Line]:
    """Lines matching `pattern`: the search of every service for `query`, then the groups read."""
    found: list[Line] = []
    for obs, line in every_service_lines(board.inv, query):
        text = str(line.get("message") or "")[:_TEXT]
        if not pattern.search(text):
            continue
        service = str(line.get("service") or "")
        fact = short(
            f"search_logs(every service): {service or '?'}: {text}", FACT_CHARS
        )
        if all(f.fact != fact for f in found):
            found.append(Line(obs, service, text, as_dict(line.get("labels")), fact))
    for group in symptoms(board.inv, board.facts, pattern):
        if all(f.text != group.text for f in found):
            found.append(group)
    return found


# --- the planner's searches ------------------------------------------------------------------------

_SEARCHES: Final = (
    (EXEC_REFUSED, NOEXEC_SEARCH, "a program is refused an executable mapping"),
    (SKEWED, CLOCK_SEARCH, "requests are refused as clock-skewed"),
    (OUT_OF_FILES, NOFILE_SEARCH, "a process is out of file descriptors"),
    (CONNECT_FAILED, PORTS_SEARCH, "connections time out on connect"),
)


def _slow_hosts(inv: Investigation, facts: Facts) -> list[str]:
    return [
        line.host
        for line in symptoms(inv, facts, SLOW)
        if _HOST_WORD.search(line.text) and line.host
    ]


def searches(
    inv: Investigation,
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], Any],
    window: dict[str, str],
) -> list[Any]:
    """For each host fact whose symptom shows in a group read: every service's lines of that fact,
    from `LOOKBACK` before the window (a host is provisioned hours before it runs into it)."""
    start, end = parse_time(window.get("start", "")), parse_time(window.get("end", ""))
    earlier = dict(window)
    if start is not None and end is not None:
        earlier["start"] = iso(max(start - LOOKBACK, min(start, end - SPAN)))
    wanted = [
        (query, why)
        for pattern, query, why in _SEARCHES
        if symptoms(inv, facts, pattern)
    ]
    if _slow_hosts(inv, facts):
        wanted.append((STEAL_SEARCH, "requests on a named host are slow"))
    return [
        call(
            SEARCH_LOGS,
            {
                "query": query,
                "regex": True,
                # steal slows what runs now: the window's own lines
                **(window if query == STEAL_SEARCH else earlier),
                "limit": SEARCH_LIMIT,
            },
            f"{why}: what its host's own lines say (mounts, time sync, steal, limits, NAT ports)",
        )
        for query, why in wanted
    ]


# --- the rules -------------------------------------------------------------------------------------


def _blame(
    board: Board,
    layer: str,
    component: str,
    statement: str,
    cited: list[Line],
    victims: set[str],
    keywords: list[str],
) -> Candidate:
    c = board.get(layer, component, statement)
    for line in cited:
        c.cite(line.obs, line.fact)
    if c.confidence < _CONFIDENCE:
        c.status, c.confidence = "confirmed", _CONFIDENCE
    c.chain = [
        board.symptom(),
        *(short(line.fact, 160) for line in cited[:2]),
        statement,
    ]
    c.keywords += [k for k in keywords if k not in c.keywords]
    for other in list(board.candidates.values()):
        if other is c:
            continue
        if other.component in victims:
            other.explained_by(c, f"it fails on {component} ({c.id})")
    return c


def noexec_mount(board: Board) -> None:
    """A program refused an executable mapping (`failed to map segment from shared object`) under a path that a host's provisioning mounted `noexec` is a platform fault of that host, not of the program."""
    refused = symptoms(board.inv, board.facts, EXEC_REFUSED)
    if not refused:
        return
    for mount in fact_lines(board, NOEXEC_SEARCH, NOEXEC):
        points = {m.group(1).rstrip("/") for m in _MOUNT_POINT.finditer(mount.text)}
        tied = [
            r
            for r in refused
            if any(
                p and re.search(rf"(?<![\w.]){re.escape(p)}/", r.text) for p in points
            )
        ]
        if not tied:
            continue
        host = mount.host or tied[0].service
        _blame(
            board,
            layers.PLATFORM,
            host,
            f"host {host} mounts {', '.join(sorted(points))} noexec, so {tied[0].service} "
            "cannot map the code it unpacks there and fails",
            [tied[0], mount],
            {r.service for r in tied},
            [host, "noexec", "mount", *sorted(points)],
        )
        return


def unsynced_clock(board: Board) -> None:
    """Requests refused as clock-skewed (`timestamp outside tolerance`, RequestTimeTooSkewed) while a host's time daemon cannot synchronise are a platform fault of that host's clock, not of the service whose requests are refused."""
    if any(
        c.layer == layers.PLATFORM and "clock" in c.keywords
        for c in board.candidates.values()
    ):
        return  # a cluster's node clock is `clock_skew`'s
    skewed = symptoms(board.inv, board.facts, SKEWED)
    if not skewed:
        return
    daemons = [
        line
        for line in fact_lines(board, CLOCK_SEARCH, UNSYNCED)
        + fact_lines(board, CLOCK_SEARCH, TIME_DAEMON_TIMEOUT)
        if line.host or line.service
    ]
    if not daemons:
        return
    daemon = next((d for d in daemons if d.host), daemons[0])
    host = daemon.host or daemon.service
    _blame(
        board,
        layers.PLATFORM,
        host,
        f"{host}'s clock is not synchronised ({short(daemon.text, 100)}), so the requests "
        f"{skewed[0].service} signs are refused as skewed",
        [skewed[0], daemon],
        {s.service for s in skewed},
        [host, "clock", "ntp", "time sync", "skew"],
    )


def _stolen(line: Line) -> float:
    match = STEAL.search(line.text)
    if match is None:
        return 0.0
    return float(next(g for g in match.groups() if g is not None))


def cpu_steal(board: Board) -> None:
    """A VM whose CPU the hypervisor steals (`%steal` of 10 or more) while the slow or timed-out requests name that VM is a platform fault of the VM's host, not of the service running on it."""
    slow = symptoms(board.inv, board.facts, SLOW)
    if not slow:
        return
    stolen = [
        line
        for line in fact_lines(board, STEAL_SEARCH, STEAL)
        if _stolen(line) >= STOLEN and line.host
    ]
    for steal in sorted(stolen, key=_stolen, reverse=True):
        host = steal.host
        tied = [
            s
            for s in slow
            if re.search(
                rf"(?<![\w-]){re.escape(host)}(?![\w-])", s.text, re.IGNORECASE
            )
        ]
        if not tied:
            continue
        _blame(
            board,
            layers.PLATFORM,
            host,
            f"{host} loses {_stolen(steal):.0f}% of its CPU to steal (its hypervisor's other "
            "guests), so the requests it serves are slow",
            [steal, tied[0]],
            {s.service for s in tied},
            [host, "cpu steal", "noisy neighbour", "live migration"],
        )
        return


def _lost_limit(text: str) -> bool:
    if _NOFILE_LOST.search(text):
        return True
    value = _NOFILE_VALUE.search(text)
    return value is not None and int(value.group(1)[:9]) <= LOW_NOFILE


def descriptor_limit(board: Board) -> None:
    """A service out of file descriptors (`too many open files`) whose systemd unit was rewritten without its `LimitNOFILE` (or with a low one) is a platform fault of that unit, not of the service's code."""
    out = symptoms(board.inv, board.facts, OUT_OF_FILES)
    if not out:
        return
    for line in fact_lines(board, NOFILE_SEARCH, NOFILE):
        if not _lost_limit(line.text):
            continue
        units = [m.group(1) for m in _UNIT.finditer(line.text)]
        for s in out:
            name = s.service.lower()
            unit = next((u for u in units if u.lower() == name), None)
            if unit is None and not re.search(
                rf"(?<![\w-]){re.escape(name)}(?![\w-])", line.text, re.IGNORECASE
            ):
                continue
            component = f"{unit or s.service}.service"
            _blame(
                board,
                layers.PLATFORM,
                component,
                f"{component} lost its descriptor limit ({short(line.text, 100)}): "
                f"{s.service} runs with the default and runs out of files",
                [s, line],
                {s.service},
                [component, "LimitNOFILE", "too many open files", "systemd"],
            )
            return


def nat_ports(board: Board) -> None:
    """Connections timing out on connect while a NAT gateway reports its source ports exhausted (`ErrorPortAllocation`) are a connect fault of that gateway, not of the callers or the far end."""
    failed = symptoms(board.inv, board.facts, CONNECT_FAILED)
    if not failed:
        return
    for line in fact_lines(board, PORTS_SEARCH, PORT_ALLOCATION):
        match = _NAT_ID.search(line.text)
        gateway = next((g for g in match.groups() if g), "") if match else ""
        component = gateway or "NAT gateway"
        _blame(
            board,
            layers.CONNECT,
            component,
            f"NAT gateway {component} is out of source ports ({short(line.text, 100)}): "
            f"{failed[0].service}'s connections through it time out on connect",
            [line, failed[0]],
            {f.service for f in failed} | {line.service},
            [component, "NAT gateway", "SNAT ports", "ErrorPortAllocation"],
        )
        return
