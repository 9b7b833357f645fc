"""The observations read into facts: probes, health, error and warning groups, changes, tool failures, targets, runbook hits.

First answer per question wins (later ones are verifications); actions are not evidence.
"""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from reasoning import layers
from reasoning.layered.reading import (
    arg,
    as_dict,
    as_list,
    error_classes,
    host_of,
    short,
)
from reasoning.observations import Observation
from reasoning.tools import (
    LIST_TARGETS,
    PROBE_URL,
    SEARCH_LOGS,
    SEARCH_RUNBOOKS,
    SERVICE_HEALTH,
    TOP_ERRORS,
    WRITES,
)

FACT_CHARS = 300
_SATURATION_SIGNALS = frozenset(
    {"db_pool_utilization", "tcp_close_wait", "open_connections"}
)
# A tool error that is the caller's (unknown service, bad argument), not its back end failing.
_ARGUMENT_ERROR = re.compile(
    r"no logs for service|no metrics for|known services|not a valid|unknown service|"
    r"not on the allowlist|is not allowed|must be|at most \d+|invalid",
    re.IGNORECASE,
)
_BACKEND_FAILURE = re.compile(
    r"timeout|timed out|did not answer|deadline exceeded|cannot reach|refused|unavailable|"
    r"unreachable|connection reset|answered HTTP 5\d\d|\b50[234]\b|reported failure",
    re.IGNORECASE,
)
_BACKEND_NAME = re.compile(r"\b([A-Z][A-Za-z0-9_-]+) at [a-z][a-z0-9+.-]*://")
# A line that records a change made to the system, not a failure of it.
_CHANGE = re.compile(
    r"\b(?:deploy(?:ed|ing|ment)?|rolled out|rollout|roll-out|released?|upgrad(?:e|ed|ing)|"
    r"migrat(?:e|ed|ion)|config(?:uration|map)? (?:change|changed|edit|edited|updated?|reload(?:ed)?)|"
    r"(?:applied|apply) (?:by|change)|change [A-Z0-9]{4,} applied|terraform|helm (?:upgrade|install)|"
    r"image (?:updated|changed|set)|DROP (?:INDEX|TABLE|COLUMN)|ALTER TABLE|UPSERT|"
    r"(?:A|AAAA|CNAME) record|dns record|record set|resource record|"
    # a release starting (a version that starts), values it says it was configured with
    r"\d{1,9}\.\d{1,9}\.\d{1,9}[\w.+-]{0,40} (?:started|starting)|configured)\b|"
    # a setting (a dotted or snake-case name) going from one value to another; every repeat is
    # bounded, so a hostile line (`a.a.a.…`) costs linear time, not quadratic
    r"\b[A-Za-z]{1,64}(?:[_.][A-Za-z0-9]{1,64}){1,8}[ =:]{1,4}[\w.]{1,64} ?(?:->|=>|→) ?[\w.]+",
    re.IGNORECASE,
)
_NOT_CHANGE_LEVELS = frozenset(
    {"error", "err", "fatal", "critical", "crit", "panic", "warn", "warning"}
)
# A change to a DNS record (the address a name resolves to).
_DNS_RECORD_CHANGE = re.compile(
    r"\b(?:UPSERT|CREATE|DELETE|update[ds]?|chang(?:e|ed))\b.{0,40}\b(?:A|AAAA|CNAME)\b|"
    r"\b(?:A|AAAA|CNAME) record\b|\bdns record\b|\brecord set\b|\broute ?53\b|\bzone\b.{0,40}\brecord\b",
    re.IGNORECASE,
)
_NAMESPACE_LABELS = (
    "namespace",
    "k8s_namespace",
    "kubernetes_namespace",
    "k8s.namespace.name",
)


def _failure_text(obs: Observation) -> str:
    return obs.error_message or obs.text or ""


