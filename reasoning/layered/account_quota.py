"""A cloud account's quota spent (issue 21 class 4): what cannot grow is the culprit, not the stream that reports it.

When a group, node pool or function cannot get capacity because the account's quota is used up
(EC2 `VcpuLimitExceeded` / `vCPU limit of N`, GCE `Quota 'CPUS' exceeded`, Azure `exceeding approved
... cores quota`, Lambda `ConcurrentInvocationLimitExceeded`, a subnet out of free IP addresses, an
ENI or address limit), the provider's activity stream (`autoscaling`, `cloudtrail`, `activity-log`)
says so, naming the thing it tried to grow. That thing is the culprit at the platform layer: the
callers slow down because it cannot scale. The stream that reported the refusal is no culprit; its
own hypothesis (its lines are new) is explained by the quota.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import NOT_SERVICES, short

# An account's or a subnet's allowance refused, in several providers' words.
QUOTA_SPENT: Final = re.compile(
    r"\bvcpu (?:capacity|limit|quota)\b|vcpulimitexceeded|instancelimitexceeded|"
    r"maxspotinstancecountexceeded|"
    r"(?:reserved(?:function)?)?concurrentinvocationlimitexceeded|"
    r"\b(?:account|regional|function) concurrency (?:limit|quota)\b|"
    r"insufficientfreeaddressesinsubnet|addresslimitexceeded|networkinterfacelimitexceeded|"
    r"\b(?:no|insufficient) (?:free |available )?ip addresses\b|"
    r"\bfailed to (?:assign|allocate) (?:an? )?(?:ip(?: address)?|eni)\b|"
    r"\b(?:eni|network interface)s? (?:limit|quota)\b|"
    r"(?-i:\bQUOTA_EXCEEDED\b)|\bquota '(?:cpus|[a-z0-9_]*(?:cpus|instances|addresses))' exceeded|"
    r"exceeding approved [\w ]{0,40}quota|\b(?:cores|vcpus?|cpus|instances?) quota\b|"
    r"\bservice quotas? (?:exceeded|reached|spent)\b",
    re.IGNORECASE,
)
# The thing the provider tried to grow: a leading `name:` or a group / pool / function key.
_LEADING: Final = re.compile(r"^\s*\[?([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\]?:\s")
_KEYED: Final = re.compile(
    r"(?i:autoscalinggroupname|auto ?scaling group|asg|node ?group|node ?pool|"
    r"instance ?group|scale ?set|vmss|function(?:name)?)[=: ]+[\"'`]?"
    r"([a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)"
)
CONFIDENCE: Final = 0.9


def quota_subject(text: str) -> str | None:
    """The group, pool or function a quota refusal names (its leading `name:` or keyed name)."""
    for pattern in (_LEADING, _KEYED):
        m = pattern.search(text)
        if m and m.group(1).lower() not in NOT_SERVICES:
            return m.group(1)
    return None


def _refusals(errors: Errors) -> list[ErrorGroup]:
    return [
        g
        for g in (*errors.groups, *errors.warnings)
        if not g.is_stale and QUOTA_SPENT.search(g.text[:4000])
    ]


def account_quota(board: Board) -> None:
    """A line saying the cloud account's quota is spent (vCPU, instances, concurrency, IP addresses, ENIs) blames, at the platform layer, the group, pool or function it could not grow; the stream reporting it is explained by it."""
    for errors in list(board.facts.errors.values()):
        for group in _refusals(errors)[:1]:
            text = group.sample or group.signature
            subject = quota_subject(text)
            if subject is None:
                continue  # the reporting stream is no culprit, and it names no group to blame
            c = board.get(
                layers.PLATFORM,
                subject,
                f"{subject} cannot get capacity: the cloud account's quota is spent "
                f"({short(text, 140)})",
            )
            c.cite(errors.obs, errors.fact(group))
            c.confidence = max(c.confidence, CONFIDENCE)
            c.keywords += [
                k for k in ("quota", "limit", "capacity") if k not in c.keywords
            ]
            reporter = board.candidates.get(f"{layers.APPLICATION}:{errors.service}")
            if reporter is not None and reporter is not c:
                reporter.explained_by(
                    c, f"it reports {subject}'s quota refusal (explained by {c.id})"
                )
