"""Two hosts that answer for one address (an ARP flip-flop) while a failover daemon took it over: a connect-layer split brain of that daemon's pair, not the callers' fault.

Connection resets that come and go on one address, while a monitor sees that address's hardware
address flip between two (`flip flop 10.0.0.5 …`, `duplicate address detected`), mean two hosts
both claim it: each resets the other's connections. A failover daemon (keepalived, VRRP, CARP,
pacemaker) entering MASTER in the window on a host whose peer was master already is why. The planner
searches every service's lines for both (`CONFLICT_SEARCH`, `TAKEOVER_SEARCH`) once a probe or a caller reports resets; the rule
(`address_conflict`) concludes at the connect layer of the daemon that took the address over,
confirmed with the conflict lines, a lead on the address alone without a takeover.
"""

import re
from collections.abc import Callable
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.layered.reading import arg, as_dict, as_list, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

_IP: Final = r"(\d{1,3}(?:\.\d{1,3}){3})"
CONFLICT: Final = re.compile(
    r"\bflip[ -]?flop\s+"
    + _IP
    + r"|\bduplicate (?:ip )?address(?: detected)?(?: for)?\s+"
    + _IP
    + r"|\b(?:ip|address) conflict\b[^0-9\n]{0,40}"
    + _IP,
    re.IGNORECASE,
)
TAKEOVER: Final = re.compile(
    r"\b(?:entering|transition(?:ed)? to|became|becoming|switching to)\s+"
    r"(?:the\s+|state:?\s+)?MASTER\b",
    re.IGNORECASE,
)
CONFLICT_SEARCH: Final = r"flip.?flop|duplicate (ip )?address|(ip|address) conflict"
TAKEOVER_SEARCH: Final = (
    r"(entering|transition(ed)? to|became|becoming|switching to) (the |state:? )?master"
)
RESET: Final = re.compile(
    r"ECONNRESET|connection[ _]reset|reset by peer", re.IGNORECASE
)
_LIMIT: Final = 50
_CONFIDENCE: Final = (
    0.94  # the address answered from two hosts and a second took it over
)
_LEAD: Final = 0.6


def _resets(facts: Facts) -> bool:
    """Whether a probe or a failing service reports connections reset."""
    if any("reset" in (p.reason or "") for p in facts.probes.values()):
        return True
    return any(
        RESET.search(g.sample or g.signature)
        for errors in facts.errors.values()
        for g in errors.groups
    )


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """Every service's lines about an address claimed twice or taken over, once connections reset."""
    if not _resets(facts):
        return []
    return [
        call(
            SEARCH_LOGS,
            {"query": query, "regex": True, **window, "limit": _LIMIT},
            f"connections reset: is an address claimed by two hosts ({what})",
        )
        for query, what in (
            (CONFLICT_SEARCH, "an ARP flip-flop, a duplicate address"),
            (TAKEOVER_SEARCH, "a failover daemon entering MASTER"),
        )
    ]


def _lines(inv: Investigation) -> list[tuple[Observation, dict[str, Any]]]:
    out: list[tuple[Observation, dict[str, Any]]] = []
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "service"):
            continue
        if arg(obs, "query") not in (CONFLICT_SEARCH, TAKEOVER_SEARCH):
            continue
        out.extend(
            (obs, as_dict(line)) for line in as_list(as_dict(obs.result).get("lines"))
        )
    return out


def address_conflict(board: Board) -> None:
    """An address answered from two hosts while a failover daemon took it over is a connect-layer split brain of that daemon; the resets are its symptom."""
    conflicts: dict[str, list[tuple[Observation, str]]] = {}
    takeovers: list[tuple[Observation, str, str]] = []
    for obs, line in _lines(board.inv):
        message = str(line.get("message") or "")
        match = CONFLICT.search(message)
        if match is not None:
            ip = next(g for g in match.groups() if g)
            conflicts.setdefault(ip, []).append((obs, message))
        elif TAKEOVER.search(message) and line.get("service"):
            takeovers.append((obs, str(line["service"]).lower(), message))
    if not conflicts:
        return
    ip, lines = max(conflicts.items(), key=lambda kv: len(kv[1]))
    if len(lines) < 2:
        return  # one flip is a failover, not a conflict
    obs, message = lines[0]
    if takeovers:
        t_obs, daemon, t_message = takeovers[0]
        c = board.get(
            layers.CONNECT,
            daemon,
            f"{daemon} took over {ip} while its peer still holds it: two hosts answer for "
            "the address and reset each other's connections",
        )
        c.cite(
            obs,
            short(f"search_logs(every service): {len(lines)} lines: {message}", 300),
        )
        c.cite(t_obs, short(f"search_logs(every service): {daemon}: {t_message}", 300))
        c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
        c.chain = [
            board.symptom(),
            f"{ip} answers from two hardware addresses: {short(message, 100)}",
            f"{daemon}: {short(t_message, 100)}",
            c.statement,
        ]
        c.keywords = [daemon, ip, "vrrp", "split brain", "ARP"]
        return
    c = board.get(
        layers.CONNECT, ip, f"{ip} answers from two hosts (an address conflict)"
    )
    c.cite(
        obs, short(f"search_logs(every service): {len(lines)} lines: {message}", 300)
    )
    if c.status != "confirmed":
        c.status, c.confidence = "likely", max(c.confidence, _LEAD)
    c.chain = [board.symptom(), f"{ip}: {short(message, 100)}", c.statement]
    c.keywords = [ip, "ARP", "address conflict"]
