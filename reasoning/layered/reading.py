"""Reading text for the layered planner: host names, failure classes and upstreams in error lines, tool arguments."""

import functools
import json
import re
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from reasoning import layers
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# File extensions: `52888.pdf failed`, `report.parquet written` name a file, not a host. Only
# extensions that are no top-level domain in use (not .pl, .tf, .mov, .cc, .ai ...).
_NOT_TLDS = _words(
    "py js ts go rs rb java class json yaml yml toml txt log md html css sh exe"
    " so dll jar gz zip tar pem crt key conf cfg ini xml csv lock"
    " pdf png jpg jpeg gif svg webp ico bmp tiff heic wav ogg avi mkv webm"
    " parquet avro orc tsv jsonl ndjson bin dat sqlite bak tmp pid sock out err"
    " whl egg deb rpm iso img tgz xz zst rar doc docx xls xlsx ppt pptx odt"
    " proto wasm mjs cjs jsx tsx php kt scala exs erl hpp cpp gradle tfvars tfstate"
)
SERVICE_NAME = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$")
# Hyphenated words that are not services.
NOT_SERVICES = _words(
    "re-run follow-up long-poll so-called built-in up-to-date read-only opt-in"
    " opt-out non-zero e-mail x-request-id rate-limit time-out roll-out sign-in log-in"
    " crash-looping crash-loop out-of-memory health-check add-to-cart check-out node-pool"
    " pre-stop post-start in-flight end-to-end"
)
# First labels of host names too generic to name a service.
GENERIC_LABELS = _words("api www app web gw gateway internal svc local cluster")
_UPSTREAM = re.compile(
    r"\bupstream[=:]\s*\"?(?![a-z][a-z0-9+.-]*://)([A-Za-z0-9][A-Za-z0-9_.-]*)"
)
_UPSTREAM_WORD = re.compile(r"\bupstream\s+([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\b(?![.:])")
STREAMY = re.compile(
    r"\b(stream|streams|streaming|sse|eventsource|event-stream|server-sent|reconnect\w*|websockets?|long-poll\w*)\b",
    re.IGNORECASE,
)
# Which layer an error text talks about (a text may talk about several).
_CLASS_PATTERNS = {
    layers.DNS: re.compile(
        r"no such host|nxdomain|servfail|server misbehaving|name or service not known|"
        r"temporary failure in name resolution|could not resolve|name resolution|getaddrinfo|"
        # A resolver's lookup names the host it asked for (Go: `lookup db.internal on 10.0.0.10:53:`,
        # `lookup db.internal: i/o timeout`); a bare "lookup" is an application's ("session lookup:",
        # "user lookup failed") and says nothing about DNS.
        r"\b(?:dns|resolver|host ?name) lookup\b|\blookup [\w-]+(?:\.[\w-]+)+(?: on |: )|\blookup \S+ on \S+:53\b|"
        r"unknown ?host",
        re.IGNORECASE,
    ),
    layers.CONNECT: re.compile(
        r"connection refused|econnrefused|connect: |no route to host|network is unreachable|"
        r"connection reset|connect timeout",
        re.IGNORECASE,
    ),
    # "certificate credentials" (a client's key pair at an identity provider) is not TLS.
    layers.TLS: re.compile(
        r"certificate(?!s? credentials?)|x509|\btls|\bssl|handshake", re.IGNORECASE
    ),
    layers.MCP: re.compile(
        r"json-?rpc|\b-32[0-7]\d\d\b|\bmcp (?:client|server|session)|tools/(?:list|call)",
        re.IGNORECASE,
    ),
    layers.HTTP: re.compile(
        r"\b50[234]\b|bad gateway|gateway timeout|service unavailable|upstream timed out|"
        r"idle timeout|stream (?:cut|closed)|reconnect",
        re.IGNORECASE,
    ),
}
# A connection pool with no connection left to lend, as pool libraries word it (HikariCP, c3p0,
# database/sql, pgx ...): the service's own saturation, not its database's failure.
POOL_EXHAUSTED = (
    r"connection is not available|"
    r"(?:unable|failed|could not|cannot) (?:to )?(?:acquire|obtain|get|check ?out) (?:a )?"
    r"(?:pooled |db |database |jdbc )?connection|"
    r"timed? ?out (?:waiting for|acquiring|checking out) (?:a )?(?:pooled )?connection"
)
# A service failing by itself (not because of what it calls).
APP_ERROR = re.compile(
    POOL_EXHAUSTED + r"|"
    r"QueuePool limit[^,;]*|pool limit|pool exhausted|pool timeout|too many connections|"
    r"too many open files|out of memory|OOMKilled|OutOfMemory\w*|MemoryError|panic:|deadlock|"
    r"Traceback|NullPointerException|segmentation fault|exceeded memory limit|no space left|"
    r"slow quer(?:y|ies)|slow statements?|slow (?:request |http |rpc )?handlers?|"
    r"statement timeout|lock wait timeout",
    re.IGNORECASE,
)
NAMES_UPSTREAM = re.compile(r"upstream|gateway|proxy", re.IGNORECASE)

