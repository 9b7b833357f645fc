"""An egress path element over its allowance (issue 21 classes 1 and 4): the NAT or firewall that drops or shapes packets is the fault on the path, the callers that time out on remote hosts its victims.

Calls to hosts outside our network leave through shared elements: a NAT gateway or NAT instance, an
egress firewall, an outbound proxy's interface. When one runs past what it may carry (a cloud
instance's bandwidth or packet-rate allowance, its connection-tracking table, a NAT's source
ports), it drops or queues packets: every external call through it slows or times out at once,
whichever remote it is for. The callers then log the remote as slow (`card auth slow`, `upstream
timed out`, a provider's latency) and look like the fault; the element itself logs only counters,
often at warning level. A service whose own new lines count such drops or an exceeded allowance
(`bw_out_allowance_exceeded`, `ErrorPortAllocation`, SNAT port exhaustion, Cloud NAT's
`OUT_OF_RESOURCES`, `nf_conntrack: table full`) is that element: the connect-layer fault when other
services' new lines say their calls became slow or timed out, confirmed by a probe of a remote
host timing out, a second such caller, or a change recorded before its first drop that names it
(the NAT replaced by an instance). The slow callers are its victims.
"""

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from reasoning import layers
from reasoning.layered import quiet_changes
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import ErrorGroup, Errors, Probe, parse_time
from reasoning.layered.reading import short

# An element's own count of what it drops or the allowance it exceeds, in the words of several
# products: AWS ENA's ethtool counters and NAT gateway metrics, Azure's SNAT port exhaustion,
# Google Cloud NAT's drop reasons, Linux conntrack, an interface's dropped packets.
OVER_ALLOWANCE: Final = re.compile(
    r"\b(?:bw_in|bw_out|pps|conntrack|linklocal)_allowance_exceeded\b|"
    r"\ballowance[ _-]exceeded\b|\bErrorPortAllocation\b|\bPacketsDropCount\b|"
    r"\bsnat[ _-](?:port[ _-]?)?(?:exhaust\w*|allocation[ _-]failed)|"
    r"\bOUT_OF_RESOURCES\b|\bnat[ _-]allocation[ _-]failed\b|"
    r"\bdropped_(?:sent|received)_packets\w*|"
    r"\bnf_conntrack: table full|"
    r"\b(?:packets?|pkts?|tx|rx)[ _-](?:dropped|drops)\b(?:[ :=]+[1-9])|"
    r"\bbandwidth (?:limit|cap|allowance) (?:exceeded|reached)\b",
    re.IGNORECASE,
)
# A caller's words for a call that became slow or did not finish in time.
SLOW_CALL: Final = re.compile(
    r"timed? ?out|timeout|deadline exceeded|\bslow\b|took too long|latency",
    re.IGNORECASE,
)
_LEAD: Final = timedelta(
    hours=3
)  # how long before its first drop a change may have set it up
_CONFIRMED: Final = 0.88  # above a slow caller's own warnings (0.78)
_WITH_CHANGE: Final = 0.9
_LIKELY: Final = 0.6


@dataclass(frozen=True)
class Over:
    """A service's new lines counting drops or an exceeded allowance: a path element's."""

    errors: Errors
    group: ErrorGroup

    @property
    def element(self) -> str:
        return self.errors.service

    @property
    def fact(self) -> str:
        return self.errors.fact(self.group)


def over_allowance(board: Board) -> list[Over]:
    """The services whose own new lines (errors or warnings) count packets dropped or an allowance exceeded."""
    found: list[Over] = []
    for service, errors in board.facts.errors.items():
        if not service:
            continue
        group = next(
            (
                g
                for g in (*errors.warnings, *errors.groups)
                if g.is_new and OVER_ALLOWANCE.search(g.text[:4000])
            ),
            None,
        )
        if group is not None:
            found.append(Over(errors, group))
    return found


def _slow_callers(board: Board, element: str) -> list[tuple[Errors, ErrorGroup]]:
    """Other services whose own new lines say their calls became slow or timed out."""
    found = []
    for service, errors in board.facts.errors.items():
        if not service or service == element:
            continue
        group = next(
            (
                g
                for g in (*errors.groups, *errors.warnings)
                if g.is_new
                and SLOW_CALL.search(g.text[:4000])
                and not OVER_ALLOWANCE.search(g.text[:4000])
            ),
            None,
        )
        if group is not None:
            found.append((errors, group))
    return found


