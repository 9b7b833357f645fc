"""Zero replicas: nothing runs, so nothing fails — and nothing serves.

Rule: a deployment or stateful set whose list shows READY 0/0 is scaled to zero; a service meant to
be backed by it has no pod to send traffic to.
"""

import re

from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.view import WorkloadView


def zero_replicas(view: WorkloadView) -> Finding | None:
    """A deployment or stateful set listed READY 0/0 is scaled to zero: no pod serves it."""
    table = view.owner_table()
    row = table.row(view.name) if table else None
    if table is None or row is None or not re.fullmatch(r"0/0", row.get("READY", "")):
        return None
    workload = view.workload
    # Stage runtime: the workload was admitted, scheduled and started — to nothing.
    f = view.finding(
        "runtime",
        "zero_replicas",
        f"{workload} is scaled to 0 replicas: no pod serves it",
    )
    f.cite(table.obs, f"get {view.kind}s: {table.line(view.name)}")
    f.chain = [f"{workload} has no pods", f.statement]
    return f
