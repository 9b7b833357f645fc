"""A storage quota filled (issue 21 class 4): the volume, share or tree at its limit is the culprit, not the event's code nor the writers that fail.

When a filer, a storage array or a file system says a quota is reached (`Quota exceeded (hard disk
limit) on volume data7, qtree uploads`, `disk quota exceeded for dataset tank/home`, `EDQUOT`), it
names what is full: a qtree, a volume, a share, a dataset, a bucket, a claim. That storage is the
fault at the platform layer. The services whose writes now fail with the same words
(`errno=122 Disk quota exceeded`, `EDQUOT`) are its victims and their lines its evidence; the
storage event's code (`wafl.quota.qtree.exceed`) is neither a host nor a provider, and a disk quota
is no third party's rate limit. What filled it (a backup job, an export, a log that stopped
rotating) is named by lines that say they saved or wrote into that storage: the lead to remove it.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import short
from reasoning.layered.unread_services import every_service_errors

# A storage quota or hard limit reached, as filers, file systems and the kernel's errno say it.
STORAGE_QUOTA: Final = re.compile(
    r"\bdisk quota exceeded\b|\bEDQUOT\b|\berrno[ =:]{0,3}122\b|"
    r"\bquota exceeded \((?:hard|soft)? ?(?:disk|block|file|inode|space)s? ?limit\)|"
    r"\b(?:hard|disk|block|inode|storage|space|file) (?:quota|limit) (?:exceeded|reached|hit)\b|"
    r"\bquota (?:exceeded|reached|full)\b[^\n]{0,80}\b(?:volume|qtree|share|dataset|fileset|"
    r"bucket|pvc|persistentvolumeclaim)\b",
    re.IGNORECASE,
)
# What is full, by the storage words before its name; the first kinds are the most specific.
_KINDS: Final = (
    "qtree",
    "fileset",
    "dataset",
    "share",
    "pvc",
    "persistentvolumeclaim",
    "bucket",
    "tree",
    "directory",
    "project",
    "filesystem",
    "file system",
    "volume",
)
_NAMED: Final = re.compile(
    r"\b(qtree|fileset|dataset|share|pvc|persistentvolumeclaim|bucket|tree|directory|project|"
    r"file ?system|volume)[ :=]{1,3}[\"'`]?([A-Za-z0-9][\w./-]{0,80}?)[\"'`]?(?=[\s,;)(\]]|$)",
    re.IGNORECASE,
)
_NOT_NAMES: Final = frozenset(
    {"is", "at", "of", "on", "in", "for", "the", "limit", "quota", "full", "has", "was"}
)
_CONFIDENCE: Final = (
    0.9  # the storage's own quota event, and writers failing with its words
)


def storage_named(text: str) -> str | None:
    """The most specific storage a quota line names (a qtree before its volume), if any."""
    found: dict[str, str] = {}
    for m in _NAMED.finditer(text[:4000]):
        kind = re.sub(r"\s+", " ", m.group(1).lower()).replace(
            "filesystem", "file system"
        )
        name = m.group(2).rstrip(".")
        if name.lower() not in _NOT_NAMES and kind not in found:
            found[kind] = name
    return next((found[k] for k in _KINDS if k in found), None)


def _quota_lines(board: Board) -> list[tuple[Errors, ErrorGroup]]:
    return [
        (errors, group)
        for _, errors in every_service_errors(board.inv, board.facts)
        for group in (*errors.groups, *errors.warnings)
        if not group.is_stale and STORAGE_QUOTA.search(group.text[:4000])
    ]


def storage_quota(board: Board) -> None:
    """A line saying a storage quota is reached on a named qtree, volume, share, dataset or claim blames that storage at the platform layer; the services whose writes fail with the same quota words are its victims and its evidence."""
    lines = _quota_lines(board)
    named = next(
        (
            (errors, group, name)
            for errors, group in lines
            if (name := storage_named(group.sample or group.signature))
        ),
        None,
    )
    if named is None:
        return
    errors, group, name = named
    text = group.sample or group.signature
    c = board.get(
        layers.PLATFORM,
        name,
        f"{name} is full: its storage quota is reached ({short(text, 140)}); every write to it fails",
    )
    c.cite(errors.obs, errors.fact(group))
    writers = [(e, g) for e, g in lines if e.service != errors.service][:3]
    for e, g in writers:
        c.cite(e.obs, e.fact(g))
    c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
    c.keywords = [name, "quota", "storage", "disk quota exceeded"]
    c.chain = [
        board.symptom(),
        *(
            f"{e.service} logs: {short(g.sample or g.signature, 120)}"
            for e, g in writers[:1]
        ),
        f"{errors.service} logs: {short(text, 160)}",
        c.statement,
    ]
    why = {e.service: f"its writes fail on {c.id}'s quota" for e, _ in writers}
    why.setdefault(errors.service, f"it reports {c.id}'s quota reached")
    for service, reason in why.items():
        for layer in (layers.APPLICATION, layers.HTTP):
            other = board.candidates.get(f"{layer}:{service}")
            if other is not None and other is not c:
                other.explained_by(c, reason)
