"""Objects a workload's own refusal names: the object the message blames, not the workload, is the fault.

Rule: when a workload cannot create or start its pods (its finding is at admission or startup) and
the warning that says so names another object — a ResourceQuota exceeded, a LimitRange's bound, the
namespace's Pod Security level, a Secret or ConfigMap (or one of its keys), a ServiceAccount, a
PriorityClass or RuntimeClass, a policy that denied the pod, the network plugin's agent that cannot
give the pod an address — that object is the fault at the platform layer and the workloads it
refuses are its victims (`explains`): the fix is there, not in the workloads. One table (`NAMERS`)
reads every kind: a message pattern, the kind it names, and where the name comes from (the message,
the namespace, the namespace's only object of that kind, a system agent whose logs say the same
trouble). A read of the object (`reads`), when the budget allows, joins the evidence; an object whose
name cannot be found (a LimitRange not listed) leaves the workload blamed. The workload's own image,
probe or command is its own fault and names no other object.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.event_reasons import cause_of
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Event, parse_labels
from reasoning.layered.reading import short
from reasoning.observations import Observation, PlannedCall
from reasoning.tools import DESCRIBE, GET_RESOURCES

# The warnings that say a workload's pods cannot be created or started.
REFUSALS = frozenset(
    {"FailedCreate", "Failed", "FailedCreatePodSandBox", "FailedMount", "BackOff"}
)
_NAME = r"(?P<name>[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?)"
# The kind a message names its object by, when the namer leaves it to the message.
_KIND = r"(?P<kind>Secret|ConfigMap|secret|configmap)"
# Where a named object's name comes from.
MESSAGE = "message"  # the pattern's `name` group
NAMESPACE = "namespace"  # the namespace the pods are refused in
LISTED = "listed"  # the namespace's objects of that kind, when one stands out
# A system agent whose logs say the same trouble (`event_reasons.CAUSES`).
AGENT = "agent"
# The object behind the pod's volume the message names (its describe's `Volumes:`).
VOLUME = "volume"
_SYSTEM_NS = "kube-system"


@dataclass(frozen=True)
class Namer:
    """One way a refusal names an object: the pattern, the kind, where its name comes from."""

    pattern: re.Pattern[str]
    kind: str  # "" when the message says it (`kind` group) or names the object alone
    source: str
    what: str  # the object's trouble, in a few words


NAMERS: tuple[Namer, ...] = (
    Namer(
        re.compile(rf"exceeded quota: {_NAME}"), "resourcequota", MESSAGE, "exhausted"
    ),
    Namer(
        re.compile(
            r"(?:maximum|minimum) [a-z-]+ usage per (?:Container|Pod|PersistentVolumeClaim) is|"
            r"max limit to request ratio per (?:Container|Pod) is",
            re.I,
        ),
        "limitrange",
        LISTED,
        "bounds the pods' requests and limits",
    ),
    Namer(
        re.compile(r'violates PodSecurity "([a-z]+):'),
        "namespace",
        NAMESPACE,
        "enforces a Pod Security level the pods violate",
    ),
    Namer(
        re.compile(rf"couldn't find key \S+ in {_KIND} [a-z0-9-]+/{_NAME}"),
        "",
        MESSAGE,
        "lacks the key the pods read",
    ),
    Namer(
        re.compile(rf'{_KIND} "{_NAME}" not found'),
        "",
        MESSAGE,
        "does not exist",
    ),
    Namer(
        re.compile(
            r'failed for volume "(?P<volume>[^"]{1,253})" : (?P<kind>configmap|secret) '
            r"references non-existent (?:config |secret )?key",
            re.I,
        ),
        "",
        VOLUME,
        "lacks the key the pods mount",
    ),
    Namer(
        re.compile(rf'serviceaccount "{_NAME}" not found'),
        "serviceaccount",
        MESSAGE,
        "does not exist",
    ),
    Namer(
        re.compile(rf"no PriorityClass with name {_NAME} was found"),
        "priorityclass",
        MESSAGE,
        "does not exist",
    ),
    Namer(
        re.compile(rf'RuntimeClass "{_NAME}" not found'),
        "runtimeclass",
        MESSAGE,
        "does not exist",
    ),
    Namer(
        re.compile(rf"ValidatingAdmissionPolicy '{_NAME}' with binding"),
        "validatingadmissionpolicy",
        MESSAGE,
        "denies the pods",
    ),
    Namer(
        re.compile(rf"blocked due to the following policies\W+{_NAME}:"),
        "clusterpolicy",
        MESSAGE,
        "denies the pods",
    ),
    Namer(
        re.compile(rf"denied the request: \[{_NAME}\]"),
        "",
        MESSAGE,
        "denies the pods",
    ),
    Namer(
        re.compile(
            r"failed to (?:assign|allocate) (?:an )?IP|InsufficientFreeAddresses|"
            r"no (?:available )?IP(?:/Prefix)? addresses|range is full",
            re.I,
        ),
        "",
        AGENT,
        "cannot give the pods an address",
    ),
)


@dataclass(frozen=True)
class Named:
    """The object one refusal names: `component` (kind/name, or a bare name), and why."""

    component: str
    namer: Namer


def named_object(
    cluster: Cluster,
    ns: str,
    message: str,
    facts: Facts | None = None,
    pod: str = "",
) -> tuple[Named, list[tuple[Observation, str]]] | None:
    """The object a refusal's message names and the reads that confirm it, or None."""
    for namer in NAMERS:
        match = namer.pattern.search(message[:4000])
        if match is None:
            continue
        groups = match.groupdict()
        kind = namer.kind or (groups.get("kind") or "").lower()
        found = _name(cluster, facts, ns, namer, match, message, pod)
        if found is None:
            return None
        name, seen = found
        component = f"{kind}/{name}" if kind else name
        return Named(component, namer), seen
    return None


