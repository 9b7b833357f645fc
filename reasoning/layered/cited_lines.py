"""A concluded hypothesis cites the most specific line the investigation read about its component (issue 21: the report cites its evidence).

A rule may name the right component, conclusively, from a summary (a pod in CrashLoopBackOff, a
service's warnings rising, a host's handshake failing) while the line that carries the specific
fault sits in another answer: the container's last state (`exec format error`, `permission
denied`), the service's own fatal or hard-limit line (a runtime's `FATAL ERROR: … heap out of
memory`, `fatal error: runtime: out of memory`, `OutOfMemoryError`, a refused thread), the host's
line refusing or stopping the service's unit (`… in /system.slice/billing.service`), a service's line naming a size, path or host that first appears at the incident's start,
the owner's line about a certificate's issuance, the line where a registry or registrar states a
DNS name's domain is on hold or expired (`Domain Status: clientHold`), a stack dump of the slow
service (the frame it waits in). `cite_specific` runs after every other rule: for the leading
hypotheses it finds, in what was already read, at most `MAX_CITED` such lines about their component
and cites them. `reads` is the planner's one cheap targeted read when none was read yet (a service's
lines carrying sizes, a slow service's stack dumps, the lines naming a TLS host's issuance or a
DNS name's registration status; for a service that says it hit a hard limit, every service's
lines naming its unit or process).
"""

import re
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.changes import CHANGE_WORDS
from reasoning.layered.changes import search_pattern as change_pattern
from reasoning.layered.facts import parse_time
from reasoning.layered.reading import short
from reasoning.layered.warning_leads import names_service
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS, TOP_ERRORS

MAX_CITED: Final = 2  # lines cited per hypothesis
_LEAD: Final = (
    0.05  # hypotheses within this of the best confidence are the leading ones
)

# A container's start or run failing for a reason its runtime names (describe, events, get).
_CONTAINER_FAULT: Final = re.compile(
    r"(?i)exec format error|permission denied|no such file or directory|"
    r"executable file not found|StartError|RunContainerError|CreateContainerError|"
    r"OCI runtime|OOMKilled|ErrImagePull|ImagePullBackOff|InvalidImageName|"
    r"CreateContainerConfigError|exec: \"|unable to start container"
)
_CONTAINER_CAUSE: Final = re.compile(
    r"(?i)exec format error|permission denied|no such file or directory|"
    r"executable file not found|exec: \"|OOMKilled"
)
_KUBERNETES_TOOLS: Final = ("describe", "events", "get_resources", "pod_logs")
# A concrete value: a size, a URL, a dotted host, an absolute path.
_VALUE: Final = re.compile(
    r"(?i)\b\d{1,9}(?:\.\d{1,4})? ?(?:[KMGT]i?B|bytes)\b|"
    r"\bhttps?://[\w.-]{1,200}|"
    r"\b[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){2,6}\b|"
    r"(?:^|[\s\"'=])/[\w.-]{1,100}/[\w./-]{1,200}"
)
_SIZE_QUERY: Final = r"[0-9] ?([KMGT]i?B|bytes)\b"
# What the logs server takes as a service name: a component with words (`transaction 4411`, a
# culprit that is no service) has no lines of its own to read.
_SERVICE_NAME: Final = re.compile(r"[A-Za-z0-9_.:/-]{1,128}")
# The words of a certificate's issuance or renewal.
_ISSUANCE: Final = re.compile(
    r"(?i)renew|obtain|issu(?:ed|er|ing|ance)|acme|directory|\bca[_ ]?(?:url|server)\b"
)
_ISSUANCE_QUERY: Final = "(renew|obtain|issue|issuer|acme|directory|ca_url|ca_server)"
# A registry's or registrar's statement that a domain stopped resolving on its side: an EPP hold
# status, an expiry or a suspension (`Domain Status: clientHold`, `Registry Status: serverHold`).
_REGISTRATION_FAULT: Final = re.compile(
    r"(?i)\b(?:client|server)Hold\b|\bredemptionPeriod\b|\bpendingDelete\b|"
    r"\bstatus\s*[:=]\s*\"?(?:on[ _-]?hold|hold|expired|suspended|inactive|deleted|"
    r"locked|disabled)\b|"
    r"\b(?:domain|registration)\b[^;\n]{0,100}?\b(?:expired|suspended|lapsed|deleted)\b"
)
_REGISTRATION_QUERY: Final = (
    "(status|hold|expir|suspend|redemption|pendingdelete|lapsed|registrar|whois)"
)
# Second-level labels under which registries hand out names (`shop.co.uk` is registered, not `co.uk`).
_SECOND_LEVEL: Final = frozenset(
    ["co", "com", "net", "org", "gov", "ac", "edu", "ne", "or", "go"]
)
# Top-level names no registrar hands out: a private or cluster name has no registration to lapse.
_PRIVATE_TLDS: Final = frozenset(
    [
        "internal",
        "local",
        "lan",
        "corp",
        "svc",
        "cluster",
        "home",
        "intranet",
        "localdomain",
        "localhost",
        "test",
        "invalid",
        "arpa",
    ]
)
# A frame of a stack dump or trace: `file.py:88`, `(Handler.java:212)`, `server.go:41`,
# `app.js:10:5`, `line 12, in handler`.
_FRAME: Final = re.compile(
    r"[\w$.-]{1,200}\.(?:py|java|kt|scala|go|js|mjs|cjs|ts|rb|php|cs|rs|c|cc|cpp)"
    r"(?::\d{1,7}){1,2}\b|\bline \d{1,7}, in [\w<>$.]{1,200}"
)
_FRAMES: Final = (
    2  # frames on one line that make it a stack dump, not a line naming a file
)
_FRAME_QUERY: Final = (
    r"\.(py|java|kt|go|js|ts|rb|php|cs|rs):[0-9]+.*\.(py|java|kt|go|js|ts|rb|php|cs|rs):[0-9]+"
    r"|line [0-9]+, in .*line [0-9]+, in "
)


