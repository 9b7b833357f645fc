"""A connection failure named by a host name, said as the service behind it (issue 21 class 5).

A probe or a caller's line names a host (`ledger.internal`, `fx-rates.prod.corp`); when the data
knows a service by that host's first DNS label (its logs or its metrics were read under that
name), what cannot be reached is that service: the connect-layer hypothesis names the service, as
the on-call and the runbooks do, and keeps the host in its statement. When a rule already found
the service's own fault at that layer (a server that cannot start behind the refused host), the
host's hypothesis stays apart, a symptom of it. A name that does not resolve
stays named by its host (the name is what fails), and so do hosts whose first label only says
which front answers (`api`, `www` …) or names no service read.
"""

from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.reading import GENERIC_LABELS, NOT_SERVICES

# The layers whose failure is the service's, not the name's: a connection refused or dropped.
_LAYERS: Final = frozenset({layers.CONNECT})
_MAX_HOST: Final = 253  # a DNS name's longest text


def host_service(host: str, known: set[str]) -> str | None:
    """The service `known` names by `host`'s first DNS label, when it is a dotted host name."""
    host = host.strip().lower().rstrip(".")
    if len(host) > _MAX_HOST or "." not in host or "/" in host or ":" in host:
        return None
    label = host.split(".", 1)[0]
    if (
        not label
        or label.isdigit()
        or label in GENERIC_LABELS
        or label in NOT_SERVICES
        or label not in known
    ):
        return None
    return label


def service_hosts(board: Board) -> None:
    """A connect-layer hypothesis about a host name whose first DNS label is a service the logs or metrics were read under is that service's hypothesis: the same fault, named as the data names it."""
    known = {s.lower() for s in (*board.facts.errors, *board.facts.health)}
    for key, c in list(board.candidates.items()):
        if c.layer not in _LAYERS or key in board.inv.excluded:
            continue
        service = host_service(c.component, known)
        if service is None:
            continue
        _rename(board, key, c, service)


def _rename(board: Board, key: str, c: Candidate, service: str) -> None:
    """The host's candidate, named as the service; a candidate the service already has at this
    layer (a rule that found the service's own fault behind the host) keeps both apart."""
    host = c.component
    new_key = f"{c.layer}:{service}"
    if new_key in board.candidates:
        return
    del board.candidates[key]
    c.component = service
    if host not in c.statement:
        c.statement += f" ({host})"
    board.candidates[new_key] = c
    if service not in c.keywords:
        c.keywords = [*c.keywords, service]
