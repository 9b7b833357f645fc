"""A host out of a resource of its own (issue 21 class 4): the host is the fault at the platform layer, not the service whose writes fail on it.

When a VM's file system is full, of blocks or of inodes (`No space left on device`, ENOSPC, errno
28, with free space left when the inodes are spent), or its kernel's process or file table is
full (`Too many open files in system`, ENFILE, `fork: Resource temporarily unavailable`), every
process on that host fails the same way, whatever it does: the service that logs the errno the
loudest is a victim of its host. The host is named by a monitor, not by the failing service: an
exporter's gauge of what is free on it (`node_filesystem_avail_bytes`, `node_filesystem_files_free`,
`instance="web-07"`) spent, or an alert naming it (`DiskSpaceLow web-07 /: 2% free`,
`FilesystemInodesLow`). When one is in view the planner searches every service's lines for the
errno words (`searches`): the lines come from whichever service writes there (a PHP pool, a spool,
journald) and carry the host in their labels. The hypothesis is the host's, at the platform layer;
what filled it (a log level, a cache, session files) is what the lines and the changes name, and
the services failing on it are explained by it. A data store's own data or log volume is no host
fault: a database out of space is its own (`space_holders`), as is a host a cluster's node rules
already blame.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from reasoning import layers
from reasoning.layered import backend_gauges, metric_trends
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import FACT_CHARS, Facts
from reasoning.layered.reading import as_dict, every_service_lines, short
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS

# The kernel's words for a host resource used up, as processes on that host log them.
ERRNO: Final = re.compile(
    r"no space left on device|\bENOSPC\b|\berrno[ =:]{0,3}28\b|"
    r"too many open files in system|\bENFILE\b|"
    r"\bfork: (?:retry: )?resource temporarily unavailable|\bcannot fork\b|\bcan't fork\b",
    re.IGNORECASE,
)
# The search for those words in every service's lines (RE2, well under 500 characters).
SEARCH: Final = (
    r"(?i)no space left on device|ENOSPC|errno[ =:]?28\b|too many open files in system|"
    r"ENFILE|fork: (retry: )?resource temporarily unavailable|cannot fork"
)
SEARCH_LIMIT: Final = 20
# A monitor's words that a host's file system, inode table or process table is (nearly) full.
ALERT: Final = re.compile(
    r"\b(?:disk|file ?system|fs|inode|volume|partition)s?[ _-]?"
    r"(?:space|usage|inodes?|files)?[ _-]?(?:(?:almost|nearly|is)[ _-]?)?"
    r"(?:low|full|high|exhausted|critical)\b|"
    r"\b0 ?% (?:inodes? )?free\b|\b(?:100|9\d) ?% (?:used|full)\b|\binodes? (?:exhausted|full)\b|"
    r"\b(?:no|out of) (?:free )?inodes\b",
    re.IGNORECASE,
)
# A host's own resource gauge: what is free or available on its file systems, inodes, processes.
HOST_GAUGE: Final = re.compile(
    r"^node_(?:filesystem_(?:avail|free|files_free)|memory_memavailable|processes_pids_free)",
    re.IGNORECASE,
)
# A host-like name: a word ending in a dash and a number (`web-portal-01`, `ntf-3`).
_HOST_WORD: Final = re.compile(
    r"\b([a-z][a-z0-9]*(?:-[a-z0-9]+)*-\d+[a-z]?)\b", re.IGNORECASE
)
# A data store's own data or log volume: its space is its own fault (`space_holders`).
DATA_STORE: Final = re.compile(
    r"/var/lib/(?:postgres\w*|pgsql|mysql|mongo\w*|kafka|redis|rabbitmq|elasticsearch|"
    r"cassandra|etcd|clickhouse|zookeeper)|pg_wal|pg_xlog|\bwal\b|binlog|could not extend file|"
    r"\bpgdata\b|/data/db\b",
    re.IGNORECASE,
)
_LABELS: Final = ("host", "hostname", "instance", "node", "pod")
_CONFIDENCE: Final = 0.9  # a monitor naming the host and its processes' own errno


@dataclass
class _Host:
    name: str
    gauges: list[tuple[Observation, str]] = field(default_factory=list)
    alerts: list[tuple[Observation, str]] = field(default_factory=list)
    lines: list[tuple[Observation, str, str]] = field(
        default_factory=list
    )  # obs, service, fact
    is_data_store: bool = False


def _label_host(labels: dict[str, object]) -> str:
    for label in _LABELS:
        value = str(labels.get(label) or "").strip().lower()
        if value:
            return re.sub(r":\d+$", "", value)[:253]
    return ""


def _spent(points: list[tuple[float, float]]) -> bool:
    values = [v for _, v in points]
    peak = max(values)
    return peak > 0 and values[-1] <= backend_gauges.DEPLETED * peak


def _monitored(inv: Investigation, facts: Facts) -> dict[str, _Host]:
    """The hosts a monitor says are out of a resource: a host gauge spent, an alert naming them."""
    hosts: dict[str, _Host] = {}
    for obs, name, labels, points in metric_trends.answered_series(
        inv, backend_gauges.QUERY
    ):
        if not HOST_GAUGE.search(name) or not _spent(points):
            continue
        host = _label_host(labels)
        if not host:
            continue
        h = hosts.setdefault(host, _Host(host))
        mount = str(labels.get("mountpoint") or labels.get("device") or "")
        h.is_data_store |= bool(DATA_STORE.search(mount))
        fact = short(
            f"query_metric {name}{{{host}{', ' + mount if mount else ''}}}: "
            f"fell from {metric_trends.number_text(max(v for _, v in points))} to "
            f"{metric_trends.number_text(points[-1][1])}: the host's resource is spent",
            FACT_CHARS,
        )
        h.gauges.append((obs, fact))
    for errors in facts.errors.values():
        for group in (*errors.groups, *errors.warnings):
            text = (group.sample or group.signature)[:2000]
            if group.is_stale or not ALERT.search(text) or ERRNO.search(text):
                continue
            for host in _hosts_named(text, hosts):
                h = hosts.setdefault(host, _Host(host))
                h.alerts.append((errors.obs, errors.fact(group)))
                h.is_data_store |= bool(DATA_STORE.search(text))
    return hosts


def _hosts_named(text: str, known: dict[str, _Host]) -> list[str]:
    lowered = text.lower()
    named = [h for h in known if h in lowered]
    if named:
        return named
    return [m.group(1).lower() for m in _HOST_WORD.finditer(text)][:1]


def needs_search(inv: Investigation, facts: Facts) -> bool:
    """Whether a monitor says a host is out of a resource (the errno search is then worth it)."""
    return any(not h.is_data_store for h in _monitored(inv, facts).values())


def searches(
    inv: Investigation,
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], Any],
    window: dict[str, str],
) -> list[Any]:
    """Every service's lines with the kernel's words for a host resource used up, in the window."""
    if not needs_search(inv, facts):
        return []
    return [
        call(
            SEARCH_LOGS,
            {"query": SEARCH, "regex": True, **window, "limit": SEARCH_LIMIT},
            "a monitor says a host is out of space, inodes or processes: which services' "
            "writes fail on it",
        )
    ]


def _lines(board: Board, hosts: dict[str, _Host]) -> None:
    """The errno lines of each host: searched lines labelled with or naming it, and the top errors
    of a service named after it (`web-07` runs `web`) or naming it."""
    for obs, line in every_service_lines(board.inv, SEARCH):
        message = str(line.get("message") or "")[:2000]
        if not ERRNO.search(message):
            continue
        labelled = _label_host(as_dict(line.get("labels")))
        service = str(line.get("service") or "")
        for h in hosts.values():
            if labelled == h.name or h.name in message.lower():
                fact = short(
                    f"search_logs(every service): {service or '?'} on {h.name}: {message}",
                    FACT_CHARS,
                )
                if len(h.lines) < 3 and all(f != fact for _, _, f in h.lines):
                    h.lines.append((obs, service, fact))
                h.is_data_store |= bool(DATA_STORE.search(message))
    for errors in board.facts.errors.values():
        for group in errors.groups:
            text = (group.sample or group.signature)[:2000]
            if not group.is_new or not ERRNO.search(text):
                continue
            for h in hosts.values():
                runs = h.name.startswith(f"{errors.service.lower()}-")
                if runs or h.name in text.lower():
                    h.lines.insert(0, (errors.obs, errors.service, errors.fact(group)))
                    h.is_data_store |= bool(DATA_STORE.search(text))
            break


def host_exhaustion(board: Board) -> None:
    """A host a monitor names as out of space, inodes or processes (its gauge spent, an alert naming it), whose processes log the kernel's errno for it, is the fault at the platform layer; the services failing on it are its victims."""
    if board.cluster is not None:
        return  # a cluster's nodes are its node rules' (pressure, eviction)
    hosts = _monitored(board.inv, board.facts)
    if not hosts:
        return
    _lines(board, hosts)
    for h in hosts.values():
        if h.is_data_store or not h.lines or not (h.gauges or h.alerts):
            continue  # a monitor's word alone, or a data store's own volume, blames no host
        _blame(board, h)