def _name(
    cluster: Cluster,
    facts: Facts | None,
    ns: str,
    namer: Namer,
    match: re.Match[str],
    message: str,
    pod: str,
) -> tuple[str, list[tuple[Observation, str]]] | None:
    if namer.source == MESSAGE:
        name = match.group("name")
        kind = namer.kind or (match.groupdict().get("kind") or "").lower()
        return name, _described(cluster, kind, ns, name)
    if namer.source == NAMESPACE:
        return ns, _described(cluster, "namespace", ns, ns)
    if namer.source == LISTED:
        return _listed(cluster, ns, namer.kind, message)
    if namer.source == VOLUME:
        return _volume_source(cluster, ns, pod, match)
    return _agent(cluster, facts, message)


def _volume_source(
    cluster: Cluster, ns: str, pod: str, match: re.Match[str]
) -> tuple[str, list[tuple[Observation, str]]] | None:
    """The ConfigMap or Secret behind the pod's volume the message names (its describe's
    `Volumes:` block)."""
    described = cluster.describe("pods", ns, pod) if pod else None
    if described is None:
        return None
    volumes = described.text.partition("\nVolumes:")[2][:20_000]
    block = re.search(
        rf"^  {re.escape(match.group('volume'))}:\n((?:    .*\n?)+)",
        volumes,
        re.MULTILINE,
    )
    field = (
        re.search(r"^\s+(?:Name|SecretName):\s*(\S+)", block.group(1), re.MULTILINE)
        if block
        else None
    )
    if field is None:
        return None
    name = field.group(1)
    return name, [
        (described, f"describe pod {pod}: volume {match.group('volume')} is {name}")
    ]


def _described(
    cluster: Cluster, kind: str, ns: str, name: str
) -> list[tuple[Observation, str]]:
    if not kind:
        return []
    obs = cluster.describe(kind, ns, name)
    if obs is None:
        return []
    lines = [
        line.strip()
        for line in obs.text.splitlines()
        if re.search(r"pod-security|enforce|Used|Hard|ratio|bytes|^Data", line, re.I)
    ]
    return [(obs, f"describe {kind} {name}: {short('; '.join(lines[:4]), 200)}")]