# A process stating that it died, or that a hard limit stopped it: a runtime's fatal or panic line
# (`FATAL ERROR: … heap out of memory`, Go's `fatal error: runtime: out of memory`, a JVM's
# `OutOfMemoryError`, Python's `MemoryError`), an abort, a signal, a non-zero exit, a resource the
# host refused (a thread, a fork, a file descriptor). The most decisive line a service writes.
_DECISIVE: Final = re.compile(
    r"(?i)\bfatal\b|\bpanic(?:ked)?\b|out of memory|OutOfMemory|\bMemoryError\b|"
    r"\boom[-_ ]?kill|heap (?:limit|exhausted)|StackOverflowError|stack overflow|"
    r"segmentation fault|\bSIG(?:SEGV|ABRT|KILL|BUS)\b|core dumped|\baborted\b|"
    r"exit(?:ed)?(?: with)? (?:code|status)[ =:]{0,3}[1-9]|"
    r"unable to create (?:new )?(?:native )?thread|can(?:no|')t create (?:new )?thread|"
    r"pthread_create failed|fork(?:\(\))? (?:rejected|failed)|"
    r"cannot allocate memory|\bENOMEM\b|too many open files|\bEMFILE\b|"
    r"resource temporarily unavailable|"
    r"\blimit (?:reached|exceeded|hit)\b|\b(?:reached|exceeded|hit) (?:the |its )?(?:[\w-]{1,30} )?limit\b"
)
# Of those, the lines that say the process itself ended (ranked before a limit it merely hit).
_DIED: Final = re.compile(
    r"(?i)\bfatal\b|\bpanic(?:ked)?\b|\baborted\b|core dumped|segmentation fault|"
    r"\bSIG(?:SEGV|ABRT|KILL|BUS)\b|exit(?:ed)?(?: with)? (?:code|status)[ =:]{0,3}[1-9]"
)
# The host's words when it refuses or stops a unit: the kernel's cgroup controllers, systemd.
_HOST_FAULT: Final = re.compile(
    r"(?i)reject|refus|denied|kill|fail|limit|exceed|out of memory|\boom\b|"
    r"exhaust|abort|core dump|segfault|signal|exit"
)
# A service's unit or process as the host's lines name it (`api.service`, `api.scope`, `api[812]`).
_UNIT_FORMS: Final = r"(?:\.service|\.scope|\[\d{1,9}\])"
_UNIT_QUERY: Final = r"(\.(service|scope)|\[[0-9]+\])"  # after the escaped service name


