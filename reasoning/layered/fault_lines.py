"""The lines, already read, that show a leading hypothesis' own fault, for every layer (issue 21 class 6).

A rule may name the right component from what made it rank (a pod Pending, a node NotReady, an
ingress with no endpoints, a service's own warning) while the line that shows the fault itself sits
in another answer: the object's own describe (a condition that says it is limited or failed, a
Warning event), the last error its container wrote, a host's kernel warning carrying the node's name
in a label, a controller's warning naming the object (`Service "shop/web" does not have a port …`),
the failed run of a job whose name the component's own warning uses (`sanctions list stale` and
job `sanctions-list-sync-…`), the error the component answered as its caller logged it (a
`RedisCommandExecutionException: CLUSTERDOWN …` for a Redis), a capacity change of the node group
its pods are pinned to. `fault_lines` finds them, the most specific first; `cite_fault_lines` cites at
most `MAX_CITED` of them. `reads` is the planner's few cheap reads when the component's own
answer was never read: a pod's own logs, an autoscaler's describe when it runs at its maximum, a
container's current logs when its previous ones were not kept.
"""

import re
from collections.abc import Callable, Iterable
from typing import Any, Final

from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.cited_lines import leading, names
from reasoning.layered.facts import parse_time
from reasoning.layered.reading import short
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS, TOP_ERRORS

MAX_CITED: Final = 2  # fault lines cited per hypothesis
_MAX_LINE: Final = 4000  # longer lines are skipped, not cut
_MAX_ROWS: Final = 2000  # lines of one answer looked at
_WARN_LEVELS: Final = frozenset(
    {"warn", "warning", "error", "err", "fatal", "critical", "crit", "alert", "emerg"}
)
# Label keys that name where a line was written (a host, a node, a pod, an instance).
_PLACE_LABELS: Final = ("host", "hostname", "node", "nodename", "instance", "pod")
# The services that speak for a host: its kernel, its kubelet, its init system, its runtime.
_HOST_SERVICES: Final = re.compile(
    r"(?i)^(?:kernel|kmsg|dmesg|kubelet|systemd|journal|containerd|dockerd|crio|"
    r"networkd|networkmanager|ovs-vswitchd|lldpd|teamd|bonding)$"
)
# A describe's condition row: `Type  Status  Reason  Message` (the reason and message optional).
_CONDITION: Final = re.compile(
    r"^\s{0,8}([A-Z][A-Za-z]{2,40})\s{1,40}(True|False|Unknown)\b\s{0,40}(.{0,600})$"
)
# Condition types that say something is wrong when True (`ScalingLimited`, `Failed`, `DiskPressure`).
_BAD_WHEN_TRUE: Final = re.compile(
    r"(?i)limited|fail|pressure|unavailable|degraded|stalled|suspended|exceeded|"
    r"conflict|blocked|unschedulable"
)
# Condition types that say something is wrong when not True (`Ready`, `Available`, `ScalingActive`).
_BAD_WHEN_FALSE: Final = re.compile(
    r"(?i)^(?:ready|available|progressing|scalingactive|abletoscale|complete|"
    r"initialized|containersready|podscheduled|active|synced|healthy|established|"
    r"networkready|reconciled)$"
)
# An event row: a Warning type, then its reason (`Warning  DeadlineExceeded  9h  job-controller  …`).
_WARNING_ROW: Final = re.compile(r"\bWarning\s{1,20}([A-Z][A-Za-z]{2,60})\b")
# An object an event row names (`Job/sanctions-list-sync-2942`, `pod/web-5f-x2`).
_OBJECT: Final = re.compile(
    r"\b[A-Za-z]{2,40}/([a-z0-9][a-z0-9-]{1,120}(?:\.[a-z0-9-]{1,63}){0,6})\b"
)
# The words of a line that reports a failure (a container's last error before it exited).
_FAILS: Final = re.compile(
    r"(?i)\berror\b|\bfail(?:ed|ure|s)?\b|\bfatal\b|\bpanic\b|denied|forbidden|"
    r"unauthori[sz]ed|\binvalid\b|refused|\brevoked\b|\bexpired\b|"
    r"\b(?:status|code)[: =]{1,3}[45]\d\d\b|cannot|can't|unable to|not found|exception"
)
# An error code a client quotes from its server's answer: a word in capitals (`CLUSTERDOWN`,
# `MISCONF`, `READONLY`, `NOAUTH`) or an exception class.
_REPLY: Final = re.compile(r"\b[A-Z]{5,20}\b|[A-Z][A-Za-z]{2,60}(?:Exception|Error)\b")
# Capitals that are a line's level, not a code its server answered.
_LEVEL_WORDS: Final = frozenset(
    {
        "ERROR",
        "FATAL",
        "ALERT",
        "CRITICAL",
        "DEBUG",
        "TRACE",
        "NOTICE",
        "WARNING",
        "SEVERE",
    }
)
# A workload's node selector in its describe (`Node-Selectors:  workload=etl`).
_SELECTOR: Final = re.compile(r"(?i)node-selectors:\s{0,40}([^\n]{1,300})")
# A capacity the line sets (`min: 0, max: 0, desired: 0`, `desired capacity from 3 to 0`, `scaled to 0`).
_CAPACITY: Final = re.compile(
    r"(?i)\b(?:min|max|desired|capacity|size|replicas|count)\b[^\n]{0,40}?\b\d{1,6}\b"
)
# An autoscaler's row of a `get` listing: name, target, metrics, then min, max and current replicas.
_HPA_ROW: Final = re.compile(
    r"^horizontalpodautoscaler(?:\.autoscaling)?/([a-z0-9][a-z0-9.-]{0,252})\s+\S+\s+"
    r".{0,200}?\s(\d{1,5})\s+(\d{1,5})\s+(\d{1,5})\s+\S+\s*$"
)
_KIND_WORDS: Final = frozenset(
    {"deployment", "statefulset", "daemonset", "job", "cronjob", "pod", "service"}
)


