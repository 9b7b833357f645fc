"""A process's open-files limit set by the node's container runtime (issue 21 class 4): after nodes come up under a new runtime, `Too many open files` is the platform's fault.

A container's soft `RLIMIT_NOFILE` is what its runtime starts it with, not what its code asks for:
one runtime release runs with `LimitNOFILE=infinity`, the next leaves the kernel's default soft
limit of 1024. When nodes became Ready under a named container runtime (`NodeReady
(containerd://2.0.2)`, `(cri-o://1.30.1)`), that is, the node pool was replaced or upgraded, a
workload on them that now runs out of descriptors (EMFILE, `[Errno 24] Too many open files`) hits
the limit the new runtime set: the runtime is the fault at the platform layer and the workload, its
liveness restarts and its callers are its victims. A process out of descriptors on nodes nobody
changed keeps its own fault (`local_exhaustion`), and a host's whole file table full is the host's
(`host_exhaustion`).
"""

import re
from dataclasses import dataclass
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import FACT_CHARS, ErrorGroup, Errors
from reasoning.layered.reading import short
from reasoning.observations import Observation

# A process's own descriptors used up (EMFILE), not the host's file table (ENFILE: `in system`).
EMFILE: Final = re.compile(
    r"too many open files(?! in system)|\bEMFILE\b|\berrno[ =:]{0,3}24\b", re.IGNORECASE
)
# A node that became Ready under a named container runtime: it joined (or rejoined) with it.
NODE_READY: Final = re.compile(
    r"NodeReady[^\n]{0,200}?\b(containerd|cri-o|crio|docker|cri-dockerd)://v?([0-9][\w.+-]{0,40})",
    re.IGNORECASE,
)
_TOOLS: Final = frozenset({"events", "get_events", "describe", "get_resources"})
_TEXT_LIMIT: Final = 200_000
_CONFIDENCE: Final = (
    0.92  # the workload's own errno and the nodes' runtime change agree
)


@dataclass(frozen=True)
class _Runtime:
    obs: Observation
    name: str
    version: str
    line: str


def _runtimes(board: Board) -> list[_Runtime]:
    """The runtimes nodes became Ready under, as the cluster's events say."""
    found: list[_Runtime] = []
    for obs in board.inv.observations:
        if not obs.is_ok or obs.tool not in _TOOLS:
            continue
        text = (obs.text or "")[:_TEXT_LIMIT]
        for line in text.splitlines():
            m = NODE_READY.search(line[:2000])
            if m is not None:
                name = m.group(1).lower().replace("crio", "cri-o")
                found.append(_Runtime(obs, name, m.group(2), " ".join(line.split())))
                break
    return found


def _out_of_files(errors: Errors) -> ErrorGroup | None:
    groups = [
        g
        for g in (*errors.groups, *errors.warnings)
        if g.is_new and EMFILE.search((g.sample or g.signature)[:4000])
    ]
    return max(groups, key=lambda g: g.count) if groups else None


def runtime_limits(board: Board) -> None:
    """A workload whose processes newly run out of open files (EMFILE) on nodes that became Ready under a named container runtime is a victim of that runtime's limit: the runtime's platform fault."""
    runtimes = _runtimes(board)
    if not runtimes:
        return
    runtime = runtimes[0]
    for errors in board.facts.errors.values():
        group = _out_of_files(errors)
        if group is not None:
            _blame(board, runtime, errors, group)


def _blame(board: Board, runtime: _Runtime, errors: Errors, group: ErrorGroup) -> None:
    service = errors.service
    said = short(group.sample or group.signature, 100)
    c = board.get(
        layers.PLATFORM,
        runtime.name,
        f"the nodes came up under {runtime.name} {runtime.version}, whose containers start "
        f"with a low open-files limit (LimitNOFILE): {service} runs out of descriptors ({said})",
    )
    if service not in c.statement:
        c.statement += f"; {service} runs out of descriptors ({said})"
    c.cite(errors.obs, errors.fact(group))
    c.cite(runtime.obs, short(f"{runtime.obs.tool}: {runtime.line}", FACT_CHARS))
    if c.confidence < _CONFIDENCE:
        c.status, c.confidence = "confirmed", _CONFIDENCE
    c.chain = [
        board.symptom(),
        f"nodes: {short(runtime.line, 120)}",
        f"{service} logs (new): {said}",
        c.statement,
    ]
    c.keywords = [runtime.name, "LimitNOFILE", "too many open files", service]
    for other in board.candidates.values():
        if other is c or other.layer != layers.APPLICATION:
            continue
        if other.component == service or other.component.endswith(f"/{service}"):
            other.explained_by(
                c,
                f"its processes hit the open-files limit {runtime.name} sets ({c.id})",
            )