@dataclass(frozen=True)
class Probe:
    obs: Observation
    url: str
    host: str
    layer: str | None  # the first failing layer; None: every layer passed
    reason: str | None
    evidence: tuple[str, ...]
    status: int | None
    body: str
    is_stream: bool = (
        False  # it answered an event stream (content-type text/event-stream)
    )
    is_watched: bool = False  # the probe watched the stream (stream_s)

    @property
    def fact(self) -> str:
        text = f"probe_url {self.url}: failed_layer={self.layer or 'none'} reason={self.reason}"
        if self.evidence:
            text += f"; {self.evidence[0]}"
        return short(text, FACT_CHARS)

    @property
    def is_server_error(self) -> bool:
        return (
            self.layer == layers.HTTP and self.status is not None and self.status >= 500
        )

    @property
    def body_classes(self) -> set[str]:
        return error_classes(self.body) - {layers.HTTP, layers.MCP}


@dataclass(frozen=True)
class Health:
    obs: Observation
    service: str
    verdict: str
    summary: str
    findings: tuple[tuple[str, str, str], ...]  # signal, severity, detail

    @property
    def fact(self) -> str:
        return short(
            f"service_health({self.service}): {self.summary or self.verdict}",
            FACT_CHARS,
        )

    @property
    def saturation(self) -> list[tuple[str, str, str]]:
        return [f for f in self.findings if f[0] in _SATURATION_SIGNALS]

    def has(self, signal: str) -> bool:
        return any(f[0] == signal for f in self.findings)


@dataclass(frozen=True)
class ErrorGroup:
    signature: str
    sample: str
    count: int
    first_seen: str = ""  # RFC 3339, as the logs server gives it
    before: int | None = None  # lines of the pattern in the baseline; None: not asked

    @property
    def text(self) -> str:
        return f"{self.signature}\n{self.sample}"

    @property
    def is_new(self) -> bool:
        """Absent from the baseline before the window (known only when a baseline was asked)."""
        return self.before == 0

    @property
    def is_stale(self) -> bool:
        """Already logged in the baseline before the window: it was there before the incident."""
        return bool(self.before)


@dataclass(frozen=True)
class Errors:
    obs: Observation
    service: str
    groups: tuple[ErrorGroup, ...]
    warnings: tuple[
        ErrorGroup, ...
    ] = ()  # warning-level groups, kept apart from the errors

    def fact(self, group: ErrorGroup) -> str:
        level = "warning" if group in self.warnings else "line"
        new = " (new since the window started)" if group.is_new else ""
        return short(
            f"top_errors({self.service}): {group.count} {level}{'' if group.count == 1 else 's'}{new}: "
            f"{group.sample or group.signature}",
            FACT_CHARS,
        )


@dataclass(frozen=True)
class Change:
    """A log line recording a change (deploy, rollout, migration, config or DNS record edit)."""

    obs: Observation
    at: datetime | None
    service: str  # the service whose log it is
    message: str
    is_dns_record: bool

    @property
    def fact(self) -> str:
        return short(
            f"search_logs: {self.service} logs a change: {self.message}", FACT_CHARS
        )


@dataclass(frozen=True)
class ToolFailure:
    obs: Observation
    kind: str  # backend | mcp | argument | refused | other
    message: str
    backend: str | None = None  # tool_backend: the back end's name

    @property
    def call(self) -> str:
        subject = arg(self.obs, "service") or arg(self.obs, "url")
        return f"{self.obs.tool}({subject})" if subject else self.obs.tool

    @property
    def fact(self) -> str:
        return short(f"{self.call}: isError: {self.message}", FACT_CHARS)