# A release or start line naming versions: the build a service runs and the libraries it ships
# (`pricing 4.2.0 started: http-client 2.0.1 pool=blocking`).
_VERSION: Final = re.compile(r"\b\d{1,6}\.\d{1,6}\.\d{1,6}\b")
_STARTED: Final = re.compile(
    r"(?i)\b(?:started|starting|start(?:ed)? up|booted|deployed|released|rolled out|"
    r"upgraded|running|version|loaded|initiali[sz]ed)\b"
)
_VERSION_QUERY: Final = r"[0-9]+\.[0-9]+\.[0-9]+"

# A change recorded about a component (a deploy, a config applied, a migration), as `changes` searches it.
_CHANGED: Final = re.compile(CHANGE_WORDS, re.IGNORECASE)
# How far before the window a change naming the culprit is looked for: a change made well before
# the load that finds it out (a setting applied in the afternoon, the evening peak) is still it.
CHANGE_LEAD: Final = timedelta(hours=2)
_CHANGE_READS: Final = 2  # leading hypotheses whose changes are searched for
# An object a workload's events name as `kind/name` (`nodeclaim/pool-a-x7k2p`, `node/ip-10-1-2-3`,
# `persistentvolumeclaim/data-0`): what the scheduler, an autoscaler or a controller tied it to.
_OBJECT: Final = re.compile(
    r"\b[a-z]{2,40}/([a-z0-9][a-z0-9-]{1,120}(?:\.[a-z0-9-]{1,63}){0,6})\b"
)
# An event row: its type, then a reason (`Warning FailedScheduling`, `Normal Nominated`).
_EVENT_ROW: Final = re.compile(r"\b(?:Normal|Warning)\s{1,20}[A-Z][A-Za-z]{2,60}\b")
_WARN_LEVELS: Final = frozenset(
    {"warn", "warning", "error", "err", "fatal", "critical", "crit"}
)
# A leading RFC 3339 time on a container's log line (`2030-01-01T10:00:00.000Z …`).
_LINE_TIME: Final = re.compile(
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)"
)


def leading(board: Board) -> list[Candidate]:
    standing = [c for c in board.candidates.values() if c.status != "ruled_out"]
    if not standing:
        return []
    best = max(c.confidence for c in standing)
    return [c for c in standing if c.confidence >= best - _LEAD and c.confidence > 0]


def _messages(obs: Observation) -> list[tuple[str, str, str]]:
    """(service, time, message) of the log lines an answer carries (search lines, error samples)."""
    result = obs.result if isinstance(obs.result, dict) else {}
    out: list[tuple[str, str, str]] = []
    default = str(obs.arguments.get("service") or "")
    for line in result.get("lines") or []:
        if isinstance(line, dict):
            message = str(line.get("message") or line.get("line") or "")
            out.append(
                (
                    str(line.get("service") or default),
                    str(line.get("time") or ""),
                    message,
                )
            )
    for key in ("top", "warnings"):
        for group in result.get(key) or []:
            if isinstance(group, dict):
                message = str(group.get("sample") or group.get("signature") or "")
                out.append((default, str(group.get("first_seen") or ""), message))
    return out


def names(text: str, name: str) -> bool:
    """Whether `text` names `name` as a whole word, a plural of it (`orders` for `order`) or as a
    namespace's object (`shop/web`)."""
    if len(name) < 2:
        return False
    pattern = rf"(?<![\w.-]){re.escape(name.lower())}(?:e?s)?(?![\w-])"
    return re.search(pattern, text[:2000].lower()) is not None


def _named(component: str, text: str) -> bool:
    return bool(component) and component.lower() in text.lower()


