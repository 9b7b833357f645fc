"""kubectl's text read into facts: kinds, tables, events, pods, labels, describe sections.

The kubernetes server answers kubectl's own text and, for tables, the same rows structured; this
reads the rows when they are there and the text otherwise (a hand-written or other server's table).
Pure functions and dataclasses; no I/O. `cluster.py` gathers these per namespace.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from reasoning.layered.reading import as_dict, as_list
from reasoning.observations import Observation

# kubectl's names for a kind → the plural resource (the forms a planner may ask with).
_RESOURCES = {
    "po": "pods",
    "pod": "pods",
    "svc": "services",
    "service": "services",
    "deploy": "deployments",
    "deployment": "deployments",
    "rs": "replicasets",
    "replicaset": "replicasets",
    "sts": "statefulsets",
    "statefulset": "statefulsets",
    "ds": "daemonsets",
    "daemonset": "daemonsets",
    "ep": "endpoints",
    "endpoint": "endpoints",
    "no": "nodes",
    "node": "nodes",
    "ns": "namespaces",
    "namespace": "namespaces",
    "pvc": "persistentvolumeclaims",
    "persistentvolumeclaim": "persistentvolumeclaims",
    "quota": "resourcequotas",
    "resourcequota": "resourcequotas",
    "sa": "serviceaccounts",
    "serviceaccount": "serviceaccounts",
    "cm": "configmaps",
    "configmap": "configmaps",
    "secret": "secrets",
    "ing": "ingresses",
    "ingress": "ingresses",
    "httproute": "httproutes",
    "ev": "events",
    "event": "events",
    "job": "jobs",
    "cj": "cronjobs",
    "cronjob": "cronjobs",
    "netpol": "networkpolicies",
    "networkpolicy": "networkpolicies",
    "hpa": "horizontalpodautoscalers",
    "horizontalpodautoscaler": "horizontalpodautoscalers",
    "pdb": "poddisruptionbudgets",
    "poddisruptionbudget": "poddisruptionbudgets",
    "limits": "limitranges",
    "limitrange": "limitranges",
    "endpointslice": "endpointslices",
    "pv": "persistentvolumes",
    "persistentvolume": "persistentvolumes",
    "sc": "storageclasses",
    "storageclass": "storageclasses",
    "role": "roles",
    "rolebinding": "rolebindings",
    "ingressclass": "ingressclasses",
    "vpa": "verticalpodautoscalers",
    "verticalpodautoscaler": "verticalpodautoscalers",
}
_SINGULAR = {
    "pods": "pod",
    "services": "service",
    "deployments": "deployment",
    "replicasets": "replicaset",
    "statefulsets": "statefulset",
    "daemonsets": "daemonset",
    "endpoints": "endpoints",
    "nodes": "node",
    "namespaces": "namespace",
    "persistentvolumeclaims": "persistentvolumeclaim",
    "resourcequotas": "resourcequota",
    "serviceaccounts": "serviceaccount",
    "configmaps": "configmap",
    "secrets": "secret",
    "ingresses": "ingress",
    "httproutes": "httproute",
    "events": "event",
    "jobs": "job",
    "cronjobs": "cronjob",
    "networkpolicies": "networkpolicy",
    "horizontalpodautoscalers": "horizontalpodautoscaler",
    "poddisruptionbudgets": "poddisruptionbudget",
    "limitranges": "limitrange",
    "endpointslices": "endpointslice",
    "persistentvolumes": "persistentvolume",
    "storageclasses": "storageclass",
    "ingressclasses": "ingressclass",
    "verticalpodautoscalers": "verticalpodautoscaler",
}
# Kinds without a namespace: one table and one describe per cluster, whatever namespace was asked.
CLUSTER_SCOPED = frozenset(
    {"nodes", "namespaces", "persistentvolumes", "storageclasses", "ingressclasses"}
)


def scope(plural: str, namespace: str) -> str:
    """The namespace a kind's table or describe is kept under ("" for a cluster-scoped kind)."""
    return "" if plural in CLUSTER_SCOPED else namespace


