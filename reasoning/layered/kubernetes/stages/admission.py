"""Admission: the controller cannot create the workload's pods (a cron job's: its jobs).

Rule: a `FailedCreate` warning on the workload's replica set (or itself, or a cron job's job) means
the API server refused its pods — an exceeded resource quota, a missing service account, or an
admission webhook; a cron job's own `FailedCreate` means it refused the jobs the cron job creates
(a quota on the count of jobs, say), so no run starts at all.
"""

import re

from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.view import WorkloadView
from reasoning.layered.reading import short

QUOTA = re.compile(r"exceeded quota: ([a-z0-9][a-z0-9.-]*)")


def refusal(message: str) -> str:
    """What refused the pods, in a few words: a quota, the service account, else admission."""
    lowered = message.lower()
    if "quota" in lowered:
        return "exceeded quota"
    if "serviceaccount" in lowered:
        return "serviceaccount"
    return "admission refused"


def admission(view: WorkloadView) -> Finding | None:
    """A FailedCreate warning means the workload cannot create its pods, or a cron job its jobs (quota, account, webhook)."""
    if "FailedCreate" not in view.by_reason:
        return None
    message = view.by_reason["FailedCreate"][0].message
    workload = view.workload
    made = "jobs" if view.kind == "cronjob" else "pods"
    f = view.finding(
        "admission",
        "FailedCreate",
        f"{workload} cannot create its {made} ({refusal(message)}): {short(message, 200)}",
    )
    view.cite_events(f, ["FailedCreate"])
    view.cite_describes(f, "FailedCreate", "FailedCreate")
    quota = QUOTA.search(message)
    if quota:
        described = view.cluster.describe(
            "resourcequotas", view.namespace, quota.group(1)
        )
        if described is not None:
            f.cite(
                described,
                f"describe resourcequota {quota.group(1)}: used at the hard limit",
            )
        f.keywords += ["quota", quota.group(1)]
    f.chain = [
        f"{workload} has fewer {made} than it wants"
        if made == "pods"
        else f"{workload} starts no run: the API server refuses its jobs",
        f.statement,
    ]
    return f