def container_lines(
    inv: Investigation, component: str
) -> list[tuple[Observation, str]]:
    """A workload's lines from the Kubernetes answers that name the reason its container failed."""
    found: list[tuple[Observation, str]] = []
    for obs in inv.observations:
        if not obs.is_ok or obs.tool not in _KUBERNETES_TOOLS or not obs.text:
            continue
        about = _named(component, str(obs.arguments.get("name") or "")) or _named(
            component, str(obs.arguments.get("pod") or "")
        )
        lines = [
            line
            for line in obs.text.splitlines()[:2000]
            if len(line) <= 2000
            and _CONTAINER_FAULT.search(line)
            and (about or _named(component, line))
        ]
        # The line naming the runtime's own words (`exec format error`) before a bare reason.
        lines.sort(key=lambda line: not _CONTAINER_CAUSE.search(line))
        if lines:
            found.append((obs, lines[0].strip()))
    # A describe's message first (it names the container's reason), then events.
    found.sort(key=lambda f: f[0].tool != "describe")
    return found


def _since_start(inv: Investigation, at: str) -> bool:
    start = parse_time(inv.incident.window_start or "")
    when = parse_time(at) if at else None
    return start is None or when is None or when >= start


def decisive_lines(inv: Investigation, component: str) -> list[tuple[Observation, str]]:
    """A service's own lines stating that it died or hit a hard limit (a runtime's fatal line, an
    out-of-memory error, a refused thread), from its logs and its containers' logs: those of the
    window before older ones, a process ending before a limit it hit."""
    rows: list[tuple[bool, bool, int, Observation, str]] = []
    for obs in inv.observations:
        if not obs.is_ok:
            continue
        messages: list[tuple[str, str, str]] = []
        if obs.tool in (SEARCH_LOGS, TOP_ERRORS):
            messages = _messages(obs)
        elif (
            obs.tool == "pod_logs"
            and obs.text
            and _named(component, str(obs.arguments.get("pod") or ""))
        ):
            messages = [(component, "", line) for line in obs.text.splitlines()[:2000]]
        for service, at, message in messages:
            if service.lower() != component.lower() or len(message) > 4000:
                continue
            if not _DECISIVE.search(message[:2000]):
                continue
            rows.append(
                (
                    not _since_start(inv, at),
                    not _DIED.search(message[:2000]),
                    len(rows),
                    obs,
                    message.strip(),
                )
            )
    rows.sort(key=lambda r: r[:3])
    return [(obs, f"{component}: {message}") for *_, obs, message in rows]


def unit_lines(inv: Investigation, component: str) -> list[tuple[Observation, str]]:
    """Other services' lines (the kernel's, systemd's) naming `component`'s unit or process
    (`billing.service`, `billing[812]`) with the host refusing or stopping it: the host's word on
    which limit a service ran into."""
    if not component:
        return []
    unit = re.compile(rf"(?i){re.escape(component)}{_UNIT_FORMS}")
    found: list[tuple[bool, Observation, str]] = []
    for obs in inv.observations:
        if not obs.is_ok or obs.tool not in (SEARCH_LOGS, TOP_ERRORS):
            continue
        for service, at, message in _messages(obs):
            head = message[:2000]
            if (
                service.lower() == component.lower()
                or len(message) > 4000
                or not unit.search(head)
                or not _HOST_FAULT.search(head)
            ):
                continue
            line = f"{service}: {message.strip()}" if service else message.strip()
            found.append((not _since_start(inv, at), obs, line))
    found.sort(key=lambda f: f[0])
    return [(obs, line) for _, obs, line in found]


def version_lines(inv: Investigation, component: str) -> list[tuple[Observation, str]]:
    """A service's own lines saying it started or runs a version (its build, the libraries it
    ships), the latest first: what a quiet, slow service changed."""
    rows: list[tuple[str, Observation, str]] = []
    for obs in inv.observations:
        if not obs.is_ok or obs.tool != SEARCH_LOGS:
            continue
        for service, at, message in _messages(obs):
            head = message[:2000]
            if (
                service.lower() == component.lower()
                and len(message) <= 4000
                and _VERSION.search(head)
                and _STARTED.search(head)
            ):
                rows.append((at, obs, message.strip()))
    rows.sort(key=lambda r: r[0], reverse=True)
    return [(obs, f"{component}: {message}") for _, obs, message in rows]