def _name(component: str) -> str:
    return component.split("/")[-1]


def _kind(component: str) -> str:
    return component.split("/")[0].lower() if "/" in component else ""


def _rows(obs: Observation) -> list[tuple[str, str, str, str, dict[str, Any]]]:
    """(service, time, message, level, labels) of the log lines a logs answer carries; a
    top_errors group is an error, its warnings warnings."""
    result = obs.result if isinstance(obs.result, dict) else {}
    default = str(obs.arguments.get("service") or "")
    out: list[tuple[str, str, str, str, dict[str, Any]]] = []
    for line in (result.get("lines") or [])[:_MAX_ROWS]:
        if isinstance(line, dict):
            labels = line.get("labels")
            out.append(
                (
                    str(line.get("service") or default),
                    str(line.get("time") or ""),
                    str(line.get("message") or line.get("line") or ""),
                    str(line.get("level") or "").lower(),
                    labels if isinstance(labels, dict) else {},
                )
            )
    for key, level in (("top", "error"), ("warnings", "warning")):
        for group in (result.get(key) or [])[:_MAX_ROWS]:
            if isinstance(group, dict):
                message = str(group.get("sample") or group.get("signature") or "")
                new = not group.get("before")
                out.append(
                    (
                        default or str(group.get("service") or ""),
                        str(group.get("first_seen") or "") if new else "",
                        message,
                        level,
                        {},
                    )
                )
    return out


def _log_rows(
    inv: Investigation,
) -> Iterable[tuple[Observation, str, str, str, str, dict[str, Any]]]:
    for obs in inv.observations:
        if obs.is_ok and obs.tool in (SEARCH_LOGS, TOP_ERRORS):
            for service, at, message, level, labels in _rows(obs):
                if len(message) <= _MAX_LINE:
                    yield obs, service, at, message, level, labels


def _in_window(inv: Investigation, at: str) -> bool:
    start = parse_time(inv.incident.window_start or "")
    when = parse_time(at) if at else None
    return start is not None and when is not None and when >= start


def _line(service: str, message: str) -> str:
    return f"{service}: {message.strip()}" if service else message.strip()


def labelled_lines(inv: Investigation, component: str) -> list[tuple[Observation, str]]:
    """Warning and error lines of any service whose labels say they were written on or by the
    component (its host, node or pod), those of the window first."""
    name = _name(component).lower()
    rows: list[tuple[bool, int, Observation, str]] = []
    for obs, service, at, message, level, labels in _log_rows(inv):
        if level not in _WARN_LEVELS:
            continue
        places = {str(labels.get(k) or "").lower() for k in _PLACE_LABELS}
        if name in places:
            rows.append(
                (not _in_window(inv, at), len(rows), obs, _line(service, message))
            )
    rows.sort(key=lambda r: r[:2])
    return [(obs, line) for *_, obs, line in rows]


