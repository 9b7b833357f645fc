"""A setting changed just before a quiet incident: the change is the cause, cited by its change line (issue 21, class 4).

Some incidents have no error of their own anywhere: a reader pool moved to a far replica makes
every page slow, a cache rule added at the edge serves one user's answers to others, a hashing cost
raised saturates the CPUs. Only victims log errors (a caller's timeouts naming the slow service),
or nobody does. What changed is then the lead: a config server's push, a reload with new values, a
Terraform apply, a flag flipped, a key moved `10 -> 14`. The planner searches every service's lines
for such change lines from two hours before the window (`SEARCH`), then every service's lines that
name what the change touched — its setting in any spelling (`BCRYPT_COST` as `bcrypt cost`), an
opaque id it names (a distribution, a listener), a host it points to (`follow_up`). A change is
the cause when what it touched moved after it: the service it names (or that logged it) fails or is
slow, or other lines name what it touched after it. Its layer follows what it set: a host or
endpoint (connect), a cache, CDN or proxy rule (http), else a parameter of the service (application).
"""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate, dependency_services
from reasoning.layered.facts import Facts, parse_time
from reasoning.layered.reading import (
    SERVICE_NAME,
    arg,
    every_service_lines,
    hosts_in,
    iso,
    short,
)
from reasoning.layered.warning_leads import names_service
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# Lines that change a setting (RE2 for the logs server; case-insensitive there).
SEARCH: Final = (
    r"(->|=>|→)|\bkv (put|set)\b|\bconfig(uration)? (reloaded|refreshed|changed|updated|pushed|applied)|"
    r"\b(reloaded|refreshed|updated|changed|pushed|applied) (the )?(config|configuration|settings)\b|"
    r"\bproperty [^ ]{1,80} (changed|set|updated)|\bfeature flag|\bflag [^ ]{1,80} (enabled|disabled|turned|set)|"
    r"cache[ _]?(behaviou?r|rule|policy)|proxy_cache|\bapply\b|\bset [^ ]{1,80} to |"
    r"\b(changed|switched|moved|pointed|repointed|updated|raised|lowered|reduced|increased) to\b|"
    r"\bfrom [^ ]{1,40} to [^ ]"
)
SEARCH_LIMIT: Final = 40
_QUERY_CHARS: Final = 500  # the logs server's longest query
FOLLOW_LIMIT: Final = 20
LEAD: Final = timedelta(hours=2)  # how far before the window a change is looked for
_CHANGE: Final = re.compile(SEARCH, re.IGNORECASE)
# A measured size going from one value to another (a GC's heap before and after a pause,
# `412M->96M(1024M)`): a measurement, not a setting changed.
_SIZE_ARROW: Final = re.compile(
    r"\b\d{1,12}(?:\.\d{1,6})?[KMGT]i?B? ?(?:->|=>|→) ?\d{1,12}(?:\.\d{1,6})?[KMGT]i?B?\b"
)
# Setting names: UPPER_SNAKE, dotted or snake keys before a value (`pool.max_size=5`).
_UPPER_KEY: Final = re.compile(r"\b[A-Z][A-Z0-9]{0,40}(?:_[A-Z0-9]{1,40}){1,8}\b")
# Lower snake-case names (`acct_cache`, `max_pool_size`), not the words around them.
_SNAKE: Final = re.compile(r"(?<![\w$.])[a-z][a-z0-9]{0,40}(?:_[a-z0-9]{1,40}){1,8}\b")
_KEY_VALUE: Final = re.compile(
    r"(?<![\w.-])([A-Za-z][A-Za-z0-9]{0,40}(?:[_.][A-Za-z0-9]{1,40}){1,8}) ?[=:] ?[\"']?[\w./:-]"
)
# `bcrypt cost 10 -> 14`, `pbkdf2 iterations: 10000 => 600000`: the words before the old value.
_PHRASE_ARROW: Final = re.compile(
    r"(?<![\w.-])([A-Za-z][\w.-]{1,40}(?: [A-Za-z][\w.-]{1,40})?)[ :=]{1,3}[\"']?[\w.]{1,40}[\"']? ?(?:->|=>|→)"
)
# A dotted kernel or host setting (`net.ipv4.ip_forward`, `vm.max_map_count`).
_DOTTED_KEY: Final = re.compile(r"\b[a-z][a-z0-9_]{1,30}(?:\.[a-z0-9_]{1,40}){2,6}\b")
_OPAQUE_ID: Final = re.compile(r"\b[A-Z0-9]{8,40}\b")
# A monitor's reading of a path (`web -> db:5432 tcp rtt p50 6.9ms`, `a → b latency 40 ms`): its
# arrow joins the two ends measured, it records no change.
_MEASURED: Final = re.compile(
    r"(?:->|=>|→) ?[\w.:-]{1,200}[ ,;][^\n]{0,60}?\b(?:rtt|round[ -]?trip|latency|ping|"
    r"p50|p90|p95|p99)\b[^\n]{0,40}?\d ?(?:ms|us|µs|s)\b",
    re.IGNORECASE,
)
# An infrastructure-as-code resource address `<type>.<name>` an apply reports on
# (`helm_release.edge_proxy created`, `aws_lb_listener.api: Modifying...`): the type is a kind of
# resource, not what the change touched; the name is.
_RESOURCE_ADDRESS: Final = re.compile(
    r"(?<![\w$.])([a-z][a-z0-9]{0,40}(?:_[a-z0-9]{1,40}){1,8})\.([a-z][a-z0-9_-]{0,62})"
    r"(?=:? +(?:creat|destroy|modif|updat|replac|read|refresh|import|apply|still)|: )",
    re.IGNORECASE,
)
_POLICY_NAME: Final = re.compile(
    r"\b(?:cache[_ ]?policy|policy|rule)[ =:]{1,3}([a-z][\w.-]{2,60})"
)
_EDGE: Final = re.compile(
    r"cach(?:e|ing)|\bcdn\b|cloudfront|fastly|akamai|varnish|\bedge\b|\bbehaviou?r",
    re.IGNORECASE,
)
_ENDPOINT: Final = re.compile(
    r"host|endpoint|\burl\b|jdbc|dsn|replica|region|address|upstream", re.IGNORECASE
)
_CHANGE_TOOLS: Final = frozenset(
    {"terraform", "consul", "config-server", "argocd", "flux", "helm", "spinnaker"}
)
_VERBS: Final = frozenset(
    [
        "changed",
        "set",
        "from",
        "raised",
        "lowered",
        "increased",
        "decreased",
        "reduced",
        "updated",
        "is",
        "was",
        "to",
        "now",
    ]
)
_GENERIC: Final = frozenset({"proxy_cache", "cache_policy", "default_ttl", "max_ttl"})
_NOT_KEYS: Final = frozenset({"x-cache", "http", "https"})
_WORD: Final = re.compile(r"[a-z][a-z0-9-]{1,60}")
# A caller's failed call: the callee's name in it is the one that failed, not the caller.
_CALLER: Final = re.compile(
    r"timed? ?out|did not (?:answer|respond)|\b50[234]\b|upstream|unavailable|refused",
    re.IGNORECASE,
)
_DEPENDENCIES: Final = 4  # the planner's max_dependencies
_CONFIDENCE: Final = 0.88  # above a slow service's own warnings (0.78)
_NODE_CONFIDENCE: Final = 0.9  # a node changed, and its pods' workloads fail there


