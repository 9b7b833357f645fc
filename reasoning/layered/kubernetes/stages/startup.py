"""Startup: the pods are scheduled, but their containers cannot be created or their images pulled.

Rules, the first that holds naming the reason:
- a pod whose status is a container-creation error (`STATUSES`) shows the reason itself;
- a `Failed` warning naming CreateContainerConfigError or a missing secret or config map means the
  container's configuration refers to something that does not exist;
- a `Failed` or `BackOff` warning about pulling an image means the image cannot be pulled (a wrong
  name or tag, a registry that cannot be reached or refuses);
- a `FailedMount` warning while pods wait to be created means a volume cannot be mounted.
"""

import re

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


def startup(view: WorkloadView) -> Finding | None:
    """Containers that cannot be created, configured, pulled or mounted keep the pods from running."""
    starting = view.pods_with(STATUSES)
    mounts = view.events("FailedMount")
    pulls = pull_errors(view)
    config = config_errors(view)
    mounting = bool(mounts) and bool(view.pods_with(_WAITING))
    if not (starting or pulls or config or mounting):
        return None
    if starting:
        reason = starting[0].status
    elif config:
        reason = "CreateContainerConfigError"
    elif pulls:
        reason = _pull_reason(pulls)
    else:
        reason = "FailedMount"
    detail = next((e.message for e in (config or pulls or mounts)), "")
    workload = view.workload
    f = view.finding(
        "startup",
        reason,
        f"{workload}'s containers do not start ({reason})"
        + (f": {short(detail, 220)}" if detail else ""),
    )
    view.cite_pods(f, starting or view.pods)
    view.cite_events(
        f, ["Failed", "FailedMount", "BackOff", "ErrImagePull", "InspectFailed"]
    )
    missing = _MISSING_REF.search(detail)
    if missing:
        f.keywords += [missing.group(1), missing.group(2)]
    if _REGISTRY.search(detail):
        f.keywords.append("registry")
    f.chain = [f"{workload}: pods not running", f.statement]
    return f