def host_lines(inv: Investigation, component: str) -> list[tuple[Observation, str]]:
    """For a node: the warnings and errors its host's own services (kernel, kubelet, systemd, a
    runtime) wrote new in the window."""
    if _kind(component) != "node":
        return []
    rows: list[tuple[bool, int, Observation, str]] = []
    for obs, service, at, message, level, labels in _log_rows(inv):
        if level not in _WARN_LEVELS or not _HOST_SERVICES.match(service):
            continue
        place = {str(labels.get(k) or "").lower() for k in _PLACE_LABELS} - {""}
        if place and _name(component).lower() not in place:
            continue  # another host's line
        if _in_window(inv, at):
            rows.append(
                (level.startswith("warn"), len(rows), obs, _line(service, message))
            )
    rows.sort(key=lambda r: r[:2])
    return [(obs, line) for *_, obs, line in rows]


def named_warnings(inv: Investigation, component: str) -> list[tuple[Observation, str]]:
    """Other services' warning and error lines that name the component (a controller's line about
    the object), those naming it as a namespace's object (`shop/web`) first, then the window's."""
    name = _name(component)
    rows: list[tuple[bool, bool, int, Observation, str]] = []
    for obs, service, at, message, level, _ in _log_rows(inv):
        if level not in _WARN_LEVELS or service.lower() == name.lower():
            continue
        if names(message, name):
            qualified = re.search(rf"(?i)[a-z0-9-]/{re.escape(name)}\b", message[:2000])
            rows.append(
                (
                    qualified is None,
                    not _in_window(inv, at),
                    len(rows),
                    obs,
                    _line(service, message),
                )
            )
    rows.sort(key=lambda r: r[:3])
    return [(obs, line) for *_, obs, line in rows]


def _about(obs: Observation, name: str) -> bool:
    subject = str(obs.arguments.get("name") or obs.arguments.get("pod") or "").lower()
    return bool(subject) and (subject == name or subject.startswith(f"{name}-"))


def condition_lines(
    inv: Investigation, component: str
) -> list[tuple[Observation, str]]:
    """From the describes of the component (or of its pods, its autoscaler, its jobs): the
    conditions that say it is limited or failed, then its Warning events."""
    name = _name(component).lower()
    rows: list[tuple[int, int, Observation, str]] = []
    for obs in inv.observations:
        if not obs.is_ok or obs.tool != "describe" or not _about(obs, name):
            continue
        kind = str(obs.arguments.get("kind") or "")
        subject = str(obs.arguments.get("name") or "")
        for line in obs.text.splitlines()[:_MAX_ROWS]:
            if len(line) > _MAX_LINE:
                continue
            m = _CONDITION.match(line)
            if m and (
                (m.group(2) == "True" and _BAD_WHEN_TRUE.search(m.group(1)))
                or (m.group(2) != "True" and _BAD_WHEN_FALSE.match(m.group(1)))
            ):
                # A condition with a message says why; a bare status only that.
                rank = 0 if len(m.group(3).split()) > 2 else 2
                rows.append((rank, len(rows), obs, f"{kind} {subject}: {line.strip()}"))
            elif _WARNING_ROW.search(line):
                rows.append((1, len(rows), obs, f"{kind} {subject}: {line.strip()}"))
    rows.sort(key=lambda r: r[:2])
    return [(obs, line) for *_, obs, line in rows]


def container_error_lines(
    inv: Investigation, component: str
) -> list[tuple[Observation, str]]:
    """The last failure line each container of the component's pods wrote (what it said before
    it exited): a named container's (an init container's) first."""
    name = _name(component).lower()
    rows: list[tuple[bool, int, Observation, str]] = []
    for obs in inv.observations:
        if not obs.is_ok or obs.tool != "pod_logs" or not _about(obs, name):
            continue
        result = obs.result if isinstance(obs.result, dict) else {}
        if result.get("found") is False:
            continue
        failing = [
            line
            for line in obs.text.splitlines()[-_MAX_ROWS:]
            if len(line) <= _MAX_LINE and _FAILS.search(line)
        ]
        if failing:
            container = str(obs.arguments.get("container") or "")
            where = f"{obs.arguments.get('pod')}" + (
                f" -c {container}" if container else ""
            )
            rows.append(
                (not container, len(rows), obs, f"logs {where}: {failing[-1].strip()}")
            )
    rows.sort(key=lambda r: r[:2])
    return [(obs, line) for *_, obs, line in rows]


def _own_texts(inv: Investigation, component: str) -> list[str]:
    name = _name(component).lower()
    return [
        message
        for _, service, _, message, level, _ in _log_rows(inv)
        if service.lower() == name and level in _WARN_LEVELS
    ]


