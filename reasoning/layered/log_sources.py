"""Log sources are never culprits (issue 21 class 4): `kernel`, `syslog`, `systemd`, `auditd` name where a line was read.

A log stream called `kernel` (or `syslog`, `journald`, `auditd` ...) is the host's voice, not a
component: an OOM kill names a process, a hung task names a process, an NFS or iSCSI line names the
server it waits for. A hypothesis the rules built on such a stream's name is ruled out; the server its
lines name (a host name, first label a service-like name) inherits its evidence, so the line still
counts for what it is about. Lines that name no server stay with the hypotheses of the workloads,
pods and nodes other rules read them for. A host's log file named like a service (`cron`,
`messages`, `audit`) is a log source only when its lines read as a host's (syslog-style): a
scheduler service called `cron` that logs its own errors can be the culprit.
"""

import re
from collections.abc import Iterable, Iterator
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.cited_lines import _leveled
from reasoning.layered.reading import GENERIC_LABELS, SERVICE_NAME, hosts_in, short
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS, TOP_ERRORS

# Names of log streams that are a host's or an OS facility's, never a workload's.
LOG_SOURCES: Final = frozenset(
    [
        "kernel",
        "kern",
        "kmsg",
        "dmesg",
        "klog",
        "syslog",
        "rsyslog",
        "syslog-ng",
        "journald",
        "systemd",
        "systemd-journald",
        "auditd",
        "audispd",
        "crond",
    ]
)
# Names of a host's log files that are also ordinary names for a service (a scheduler called
# `cron`, a chat service called `messages`, an `audit` service): a log stream only when its lines
# read as a host's (`ip-10-0-3-7 CRON[2231]: (root) CMD ...`, `<86>Mar  3 10:01:02 web-4 sshd[77]:`).
HOST_LOG_NAMES: Final = frozenset(["messages", "cron", "journal", "audit"])
# A syslog-style line: an optional priority and date, a host, then `program[pid]:` (or, dated,
# `program:`); or a kernel ring buffer's `[ 8812.113]` uptime stamp.
_SYSLOG_DATE = r"(?:[A-Z][a-z]{2} {1,2}\d{1,2} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT[\d:.]{8,18}(?:Z|[+-]\d\d:?\d\d)?) "
_PROGRAM = r"[A-Za-z][\w./-]{0,63}"
HOST_LOG_LINE = re.compile(
    r"^\s*(?:<\d{1,3}>)?(?:1 )?(?:"
    + _SYSLOG_DATE
    + r")?(?:[\w.-]{1,253} )?"
    + _PROGRAM
    + r"\[\d{1,10}\]: |"
    r"^\s*(?:<\d{1,3}>)?(?:1 )?" + _SYSLOG_DATE + r"[\w.-]{1,253} " + _PROGRAM + r": |"
    r"^\s*\[ *\d{1,12}\.\d{1,9}\] "
)
_HEAD = 300  # a host log line says what it is in its first characters
# A host label that encodes an address (`ip-10-0-1-2`, `10-0-1-2`) names a machine, not a server.
_ADDRESS_LABEL = re.compile(r"^(?:[a-z]+-)?\d{1,3}(?:-\d{1,3}){3}$")
_WARNS: Final = frozenset(
    {"warn", "warning", "error", "err", "fatal", "critical", "crit"}
)
MAX_NAMING: Final = 2  # other services' lines naming the server, cited for it
RULED_OUT: Final = "a log source names where a line was read, not what failed"


def is_log_source(name: str, lines: Iterable[str] = ()) -> bool:
    """`name` is a host's or OS facility's log stream (kernel, syslog, systemd, auditd ...); a name
    that is also a service's (cron, messages, audit) only when `lines` of it read as a host's."""
    name = name.strip().lower()
    if name in LOG_SOURCES:
        return True
    return name in HOST_LOG_NAMES and any(is_host_log_line(line) for line in lines)


def is_host_log_line(line: str) -> bool:
    """True when `line` reads as a host's syslog-style line (a host and `program[pid]:` before
    the message) or a kernel ring buffer's (`[ 8812.113] ...`)."""
    return bool(HOST_LOG_LINE.match(line[:_HEAD]))


def stream_lines(inv: Investigation, name: str) -> Iterator[str]:
    """The lines the logs servers answered for the stream `name`."""
    for obs in inv.observations:
        if not obs.is_ok or obs.tool not in (SEARCH_LOGS, TOP_ERRORS):
            continue
        result = obs.result if isinstance(obs.result, dict) else {}
        default = str(obs.arguments.get("service") or "")
        for key in ("lines", "top", "warnings"):
            for row in result.get(key) or []:
                if not isinstance(row, dict):
                    continue
                if str(row.get("service") or default).lower() != name.lower():
                    continue
                for field in ("message", "line", "sample", "signature"):
                    if text := row.get(field):
                        yield str(text)
                        break


def _named_servers(c: Candidate) -> list[str]:
    """The servers (first labels of host names) the candidate's lines name."""
    found: list[str] = []
    for e in c.evidence:
        for host in hosts_in(e.fact):
            label = host.split(".", 1)[0]
            if (
                SERVICE_NAME.match(label)
                and label not in GENERIC_LABELS
                and not _ADDRESS_LABEL.match(label)
                and not is_log_source(label)
                and label not in found
            ):
                found.append(label)
    return found


def naming_lines(inv: Investigation, server: str) -> list[tuple[Observation, str]]:
    """Other streams' warning and error lines that name `server` as a word (an alarm on it, a
    provider's notice), errors first."""
    named = re.compile(r"(?<![a-z0-9])" + re.escape(server.lower()) + r"(?![a-z0-9])")
    rows: list[tuple[bool, int, Observation, str]] = []
    for obs in inv.observations:
        if not obs.is_ok or obs.tool not in (SEARCH_LOGS, TOP_ERRORS):
            continue
        for service, _, message, level in _leveled(obs):
            if (
                is_log_source(service, (message,))
                or service.lower() == server.lower()
                or level not in _WARNS
                or len(message) > 4000
                or not named.search(message[:2000].lower())
            ):
                continue
            line = f"{service}: {message.strip()}" if service else message.strip()
            rows.append((level.startswith("warn"), len(rows), obs, line))
    rows.sort(key=lambda r: r[:2])
    return [(obs, line) for *_, obs, line in rows]


def log_sources(board: Board) -> None:
    """A log source's name (kernel, syslog, systemd, audit) is never a culprit: its hypothesis is ruled out and a server its lines name inherits the evidence."""
    for c in list(board.candidates.values()):
        if c.status == "ruled_out" or not is_log_source(
            c.component, stream_lines(board.inv, c.component)
        ):
            continue
        servers = _named_servers(c)
        for server in servers[:1]:
            said = short(c.evidence[0].fact, 140) if c.evidence else c.statement
            heir = board.get(
                layers.APPLICATION,
                server,
                f"{server} fails: the {c.component} log of the hosts that use it says {said}",
            )
            for e in c.evidence:
                if e not in heir.evidence:
                    heir.evidence.append(e)
            heir.sources |= c.sources
            heir.keywords += [k for k in c.keywords if k not in heir.keywords]
            if heir.status != "ruled_out":
                heir.confidence = max(heir.confidence, c.confidence)
            cited = 0
            for obs, line in naming_lines(board.inv, server):
                if cited >= MAX_NAMING:
                    break
                fact = short(line, 240)
                if not any(e.fact == fact for e in heir.evidence):
                    heir.cite(obs, fact, is_support=False)
                    cited += 1
        c.status, c.reason_ruled_out = "ruled_out", RULED_OUT