def _listed(
    cluster: Cluster, ns: str, kind: str, message: str
) -> tuple[str, list[tuple[Observation, str]]] | None:
    """The namespace's one object of `kind`, or the one whose describe shows the bound the message
    cites; None when none is listed or several and none is told apart."""
    names = cluster.names(kind + "s", ns)
    if not names:
        return None
    resource = re.search(r"\b(cpu|memory|storage|ephemeral-storage)\b", message, re.I)
    shown = [
        n
        for n in names
        if (obs := cluster.describe(kind, ns, n)) is not None
        and (resource is None or resource.group(1).lower() in obs.text.lower())
    ]
    if len(shown) == 1 or (not shown and len(names) == 1):
        name = shown[0] if shown else names[0]
        table = cluster.table(kind + "s", ns)
        seen = (
            [(table.obs, f"get {kind}s -n {ns}: {table.line(name)}")] if table else []
        )
        return name, seen + _described(cluster, kind, ns, name)
    return None


def _agent(
    cluster: Cluster, facts: Facts | None, message: str
) -> tuple[str, list[tuple[Observation, str]]] | None:
    """The system agent (its owner's name) whose read logs (its pod's, or its service's in the logs
    server, named like a system pod) say the message's trouble."""
    cause = cause_of(message)
    if cause is None:
        return None
    agents = {agent_name(cluster, _SYSTEM_NS, p.name) for p in cluster.pods(_SYSTEM_NS)}
    for service, errors in (facts.errors if facts is not None else {}).items():
        if service not in agents:
            continue
        for group in (*errors.groups, *errors.warnings):
            if not group.is_stale and cause[0].search(group.sample or group.signature):
                return service, [(errors.obs, errors.fact(group))]
    for (ns, pod, _, _), obs in cluster.logs.items():
        if ns != _SYSTEM_NS:
            continue
        lines = [
            line for line in obs.text[:200_000].splitlines() if cause[0].search(line)
        ]
        if lines:
            return agent_name(cluster, ns, pod), [
                (obs, f"logs {pod} ({ns}): {short(lines[-1], 220)}")
            ]
    return None


def agent_name(cluster: Cluster, ns: str, pod: str) -> str:
    """A system agent's name: its owner's (a DaemonSet listed), else its pods' app label, else the
    pod's name without a DaemonSet pod's suffix."""
    kind, _, owner = cluster.owner(ns, "pod", pod).partition("/")
    if kind != "pod":
        return owner
    table = cluster.table("pods", ns)
    row = table.row(pod) if table else None
    labels = parse_labels(row.get("LABELS", "")) if row else {}
    for key in ("k8s-app", "app.kubernetes.io/name", "app"):
        if labels.get(key):
            return labels[key]
    return re.sub(r"-[a-z0-9]{5}$", "", pod)


def blocked_by_named(
    cluster: Cluster, facts: Facts, ns: str, found: dict[str, Finding]
) -> list[Finding]:
    """A workload refused at admission or startup by a warning that names another object (a quota, a LimitRange, the namespace's Pod Security level, a Secret or ConfigMap key, a policy, the network plugin's agent) is that object's victim: the named object is the fault, at platform."""
    out: dict[str, Finding] = {}
    for event in cluster.warnings(ns):
        if event.reason not in REFUSALS:
            continue
        victim = found.get(cluster.owner(ns, event.kind, event.name))
        if victim is None or victim.stage not in ("admission", "startup"):
            continue
        pod = event.name if event.kind == "pod" else ""
        named = named_object(cluster, ns, event.message, facts, pod)
        if named is None or named[0].component == victim.component:
            continue
        blocker, seen = named
        f = out.get(blocker.component)
        if f is None:
            f = out[blocker.component] = _finding(ns, victim, blocker, event)
            for obs, fact in seen:
                f.cite(obs, fact)
            _cite_writer(cluster, ns, f)
        _add_victim(f, victim, event)
    return list(out.values())