# Kinds whose `-o wide` table has no column more than the plain one (kubectl's printers): a list
# asked wide and not answered is not answered plain either.
SAME_WIDE = frozenset(
    {
        "endpoints",
        "endpointslices",
        "ingresses",
        "networkpolicies",
        "horizontalpodautoscalers",
        "poddisruptionbudgets",
        "configmaps",
        "secrets",
        "serviceaccounts",
        "resourcequotas",
        "limitranges",
        "namespaces",
        "ingressclasses",
        "verticalpodautoscalers",
    }
)
_GAP = re.compile(r"\s{2,}")
_HEADER = re.compile(r"[A-Z][A-Z0-9()\-_ ./]*")


def resource(kind: str) -> str:
    """The plural resource of a kind as kubectl takes it ('po', 'Pod', 'deployments.apps' …)."""
    name = kind.strip().lower().split(".")[0]
    return _RESOURCES.get(name, name)


def singular(kind: str) -> str:
    plural = resource(kind)
    return _SINGULAR.get(plural, plural.removesuffix("s"))


def ref(kind: str, name: str) -> str:
    """`kind/name` as a component names an object: lowercase singular kind."""
    return f"{singular(kind)}/{name}"


@dataclass(frozen=True)
class Table:
    obs: Observation
    rows: tuple[dict[str, str], ...]
    # How the answer's text names this kind's rows: "" for a one-kind get, `deployment.apps/` in a
    # multi-kind one.
    prefix: str = ""

    def row(self, name: str) -> dict[str, str] | None:
        return next((r for r in self.rows if r.get("NAME") == name), None)

    def line(self, name: str) -> str:
        """The row as kubectl printed it (for a fact), else its cells joined."""
        for text_line in self.obs.text.splitlines():
            if text_line.split()[:1] == [self.prefix + name]:
                return " ".join(text_line.split())
        row = self.row(name)
        return " ".join(row.values()) if row else name


def table_rows(obs: Observation) -> tuple[dict[str, str], ...]:
    """The rows of a table answer: structured when the server gave them, else read from the text."""
    result = as_dict(obs.result)
    rows = as_list(result.get("rows"))
    if rows:
        return tuple({str(k): str(v) for k, v in as_dict(r).items()} for r in rows if r)
    return parse_rows(obs.text)


@dataclass(frozen=True)
class KindPart:
    """One kind of a multi-kind `get` answer."""

    resource: str  # plural: deployments
    rows: tuple[dict[str, str], ...]  # NAME without the kind prefix
    prefix: str  # as the text names the rows: `deployment.apps/` ("" when none shown)
    is_found: bool  # objects of the kind were listed
    is_captured: bool = (
        True  # False: the server could not answer this kind (a snapshot's gap)
    )


def asked_kinds(arguments: Mapping[str, object]) -> list[str]:
    """The kinds a get_resources call asked, as plural resources: `kinds`, or `kind` ('po,svc')."""
    many = arguments.get("kinds")
    words = (
        [str(k) for k in many]
        if isinstance(many, list)
        else str(arguments.get("kind") or "").split(",")
    )
    return [resource(w) for w in words if w.strip()]


def kind_parts(obs: Observation) -> list[KindPart]:
    """A multi-kind `get` read per kind: the server's per-kind rows when structured (each with
    whether it was found and captured), else each table of the text by its rows' `kind/` prefix."""
    blocks = _kind_blocks(obs.text)
    structured = as_dict(as_dict(obs.result).get("kinds"))
    parts: list[KindPart] = []
    for plural in asked_kinds(obs.arguments):
        block = blocks.get(plural)
        part = as_dict(structured.get(plural))
        if part:
            rows = tuple(
                {str(k): str(v) for k, v in as_dict(r).items()}
                for r in as_list(part.get("rows"))
                if r
            )
            parts.append(
                KindPart(
                    plural,
                    rows,
                    block[0] if block else "",
                    part.get("found") is True and bool(rows),
                    part.get("source") != "not_captured",
                )
            )
        elif block is not None:
            parts.append(KindPart(plural, block[1], block[0], bool(block[1])))
        else:
            # Not in the text: kubectl prints nothing for a kind with no object.
            parts.append(
                KindPart(plural, (), "", is_found=False, is_captured=not structured)
            )
    return parts


