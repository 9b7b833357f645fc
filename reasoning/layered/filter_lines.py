"""A connect-layer fault cites the packet filter's own line that dropped the connection.

A connection that times out or is refused at a host is shown by what answered it; when a host's
packet filter (ufw, iptables, nftables, firewalld) logs the packets it blocks, that line
(`[UFW BLOCK] … DPT=5672`, `iptables DROP … DPT=…`) carries the reason, where the callers' errors
and the probe carry only the symptom. The leading connect-layer hypothesis cites the first such
line read (from any service's errors or warnings, or a search of every service), preferring the
log of a service named like the host; any other block line is taken only when one service alone
logs them. Citing changes no ranking.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.reading import as_dict, as_list, short
from reasoning.layered.unread_services import every_service_errors
from reasoning.observations import Observation
from reasoning.tools import SEARCH_LOGS

# A packet filter's log of a packet it dropped: a bracketed verdict tag, or netfilter's fields.
_BLOCKED: Final = re.compile(
    r"\[[A-Z0-9 _-]{0,20}\b(?:BLOCK|DROP|DROPPED|REJECT|DENY|DENIED)\b[A-Z0-9 _-]{0,20}\]|"
    r"\b(?:BLOCK|DROP|REJECT|DENY)\b[^\n]{0,200}?\bDPT=\d+",
)
_FIELDS: Final = re.compile(r"\b(?:SRC|DST|DPT|PROTO)=")
_READ_CHARS: Final = 2000


def is_block_line(message: str) -> bool:
    """A packet filter's line for a packet it blocked (its verdict tag and netfilter's fields)."""
    text = message[:_READ_CHARS]
    return bool(_BLOCKED.search(text)) and bool(_FIELDS.search(text))


def _named_like(host: str, service: str) -> bool:
    """The service is named like the host: its first label starts the service's name, or the reverse."""
    label = host.split(".")[0].lower()
    service = service.lower()
    return bool(label) and (
        service == label
        or service.startswith(f"{label}-")
        or label.startswith(f"{service}-")
    )


def _block_lines(board: Board) -> list[tuple[Observation, str, str]]:
    """Every block line read: (the answer that held it, its service, the fact to cite)."""
    found: list[tuple[Observation, str, str]] = []
    for service, errors in every_service_errors(board.inv, board.facts):
        for group in (*errors.groups, *errors.warnings):
            if is_block_line(group.sample or group.signature):
                found.append((errors.obs, service, errors.fact(group)))
    for obs in board.inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")
            if is_block_line(message):
                service = str(line.get("service") or "")
                fact = f"search_logs: {service} logs: {short(message, 240)}"
                found.append((obs, service, fact))
    return found


def _leading_connect(board: Board) -> Candidate | None:
    standing = [c for c in board.candidates.values() if c.status != "ruled_out"]
    if not standing:
        return None
    top = max(standing, key=lambda c: c.confidence)
    return top if top.layer == layers.CONNECT else None


def filter_lines(board: Board) -> None:
    """The leading connect-layer hypothesis cites the packet filter's own line that blocked the connection (a service named like its host, or the only service logging such lines)."""
    top = _leading_connect(board)
    if top is None:
        return
    found = _block_lines(board)
    if not found:
        return
    host = top.component.rpartition("/")[2]
    named = [f for f in found if _named_like(host, f[1])]
    if not named and len({service for _, service, _ in found}) == 1:
        named = found
    if named:
        obs, _, fact = named[0]
        top.cite(obs, fact)
