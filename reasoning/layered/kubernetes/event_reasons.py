"""The reasons a cluster's events give for a pod that cannot start or was put out, as one table.

Each row is an event reason as the component that emits it spells it (the kubelet's
`pkg/kubelet/events`, the attach/detach controller, the scheduler's preemption), the lifecycle
stage it blocks, what it means, and the object it blames: the pod's own workload, the volume
the message names, or the pod that preempted it (`BLAMES`). The table's order among one stage's
reasons is their precedence: a volume that cannot be attached explains why it cannot be mounted.

`CAUSES` reads a message for what it says the trouble is, in a few words (a volume still attached
to another node, pod IP addresses exhausted), kept as the finding's keywords.
"""

import re
from dataclasses import dataclass
from typing import Final

WORKLOAD: Final = "workload"  # the pod's own workload
VOLUME: Final = "volume"  # the volume (its claim) the message names
PREEMPTOR: Final = "preemptor"  # the pod of higher priority the message names
BLAMES: Final = (WORKLOAD, VOLUME, PREEMPTOR)


@dataclass(frozen=True)
class Reading:
    """What one event reason means: the stage it blocks, in words, and whom it blames."""

    stage: str
    meaning: str
    blames: str


READINGS: Final[dict[str, Reading]] = {
    # Startup: the pod is on a node, its sandbox, volumes or cgroup cannot be set up.
    "FailedAttachVolume": Reading(
        "startup", "a volume cannot be attached to the pod's node", VOLUME
    ),
    "FailedMapVolume": Reading(
        "startup", "a block volume cannot be mapped into the pod", VOLUME
    ),
    "FailedMount": Reading("startup", "a volume cannot be mounted", WORKLOAD),
    "FailedCreatePodSandBox": Reading(
        "startup", "the pod's sandbox (its network) cannot be created", WORKLOAD
    ),
    "FailedPodSandBoxStatus": Reading(
        "startup", "the pod's sandbox does not report its status", WORKLOAD
    ),
    "NetworkNotReady": Reading(
        "startup", "the node's network plugin is not ready", WORKLOAD
    ),
    "FailedCreatePodContainer": Reading(
        "startup", "the pod's container cgroup cannot be created", WORKLOAD
    ),
    # Scheduling: the scheduler (or the kubelet, for a critical pod) put the pod out for another.
    "Preempted": Reading(
        "scheduling", "the pod was evicted for a pod of higher priority", PREEMPTOR
    ),
    "Preempting": Reading(
        "scheduling", "the kubelet evicted the pod for a critical pod", PREEMPTOR
    ),
}

# What a message says the trouble is → a few words (the first that matches).
CAUSES: Final[tuple[tuple[re.Pattern[str], str], ...]] = (
    (
        re.compile(r"Multi-Attach error|already (?:exclusively )?attached", re.I),
        "the volume is still attached to another node",
    ),
    (
        re.compile(
            r"failed to (?:assign|allocate) (?:an )?IP|no (?:available )?IP"
            r"(?:/Prefix)? addresses|InsufficientFreeAddresses|range is full|"
            r"IPs? exhausted|ipam",
            re.I,
        ),
        "pod IP addresses exhausted",
    ),
    (
        re.compile(r"network plugin (?:is )?not ready|cni (?:config|plugin) not", re.I),
        "the network plugin is not ready",
    ),
    (
        re.compile(r"timed out waiting for the condition", re.I),
        "timed out waiting for the volume",
    ),
)


def reasons_at(stage: str, blames: tuple[str, ...] = BLAMES) -> tuple[str, ...]:
    """The reasons that block `stage` and blame one of `blames`, in the table's order."""
    return tuple(
        reason
        for reason, reading in READINGS.items()
        if reading.stage == stage and reading.blames in blames
    )


def cause_of(message: str) -> tuple[re.Pattern[str], str] | None:
    """What the message says the trouble is: the `CAUSES` row that reads it, None when none does."""
    return next(
        ((pattern, words) for pattern, words in CAUSES if pattern.search(message)),
        None,
    )