def _kind_blocks(text: str) -> dict[str, tuple[str, tuple[dict[str, str], ...]]]:
    """The tables of a multi-kind answer, by plural resource: (row prefix, rows without it)."""
    out: dict[str, tuple[str, tuple[dict[str, str], ...]]] = {}
    for block in re.split(r"\n\s*\n", text):
        rows = parse_rows(block)
        first = rows[0].get("NAME", "") if rows else ""
        head, slash, _ = first.partition("/")
        if not slash or resource(head) in out:
            continue
        out[resource(head)] = (
            head + "/",
            tuple(
                {**r, "NAME": r.get("NAME", "").removeprefix(head + "/")} for r in rows
            ),
        )
    return out


def parse_rows(text: str) -> tuple[dict[str, str], ...]:
    """A kubectl table read from its text: columns where the header's names begin, else by gaps."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ()
    header = lines[0]
    names = _GAP.split(header.strip())
    if len(names) < 2 or not all(_HEADER.fullmatch(n) for n in names):
        return ()
    starts: list[int] = []
    position = 0
    for name in names:
        position = header.index(name, position)
        starts.append(position)
        position += len(name)
    out: list[dict[str, str]] = []
    for line in lines[1:]:
        if line.startswith("["):
            break  # the server's "[not captured …]" note
        aligned = all(
            start == 0 or len(line) <= start or line[start - 1] == " "
            for start in starts
        )
        if aligned:
            cells = [
                line[start : (starts[i + 1] if i + 1 < len(starts) else None)].strip()
                for i, start in enumerate(starts)
            ]
        else:
            parts = _GAP.split(line.strip())
            if len(parts) > len(names):
                parts = [*parts[: len(names) - 1], "  ".join(parts[len(names) - 1 :])]
            cells = parts + [""] * (len(names) - len(parts))
        out.append(dict(zip(names, cells, strict=True)))
    return tuple(out)


@dataclass(frozen=True)
class Event:
    obs: Observation
    type: str  # Normal | Warning
    reason: str
    kind: str  # lowercase singular: pod, replicaset, node …
    name: str
    message: str
    seen_s: float | None = None  # since it was last seen (LAST SEEN, a describe's Age)

    @property
    def object(self) -> str:
        return f"{self.kind}/{self.name}"

    @property
    def fact(self) -> str:
        return f"{self.type} {self.reason} {self.object}: {self.message}"


def table_event(obs: Observation, row: dict[str, str]) -> Event | None:
    target = row.get("OBJECT") or row.get("INVOLVED OBJECT") or ""
    kind, _, name = target.partition("/")
    reason = row.get("REASON", "")
    if not reason or not name:
        return None
    return Event(
        obs=obs,
        type=row.get("TYPE", ""),
        reason=reason,
        kind=singular(kind),
        name=name,
        message=row.get("MESSAGE", ""),
        seen_s=age_seconds((row.get("LAST SEEN") or "").split(" ")[0]),
    )


def describe_events(obs: Observation, kind: str, name: str) -> list[Event]:
    """The Events: section of a describe (Type, Reason, Age, From, Message)."""
    out: list[Event] = []
    text = obs.text
    for block in _objects(text):
        block_name = describe_field(block, "Name") or name
        section = block.partition("\nEvents:")[2]
        for line in section.splitlines()[1:]:
            parts = _GAP.split(line.strip())
            if len(parts) >= 4 and parts[0] in ("Normal", "Warning"):
                message = "  ".join(parts[4:]) if len(parts) >= 5 else parts[-1]
                seen = age_seconds(parts[2].split(" ")[0])
                out.append(
                    Event(
                        obs,
                        parts[0],
                        parts[1],
                        singular(kind),
                        block_name,
                        message,
                        seen,
                    )
                )
            elif line and not line.startswith(" ") and not line.startswith("\t"):
                break
    return out


def _objects(text: str) -> list[str]:
    """One describe answer may hold several objects, separated by blank lines before `Name:`."""
    blocks = re.split(r"\n\s*\n(?=Name:)", text)
    return [b if b.startswith("\n") else "\n" + b for b in blocks if b.strip()]


def describe_field(block: str, name: str) -> str:
    match = re.search(rf"^{re.escape(name)}:[ \t]*(.*)$", block, re.MULTILINE)
    return match.group(1).strip() if match else ""


@dataclass(frozen=True)
class Pod:
    name: str
    namespace: str
    ready: tuple[int, int]
    status: str
    restarts: int
    node: str
    ip: str
    labels: dict[str, str] | None  # None: the list had no LABELS column
    line: str
    age_s: float | None = None  # since the pod started (its AGE), None when not shown
    restarted_s: float | None = (
        None  # since its last restart (`3 (5m ago)`), None when none shown
    )

    @property
    def is_ready(self) -> bool:
        return self.ready[1] > 0 and self.ready[0] >= self.ready[1]

    @property
    def is_healthy(self) -> bool:
        return (
            self.status in ("Running", "Completed", "Succeeded")
            and (self.is_ready or self.status != "Running")
            and self.restarts == 0
        )


def pod_from_row(namespace: str, row: dict[str, str], line: str) -> Pod:
    ready = re.fullmatch(r"(\d+)/(\d+)", row.get("READY", ""))
    restarts = re.match(r"\d+", row.get("RESTARTS", ""))
    labels: dict[str, str] | None = None
    if "LABELS" in row:
        labels = parse_labels(row["LABELS"])
    node = row.get("NODE", "")
    return Pod(
        name=row.get("NAME", ""),
        namespace=namespace,
        ready=(int(ready.group(1)), int(ready.group(2))) if ready else (0, 0),
        status=row.get("STATUS", ""),
        restarts=int(restarts.group(0)) if restarts else 0,
        node="" if node in ("<none>", "") else node,
        ip="" if row.get("IP", "<none>") == "<none>" else row.get("IP", ""),
        labels=labels,
        line=line,
        age_s=age_seconds(row.get("AGE", "")),
        restarted_s=age_seconds(ago.group(1))
        if (ago := re.search(r"\((\S+) ago\)", row.get("RESTARTS", "")))
        else None,
    )


_AGE_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "y": 365 * 86400}


def age_seconds(text: str) -> float | None:
    """kubectl's duration (`48s`, `31m`, `2h5m`, `12d`) in seconds; None when it is not one."""
    parts = re.findall(r"(\d+)([smhdy])", text.strip())
    if not parts or "".join(n + u for n, u in parts) != text.strip():
        return None
    return float(sum(int(n) * _AGE_UNITS[u] for n, u in parts))