# A client's words about a dependency it calls, as the main languages' drivers and clients word
# them: a database, cache, queue, search or object store's exception raised in the caller (psycopg,
# asyncpg, pq, pgx, JDBC, SQLAlchemy, ActiveRecord, Npgsql, mysql clients, Oracle, SQL Server,
# MongoDB drivers, redis-py, Jedis, Lettuce, ioredis, StackExchange.Redis, Kafka clients, AMQP
# clients, Elasticsearch/OpenSearch clients, Cassandra drivers, memcached clients), the
# dependency's own refusal quoted back (a read-only replica, a database starting up or in
# recovery), a server-selection, statement or command timeout, or a callee's timing or call count
# quoted in the line (`(api 1400 ms)`, `inventory 21 calls, 1430 ms`). The caller suffers it: it
# does not make the caller the root cause; the dependency's own evidence decides.
# Words of a timing that name no callee: `(took 40 ms)`, `(p99 900 ms)`.
_TIMING_WORDS = (
    r"(?:took|elapsed|total|after|in|duration|latency|time|wait(?:ed)?|spent|avg|mean|max|min|"
    r"median|p\d+|last|local\w*)\b"
)
DEPENDENCY_SYMPTOM = re.compile(
    # PostgreSQL clients
    r"\bpsycopg2?\.(?:errors\.)?\w+|\basyncpg\.\w+|\bpq: |\bpgx\b|\bPSQLException\b|"
    r"\borg\.postgresql\.|\bNpgsql\w*|\bPG::\w+|\bQueryCanceled\b|"
    r"\bcanceling statement due to|\bSQLState: ?\w+|\bSQLSTATE\b|"
    r"\bthe database system is (?:starting up|in recovery|shutting down|not accepting)|"
    r"\bsqlalchemy\.exc\.\w+|\bActiveRecord::\w+|\bSequelize\w*Error\b|\bPrisma\w*Error\b|"
    r"\bJDBC\w*Exception\b|\bSQL(?:Transient|NonTransient|Recoverable)\w*Exception\b|"
    # MySQL, Oracle, SQL Server
    r"\bpymysql\.err\.\w+|\bMySQLdb\.\w+|\bmysql\.connector\.\w+|\bCommunicationsException\b|"
    r"\bMySQL\w*Exception\b|\bMySQL server has gone away|\bLost connection to MySQL|"
    r"\bER_\w+|\bORA-\d{5}\b|\bcx_Oracle\.\w+|\boracledb\.\w+|\bSqlException\b|"
    # MongoDB
    r"\bMongo\w*(?:Error|Exception)\b|\bpymongo\.errors\.\w+|\bServerSelectionTimeout\w*|"
    r"\bserver selection tim|\bNo (?:primary|suitable servers?) (?:available|found)|"
    # Redis, memcached
    r"\bredis\.exceptions\.\w+|\bRedis\w*(?:Exception|Error)\b|\bJedis\w*Exception\b|"
    r"\bio\.lettuce\.|\bioredis\b|\bStackExchange\.Redis\b|\bREADONLY\b|"
    r"\bread only replica\b|\bOOM command not allowed|\bMOVED \d+|\bCLUSTERDOWN\b|"
    r"\bpymemcache\.\w+|\bMemcache\w*(?:Error|Exception)\b|"
    # Kafka, AMQP, other queues
    r"\borg\.apache\.kafka\.common\.errors\.\w+|\bkafka\.errors\.\w+|\bKafka\w*(?:Error|Exception)\b|"
    r"\bKafkaJS\w*|\brdkafka\b|\bBroker: [A-Z]|\bRecordTooLarge\w*|\bNotLeader\w*|"
    r"\bpika\.exceptions\.\w+|\bAMQP\w*(?:Error|Exception)\b|\bcom\.rabbitmq\.|"
    r"\bamqp(?:lib)?\b.{0,40}\b(?:closed|error)|\bnats: \w+|\bSQS\w*Exception\b|"
    # Elasticsearch / OpenSearch, Cassandra
    r"\belasticsearch\.exceptions\.\w+|\belastic_transport\.\w+|\bElasticsearch\w*Exception\b|"
    r"\bOpenSearch\w*Exception\b|\bopensearchpy\.\w+|\bes_rejected_execution|"
    r"\bsearch_phase_execution_exception|\bNoHostAvailable\w*|\bcom\.datastax\.|"
    r"\bcassandra\.\w+(?:Error|Exception|Timeout)\b|\b(?:Read|Write)Timeout(?:Exception)?\b",
    re.IGNORECASE,
)
# A timeout that ended the caller's wait on a dependency (`query timed out`, `statement timeout`).
_WAIT_TIMEOUT = re.compile(
    r"\b(?:statement|query|command|server selection|socket read) time(?:d ?)?out\b",
    re.IGNORECASE,
)
# The same words followed by a value name a setting (`(statement timeout 10 s)`, `query timeout of
# 5s`), not a wait that ended, unless the line says it ran out (`exceeded`, `expired`, `reached`).
_TIMEOUT_VALUE = re.compile(
    r"(?:\s*[=:]\s*|\s+(?:of\s+|is\s+|set to\s+)?)\d+(?:\.\d+)? ?(?:ms|s|secs?|seconds?|m|mins?)\b"
    r"(?![^;,)]{0,20}\b(?:exceeded|expired|reached|hit|elapsed)\b)",
    re.IGNORECASE,
)
# A callee's timing or call count quoted in the line: `(api 1400 ms)`, `inventory 21 calls, 1430 ms`
# (a callee's name is lowercase: `(LocalTime 3790 ms)` is a server's own clock, `(took 9 ms)` no callee).
_CALLEE_TIMING = re.compile(
    r"\(\s*(?-i:(?!" + _TIMING_WORDS + r")([a-z][a-z0-9_-]*)):? \d+(?:\.\d+)? ?m?s\)|"
    r"\b(?-i:(?!"
    + _TIMING_WORDS
    + r")([a-z][a-z0-9_-]*)) \d+ calls?, \d+(?:\.\d+)? ?m?s\b",
    re.IGNORECASE,
)
# Words of a limit or setting, never a callee: `(statement_timeout 10 s)`, `(threshold 500ms)`,
# `(long_query_time 2 s)`, `(budget 300 ms)`, `(log_min_duration_statement 250 ms)`.
_SETTING_WORDS = _words(
    "timeout timeouts time threshold limit deadline budget slo sla duration max min"
)
# A service's own work being slow: a slow query, statement or handler it logs, a query plan.
OWN_SLOW_WORK = re.compile(
    r"\bslow (?:quer(?:y|ies)|statements?|sql|(?:request |http |rpc )?handlers?|endpoints?)\b|"
    r"\bquery plan\b|\bplan: |\bseq(?:uential)? scan\b|"
    r"\bfull (?:table )?scan\b|(?-i:\bEXPLAIN\b)",
    re.IGNORECASE,
)
_POOL = re.compile(POOL_EXHAUSTED + r"|pool (?:limit|exhausted|timeout)", re.IGNORECASE)