@dataclass
class Facts:
    """The observations, read once: first answer per question wins (later ones are verifications)."""

    health: dict[str, Health] = field(default_factory=dict)
    errors: dict[str, Errors] = field(default_factory=dict)
    log_lines: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # service → (search_logs answer, its lines' messages): every level, not only errors
    searched: dict[str, list[tuple[Observation, str]]] = field(default_factory=dict)
    failures: list[ToolFailure] = field(default_factory=list)
    targets_listed: bool = False
    targets: list[str] = field(default_factory=list)  # URL entries of the allowlist
    bare_targets: list[str] = field(default_factory=list)  # host entries: not probed
    # Allowlist URLs netcheck lists as MCP endpoints: probed with protocol="mcp" (JSON-RPC).
    mcp_endpoints: set[str] = field(default_factory=set)
    probes: dict[str, Probe] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)  # change lines any search found
    runbooks: list[tuple[str, dict[str, Any]]] = field(
        default_factory=list
    )  # (query, hit)

    @classmethod
    def read(cls, observations: Iterable[Observation]) -> "Facts":
        facts = cls()
        for obs in observations:
            facts._add(obs)
        return facts

    def _add(self, obs: Observation) -> None:
        if obs.tool in WRITES:
            return  # actions are the engine's to report (report.actions), not evidence
        if obs.refused:
            self.failures.append(
                ToolFailure(obs, "refused", obs.error_message or "refused")
            )
            return
        if not obs.is_ok:
            self.failures.append(_classify_failure(obs))
            return
        reader = READERS.get(obs.tool)
        if reader is not None:
            reader(self, obs, as_dict(obs.result))

    # The readers, one per tool (READERS below): the first answer per question wins.

    def _read_health(self, obs: Observation, result: dict[str, Any]) -> None:
        service = arg(obs, "service")
        if service and service not in self.health:
            self.health[service] = Health(
                obs=obs,
                service=service,
                verdict=str(result.get("verdict") or "unknown"),
                summary=str(result.get("summary") or ""),
                findings=tuple(
                    (
                        str(f.get("signal", "")),
                        str(f.get("severity", "")),
                        str(f.get("detail", "")),
                    )
                    for f in map(as_dict, as_list(result.get("findings")))
                ),
            )

    def _read_errors(self, obs: Observation, result: dict[str, Any]) -> None:
        service = arg(obs, "service")
        if service and service not in self.errors:
            self.errors[service] = Errors(
                obs=obs,
                service=service,
                groups=groups_of(result.get("top")),
                warnings=groups_of(result.get("warnings")),
            )

    def _read_log_lines(self, obs: Observation, result: dict[str, Any]) -> None:
        service = arg(obs, "service")
        lines = [as_dict(line) for line in as_list(result.get("lines"))]
        if service:
            self.log_lines.setdefault(service, []).extend(lines)
            text = "\n".join(
                str(line.get("message") or line.get("line") or "") for line in lines
            )
            if text.strip():
                self.searched.setdefault(service, []).append((obs, text))
        for line in lines:
            message = str(line.get("message") or "")
            level = str(line.get("level") or "").lower()
            if level in _NOT_CHANGE_LEVELS or not _CHANGE.search(message):
                continue  # an error or warning that mentions a deploy is not the change itself
            change = Change(
                obs=obs,
                at=parse_time(str(line.get("time") or "")),
                service=str(line.get("service") or service),
                message=message,
                is_dns_record=_DNS_RECORD_CHANGE.search(message) is not None,
            )
            if all(c.message != message or c.at != change.at for c in self.changes):
                self.changes.append(change)

    def _read_targets(self, obs: Observation, result: dict[str, Any]) -> None:
        if self.targets_listed:
            return
        self.targets_listed = True
        for entry in as_list(result.get("allow")):
            text = str(entry)
            if "://" in text and host_of(text):
                self.targets.append(text)
            else:
                self.bare_targets.append(text)
        self.mcp_endpoints.update(
            str(url) for url in as_list(result.get("mcp_endpoints"))
        )

    def _read_probe(self, obs: Observation, result: dict[str, Any]) -> None:
        """The first probe of a URL wins, except that a probe watching a stream replaces one that did not."""
        url = arg(obs, "url") or str(result.get("url") or "")
        host = host_of(url)
        watched = result.get("stream") is not None
        earlier = self.probes.get(url)
        if host and (earlier is None or (watched and not earlier.is_watched)):
            http = as_dict(result.get("http"))
            status = result.get("status")
            content_type = next(
                (
                    str(v)
                    for k, v in as_dict(http.get("headers")).items()
                    if str(k).lower() == "content-type"
                ),
                "",
            )
            self.probes[url] = Probe(
                obs=obs,
                url=url,
                host=host,
                layer=layers.normalize(str(result.get("failed_layer") or "none")),
                reason=str(result["reason"]) if result.get("reason") else None,
                evidence=tuple(str(e) for e in as_list(result.get("evidence"))),
                status=status if isinstance(status, int) else None,
                body=str(http.get("body_excerpt") or ""),
                is_stream=content_type.lower().startswith("text/event-stream"),
                is_watched=watched,
            )

    def _read_runbooks(self, obs: Observation, result: dict[str, Any]) -> None:
        query = arg(obs, "symptoms")
        for hit in map(as_dict, as_list(result.get("results"))):
            if hit.get("uri"):
                self.runbooks.append((query, hit))

    # Questions about the facts.

    def backend_failures(self) -> list[ToolFailure]:
        return [f for f in self.failures if f.kind == "backend"]

    def is_backend_down(self, server: str | None) -> bool:
        """True when a call to `server` already failed in its back end: asking it again costs time."""
        return server is not None and any(
            f.obs.server == server for f in self.backend_failures()
        )

    def error_texts(self) -> list[tuple[Errors, ErrorGroup]]:
        return [(e, g) for e in self.errors.values() for g in e.groups]

    def namespace_of(self, service: str) -> str | None:
        for line in self.log_lines.get(service, []):
            labels = as_dict(line.get("labels"))
            for key in _NAMESPACE_LABELS:
                value = labels.get(key)
                if isinstance(value, str) and value:
                    return value
        return None


