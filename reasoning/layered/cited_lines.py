"""A concluded hypothesis cites the most specific line the investigation read about its component (issue 21: the report cites its evidence).

A rule may name the right component, conclusively, from a summary (a pod in CrashLoopBackOff, a
service's warnings rising, a host's handshake failing) while the line that carries the specific
fault sits in another answer: the container's last state (`exec format error`, `permission
denied`), a service's line naming a size, path or host that first appears at the incident's start,
the owner's line about a certificate's issuance. `cite_specific` runs after every other rule: for
the leading hypotheses it finds, in what was already read, at most `MAX_CITED` such lines about
their component and cites them. `reads` is the planner's one cheap targeted read when none was read
yet (a service's lines carrying sizes, the lines naming a TLS host's issuance).
"""

import re
from collections.abc import Callable, Iterable
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.reading import short
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
# The words of a certificate's issuance or renewal.
_ISSUANCE: Final = re.compile(
    r"(?i)renew|obtain|issu(?:ed|er|ing|ance)|acme|directory|\bca[_ ]?(?:url|server)\b"
)
_ISSUANCE_QUERY: Final = "(renew|obtain|issue|issuer|acme|directory|ca_url|ca_server)"


def _leading(board: Board) -> list[Candidate]:
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


def value_lines(inv: Investigation, component: str) -> list[tuple[Observation, str]]:
    """A service's log lines carrying a concrete value (size, URL, host, path), those whose value
    first appears after its earlier lines first."""
    rows: list[tuple[str, int, Observation, str]] = []
    seen_at: dict[str, str] = {}
    for obs in inv.observations:
        if not obs.is_ok or obs.tool not in (SEARCH_LOGS, TOP_ERRORS):
            continue
        for i, (service, at, message) in enumerate(_messages(obs)):
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
            rows.append((at, i, obs, message))
    if not rows:
        return []
    earliest = min((at for at, *_ in rows if at), default="")

    def is_new(message: str) -> bool:
        values = [m.group(0).strip(" \"'=") for m in _VALUE.finditer(message[:2000])]
        return any(seen_at.get(v, "") > earliest for v in values)

    rows.sort(key=lambda r: (not is_new(r[3]), r[0], r[1]))
    return [(obs, f"{component}: {message}") for _, _, obs, message in rows]


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


def specific_lines(inv: Investigation, c: Candidate) -> list[tuple[Observation, str]]:
    """The lines that carry a hypothesis's specific fault, most specific first."""
    component = c.component.split("/")[-1]
    if c.layer == layers.TLS:
        return issuance_lines(inv, component)
    if c.layer == layers.APPLICATION:
        return container_lines(inv, component) + value_lines(inv, component)
    return []


def cite_specific(board: Board) -> None:
    """A leading hypothesis cites the lines, already read, that carry its component's specific fault: a container's failure reason, a service's new concrete value, a host's certificate issuance."""
    for c in _leading(board):
        cited = 0
        for obs, line in specific_lines(board.inv, c):
            if cited >= MAX_CITED:
                break
            if any(e.span_id == obs.span_id for e in c.evidence):
                continue
            c.cite(obs, short(line, 240), is_support=False)
            cited += 1


def reads(
    board: Board,
    call: Callable[[str, dict[str, Any], str], Any],
    window: dict[str, str],
    *,
    every_service: bool,
) -> Iterable[Any]:
    """One targeted read for a leading hypothesis none of whose specific lines was read yet (the
    logs server searches by regular expression; the TLS read needs every service at once)."""
    for c in _leading(board):
        component = c.component.split("/")[-1]
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
        elif c.layer == layers.APPLICATION and not container_lines(
            board.inv, component
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
