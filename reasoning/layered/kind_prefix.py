"""A component a log source labels with its kind (`lambda/name`, `cloudfunctions/name`) is reported by its name.

Serverless platforms label a function's log stream with the kind before the name; the function is
what people call it, what its deploys and configuration name, and what the report must name. Once
every board rule has read the logs by their labels, a hypothesis outside Kubernetes whose
component is such a label of the logs read (one lower-case word, a slash, a name; a rule's own
`namespace/name` is no log label) is renamed to the name, its
evidence merged into a hypothesis already named so (the stronger one's statement and weight kept).
Kubernetes objects (`namespace/name`, `kind/name`) keep their names: a cluster was read for them.
"""

import re
from typing import Final

from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.unread_services import every_service_errors

_KIND_LABEL: Final = re.compile(r"([a-z]+)/([A-Za-z0-9][A-Za-z0-9_.:-]*)")


def bare_name(component: str) -> str:
    """The name of a kind-labelled component (`lambda/x` → `x`); the component itself otherwise."""
    m = _KIND_LABEL.fullmatch(component)
    return m.group(2) if m else component


def _merge(into: Candidate, other: Candidate) -> None:
    for e in other.evidence:
        if e not in into.evidence:
            into.evidence.append(e)
    into.sources |= other.sources
    if other.confidence > into.confidence:
        into.statement, into.confidence, into.status = (
            other.statement,
            other.confidence,
            other.status,
        )
        into.chain, into.reason_ruled_out = other.chain, other.reason_ruled_out


def kind_prefix(board: Board) -> None:
    """Outside Kubernetes, a hypothesis on a log source labelled `kind/name` names the `name`."""
    if board.cluster is not None:
        return
    labels = {service for service, _ in every_service_errors(board.inv, board.facts)}
    labels |= {s.lower() for s in (*board.facts.searched, *board.facts.log_lines)}
    renamed: dict[str, Candidate] = {}
    for key, c in board.candidates.items():
        name = bare_name(c.component) if c.component.lower() in labels else c.component
        if name == c.component:
            renamed.setdefault(key, c)
            continue
        c.component = name
        known = renamed.get(c.id) or board.candidates.get(c.id)
        if known is not None and known is not c:
            _merge(known, c)
            renamed[c.id] = known
        else:
            renamed[c.id] = c
    board.candidates = renamed