def _words(name: str) -> list[str]:
    """The words of an object's name, without generated suffixes (`sanctions-list-sync-2942` → sanctions, list, sync)."""
    return [
        w
        for w in re.split(r"[-_.]", name.lower())
        if len(w) >= 3 and not re.search(r"\d", w) and w not in _KIND_WORDS
    ]


def phrase_linked_events(
    inv: Investigation, component: str
) -> list[tuple[Observation, str]]:
    """Warning events about another object whose name's first two words the component's own
    warnings use as a phrase (`sanctions list stale` and a failed job `sanctions-list-sync-…`):
    the object it waits on, failing."""
    own = [t.lower() for t in _own_texts(inv, component)][:50]
    if not own:
        return []
    mine = set(_words(_name(component)))
    rows: list[tuple[int, Observation, str]] = []
    for obs in inv.observations:
        if not obs.is_ok or obs.tool not in ("events", "describe") or not obs.text:
            continue
        for line in obs.text.splitlines()[:_MAX_ROWS]:
            if len(line) > _MAX_LINE or not _WARNING_ROW.search(line):
                continue
            subjects = [m.group(1) for m in _OBJECT.finditer(line)]
            if obs.tool == "describe":
                subjects.append(str(obs.arguments.get("name") or ""))
            for subject in subjects:
                words = _words(subject)
                if len(words) < 2 or set(words[:2]) <= mine:
                    continue
                phrase = re.compile(
                    rf"\b{re.escape(words[0])}[\s_-]{{1,3}}{re.escape(words[1])}\b"
                )
                if any(phrase.search(text[:2000]) for text in own):
                    rows.append((len(rows), obs, line.strip()))
                    break
    return [(obs, line) for _, obs, line in rows]


def caller_replies(inv: Investigation, component: str) -> list[tuple[Observation, str]]:
    """Other services' error lines that quote what the component answered: the line names a word
    of its name (`redis` of `session-redis`, as in `RedisCommandExecutionException`) and carries
    an error code or exception class; the commonest words first."""
    words = [w for w in _words(_name(component)) if len(w) >= 4]
    if not words:
        return []
    pattern = re.compile(
        r"(?i)(?<![a-z])(?:" + "|".join(re.escape(w) for w in words) + r")"
    )
    name = _name(component).lower()
    rows: list[tuple[int, Observation, str]] = []
    for obs, service, _, message, level, _ in _log_rows(inv):
        if service.lower() in ("", name) or level not in ("error", "err", "fatal"):
            continue
        head = message[:2000]
        replies = (m.group(0) for m in _REPLY.finditer(head))
        if pattern.search(head) and any(r not in _LEVEL_WORDS for r in replies):
            rows.append((len(rows), obs, _line(service, message)))
    return [(obs, line) for _, obs, line in rows]


def selector_lines(inv: Investigation, component: str) -> list[tuple[Observation, str]]:
    """Lines of any service setting a capacity for an object named by a value of the workload's
    node selector (`workload=etl` and a node group `eks-etl-…` set to 0): where its pods could run."""
    name = _name(component).lower()
    values: set[str] = set()
    for obs in inv.observations:
        if obs.is_ok and obs.tool == "describe" and _about(obs, name):
            for m in _SELECTOR.finditer(obs.text[:200000]):
                for pair in m.group(1).split(","):
                    value = pair.partition("=")[2].strip().lower()
                    if re.fullmatch(r"[a-z0-9][a-z0-9_.-]{1,62}", value):
                        values.add(value)
    if not values:
        return []
    token = re.compile(
        r"(?i)\b[a-z0-9-]{0,60}(?<![a-z0-9])(?:"
        + "|".join(re.escape(v) for v in sorted(values)[:10])
        + r")(?![a-z0-9])[a-z0-9-]{0,60}"
    )
    rows: list[tuple[int, Observation, str]] = []
    for obs, service, _, message, _, _ in _log_rows(inv):
        head = message[:2000]
        if token.search(head) and _CAPACITY.search(head):
            rows.append((len(rows), obs, _line(service, message)))
    return [(obs, line) for _, obs, line in rows]


def own_fault_lines(inv: Investigation, c: Candidate) -> list[tuple[Observation, str]]:
    """The lines that show a hypothesis' own fault, the most specific first: its conditions and
    Warning events, its containers' last errors, its own lines by their labels, its host's."""
    component = c.component
    return (
        condition_lines(inv, component)
        + container_error_lines(inv, component)
        + labelled_lines(inv, component)
        + host_lines(inv, component)
    )