def parse_labels(text: str) -> dict[str, str]:
    """`app=cart,tier=web` (kubectl's LABELS or SELECTOR cell); `<none>` is empty."""
    out: dict[str, str] = {}
    for part in text.split(","):
        key, sep, value = part.strip().partition("=")
        if sep and key:
            out[key] = value
    return out


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


@dataclass
class Containers:
    """What a pod's describe says about its containers."""

    waiting: list[str] = field(default_factory=list)  # State: Waiting reasons
    terminated: list[str] = field(
        default_factory=list
    )  # Last State / State: Terminated reasons
    exit_codes: list[str] = field(default_factory=list)
    ports: list[str] = field(default_factory=list)  # "8080/TCP"
    probes: list[str] = field(default_factory=list)  # Liveness/Readiness lines
    env: dict[str, str] = field(default_factory=dict)
    limits_cpu: str = ""
    node: str = ""
    controlled_by: str = ""


def read_containers(text: str) -> Containers:
    out = Containers()
    lines = text.splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        key, _, value = stripped.partition(":")
        value = value.strip()
        if key in ("State", "Last State"):
            following = lines[i + 1] if i + 1 < len(lines) else ""
            reason = re.match(r"\s*Reason:\s*(\S+)", following)
            if reason and value == "Waiting":
                out.waiting.append(reason.group(1))
            elif reason and value == "Terminated":
                out.terminated.append(reason.group(1))
        elif key == "Exit Code":
            out.exit_codes.append(value)
        elif key in ("Port", "Ports") and value and value != "<none>":
            out.ports += [p.strip() for p in value.split(",") if p.strip()]
        elif key in ("Liveness", "Readiness", "Startup"):
            out.probes.append(stripped)
        elif key == "Node" and not out.node:
            out.node = value.split("/")[0]
        elif key == "Controlled By" and not out.controlled_by:
            out.controlled_by = value
    env = re.findall(
        r"^\s{6,}([A-Z_][A-Z0-9_]*):\s+(.+)$",
        text.partition("Environment:")[2].partition("Mounts:")[0],
        re.MULTILINE,
    )
    out.env = {k: v.strip() for k, v in env}
    limits = re.search(r"Limits:\s*\n(?:\s+\w+:.*\n)*?\s+cpu:\s*(\S+)", text)
    out.limits_cpu = limits.group(1) if limits else ""
    return out