@dataclass(frozen=True)
class ChangeLine:
    """A line of the change search: who logged it, when, what it says."""

    obs: Observation
    service: str
    at: datetime | None
    message: str

    @property
    def fact(self) -> str:
        return short(f"search_logs: {self.service} logs a change: {self.message}", 300)


def terms(message: str) -> list[str]:
    """What a change line touched: its setting names, opaque ids, policy names and hosts."""
    found: list[str] = []

    def add(term: str) -> None:
        term = term.strip(" :=\"'")
        if len(term) >= 3 and term.lower() not in _NOT_KEYS and term not in found:
            found.append(term)

    for match in _UPPER_KEY.finditer(message):
        add(match.group(0))
    for match in _KEY_VALUE.finditer(message):
        add(match.group(1))
    kinds = set()
    for match in _RESOURCE_ADDRESS.finditer(message):
        kinds.add(match.group(1))
        add(match.group(2))
    for match in _SNAKE.finditer(message):
        if match.group(0) not in _GENERIC and match.group(0) not in kinds:
            add(match.group(0))
    for match in _PHRASE_ARROW.finditer(message):
        words = match.group(1).split()
        while words and words[-1].lower() in _VERBS:
            words.pop()
        if words and not any(w in found for w in words):
            add(" ".join(words))
    for match in _OPAQUE_ID.finditer(message):
        token = match.group(0)
        if any(ch.isdigit() for ch in token) and any(ch.isalpha() for ch in token):
            add(token)
    for match in _POLICY_NAME.finditer(message):
        add(match.group(1))
    for host in hosts_in(message):
        add(host)
    return found


