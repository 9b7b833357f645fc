"""A managed resource named by its own identifier (issue 21 class 3): a log source that speaks for one
resource is named by the resource it names, not by the source.

A cloud's managed service writes its lines under the product's name (`cloud-nat`, `cloud-sql`,
`elb`), and each line opens with the instance it is about: `nat-prod-euw1 (router-prod-euw1):
allocation_status: DROPPED …`, `orders-sql-prod: connection limit reached`. What a person fixes,
and what the platform team's tools know, is that instance, not the product. When every line the
engine read of a source that a hypothesis blames opens with the same identifier (a name of
letters, digits and hyphens that shares a word with the source's name, followed by `:` or by its
parent in parentheses), the hypothesis is renamed to that identifier; the source and the parent are
kept as its words. A source whose lines open with different names (several instances), with its
own name or a replica of it (`payments-db-0`), or with anything else keeps its name.
"""

import re
from typing import Final

from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import Errors

# An identifier opening a line, then `:` or its parent in parentheses and `:`.
_LEAD: Final = re.compile(
    r"^\s*(?P<id>[a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?:\s+\((?P<parent>[a-z][a-z0-9]*(?:-[a-z0-9]+)+)\))?:\s"
)
_WORD: Final = re.compile(r"[a-z][a-z0-9]{2,}")
_LINE_CHARS: Final = 400  # an identifier opens the line: no need to read further


def _lead(text: str) -> tuple[str, str] | None:
    m = _LEAD.match(text[:_LINE_CHARS])
    return (m.group("id"), m.group("parent") or "") if m else None


def resource_of(errors: Errors) -> tuple[str, str] | None:
    """The identifier (and its parent, "" when none) every read line of the source opens with, when
    it shares a word with the source's name; None otherwise."""
    groups = [*errors.groups, *errors.warnings]
    if not groups:
        return None
    leads = {_lead(g.sample or g.signature) for g in groups}
    if len(leads) != 1:
        return None
    lead = next(iter(leads))
    service = errors.service.lower()
    # A replica or pod of the source itself (`payments-db-0`) is the source, not another name.
    if lead is None or lead[0] == service or lead[0].startswith(f"{service}-"):
        return None
    source_words = set(_WORD.findall(errors.service.lower()))
    if not source_words & set(_WORD.findall(lead[0])):
        return None
    return lead


def resource_names(board: Board) -> None:
    """A hypothesis that blames a log source whose every read line opens with the same resource identifier sharing a word with the source's name is renamed to that identifier."""
    renamed: dict[str, Candidate] = {}
    for key, c in board.candidates.items():
        errors = board.facts.errors.get(c.component)
        lead = resource_of(errors) if errors is not None else None
        if lead is None:
            renamed[key] = c
            continue
        identifier, parent = lead
        words = [c.component, *([parent] if parent else [])]
        c.keywords = [*c.keywords, *(w for w in words if w not in c.keywords)]
        c.chain.append(
            f"{c.component}'s lines all speak for {identifier}"
            + (f" ({parent})" if parent else "")
            + f": named {identifier}"
        )
        c.component = identifier
        renamed.setdefault(c.id, c)
    board.candidates = renamed