def about_dependency(text: str) -> bool:
    """True when an error line is a client's symptom of a dependency it calls (a driver's exception, a
    dependency's refusal quoted, a statement or server-selection timeout, a callee's timing), not the
    caller's own fault; a connection pool of its own that has run dry stays the caller's."""
    if (
        len(text) > 2 * _ENDS
    ):  # a traceback says it at its ends: the call, then the exception
        text = text[:_ENDS] + "\n" + text[-_ENDS:]
    return _about_dependency(text)


_ENDS = 3000


@functools.lru_cache(maxsize=4096)
def _about_dependency(text: str) -> bool:
    if _POOL.search(text):
        return False
    if DEPENDENCY_SYMPTOM.search(text):
        return True
    # In a line of the service's own slow work (a slow query or handler, a query plan), a limit or
    # setting quoted beside a timing is no callee and a timeout quoted with its value no wait that
    # ended. Elsewhere (`renew took 3491ms (threshold 500ms)`) the line says nothing of whose work
    # was slow, and a timing quoted beside it still reads as a callee's.
    own_slow = OWN_SLOW_WORK.search(text) is not None
    for m in _CALLEE_TIMING.finditer(text):
        if not own_slow or _is_callee(m.group(1) or m.group(2)):
            return True
    waits = list(_WAIT_TIMEOUT.finditer(text))
    if not own_slow:
        return bool(waits)
    return any(not _TIMEOUT_VALUE.match(text, m.end()) for m in waits)