def _container_logs(obs: Observation, component: str) -> list[tuple[str, str, str]]:
    """(component, time, line) of a pod_logs answer about one of `component`'s pods: its own lines,
    each with the time it leads with ("" when none)."""
    if (
        obs.tool != "pod_logs"
        or not obs.text
        or not _named(component, str(obs.arguments.get("pod") or ""))
    ):
        return []
    out: list[tuple[str, str, str]] = []
    for line in obs.text.splitlines()[:2000]:
        if len(line) > 4000:
            continue
        at = _LINE_TIME.match(line)
        out.append(
            (component, at.group(0), line[at.end() :].strip())
            if at
            else (component, "", line.strip())
        )
    return out


def value_lines(inv: Investigation, component: str) -> list[tuple[Observation, str]]:
    """A service's log lines carrying a concrete value (size, URL, host, path): those a container
    that died wrote before it ended first (what it started with), then those whose value first
    appears after its earlier lines."""
    rows: list[tuple[bool, str, int, Observation, str]] = []
    seen_at: dict[str, str] = {}
    for obs in inv.observations:
        if not obs.is_ok:
            continue
        if obs.tool in (SEARCH_LOGS, TOP_ERRORS):
            messages = _messages(obs)
        elif obs.tool == "pod_logs":
            messages = _container_logs(obs, component)
        else:
            continue
        died = obs.tool == "pod_logs" and obs.arguments.get("previous") is True
        for i, (service, at, message) in enumerate(messages):
            if service.lower() != component.lower() or len(message) > 4000:
                continue
            values = [
                m.group(0).strip(" \"'=") for m in _VALUE.finditer(message[:2000])
            ]
            if not values:
                continue
            for v in values:
                if v not in seen_at or (at and at < seen_at[v]):
                    seen_at[v] = at
            rows.append((died, at, i, obs, message))
    if not rows:
        return []
    earliest = min((at for _, at, *_ in rows if at), default="")

    def is_new(message: str) -> bool:
        values = [m.group(0).strip(" \"'=") for m in _VALUE.finditer(message[:2000])]
        return any(seen_at.get(v, "") > earliest for v in values)

    rows.sort(key=lambda r: (not r[0], not is_new(r[4]), r[1], r[2]))
    return [(obs, f"{component}: {message}") for _, _, _, obs, message in rows]


def change_lines(inv: Investigation, component: str) -> list[tuple[Observation, str]]:
    """Lines of any service recording a change (a deploy, a config applied, a migration) that name
    `component`, the latest first: what was done to the culprit, by whom."""
    rows: list[tuple[str, Observation, str]] = []
    for obs in inv.observations:
        if not obs.is_ok or obs.tool != SEARCH_LOGS:
            continue
        for service, at, message in _messages(obs):
            head = message[:2000]
            if (
                len(message) > 4000
                or not _CHANGED.search(head)
                or not (names_service(head, component) or names(head, component))
            ):
                continue
            line = f"{service}: {message.strip()}" if service else message.strip()
            rows.append((at, obs, line))
    rows.sort(key=lambda r: r[0], reverse=True)
    return [(obs, line) for _, obs, line in rows]


def _leveled(obs: Observation) -> list[tuple[str, str, str, str]]:
    """(service, time, message, level) of an answer's log lines; a top_errors group is an error,
    its warnings warnings."""
    result = obs.result if isinstance(obs.result, dict) else {}
    default = str(obs.arguments.get("service") or "")
    out: list[tuple[str, str, str, str]] = []
    for line in result.get("lines") or []:
        if isinstance(line, dict):
            out.append(
                (
                    str(line.get("service") or default),
                    str(line.get("time") or ""),
                    str(line.get("message") or line.get("line") or ""),
                    str(line.get("level") or "").lower(),
                )
            )
    for key, level in (("top", "error"), ("warnings", "warning")):
        for group in result.get(key) or []:
            if isinstance(group, dict):
                message = str(group.get("sample") or group.get("signature") or "")
                out.append(
                    (default, str(group.get("first_seen") or ""), message, level)
                )
    return out


