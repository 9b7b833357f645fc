"""Small kubectl-shaped answers of the kubernetes server, for the stage tests (no database).

Tables are laid out as kubectl's tabwriter does (columns padded, at least two spaces apart), so
they are read from the text as a captured answer would be.
"""

from itertools import count

from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.view import WorkloadView, workload_view
from reasoning.observations import Observation

NS = "shop"
_SPANS = count(1)


def table(*rows: tuple[str, ...]) -> str:
    """Rows (the header first) aligned in columns three spaces apart."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "   ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def answer(tool: str, arguments: dict[str, object], text: str) -> Observation:
    return Observation(
        span_id=str(next(_SPANS)),
        agent="kubernetes",
        server="kubernetes",
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result={"command": "kubectl", "found": True, "source": "snapshot"},
        text=text,
    )


def listing(kind: str, *rows: tuple[str, ...]) -> Observation:
    """`kubectl get <kind> -n shop -o wide` (pods with their labels)."""
    arguments: dict[str, object] = {"kind": kind, "namespace": NS, "wide": True}
    if kind == "pods":
        arguments["show_labels"] = True
    return answer("get_resources", arguments, table(*rows))


def pods(*rows: tuple[str, str, str, str]) -> Observation:
    """Pods as (name, ready, status, restarts), all on worker-1."""
    return listing(
        "pods",
        ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"),
        *(
            (name, ready, status, restarts, "5m", "10.244.1.9", "worker-1")
            for name, ready, status, restarts in rows
        ),
    )


def deployments(*rows: tuple[str, str]) -> Observation:
    """Deployments as (name, ready)."""
    return listing(
        "deployments",
        ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
        *((name, ready, "1", "0", "38d", f"app={name}") for name, ready in rows),
    )


def events(*rows: tuple[str, str, str, str]) -> Observation:
    """`kubectl events -n shop` as (type, reason, object, message)."""
    return answer(
        "events",
        {"namespace": NS},
        table(
            ("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"),
            *(("2m", *row) for row in rows),
        ),
    )


def describe(kind: str, name: str, text: str) -> Observation:
    return answer("describe", {"kind": kind, "name": name, "namespace": NS}, text)


def pod_logs(pod: str, text: str, *, previous: bool = False) -> Observation:
    arguments: dict[str, object] = {"pod": pod, "namespace": NS, "tail": 200}
    if previous:
        arguments["previous"] = True
    return answer("pod_logs", arguments, text)


def view(workload: str, *observations: Observation) -> WorkloadView:
    return workload_view(Cluster.read(list(observations)), NS, workload)


def cited(
    finding_evidence: list[tuple[Observation, str]], obs: Observation
) -> list[str]:
    """The facts a finding cites from one answer."""
    return [fact for o, fact in finding_evidence if o.span_id == obs.span_id]