# The reader of each tool's result, keyed by the names of the one tool table (reasoning.tools).
# The kubernetes tools' results are read by reasoning.layered.kubectl.Cluster.
READERS: dict[str, Callable[[Facts, Observation, dict[str, Any]], None]] = {
    SERVICE_HEALTH: Facts._read_health,
    TOP_ERRORS: Facts._read_errors,
    SEARCH_LOGS: Facts._read_log_lines,
    LIST_TARGETS: Facts._read_targets,
    PROBE_URL: Facts._read_probe,
    SEARCH_RUNBOOKS: Facts._read_runbooks,
}


# The most of a group's signature or sample the rules read: our logs server cuts a sample to 2000
# characters; another server's multi-megabyte line would only make every rule's regexes slower.
GROUP_CHARS = 8000


def groups_of(value: Any) -> tuple[ErrorGroup, ...]:
    """top_errors' groups (its `top` or its `warnings`) as ErrorGroups, each text cut to
    `GROUP_CHARS`."""
    return tuple(
        ErrorGroup(
            signature=str(g.get("signature") or "")[:GROUP_CHARS],
            sample=str(g.get("sample") or "")[:GROUP_CHARS],
            count=g["count"] if isinstance(g.get("count"), int) else 0,
            first_seen=str(g.get("first_seen") or ""),
            before=g["before"] if isinstance(g.get("before"), int) else None,
        )
        for g in map(as_dict, as_list(value))
    )


def parse_time(value: str) -> datetime | None:
    """An RFC 3339 time as the servers give it (a trailing Z included); None when it is not one."""
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _classify_failure(obs: Observation) -> ToolFailure:
    message = _failure_text(obs)
    layer = obs.error_layer or layers.TOOL_BACKEND
    if layer == layers.MCP:
        return ToolFailure(obs, "mcp", message or (obs.error_code or "MCP error"))
    if layer == layers.POLICY:
        return ToolFailure(obs, "refused", message or "refused by policy")
    if _ARGUMENT_ERROR.search(message) and not _BACKEND_NAME.search(message):
        return ToolFailure(obs, "argument", message)
    if _BACKEND_FAILURE.search(message):
        match = _BACKEND_NAME.search(message)
        backend = match.group(1).lower() if match else f"{obs.server} back end"
        return ToolFailure(obs, "backend", message, backend=backend)
    return ToolFailure(obs, "other", message)
