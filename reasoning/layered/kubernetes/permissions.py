"""Permissions: a pod that runs and stays ready while what it asks is refused for its identity.

Rule: a pod's logs show the Kubernetes API server refusing its ServiceAccount (`forbidden: User
"system:serviceaccount:<ns>:<name>" cannot <verb> resource "<resource>"`): the ServiceAccount lacks
the permission its workload needs (`Forbidden`, a platform fault). A cloud provider refusing the
pod's identity (`AccessDenied`) is not this rule's: the policy that lacks it lives outside the
cluster, and the workload failing on it is the fault its own stage names (a failed Job, a crash). What shows why joins the
evidence when it was read: the ServiceAccount's row (a young one: renamed or recreated), and the
RoleBindings whose subjects name a ServiceAccount the namespace no longer has, or none that binds
this one. Its workload's own failure is its victim (`explains`). It is relevant when the workload
lies on the incident's path, or when the workload's pods or the ServiceAccount were created within
the incident's window (the change that started it).
"""

import re
from dataclasses import dataclass

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import age_seconds
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.reading import short
from reasoning.observations import Observation

API_FORBIDDEN = re.compile(
    r"forbidden:?\s+User\s+\\?\"?system:serviceaccount:(?P<ns>[a-z0-9.-]+):(?P<sa>[a-z0-9.-]+)\\?\"?"
    r"\s+cannot\s+(?P<verb>[a-z]+)\s+resource\s+\\?\"?(?P<resource>[a-z0-9./-]+)",
    re.IGNORECASE,
)
# A subject row of `kubectl describe rolebinding`: Kind, Name, Namespace.
_SUBJECT = re.compile(r"^\s*ServiceAccount\s+(\S+)\s+(\S+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Denial:
    """A refusal a pod logged: whose identity, what was refused, the line."""

    workload: str
    pod: str
    account: str
    what: str  # "create pods"
    line: str
    obs: Observation


def denials(cluster: Cluster, ns: str) -> list[Denial]:
    """The refusals of an identity the namespace's read logs show, one per ServiceAccount."""
    found: dict[str, Denial] = {}
    for (space, pod, _, _), obs in sorted(cluster.logs.items()):
        if space != ns:
            continue
        workload = cluster.owner(ns, "pod", pod)
        for line in reversed(obs.text.splitlines()):
            api = API_FORBIDDEN.search(line)
            if api is None or api.group("ns") != ns:
                continue
            account = api.group("sa")
            what = f"{api.group('verb')} {api.group('resource')}"
            found.setdefault(
                account,
                Denial(
                    workload,
                    pod,
                    account,
                    what,
                    short(line.strip(), 240),
                    obs,
                ),
            )
            break
    return list(found.values())


def _bindings(cluster: Cluster, ns: str, account: str, f: Finding) -> str:
    """What the RoleBindings read say: a subject that no longer exists, or none for `account`."""
    accounts = set(cluster.names("serviceaccounts", ns))
    said: list[str] = []
    binds_it = False
    table = cluster.table("rolebindings", ns)
    rows = table.rows if table is not None else ()
    for row in rows:
        assert table is not None
        subjects = [
            s.strip()
            for s in row.get("SERVICEACCOUNTS", "").split(",")
            if s.strip() and s.strip() != "<none>"
        ]
        for subject in subjects:
            space, _, name = subject.rpartition(":" if ":" in subject else "/")
            if name == account and (space or ns) == ns:
                binds_it = True
            elif (space or ns) == ns and accounts and name not in accounts:
                f.cite(table.obs, f"get rolebindings: {table.line(row['NAME'])}")
                said.append(
                    f"rolebinding {row['NAME']} still names serviceaccount {name}, which no longer exists"
                )
    for (kind, space, name), obs in cluster.describes.items():
        if kind != "rolebindings" or space != ns:
            continue
        for subject_ns, subject in (
            (m.group(2), m.group(1)) for m in _SUBJECT.finditer(obs.text)
        ):
            if subject == account:
                binds_it = True
            elif accounts and subject not in accounts and subject_ns == ns:
                f.cite(
                    obs,
                    f"describe rolebinding {name}: subject ServiceAccount {subject}",
                )
                said.append(
                    f"rolebinding {name} still names serviceaccount {subject}, which no longer exists"
                )
    if table is not None and not binds_it:
        f.cite(
            table.obs, f"get rolebindings: no binding names serviceaccount {account}"
        )
        said.append(f"no rolebinding names serviceaccount {account}")
    return "; ".join(dict.fromkeys(said))


def permission_faults(
    cluster: Cluster, ns: str, path: Path, window_s: float | None = None
) -> list[Finding]:
    """A pod whose logs show the API server refusing its ServiceAccount (403 forbidden) fails for that account's missing permission: a platform fault that its workload's failure follows from."""
    out: list[Finding] = []
    accounts = cluster.table("serviceaccounts", ns)
    for denial in denials(cluster, ns):
        who = f"serviceaccount/{denial.account}"
        refused = f"the API server refuses it: it cannot {denial.what} (403 forbidden)"
        f = Finding(
            "runtime",
            "Forbidden",
            who,
            layers.PLATFORM,
            f"{denial.workload} runs as {who}, which lacks a permission it needs: {refused}",
            ns,
        )
        f.cite(denial.obs, f"logs {denial.pod}: {denial.line}")
        young = False
        row = accounts.row(denial.account) if accounts else None
        if accounts is not None and row is not None:
            f.cite(
                accounts.obs, f"get serviceaccounts: {accounts.line(denial.account)}"
            )
            age = age_seconds(row.get("AGE", ""))
            young = age is not None and window_s is not None and age <= window_s
            if young:
                f.statement += f"; {who} was created {row.get('AGE')} ago"
        described = cluster.describe("pods", ns, denial.pod)
        if described is not None:
            f.cite(
                described,
                f"describe pod {denial.pod}: Service Account: {denial.account}",
            )
        why = _bindings(cluster, ns, denial.account, f)
        if why:
            f.statement += f"; {why}"
        pods = cluster.pods_of(ns, denial.workload)
        started = any(
            p.age_s is not None and window_s is not None and p.age_s <= window_s
            for p in pods
        )
        f.explains = [denial.workload]
        f.is_relevant = denial.workload in path.workloads or young or started
        f.depth = path.depth.get(denial.workload, 0) + 1
        f.keywords = ["forbidden", "rbac", "serviceaccount", denial.account]
        f.chain = [f"{denial.workload} logs: {short(denial.line, 120)}", f.statement]
        out.append(f)
    return out