def linked_names(inv: Investigation, component: str) -> set[str]:
    """The objects a workload's event rows name as `kind/name` besides its own (the node claim it
    was nominated to, the node, the claim it waits on)."""
    names: set[str] = set()
    for obs in inv.observations:
        if not obs.is_ok or obs.tool not in ("describe", "events") or not obs.text:
            continue
        about = _named(component, str(obs.arguments.get("name") or ""))
        for line in obs.text.splitlines()[:2000]:
            if len(line) > 2000 or not _EVENT_ROW.search(line):
                continue
            if not (about or _named(component, line)):
                continue
            for m in _OBJECT.finditer(line):
                name = m.group(1)
                if not _named(component, name) and re.search(r"[-\d]", name):
                    names.add(name.lower())
    return names


def linked_lines(inv: Investigation, component: str) -> list[tuple[Observation, str]]:
    """Other services' warning and error lines naming an object the workload's events name (an
    autoscaler failing to launch the node its pods were nominated to): why that object never came;
    errors before warnings, those of the window first."""
    names = sorted(linked_names(inv, component))[:20]
    if not names:
        return []
    named = re.compile(
        r"(?i)(?<![\w.-])(?:" + "|".join(re.escape(n) for n in names) + r")(?![\w-])"
    )
    rows: list[tuple[bool, bool, int, Observation, str]] = []
    for obs in inv.observations:
        if not obs.is_ok or obs.tool not in (SEARCH_LOGS, TOP_ERRORS):
            continue
        for service, at, message, level in _leveled(obs):
            if (
                service.lower() == component.lower()
                or len(message) > 4000
                or level not in _WARN_LEVELS
                or not named.search(message[:2000])
            ):
                continue
            line = f"{service}: {message.strip()}" if service else message.strip()
            rows.append(
                (
                    not _since_start(inv, at),
                    level.startswith("warn"),
                    len(rows),
                    obs,
                    line,
                )
            )
    rows.sort(key=lambda r: r[:3])
    return [(obs, line) for *_, obs, line in rows]


def issuance_lines(inv: Investigation, host: str) -> list[tuple[Observation, str]]:
    """Log lines naming a TLS host and its certificate's issuance or renewal."""
    found: list[tuple[Observation, str]] = []
    for obs in inv.observations:
        if not obs.is_ok or obs.tool not in (SEARCH_LOGS, TOP_ERRORS):
            continue
        for service, _, message in _messages(obs):
            if _named(host, message) and _ISSUANCE.search(message[:4000]):
                found.append((obs, f"{service}: {message}" if service else message))
    # A line naming a further host or URL (the issuer, its directory) first.
    found.sort(
        key=lambda f: len({m.group(0) for m in _VALUE.finditer(f[1][:2000])}) < 2
    )
    return found


def registered_domain(host: str) -> str:
    """The name a registrar holds for `host` (`cdn.shop.example.com` → `example.com`), "" for a private name."""
    labels = host.lower().strip(".").split(".")
    if len(labels) < 2 or labels[-1] in _PRIVATE_TLDS:
        return ""
    keep = (
        3
        if len(labels) >= 3 and labels[-2] in _SECOND_LEVEL and len(labels[-1]) == 2
        else 2
    )
    return ".".join(labels[-keep:])


def registration_lines(inv: Investigation, host: str) -> list[tuple[Observation, str]]:
    """Log lines, of any service, stating that `host`'s registered domain is on hold, expired or suspended."""
    domain = registered_domain(host)
    if not domain:
        return []
    found: list[tuple[Observation, str]] = []
    for obs in inv.observations:
        if not obs.is_ok or obs.tool not in (SEARCH_LOGS, TOP_ERRORS):
            continue
        for service, _, message in _messages(obs):
            head = message[:4000]
            if _named(domain, head) and _REGISTRATION_FAULT.search(head):
                found.append((obs, f"{service}: {message}" if service else message))
    return found


