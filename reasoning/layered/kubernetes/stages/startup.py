"""Startup: the pods are scheduled, but their containers cannot be created or their images pulled.

Rules, the first that holds naming the reason:
- a pod whose status is a container-creation error (`STATUSES`) shows the reason itself;
- a `Failed` warning naming CreateContainerConfigError or a missing secret or config map means the
  container's configuration refers to something that does not exist;
- a `Failed` or `BackOff` warning about pulling an image means the image cannot be pulled (a wrong
  name or tag, a registry that cannot be reached or refuses);
- a warning whose reason the event table (`event_reasons.READINGS`) says blocks startup, while
  pods wait to be created, names the reason, the first in the table's order: a volume that cannot
  be attached (`FailedAttachVolume`, a Multi-Attach error) or mounted (`FailedMount`), a sandbox
  whose network cannot be set up (`FailedCreatePodSandBox`, pod IP addresses exhausted), a network
  plugin not ready. A system agent's logs (the network or storage plugin in kube-system) that say
  the same trouble as the warning join the evidence, with the subnet they name.
"""

import re

from reasoning.layered.kubernetes.event_reasons import READINGS, cause_of, reasons_at
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Event
from reasoning.layered.kubernetes.view import WorkloadView
from reasoning.layered.reading import short

STATUSES = frozenset(
    {
        "ErrImagePull",
        "ImagePullBackOff",
        "InvalidImageName",
        "CreateContainerConfigError",
        "CreateContainerError",
        "RunContainerError",
    }
)
# Statuses of a pod whose containers are still being created.
_WAITING = ("ContainerCreating", "Pending", "Init:0/1")
_MISSING_REF = re.compile(r"(secret|configmap) \"([^\"]+)\" not found")
_IMAGE = re.compile(r"pull|image", re.IGNORECASE)
_REGISTRY = re.compile(r"no such host|lookup|dial tcp")
_SUBNET = re.compile(r"\bsubnet-[0-9a-f]{6,}\b")
_SYSTEM_NS = "kube-system"


def config_errors(view: WorkloadView) -> list[Event]:
    """`Failed` warnings saying the container's configuration names a secret or config map that is missing."""
    return [
        e
        for e in view.events("Failed")
        if "CreateContainerConfigError" in e.message or _MISSING_REF.search(e.message)
    ]


def pull_errors(view: WorkloadView) -> list[Event]:
    """`Failed` or `BackOff` warnings about pulling the image."""
    return [e for e in view.events("Failed", "BackOff") if _IMAGE.search(e.message)]


def _pull_reason(pulls: list[Event]) -> str:
    backing_off = any(
        "BackOff" in e.reason or "ImagePullBackOff" in e.message for e in pulls
    )
    return "ImagePullBackOff" if backing_off else "ErrImagePull"


def blocked(view: WorkloadView) -> list[Event]:
    """While pods wait to be created, the warnings whose reason blocks startup (the event
    table's), in the table's order."""
    if not view.pods_with(_WAITING):
        return []
    return view.events(*reasons_at("startup"))


def _cite_agents(view: WorkloadView, f: Finding, message: str) -> None:
    """A system agent's log lines that say the same trouble as the warning, and the subnet they name."""
    cause = cause_of(message)
    if cause is None:
        return
    pattern = cause[0]
    for (ns, pod, _, _), obs in view.cluster.logs.items():
        if ns != _SYSTEM_NS:
            continue
        lines = [line for line in obs.text.splitlines() if pattern.search(line)]
        if not lines:
            continue
        f.cite(obs, f"logs {pod} ({ns}): {lines[-1]}")
        f.keywords += [view.cluster.owner(ns, "pod", pod).partition("/")[2]]
        f.keywords += list(dict.fromkeys(_SUBNET.findall("\n".join(lines))))


def startup(view: WorkloadView) -> Finding | None:
    """Containers that cannot be created, configured, pulled or mounted, or whose sandbox cannot be set up, keep the pods from running."""
    starting = view.pods_with(STATUSES)
    pulls = pull_errors(view)
    config = config_errors(view)
    waits = blocked(view)
    if not (starting or pulls or config or waits):
        return None
    if starting:
        reason = starting[0].status
    elif config:
        reason = "CreateContainerConfigError"
    elif pulls:
        reason = _pull_reason(pulls)
    else:
        reason = waits[0].reason
    detail = next((e.message for e in (config or pulls or waits)), "")
    workload = view.workload
    reading = READINGS.get(reason)
    cause = cause_of(detail) if reading is not None else None
    said = f": {cause[1] if cause else reading.meaning}" if reading else ""
    f = view.finding(
        "startup",
        reason,
        f"{workload}'s containers do not start ({reason}{said})"
        + (f": {short(detail, 220)}" if detail else ""),
    )
    view.cite_pods(f, starting or view.pods_with(_WAITING) or view.pods)
    view.cite_events(
        f,
        ["Failed", "BackOff", "ErrImagePull", "InspectFailed", *reasons_at("startup")],
    )
    missing = _MISSING_REF.search(detail)
    if missing:
        f.keywords += [missing.group(1), missing.group(2)]
    if _REGISTRY.search(detail):
        f.keywords.append("registry")
    if cause is not None:
        f.keywords.append(cause[1])
        _cite_agents(view, f, detail)
    f.chain = [f"{workload}: pods not running", f.statement]
    return f