def spelling(term: str) -> str:
    """An RE2 pattern for `term` in any spelling: `BCRYPT_COST` also as `bcrypt cost`, `bcrypt-cost`."""
    parts = [re.escape(p) for p in re.split(r"[_ .-]", term) if p]
    if (len(parts) > 1 and "." not in term.strip(".")) or " " in term:
        return "[ _.-]?".join(parts)
    return re.escape(term)


def is_quiet(facts: Facts) -> bool:
    """No service logs a new error of its own: errors, if any, are callers' naming another service."""
    known = set(facts.errors) | set(facts.health)
    for errors in facts.errors.values():
        for group in errors.groups:
            if not group.is_new:
                continue
            others = [
                s for s in known if s != errors.service and names_service(group.text, s)
            ] or (
                [
                    w
                    for w in _WORD.findall(group.text)
                    if w != errors.service and SERVICE_NAME.match(w)
                ]
                if _CALLER.search(group.text)  # once per line, not once per word
                else []
            )
            if not others:
                return False
    return True


def search_arguments(window: dict[str, str]) -> dict[str, Any] | None:
    """The change search: every service's lines that change a setting, from `LEAD` before the window."""
    start, end = parse_time(window.get("start", "")), window.get("end", "")
    if start is None:
        return None
    return {
        "query": SEARCH,
        "regex": True,
        "start": iso(start - LEAD),
        "end": end,
        "limit": SEARCH_LIMIT,
    }


def searches(
    inv: Investigation,
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
    *,
    refused: bool = False,
) -> list[PlannedCall | None]:
    """When nothing logs an error of its own (or a client is `refused` for exceeding a limit, which
    a lowered setting explains): the change search, then the search of every line naming what the
    changes touched."""
    if not (is_quiet(facts) or refused) or not (facts.errors or facts.health):
        return []
    read = set(facts.errors) | {arg(f.obs, "service") for f in facts.failures}
    if any(d not in read for d in dependency_services(inv, facts)[:_DEPENDENCIES]):
        return []  # the services the incident names are read first: one may fail on its own
    arguments = search_arguments(window)
    if arguments is None:
        return []
    calls = [
        call(
            SEARCH_LOGS,
            arguments,
            "no service logs an error of its own: which setting, config or rule changed "
            "before the incident",
        )
    ]
    follow = follow_up(inv, window)
    if follow is not None:
        calls.append(
            call(
                SEARCH_LOGS,
                follow,
                "what the changes touched: every line naming their settings, ids or hosts",
            )
        )
    return calls


def follow_query(inv: Investigation) -> str | None:
    """The follow-up's regex: what the found changes touched, each in any spelling (at most four)."""
    patterns: list[str] = []
    for term in dict.fromkeys(
        t for line in change_lines(inv) for t in terms(line.message)
    ):
        pattern = spelling(term)
        if len(patterns) < 4 and len("|".join([*patterns, pattern])) <= _QUERY_CHARS:
            patterns.append(pattern)
    return "|".join(patterns) or None


def follow_up(inv: Investigation, window: dict[str, str]) -> dict[str, Any] | None:
    """The search of every line naming what the found changes touched, from the first change on."""
    query = follow_query(inv)
    times = [line.at for line in change_lines(inv) if line.at is not None]
    if query is None or not times:
        return None
    return {
        "query": query,
        "regex": True,
        "start": iso(min(times)),
        "end": window.get("end", ""),
        "limit": FOLLOW_LIMIT,
    }