def _frames(message: str) -> list[str]:
    return [m.group(0) for m in _FRAME.finditer(message[:4000])]


def frame_lines(inv: Investigation, component: str) -> list[tuple[Observation, str]]:
    """A service's stack dumps (lines naming several frames), the one sharing the frame most dumps
    share first: the code its requests wait in."""
    dumps: list[tuple[Observation, str, list[str]]] = []
    for obs in inv.observations:
        if not obs.is_ok or obs.tool not in (SEARCH_LOGS, TOP_ERRORS):
            continue
        for service, _, message in _messages(obs):
            if service.lower() != component.lower() or len(message) > 20000:
                continue
            frames = _frames(message)
            if len(frames) >= _FRAMES:
                dumps.append((obs, message, frames))
    counts: dict[str, int] = {}
    for _, _, frames in dumps:
        for frame in set(frames):
            counts[frame] = counts.get(frame, 0) + 1
    dumps.sort(key=lambda d: -max(counts[f] for f in d[2]))
    return [(obs, f"{component}: {message}") for obs, message, _ in dumps]


def specific_lines(inv: Investigation, c: Candidate) -> list[tuple[Observation, str]]:
    """The lines that carry a hypothesis's specific fault, most specific first."""
    component = c.component.split("/")[-1]
    if c.layer == layers.TLS:
        return issuance_lines(inv, component)
    if c.layer == layers.DNS and "." in component:
        return registration_lines(inv, component)
    if c.layer == layers.APPLICATION:
        return (
            container_lines(inv, component)
            + unit_lines(inv, component)
            + decisive_lines(inv, component)
            + version_lines(inv, component)
            + value_lines(inv, component)
            + frame_lines(inv, component)
        )
    return []


def cite_specific(board: Board) -> None:
    """A leading hypothesis cites the lines, already read, that carry its component's specific fault: a container's failure reason, the host's line refusing or stopping the service's unit, the service's own fatal or hard-limit line, a slow service's stack dump, a service's new concrete value (a dead container's own lines first), a host's certificate issuance, a DNS name's domain on hold; besides, one line recording a change naming the component and one other service's warning or error naming an object its events name."""
    for c in leading(board):
        cited = 0
        for obs, line in specific_lines(board.inv, c):
            if cited >= MAX_CITED:
                break
            if any(e.span_id == obs.span_id for e in c.evidence):
                continue
            c.cite(obs, short(line, 240), is_support=False)
            cited += 1
        component = c.component.split("/")[-1]
        # A stack dump has a slot of its own: it says where the time goes, a value says what changed.
        # So has the change recorded about the component (what was done to it) and another
        # service's word on an object its events name (why that object never came).
        extra = [
            change_lines(board.inv, component)[:1],
            linked_lines(board.inv, component)[:1],
        ]
        if c.layer == layers.APPLICATION:
            extra.insert(0, frame_lines(board.inv, component)[:1])
        for found in extra:
            for obs, line in found:
                if not any(e.span_id == obs.span_id for e in c.evidence):
                    c.cite(obs, short(line, 240), is_support=False)


def _change_start(window: dict[str, str]) -> str | None:
    start = parse_time(window.get("start") or "")
    if start is None:
        return None
    return (start - CHANGE_LEAD).isoformat().replace("+00:00", "Z")


def change_reads(
    board: Board,
    call: Callable[[str, dict[str, Any], str], Any],
    window: dict[str, str],
) -> Iterable[Any]:
    """Every service's lines naming a leading hypothesis' service and a change word, from
    `CHANGE_LEAD` before the window to its end, when no such line was read yet."""
    start = _change_start(window)
    if start is None:
        return
    searched = [o.arguments for o in board.inv.observations if o.tool == SEARCH_LOGS]
    ranked = sorted(leading(board), key=lambda c: -c.confidence)
    for c in ranked[:_CHANGE_READS]:
        component = c.component.split("/")[-1]
        # A host's changes (a record edited) are searched as a failing host's (`changes`).
        if (
            "." in component
            or not _SERVICE_NAME.fullmatch(component)
            or change_lines(board.inv, component)
        ):
            continue
        query = change_pattern(component)
        if any(
            a.get("query") == query and str(a.get("start") or "") <= start
            for a in searched
        ):
            continue
        yield call(
            SEARCH_LOGS,
            {
                "query": query,
                "regex": True,
                "start": start,
                "end": window.get("end") or "now",
                "limit": 20,
            },
            f"changes recorded about {component} in any log, from before the window",
        )