@dataclass(frozen=True)
class Container:
    """One container of a pod's describe (`Containers:` section, in the pod spec's order)."""

    name: str
    restarts: int
    waiting: str  # State: Waiting reason ("" when not waiting)
    last: str  # Last State: Terminated reason ("" when none)
    memory_limit: str = ""  # its Limits' memory ("" when not shown)

    @property
    def has_failed(self) -> bool:
        """It restarts after ending badly (a clean exit, `Completed`, is another's doing)."""
        return self.restarts > 0 and self.last != "Completed"


# A container's memory limit: the `memory:` line of its `Limits:` block (before `Requests:`).
_LIMIT_MEMORY = re.compile(
    r"Limits:[ \t]*\n(?:[ \t]+(?!memory)\w+:.*\n){0,8}[ \t]+memory:[ \t]*(\S+)"
)


def pod_containers(text: str) -> list[Container]:
    """The containers (not the init containers) a pod's describe lists, in order."""
    section = re.search(r"^Containers:\n((?:[ \t]+.*\n?)*)", text, re.MULTILINE)
    if section is None:
        return []
    # A container's name is indented less than its fields (two spaces in kubectl's layout).
    blocks = re.split(
        r"^ {1,3}(?=[A-Za-z0-9][\w.-]*:\s*$)", section.group(1), flags=re.M
    )
    out: list[Container] = []
    for block in blocks:
        head, _, body = block.partition(":")
        if not head or " " in head or not body:
            continue
        state = read_containers(body)
        restarts = re.search(r"^\s*Restart Count:\s*(\d+)", body, re.MULTILINE)
        memory = _LIMIT_MEMORY.search(body)
        out.append(
            Container(
                head.strip(),
                int(restarts.group(1)) if restarts else 0,
                state.waiting[0] if state.waiting else "",
                state.terminated[-1] if state.terminated else "",
                memory.group(1) if memory else "",
            )
        )
    return out


@dataclass(frozen=True)
class InitContainer:
    """One init container of a pod's describe (`Init Containers:` section): what it runs, its state."""

    name: str
    command: str  # its Command and Args lines, joined by spaces
    state: str  # Running, Waiting, Terminated ("" when not shown)
    restarts: int


def init_containers(text: str) -> list[InitContainer]:
    """The init containers a pod's describe lists, in order."""
    section = re.search(r"^Init Containers:\n((?:[ \t]+.*\n?)*)", text, re.MULTILINE)
    if section is None:
        return []
    # A container's name is indented less than its fields (two spaces in kubectl's layout).
    blocks = re.split(
        r"^ {1,3}(?=[A-Za-z0-9][\w.-]*:\s*$)", section.group(1), flags=re.M
    )
    out: list[InitContainer] = []
    for block in blocks:
        head, _, body = block.partition(":")
        if not head or " " in head or not body:
            continue
        words: list[str] = []
        lines = body.splitlines()
        for i, line in enumerate(lines):
            key = line.strip().partition(":")[0]
            if key not in ("Command", "Args") or line.strip() != f"{key}:":
                continue
            indent = len(line) - len(line.lstrip())
            for item in lines[i + 1 :]:
                if not item.strip() or len(item) - len(item.lstrip()) <= indent:
                    break
                words.append(item.strip())
        state = re.search(r"^\s*State:\s*(\S+)", body, re.MULTILINE)
        restarts = re.search(r"^\s*Restart Count:\s*(\d+)", body, re.MULTILINE)
        out.append(
            InitContainer(
                head.strip(),
                " ".join(words),
                state.group(1) if state else "",
                int(restarts.group(1)) if restarts else 0,
            )
        )
    return out