def change_lines(inv: Investigation) -> list[ChangeLine]:
    """The change search's lines that record a change (not an error's words), one per message."""
    out: list[ChangeLine] = []
    seen: set[str] = set()
    for obs, line in every_service_lines(inv, SEARCH):
        message = str(line.get("message") or "")
        level = str(line.get("level") or "").lower()
        shape = re.sub(r"\d+", "N", message)
        if level in ("error", "fatal", "critical") or shape in seen:
            continue
        if not _CHANGE.search(_SIZE_ARROW.sub(" ", message)) or _MEASURED.search(
            message[:2000]
        ):
            continue  # no change: measured sizes going down or up, a monitor's reading of a path
        seen.add(shape)
        out.append(
            ChangeLine(
                obs,
                str(line.get("service") or ""),
                parse_time(str(line.get("time") or "")),
                message,
            )
        )
    return out


def _touched(
    inv: Investigation,
    change: ChangeLine,
    term_list: list[str],
    answers: list[tuple[Observation, dict[str, Any]]],
) -> list[tuple[Observation, str, str]]:
    """Lines after the change, other than change lines, naming what it touched: (span, service, line)."""
    out: list[tuple[Observation, str, str]] = []
    patterns = [re.compile(spelling(t), re.IGNORECASE) for t in term_list]
    for obs, line in answers:
        message = str(line.get("message") or "")
        at = parse_time(str(line.get("time") or ""))
        if message == change.message or (change.at and at and at < change.at):
            continue
        if _CHANGE.search(message):
            continue  # another change line, not what the change touched
        if any(p.search(message) for p in patterns):
            out.append((obs, str(line.get("service") or ""), message))
    return out


def _follow_answers(inv: Investigation) -> Iterable[tuple[Observation, dict[str, Any]]]:
    query = follow_query(inv)
    return every_service_lines(inv, query) if query else ()


def _layer(message: str, term_list: list[str]) -> str:
    if _EDGE.search(message):
        return layers.HTTP
    # A setting that names where to connect (a host, URL, replica …) set to a host: the path to it
    # changed. A dotted property name (`server.tomcat.threads.max`, a topic) is not a host set.
    if any(_ENDPOINT.search(t) for t in term_list) and hosts_in(message):
        return layers.CONNECT
    return layers.APPLICATION


def _remote_fault(board: Board) -> bool:
    """A fault already confirmed on the network path (a third party's limit, a probe's failure): the
    incident is not quiet, whatever its callers' own lines say, and a change is at most its trigger."""
    return any(
        c.status == "confirmed" and c.layer in layers.NETWORK_LAYERS
        for c in board.candidates.values()
    )


def _failing(board: Board) -> dict[str, Candidate]:
    """Services with a standing hypothesis of their own (slow, failing), by name."""
    return {
        c.component: c
        for c in board.candidates.values()
        if c.status != "ruled_out"
        and c.layer == layers.APPLICATION
        and c.confidence >= 0.3
    }


def quiet_changes(board: Board) -> None:
    """When no service logs an error of its own, a setting, config or rule change logged before the incident whose subject then moved (the service it names fails or is slow, or later lines name what it touched) is the cause, cited by its change line."""
    if not is_quiet(board.facts) or _remote_fault(board):
        return
    failing = _failing(board)
    answers = list(_follow_answers(board.inv))
    for change in change_lines(board.inv)[:12]:
        if _concluded(board, change):
            continue  # another rule already read this line as its component's own fault
        term_list = terms(change.message)
        named = [
            s
            for s in failing
            if s == change.service or names_service(change.message, s)
        ]
        touched = _touched(board.inv, change, term_list, answers) if term_list else []
        if not named and not touched:
            continue
        _conclude(board, change, term_list, named, touched, failing)
        return


def _concluded(board: Board, change: ChangeLine) -> bool:
    """A confirmed hypothesis already cites this change line (a back end's own state change)."""
    head = change.message[:80]
    return any(
        c.status == "confirmed" and any(head in e.fact for e in c.evidence)
        for c in board.candidates.values()
    )