# The operators that write a Secret from an outside store, by the kind their events are told under.
_WRITERS = frozenset(
    {"externalsecret", "sealedsecret", "secretproviderclass", "vaultstaticsecret"}
)


def _cite_writer(cluster: Cluster, ns: str, f: Finding) -> None:
    """A Secret written by an operator's object of the same name (its events say so): that object
    joins the statement, the keywords and the evidence (its last change may be the cause)."""
    kind, _, name = f.component.partition("/")
    if kind != "secret":
        return
    for event in cluster.events.get(ns, []):
        if event.kind in _WRITERS and event.name == name:
            f.cite(event.obs, event.fact)
            f.keywords += [event.object]
            f.statement += f" (written by {event.object}: {short(event.message, 80)})"
            return


def _finding(ns: str, victim: Finding, blocker: Named, event: Event) -> Finding:
    statement = (
        f"{blocker.component} {blocker.namer.what}: it refuses {victim.component}'s pods "
        f"({victim.reason}): {short(event.message, 200)}"
    )
    f = Finding(
        victim.stage, victim.reason, blocker.component, layers.PLATFORM, statement, ns
    )
    kind, _, name = blocker.component.rpartition("/")
    f.keywords = [k for k in (kind, name, victim.reason, victim.stage) if k]
    f.chain = [statement]
    return f


def _add_victim(f: Finding, victim: Finding, event: Event) -> None:
    f.cite(event.obs, event.fact)
    if victim.component in f.explains:
        return
    f.explains.append(victim.component)
    # The victim's evidence (its pods, its describes) shows the same refusal.
    for obs, fact in victim.evidence:
        f.cite(obs, fact)
    f.keywords += [k for k in victim.keywords if k not in f.keywords]
    f.chain.insert(
        0, f"{victim.component} cannot run its pods: {short(event.message, 120)}"
    )


def reads(
    cluster: Cluster, ns: str, call: Callable[..., PlannedCall | None]
) -> list[PlannedCall | None]:
    """The reads that confirm an object a refusal names: the namespace's LimitRanges (listed, then
    described), the namespace's Pod Security labels, the Secret or ConfigMap that lacks a key."""
    calls: list[PlannedCall | None] = []
    for event in cluster.warnings(ns):
        if event.reason not in REFUSALS:
            continue
        for namer in NAMERS:
            match = namer.pattern.search(event.message[:4000])
            if match is None:
                continue
            if namer.source == LISTED:
                plural = namer.kind + "s"
                if cluster.wants_list(plural, ns, wide=False):
                    calls.append(
                        call(
                            GET_RESOURCES,
                            {"kind": plural, "namespace": ns},
                            f"a {namer.kind} refuses pods in {ns}: {short(event.message, 80)}",
                        )
                    )
                calls += [
                    call(
                        DESCRIBE,
                        {"kind": namer.kind, "name": name, "namespace": ns},
                        f"the bounds of {namer.kind} {name}: do they refuse the pods",
                    )
                    for name in cluster.names(plural, ns)[:2]
                    if cluster.describe(namer.kind, ns, name) is None
                ]
            elif (
                namer.source == NAMESPACE
                and cluster.describe("namespace", ns, ns) is None
            ):
                calls.append(
                    call(
                        DESCRIBE,
                        {"kind": "namespace", "name": ns, "namespace": ns},
                        f"namespace {ns}'s labels: the Pod Security level its pods violate",
                    )
                )
            elif "couldn't find key" in match.group(0):
                kind = (match.group("kind") or "").lower()
                name = match.group("name")
                if kind and cluster.describe(kind, ns, name) is None:
                    calls.append(
                        call(
                            DESCRIBE,
                            {"kind": kind, "name": name, "namespace": ns},
                            f"the keys of {kind} {name}: the pods read one it lacks",
                        )
                    )
            break
    unique: dict[str, PlannedCall | None] = {}
    for c in calls:
        key = "" if c is None else f"{c.tool} {sorted(c.arguments.items())}"
        unique.setdefault(key, c)
    return [c for c in unique.values() if c is not None]