def _squashed(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _change_naming(
    board: Board, element: str, first: datetime | None
) -> quiet_changes.ChangeLine | None:
    """A change line, logged before the element's first drop, that names the element in any spelling (`fck_nat` for fck-nat)."""
    name = _squashed(element)
    if len(name) < 3:
        return None
    for change in quiet_changes.change_lines(board.inv):
        if change.service == element or name not in _squashed(change.message):
            continue
        if (
            first is not None
            and change.at is not None
            and not first - _LEAD <= change.at <= first
        ):
            continue
        return change
    return None


def egress_allowance(board: Board) -> None:
    """A network path element (a NAT, an egress firewall or interface) whose own new lines count packets dropped or an allowance exceeded, while other services' new lines say their calls became slow or timed out, is the connect-layer fault on their path: confirmed by a remote's probe timing out, a second slow caller or a change naming it just before; the slow callers are its victims."""
    if any(
        c.layer == layers.CONNECT and c.component.startswith("node/")
        for c in board.candidates.values()
    ):
        return  # a cluster node's own kernel table is the fault on the path (k8s.node-network-table-full)
    for over in over_allowance(board)[:1]:
        callers = _slow_callers(board, over.element)
        if not callers:
            continue
        timed_out = [
            p
            for p in board.facts.probes.values()
            if p.layer in (layers.CONNECT, layers.HTTP)
            and (p.reason or "") in ("timeout", "connect_timeout", "read_timeout")
        ]
        change = _change_naming(board, over.element, parse_time(over.group.first_seen))
        c = board.get(
            layers.CONNECT,
            over.element,
            f"{over.element}, on the path out of our network, drops or shapes packets over its "
            f"allowance ({short(over.group.sample or over.group.signature, 90)}): every call "
            "through it slows or times out"
            + (f"; {change.service} changed it just before" if change else ""),
        )
        c.cite(over.errors.obs, over.fact)
        for errors, group in callers[:2]:
            c.cite(errors.obs, errors.fact(group), is_support=False)
        for probe in timed_out[:1]:
            c.cite(probe.obs, probe.fact, is_support=False)
        if change is not None:
            c.cite(change.obs, change.fact)
        shown = bool(timed_out) or len(callers) >= 2 or change is not None
        if shown:
            c.status = "confirmed"
            c.confidence = max(
                c.confidence, _WITH_CHANGE if change is not None else _CONFIRMED
            )
        elif c.status != "confirmed":
            c.status, c.confidence = "likely", max(c.confidence, _LIKELY)
        c.chain = [
            board.symptom(),
            *(
                f"{errors.service} logs: {short(group.sample or group.signature, 120)}"
                for errors, group in callers[:1]
            ),
            f"{over.element} logs: {short(over.group.sample or over.group.signature, 120)}",
            *(
                [f"{change.service} logs: {short(change.message, 120)}"]
                if change
                else []
            ),
            c.statement,
        ]
        c.keywords = [over.element, layers.CONNECT, "allowance", "dropped", "egress"]
        if not shown:
            continue
        _victims(board, c, {errors.service for errors, _ in callers}, timed_out)


def _victims(
    board: Board, cause: Candidate, callers: set[str], probes: list[Probe]
) -> None:
    """The slow callers, the element's own application reading and the remotes probed through it."""
    hosts = {p.host for p in probes}
    for victim in list(board.candidates.values()):
        if victim is cause:
            continue
        if victim.component == cause.component and victim.layer == layers.APPLICATION:
            victim.explained_by(cause, f"its own counters are {cause.id}")
        elif victim.component in callers:
            victim.explained_by(
                cause, f"a symptom of {cause.id} (the egress path its calls cross)"
            )
        elif victim.component in hosts and victim.layer in (
            layers.CONNECT,
            layers.HTTP,
        ):
            victim.explained_by(cause, f"reached through {cause.id}, which shapes it")