def _is_callee(name: str) -> bool:
    """A name quoted beside a timing is a callee's unless it is a limit's or setting's."""
    return not any(part in _SETTING_WORDS for part in re.split(r"[_-]", name.lower()))


def short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# An API's method named after the word API, method or RPC (`Content API products.insert failed`,
# `method=users.messages.send`): `resource.verb`, not a host, unless it ends as hosts commonly do.
# The word itself, not a name ending in it (`ledger-api: host.example` names a host).
_METHOD_BEFORE = re.compile(
    r"(?i:(?<![\w.-])(?:api|method|rpc|operation))[ =:\"']{1,3}$"
)
_HOST_ENDINGS = _words("com net org io dev co app cloud ai local internal svc")


# Kubernetes names a kind of resource `<plural>.<group>` (`jobs.batch`, `deployments.apps`,
# `ingresses.networking.k8s.io`, a custom resource's `nodepools.karpenter.sh`): in the API server's
# refusals (`jobs.batch "nightly-7" is forbidden`, `… not found`, `… already exists`) and in a
# quota's keys (`count/jobs.batch`, `count/deployments.apps`) it is a kind, never a host.
_API_GROUPS = _words("apps batch autoscaling policy extensions")
_RESOURCE_PLURALS = _words(
    "pods services endpoints endpointslices configmaps secrets namespaces nodes events"
    " deployments replicasets statefulsets daemonsets jobs cronjobs replicationcontrollers"
    " ingresses ingressclasses networkpolicies horizontalpodautoscalers poddisruptionbudgets"
    " persistentvolumeclaims persistentvolumes storageclasses volumeattachments csidrivers"
    " serviceaccounts roles rolebindings clusterroles clusterrolebindings leases"
    " customresourcedefinitions validatingwebhookconfigurations"
    " mutatingwebhookconfigurations priorityclasses resourcequotas limitranges runtimeclasses"
    " certificatesigningrequests gateways gatewayclasses httproutes grpcroutes"
)
# What follows a kind in the API server's words: the object's quoted name, then its verdict.
_API_VERDICT = re.compile(
    r'\\*"[^"\s\\]{1,253}\\*" (?:is forbidden|not found|already exists|is invalid)'
)


def is_resource_kind(text: str, start: int, name: str) -> bool:
    """True when the dotted `name` found at `start` of `text` is a Kubernetes kind of resource
    (`<plural>.<group>`), not a host: a quota's `count/` key, the kind of an API server's verdict on
    a named object, or a core kind in a built-in group (`jobs.batch`, `leases.coordination.k8s.io`)."""
    if text[max(0, start - 6) : start].lower() == "count/":
        return True
    if _API_VERDICT.match(text, start + len(name) + 1):
        return True
    plural, _, group = name.partition(".")
    return plural in _RESOURCE_PLURALS and (
        group in _API_GROUPS or group == "k8s.io" or group.endswith(".k8s.io")
    )


# A percent-encoded character (`%40` for `@`, `%2F` for `/`): what follows its two hex digits is
# the rest of an encoded value, never a name starting with them.
_PERCENT_BEFORE = re.compile(r"%$")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
# An e-mail address's local part just before `@` (`jane.doe@`, `85764%40`): the domain after it is
# a mailbox's, not a host a request went to. A URL's user (`https://user@host`, `postgres://app@db`)
# and scp's `git@host:` are hosts.
_MAILBOX_BEFORE = re.compile(r"(?<![\w.%+:/-])[\w.%+-]{1,64}@$")
# A query string's parameter value (`?email=`, `&next=`, `;user=` inside a URL or path): a value,
# unless it is itself a URL (`?redirect_uri=https://app.example/cb` still names a host).
_PARAM_VALUE_BEFORE = re.compile(r"[?&;][\w.%-]{1,64}=$")


def _encoded_or_mailbox(text: str, start: int, end: int) -> int | None:
    """Where the host name in the token `text[start:end]` really starts, or None when it is an
    e-mail address (its local part or domain) or a query string's value, percent-encoded or not."""
    if text.startswith("@", end) or text[end : end + 3].lower() == "%40":
        return None  # an e-mail's local part (or a URL's user)
    before = text[max(0, start - 80) : start]
    if before.endswith("%") and _HEX2.match(text, start):
        decoded = chr(int(text[start : start + 2], 16))
        if decoded in "@=":
            return None
        start += 2
        before = before + text[start - 2 : start]
    if before.endswith("@") and not text.startswith(":", end):
        word = before.split()[-1] if before.split() else before
        if "://" not in word and _MAILBOX_BEFORE.search(before):
            return None
    if before.endswith("=") and _PARAM_VALUE_BEFORE.search(before):
        return None
    return start