def _blame(board: Board, h: _Host) -> None:
    said = " ".join(f for _, f in (*h.gauges, *h.alerts)).lower()
    lines = " ".join(f for _, _, f in h.lines).lower()
    what = (
        "inodes"
        if "files_free" in said or "inode" in said
        else "processes or open files"
        if "fork" in lines or "in system" in lines
        else "space"
    )
    c = board.get(
        layers.PLATFORM,
        h.name,
        f"host {h.name} is out of {what}: every process on it that writes or forks fails "
        "(No space left on device); the services failing there are its victims",
    )
    for obs, _, fact in h.lines:
        c.cite(obs, fact)
    for obs, fact in (*h.gauges, *h.alerts):
        c.cite(obs, fact)
    if c.confidence < _CONFIDENCE:
        c.status, c.confidence = "confirmed", _CONFIDENCE
    c.chain = [board.symptom(), short(h.lines[0][2], 160), c.statement]
    c.keywords = [h.name, "disk full", "no space left on device", what]
    victims = {h.name, *(s for _, s, _ in h.lines if s)}
    victims |= {s for s in board.facts.errors if h.name.startswith(f"{s.lower()}-")}
    for other in board.candidates.values():
        if other is c or other.layer != layers.APPLICATION:
            continue
        if other.component in victims or _reports(other, h.name):
            other.explained_by(c, f"it fails on host {h.name}, out of {what} ({c.id})")


def _reports(other: Candidate, host: str) -> bool:
    """A monitor or a daemon whose own hypothesis is its lines naming the host."""
    return host in other.statement.lower()