def reads(
    board: Board,
    call: Callable[[str, dict[str, Any], str], Any],
    window: dict[str, str],
    *,
    every_service: bool,
) -> Iterable[Any]:
    """One targeted read for a leading hypothesis none of whose specific lines was read yet (the
    logs server searches by regular expression; the TLS and DNS reads need every service at once).
    A slow service's stack dumps are read besides, even when other lines of it were: they name
    where its requests wait, not what changed. Where every service is searched, the changes
    recorded about the leading components besides (`change_reads`)."""
    if every_service:
        yield from change_reads(board, call, window)
    for c in leading(board):
        component = c.component.split("/")[-1]
        health = board.facts.health.get(component)
        if (
            c.layer == layers.APPLICATION
            and health is not None
            and health.has("p99_latency_s")
            and not container_lines(board.inv, component)
            and not frame_lines(board.inv, component)
        ):
            yield call(
                SEARCH_LOGS,
                {
                    "service": component,
                    "query": _FRAME_QUERY,
                    "regex": True,
                    **window,
                    "limit": 20,
                },
                f"{component}'s stack dumps, for the code its slow requests wait in",
            )
        # A slow service that logs no error: the lines naming the version it runs and the
        # libraries it ships, for what changed.
        errors = board.facts.errors.get(component)
        if (
            c.layer == layers.APPLICATION
            and health is not None
            and health.has("p99_latency_s")
            and errors is not None
            and not errors.groups
            and not version_lines(board.inv, component)
        ):
            yield call(
                SEARCH_LOGS,
                {
                    "service": component,
                    "query": _VERSION_QUERY,
                    "regex": True,
                    **window,
                    "limit": 20,
                },
                f"{component} is slow and logs no error: the lines naming the versions it runs",
            )
        # A service that says it hit a hard limit: the host's lines naming its unit say which one.
        if (
            c.layer == layers.APPLICATION
            and every_service
            and decisive_lines(board.inv, component)
            and not unit_lines(board.inv, component)
        ):
            yield call(
                SEARCH_LOGS,
                {
                    "query": f"{re.escape(component)}{_UNIT_QUERY}",
                    "regex": True,
                    **window,
                    "limit": 20,
                },
                f"the host's lines naming {component}'s unit or process, for the limit it hit",
            )
        if specific_lines(board.inv, c):
            continue
        if c.layer == layers.TLS and every_service and "." in component:
            host = re.escape(component)
            yield call(
                SEARCH_LOGS,
                {
                    "query": f"{host}.{{0,300}}{_ISSUANCE_QUERY}|{_ISSUANCE_QUERY}.{{0,300}}{host}",
                    "regex": True,
                    **window,
                    "limit": 20,
                },
                f"lines about the issuance or renewal of {component}'s certificate",
            )
        elif c.layer == layers.DNS and every_service and registered_domain(component):
            domain = re.escape(registered_domain(component))
            yield call(
                SEARCH_LOGS,
                {
                    "query": f"{domain}.{{0,300}}{_REGISTRATION_QUERY}|{_REGISTRATION_QUERY}.{{0,300}}{domain}",
                    "regex": True,
                    **window,
                    "limit": 20,
                },
                f"lines about the registration status of {registered_domain(component)}",
            )
        elif (
            c.layer == layers.APPLICATION
            and _SERVICE_NAME.fullmatch(component)
            and not container_lines(board.inv, component)
        ):
            yield call(
                SEARCH_LOGS,
                {
                    "service": component,
                    "query": _SIZE_QUERY,
                    "regex": True,
                    **window,
                    "limit": 40,
                },
                f"{component}'s lines naming sizes, for the value that changed",
            )