def hosts_in(text: str) -> list[str]:
    """Host names (lowercase DNS names with a word as last label) that `text` mentions: not an
    e-mail address's domain, a query string's value or the tail of a percent-encoded character."""
    found: list[str] = []
    for match in _TOKEN.finditer(text):
        start = _encoded_or_mailbox(text, match.start(), match.end())
        if start is None:
            continue
        name = text[start : match.end()].rstrip(".-_")
        if "." not in name or name != name.lower() or "_" in name:
            continue
        if is_resource_kind(text, start, name):
            continue
        if (
            _METHOD_BEFORE.search(text, max(0, start - 16), start)
            and name.rsplit(".", 1)[1] not in _HOST_ENDINGS
        ):
            continue
        labels = name.split(".")
        last = labels[-1]
        if (
            len(labels) < 2
            or not all(_LABEL.match(label) for label in labels)
            or not last.isalpha()
            or len(last) < 2
            or last in _NOT_TLDS
        ):
            continue
        if name not in found:
            found.append(name)
    return found


# A remote's HTTP answer a line reports (`failed: 401 invalid_client`, `returned 403`,
# `HTTP/1.1 400`, `403 Forbidden`): the request reached it, so the path to it worked.
_ANSWERED = re.compile(
    r"(?i:\b(?:HTTP(?:/[\d.]+)?|status(?: code)?|failed|returned|answered|responded|got))"
    r"[ =:]+4(?:0\d|1\d|2\d|51)\b(?![.:]\d)|"
    r"\b4(?:0\d|1\d|2\d|51) (?:[A-Z][a-z]+|(?i:invalid_\w+|unauthori[sz]ed|forbidden))"
)


def before_answer(text: str) -> str:
    """`text` up to the remote's HTTP answer it reports (all of it without one).

    What follows such an answer is the remote's own message: its words and the links it offers
    (a help URL, "consider certificate credentials") say nothing about the path to it."""
    answer = _ANSWERED.search(text)
    return text if answer is None else text[: answer.start()]


def error_classes(text: str) -> set[str]:
    return {layer for layer, pattern in _CLASS_PATTERNS.items() if pattern.search(text)}


def host_of(url: str) -> str | None:
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return host.lower() if host else None


def belongs(host: str, name: str) -> bool:
    """True when `host` is `name`'s (a label is the name, or the name is a whole-word part of it)."""
    name = name.lower()
    if not name:
        return False
    return any(
        label == name or label.startswith(f"{name}-") for label in host.split(".")
    )


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def call_key(tool: str, arguments: Mapping[str, Any]) -> str:
    return tool + json.dumps(arguments, sort_keys=True, default=str)


def arg(obs: Observation, name: str) -> str:
    value = obs.arguments.get(name)
    return value if isinstance(value, str) else ""


def upstreams(text: str) -> list[str]:
    """The upstreams a line names: `upstream=name`, `upstream: name`, or `upstream name-with-dash`
    (a relay's own words: "upstream orders-api answered 503")."""
    names = []
    for raw in [*_UPSTREAM.findall(text), *_UPSTREAM_WORD.findall(text)]:
        name = raw.rstrip(".:-")
        if name and not re.fullmatch(r"[\d.]+", name) and name not in names:
            names.append(name.lower())
    return names


_BARE_URL_HOST = re.compile(
    r"\bhttps?://([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?=[:/\s\"'),;]|$)"
)


def url_services(text: str) -> list[str]:
    """Services a line calls by a URL whose host is a bare name (`http://quotes-api/v1/...`), as in-cluster callers do."""
    names: list[str] = []
    for name in _BARE_URL_HOST.findall(text):
        if name not in names and name not in GENERIC_LABELS and name != "localhost":
            names.append(name)
    return names


def incident_text(inv: Investigation) -> str:
    return " ".join([inv.incident.title, *inv.incident.symptoms, *inv.incident.notes])


def iso(moment: datetime) -> str:
    """A moment as the tools' arguments write it: UTC, to the second, with a `Z`."""
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def every_service_lines(
    inv: Investigation, query: str
) -> Iterator[tuple[Observation, dict[str, Any]]]:
    """Each line of every answered search_logs of every service (no `service` argument) for `query`."""
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "service"):
            continue
        if arg(obs, "query") != query:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            yield obs, line