def _conclude(
    board: Board,
    change: ChangeLine,
    term_list: list[str],
    named: list[str],
    touched: list[tuple[Observation, str, str]],
    failing: dict[str, Candidate],
) -> None:
    node = changed_node(board, change.message)
    if node is not None:
        _conclude_on_node(board, change, term_list, touched, node)
        return
    layer = _layer(change.message, term_list)
    service = named[0] if named else None
    if service is None:
        # The service whose own lines name what the change touched, when the change names it.
        service = next(
            (
                who
                for _, who, _ in touched
                if who != change.service and names_service(change.message, who)
            ),
            None,
        )
    if layer == layers.HTTP:
        shared = [
            t
            for t in term_list
            if any(t.lower() in line.lower() for _, _, line in touched)
        ]
        component = (shared or term_list or [change.service])[0]
    else:
        component = service or (term_list or [change.service])[0]
    c = board.get(
        layer,
        component,
        f"a change before the incident set what {component} depends on: "
        f"{short(change.message, 140)}",
    )
    if c.status == "ruled_out":
        return
    if not c.statement.startswith("a change before the incident"):
        c.statement += f"; it began after a change: {short(change.message, 140)}"
    c.cite(change.obs, change.fact)
    for obs, who, line in touched[:1]:
        c.cite(obs, short(f"search_logs: {who} logs after the change: {line}", 300))
    moved = (
        f"{service} fails or is slow after it"
        if service in failing
        else f"{touched[0][1]} names what it touched after it"
    )
    c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
    line = f"{change.service} logs a change: {short(change.message, 140)}"
    c.chain = [
        board.symptom(),
        line,
        f"{moved}; no service logs an error of its own",
        c.statement,
    ]
    c.keywords = [component, *term_list[:3], "config change"]
    if service and layer != layers.APPLICATION and service in failing:
        victim = failing[service]
        victim.confidence = min(victim.confidence, 0.6)
        victim.status = "likely"
        victim.statement += f"; a symptom of {c.id} (a change before it)"


def changed_node(board: Board, message: str) -> str | None:
    """The Kubernetes node a change line names as the host it changed (a play's `changed: [node]`)."""
    if board.cluster is None:
        return None
    table = board.cluster.cluster.table("nodes", "")
    for row in table.rows if table else ():
        name = row.get("NAME", "")
        if name and re.search(
            rf"(?<![\w.-]){re.escape(name)}(?![\w-])", message[:4000], re.IGNORECASE
        ):
            return name
    return None


def _conclude_on_node(
    board: Board,
    change: ChangeLine,
    term_list: list[str],
    touched: list[tuple[Observation, str, str]],
    node: str,
) -> None:
    """A host setting changed on one node: the node is the fault at the platform layer, the
    workloads whose failing pods run there its victims."""
    c = board.get(
        layers.PLATFORM,
        f"node/{node}",
        f"a change on node {node} before the incident broke what it provides to its pods: "
        f"{short(change.message, 140)}",
    )
    if c.status == "ruled_out":
        return
    c.cite(change.obs, change.fact)
    for obs, who, line in touched[:2]:
        c.cite(obs, short(f"search_logs: {who} logs after the change: {line}", 300))
    c.status, c.confidence = "confirmed", max(c.confidence, _NODE_CONFIDENCE)
    c.keywords = [node, *term_list[:3], "node", "config change"]
    c.chain = [
        board.symptom(),
        f"{change.service} logs a change on {node}: {short(change.message, 140)}",
        *(f"{who} on {node}: {short(line, 120)}" for _, who, line in touched[:1]),
        c.statement,
    ]
    # The node's own agents' lines naming the node or the setting changed (a kernel key).
    named = [node, *term_list[:3], *_DOTTED_KEY.findall(change.message[:4000])[:3]]
    patterns = [
        re.compile(rf"(?<![\w.-]){re.escape(n)}(?![\w-])", re.IGNORECASE) for n in named
    ]
    for errors in board.facts.errors.values():
        group = next(
            (
                g
                for g in (*errors.groups, *errors.warnings)
                if not g.is_stale and any(p.search(g.text[:4000]) for p in patterns)
            ),
            None,
        )
        if group is None:
            continue
        c.cite(errors.obs, errors.fact(group))
        own = board.candidates.get(f"{layers.APPLICATION}:{errors.service}")
        if own is not None and own is not c:
            own.explained_by(c, f"it reports what changed on {node}")
    cluster = board.cluster.cluster if board.cluster else None
    for f in board.cluster.findings if board.cluster else ():
        if cluster is None or not f.namespace or f.component == c.component:
            continue
        failing_here = [
            p
            for p in cluster.pods(f.namespace)
            if p.node == node
            and not p.is_healthy
            and cluster.owner(f.namespace, "pod", p.name) == f.component
        ]
        victim = board.candidates.get(f"{f.layer}:{f.component}")
        if failing_here and victim is not None:
            victim.explained_by(c, f"its failing pod runs on {node}, changed before it")