def linked_fault_lines(
    inv: Investigation, c: Candidate
) -> list[list[tuple[Observation, str]]]:
    """Others' lines about the hypothesis' fault, one kind per list: a controller's warning naming
    it, a failed object its warnings name, its caller's quote of its answer, a capacity change
    where its pods are pinned."""
    component = c.component
    return [
        named_warnings(inv, component),
        phrase_linked_events(inv, component),
        caller_replies(inv, component),
        selector_lines(inv, component),
    ]


def _cited(c: Candidate, obs: Observation, line: str) -> bool:
    """Whether `c` cites the span already, or the same words from another span."""
    words = " ".join(line.split())[:120]
    return any(e.span_id == obs.span_id or words in e.fact for e in c.evidence)


def cite_fault_lines(board: Board) -> None:
    """A leading hypothesis, whatever its layer, cites the lines already read that show its component's own fault: a condition of its describe that says it is limited or failed, a Warning event, its container's last error, its host's or its own warnings by their labels; besides, one each of a controller's warning naming it, a failed object its own warning names, its caller quoting its answer, a capacity change of the nodes its pods are pinned to."""
    for c in leading(board):
        cited = 0
        for obs, line in own_fault_lines(board.inv, c):
            if cited >= MAX_CITED:
                break
            if not _cited(c, obs, line):
                c.cite(obs, short(line, 240), is_support=False)
                cited += 1
        for found in linked_fault_lines(board.inv, c):
            for obs, line in found[:1]:
                if not _cited(c, obs, line):
                    c.cite(obs, short(line, 240), is_support=False)


# --- reads ---------------------------------------------------------------------------------------


def _pod_namespace(inv: Investigation, pod: str) -> str:
    """The namespace of a pod a `get pods` listing shows, "" when none does."""
    for obs in inv.observations:
        if not obs.is_ok or obs.tool != "get_resources" or not obs.text:
            continue
        if str(obs.arguments.get("kind") or "") != "pods":
            continue
        for line in obs.text.splitlines()[:_MAX_ROWS]:
            if line.split(" ", 1)[0] == pod:
                return str(obs.arguments.get("namespace") or "")
    return ""


def _at_maximum(inv: Investigation, name: str) -> str:
    """The namespace of the component's horizontal autoscaler when a listing shows it at its
    maximum replicas, "" otherwise."""
    for obs in inv.observations:
        if not obs.is_ok or obs.tool != "get_resources" or not obs.text:
            continue
        for line in obs.text.splitlines()[:_MAX_ROWS]:
            m = _HPA_ROW.match(line.strip()) if len(line) <= _MAX_LINE else None
            if m and m.group(1) == name and int(m.group(4)) >= int(m.group(3)) > 0:
                return str(obs.arguments.get("namespace") or "")
    return ""


def reads(
    inv: Investigation,
    leading: list[Candidate],
    call: Callable[[str, dict[str, Any], str], Any],
) -> Iterable[Any]:
    """For the leading hypotheses, the component's own answer when none was read: a pod's logs,
    its autoscaler's describe when it runs at its maximum, a container's current logs when the
    previous ones were not kept."""
    tools = {t.name for t in inv.tools}
    described = {
        (str(o.arguments.get("kind") or ""), str(o.arguments.get("name") or ""))
        for o in inv.observations
        if o.tool == "describe"
    }
    logged = [o for o in inv.observations if o.tool == "pod_logs"]
    for c in leading:
        name = _name(c.component)
        if "pod_logs" in tools and not any(
            str(o.arguments.get("pod") or "") == name for o in logged
        ):
            ns = _pod_namespace(inv, name)
            if ns:
                yield call(
                    "pod_logs",
                    {"pod": name, "namespace": ns, "tail": 200},
                    f"{name}'s own lines, for the fault it logs",
                )
        if "describe" in tools and ("horizontalpodautoscaler", name) not in described:
            ns = _at_maximum(inv, name)
            if ns:
                yield call(
                    "describe",
                    {"kind": "horizontalpodautoscaler", "name": name, "namespace": ns},
                    f"{name}'s autoscaler runs at its maximum: its conditions",
                )
        for obs in logged:
            result = obs.result if isinstance(obs.result, dict) else {}
            if (
                obs.arguments.get("previous") is True
                and result.get("found") is False
                and _about(obs, name.lower())
            ):
                current = {k: v for k, v in obs.arguments.items() if k != "previous"}
                if not any(dict(o.arguments) == current for o in logged):
                    yield call(
                        "pod_logs",
                        current,
                        f"{current.get('pod')}'s previous logs were not kept: its current ones",
                    )
                    break
