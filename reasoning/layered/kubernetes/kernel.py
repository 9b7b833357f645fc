"""Node-level network faults the kernel logs: tables of the node that fill up under every pod on it,
and a network adapter that keeps resetting.

Rules:
- a node's kernel logging that a network table is full (connection tracking: `nf_conntrack: table
  full, dropping packet`; the neighbour (ARP) table: `neighbour table overflow`; the local ports
  of outbound connections: `ephemeral port exhaustion`, `cannot assign requested address` logged
  by the node) drops or refuses new connections of every pod on that node, whatever the node's
  Ready condition says: the node is the fault (`infrastructure`, at the connect layer; the
  neighbour table, sized by the node's own settings for the addresses it serves, at platform), and
  the failures of the pods there are its victims (`links.node_victims`);
- the workload whose pod started on that node shortly before the kernel's first such line is what
  filled the table: the finding names it beside the node;
- a node's kernel logging that its network adapter stalls and resets (a driver's `Keep alive
  watchdog timeout`, `NETDEV WATCHDOG: … transmit queue timed out`, `Detected Tx Unit Hang`,
  `Reset adapter`, `Device reset`, the link going down) cuts every connection of every pod on it for
  the seconds each reset takes, while the node stays Ready (the kubelet's heartbeat survives the
  gaps): the node is the fault (`infrastructure`, `NodeNetworkDegraded`, platform), and its callers'
  timeouts to the pods there are its victims (`nic_faults`).

The kernel's lines are read from the logs server (any service: `kernel`, `journal`, `dmesg`,
a node agent), searched across every service once a node is worth a look or a top-errors group
read says such a line without naming its node (`searches`), from the
error and warning groups any service's top errors showed, and from the node's describe (a node
problem detector's `KernelMessage` events).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from reasoning import layers
from reasoning.layered.facts import Facts, parse_time
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.log_search import search_once
from reasoning.layered.reading import as_dict, as_list, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# Each table the kernel reports full, with the finding's reason; one regex for the search.
TABLES: tuple[tuple[str, str, str], ...] = (
    (r"nf_conntrack: table full", "ConntrackTableFull", "connection-tracking"),
    (r"neighbou?r table overflow", "NeighbourTableOverflow", "neighbour (ARP)"),
    (
        r"ephemeral port(?:s| range)? exhaust|cannot assign requested address",
        "EphemeralPortsExhausted",
        "ephemeral port",
    ),
)
# The layer each full table is at: connection tracking and local ports fill with connections
# (connect); the neighbour table holds the node's own link-layer neighbours, sized by the node's
# settings for how many it serves (its pod density): the node's configuration (platform).
_TABLE_LAYERS = {"NeighbourTableOverflow": layers.PLATFORM}
# A network adapter that stalls and resets: a watchdog's own words, or its driver's name (ENA,
# Intel, Mellanox, virtio …) with a reset, a transmit timeout, a hang or the link down.
_WATCHDOG = r"Keep alive watchdog timeout|NETDEV WATCHDOG|transmit queue \d+ timed out|Tx Unit Hang"
_DRIVER = re.compile(
    r"(?<![\w-])(?:ena|ixgbe|ixgbevf|i40e|iavf|ice|igb|e1000e?|mlx[45]_core|bnxt_en|"
    r"virtio_net|vmxnet3|gve|tg3)(?![\w-])",
    re.IGNORECASE,
)
_RESET = re.compile(r"reset|tx timeout|link is down|\bhang\b", re.IGNORECASE)
# The search asks for the watchdog's words and for a driver's reset (its name within a few words).
# The logs server reads RE2, which has no look-around: the driver's name is bounded by \b there.
_DRIVER_NAMES = _DRIVER.pattern.removeprefix(r"(?<![\w-])").removesuffix(r"(?![\w-])")
NIC = _WATCHDOG + rf"|\b{_DRIVER_NAMES}\b.{{0,80}}(?:reset|tx timeout|link is down)"
NIC_REASON = "NodeNetworkDegraded"
# The kernel's watchdogs finding a CPU or a task stuck: a soft or hard lockup, an RCU stall, a task
# blocked in the kernel for minutes (`watchdog: BUG: soft lockup - CPU#3 stuck for 23s!`,
# `NMI watchdog: Watchdog detected hard LOCKUP on cpu 5`, `rcu: INFO: rcu_sched self-detected
# stall on CPU`, `INFO: task kworker/2:1:77 blocked for more than 120 seconds`).
LOCKUP = (
    r"soft lockup|hard LOCKUP|self-detected stall|detected stalls? on CPU|"
    r"blocked for more than [0-9]+ seconds"
)
LOCKUP_REASON = "NodeKernelLockup"
# The kernel giving up on a node's disk or filesystem: ext4 or XFS errors and aborted journals, the
# filesystem remounted read-only, block-device I/O errors (`EXT4-fs error (device nvme0n1p1)`,
# `Remounting filesystem read-only`, `XFS (dm-0): Corruption of in-memory data detected`,
# `Buffer I/O error on dev xvda1`, `blk_update_request: I/O error, dev sda, sector 2048`,
# `btrfs: … forced readonly`).
FILESYSTEM = (
    r"EXT[234]-fs error|aborted journal|remounting filesystem read-only|"
    r"XFS \([^)]{1,40}\): (?:Corruption|metadata I/O error|Log I/O Error|Filesystem has been shut down)|"
    r"Buffer I/O error on dev|I/O error, dev [a-z0-9]{2,20}|forced readonly"
)
FILESYSTEM_REASON = "ReadonlyFilesystem"
# The search asks for the commonest of those words only: the logs server takes at most
# `QUERY_CHARS` characters, and the lines found are matched against the whole `FILESYSTEM`.
_FILESYSTEM_SEARCH = r"EXT[234]-fs error|filesystem read-only|I/O error"
QUERY_CHARS = 500
SEARCH = "|".join(
    [*(pattern for pattern, _, _ in TABLES), NIC, LOCKUP, _FILESYSTEM_SEARCH]
)


def _adapter_resets(message: str) -> bool:
    """The kernel says a network adapter stalled or reset (one line: two searches, no backtracking)."""
    return bool(
        re.search(_WATCHDOG, message, re.IGNORECASE)
        or (_DRIVER.search(message) and _RESET.search(message))
    )


# A node whose CPU its host holds back while it stays Ready: the hypervisor's steal time, a
# burstable instance's CPU credits spent (its balance at zero, its CPU held at the baseline).
CPU_STARVED = re.compile(
    r"\bsteal\b|cpu ?credit|credit ?balance|surplus credits|"
    r"\b(?:at|to|held at|flat at|capped at|throttled to) (?:its |the )?(?:cpu )?baseline",
    re.IGNORECASE,
)
CPU_REASON = "NodeCPUStarved"
_MATCHERS: tuple[tuple[Callable[[str], object], str, str], ...] = (
    *(
        (re.compile(pattern, re.IGNORECASE).search, reason, table)
        for pattern, reason, table in TABLES
    ),
    (_adapter_resets, NIC_REASON, "network adapter"),
    (re.compile(LOCKUP, re.IGNORECASE).search, LOCKUP_REASON, "CPU"),
    (re.compile(FILESYSTEM, re.IGNORECASE).search, FILESYSTEM_REASON, "filesystem"),
    (CPU_STARVED.search, CPU_REASON, "CPU"),
)
_NODE_LABELS = ("node", "nodename", "node_name", "host", "hostname", "instance")
# A pod that started at most this long before the kernel's first line may have filled the table.
FILLER_LEAD_S = 3600.0


@dataclass(frozen=True)
class KernelLine:
    obs: Observation
    node: str
    reason: str
    table: str
    message: str
    at: datetime | None


def unplaced(facts: Facts) -> str:
    """The first error or warning group read (any service's top errors) whose words are a node's
    kernel saying a network table is full, its adapter resets or its CPUs stall: a group keeps no
    labels, so which nodes log it is still to be found; "" when none."""
    for errors in facts.errors.values():
        for group in (*errors.groups, *errors.warnings):
            message = group.sample or group.signature
            if any(matches(message) for matches, _, _ in _MATCHERS[:-1]):
                return message
    return ""


def searches(
    inv: Investigation,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    nodes: list[str],
    seen: str = "",
) -> list[PlannedCall | None]:
    """Once a node is worth a look, or a kernel's line read names no node: every service's lines (the node's kernel among them) that say a network table of a node is full."""
    if nodes:
        why = f"failures follow node {nodes[0]}"
    elif seen:
        why = f"a node's kernel logs {short(seen, 60)!r} without naming the node"
    else:
        return []
    return search_once(
        inv,
        call,
        SEARCH,
        limit=40 if seen else 20,
        why=f"{why}: does a node's kernel log a full network table (conntrack, "
        "neighbour, ephemeral ports)",
    )


def kernel_lines(
    inv: Investigation, cluster: Cluster, facts: Facts | None = None
) -> list[KernelLine]:
    """The lines of any log read (searches, top errors' groups, a node's describe events) that say a
    listed node's network table is full or its network adapter resets, oldest first."""
    nodes = set(cluster.names("nodes", ""))
    found: list[KernelLine] = []

    def add(
        obs: Observation, node: str | None, message: str, at: datetime | None
    ) -> None:
        match = next(((r, t) for m, r, t in _MATCHERS if m(message)), None)
        if match is not None and node is not None:
            found.append(KernelLine(obs, node, match[0], match[1], message, at))

    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")
            add(
                obs,
                _node_of(line, message, nodes),
                message,
                parse_time(str(line.get("time") or "")),
            )
    for errors in facts.errors.values() if facts is not None else ():
        for group in (*errors.groups, *errors.warnings):
            message = group.sample or group.signature
            add(
                errors.obs,
                _node_of({}, message, nodes),
                message,
                parse_time(group.first_seen),
            )
    for events in cluster.events.values():
        for event in events:
            if event.kind == "node" and event.type == "Warning" and event.name in nodes:
                add(event.obs, event.name, event.message, None)
    return sorted(found, key=lambda k: (k.at is None, k.at or datetime.min))


def _node_of(line: dict[str, Any], message: str, nodes: set[str]) -> str | None:
    labels = as_dict(line.get("labels"))
    for key in _NODE_LABELS:
        value = labels.get(key)
        if isinstance(value, str) and value in nodes:
            return value
    return next((n for n in sorted(nodes) if n in message), None)


def kernel_faults(inv: Investigation, cluster: Cluster, ns: str) -> list[Finding]:
    """A node whose kernel logs a full network table (conntrack, neighbour, ephemeral ports) drops the new connections of every pod on it (the neighbour table, sized by the node's own settings, a platform fault), and the pod that started there just before filled it."""
    out: dict[str, Finding] = {}
    table = cluster.table("pods", ns)
    for line in kernel_lines(inv, cluster):
        if line.reason in (NIC_REASON, CPU_REASON, LOCKUP_REASON, FILESYSTEM_REASON):
            continue  # `nic_faults`, `cpu_starved_faults`, `lockup_faults`, `filesystem_faults`
        f = out.get(line.node)
        if f is None:
            f = out[line.node] = Finding(
                "infrastructure",
                line.reason,
                f"node/{line.node}",
                _TABLE_LAYERS.get(line.reason, layers.CONNECT),
                f"node {line.node}'s {line.table} table is full: its kernel drops the new "
                "connections of every pod on it (the node may still be Ready)",
                ns,
            )
            f.keywords = ["node", line.node, line.reason, short(line.message, 60)]
            f.chain = [f"{line.node} kernel: {short(line.message, 120)}"]
            filler = _filler(cluster, ns, line.node)
            if filler is not None:
                owner = cluster.owner(ns, "pod", filler)
                f.statement += f"; {owner} started there just before and filled it"
                f.keywords.append(owner.partition("/")[2])
                f.chain.append(f"{owner} started on {line.node} just before")
                if table is not None:
                    f.cite(table.obs, f"get pods: {table.line(filler)}")
        f.cite(line.obs, f"{line.node} kernel: {line.message}")
    return list(out.values())


def _per_node(
    inv: Investigation,
    facts: Facts,
    cluster: Cluster,
    ns: str,
    reason: str,
    opened: Callable[[KernelLine], Finding],
    quoted: Callable[[KernelLine], str],
    most: int | None = None,
) -> list[Finding]:
    """One finding per listed node whose lines say `reason`: `opened` words it from the node's first
    such line, the pods of `ns` that run there are named, and each line (the first `most`) is cited
    as `quoted` words it."""
    out: dict[str, Finding] = {}
    for line in kernel_lines(inv, cluster, facts):
        if line.reason != reason:
            continue
        f = out.get(line.node)
        if f is None:
            f = out[line.node] = opened(line)
            on_node = [p for p in cluster.pods(ns) if p.node == line.node]
            if on_node:
                f.statement += f" ({', '.join(p.name for p in on_node[:3])} run there)"
                table = cluster.table("pods", ns)
                if table is not None:
                    f.context.append(
                        (table.obs, f"get pods: {table.line(on_node[0].name)}")
                    )
        if most is None or len(f.evidence) < most:
            f.cite(line.obs, quoted(line))
    return list(out.values())


def _kernel_says(line: KernelLine) -> str:
    """How a finding cites a kernel's line: the node, then the kernel's own words."""
    return f"{line.node} kernel: {_after_node(line.message, line.node)}"


def nic_faults(
    inv: Investigation, facts: Facts, cluster: Cluster, ns: str
) -> list[Finding]:
    """A node whose kernel logs its network adapter stalling and resetting (a driver's watchdog timeout, a transmit queue timed out, a device reset) cuts the connections of every pod on it for seconds at a time while it stays Ready: the node is the fault, not the pods' callers that time out."""

    def opened(line: KernelLine) -> Finding:
        f = Finding(
            "infrastructure",
            NIC_REASON,
            f"node/{line.node}",
            layers.PLATFORM,
            f"node {line.node}'s network adapter stalls and resets (its kernel: "
            f"{short(_after_node(line.message, line.node), 100)}): every pod on it loses its "
            "connections for the seconds each reset takes, while the node stays Ready",
            ns,
        )
        f.keywords = ["node", line.node, NIC_REASON, "network adapter", "reset"]
        f.chain = [f"{line.node} kernel: {short(line.message, 120)}"]
        return f

    return _per_node(inv, facts, cluster, ns, NIC_REASON, opened, _kernel_says)


def cpu_starved_faults(
    inv: Investigation, facts: Facts, cluster: Cluster, ns: str
) -> list[Finding]:
    """A node whose own lines (a monitor's alarm, its exporter) say its host holds its CPU back while it stays Ready (steal time, a burstable instance's CPU credits spent, held at its baseline) slows every pod on it: the node is the fault, not the pods that run slow there nor the monitor that says so."""

    def opened(line: KernelLine) -> Finding:
        f = Finding(
            "infrastructure",
            CPU_REASON,
            f"node/{line.node}",
            layers.PLATFORM,
            f"node {line.node} gets less CPU than its pods need ("
            f"{short(_opening_node(line.message, line.node), 100)}): every pod on it runs "
            "slow while the node stays Ready",
            ns,
        )
        f.keywords = ["node", line.node, CPU_REASON, "cpu", "steal", "credit"]
        f.chain = [f"{line.node}: {short(line.message, 120)}"]
        return f

    def quoted(line: KernelLine) -> str:
        return f"{line.node}: {_opening_node(line.message, line.node)}"

    return _per_node(inv, facts, cluster, ns, CPU_REASON, opened, quoted, most=3)


def _opening_node(message: str, node: str) -> str:
    """The line without the node's name it opens with (a line naming it further on is kept whole)."""
    return message[len(node) :].strip(" :") if message.startswith(node) else message


def lockup_faults(
    inv: Investigation, facts: Facts, cluster: Cluster, ns: str
) -> list[Finding]:
    """A node whose kernel logs CPUs or tasks stuck (a soft or hard lockup, an RCU stall, a task blocked for minutes) stalls every pod on it and its kubelet, which flaps the node NotReady and Ready: the node (its image or kernel) is the fault, not the pods that stall there."""

    def opened(line: KernelLine) -> Finding:
        f = Finding(
            "infrastructure",
            LOCKUP_REASON,
            f"node/{line.node}",
            layers.PLATFORM,
            f"node {line.node}'s kernel finds its CPUs stuck (its kernel: "
            f"{short(_after_node(line.message, line.node), 100)}): every pod on it and its "
            "kubelet stall for seconds at a time, so the node flaps NotReady and Ready",
            ns,
        )
        f.keywords = ["node", line.node, LOCKUP_REASON, "kernel", "lockup"]
        f.chain = [f"{line.node} kernel: {short(line.message, 120)}"]
        image = _node_image(cluster, line.node)
        if image:
            f.statement += f"; the node runs {image}"
            f.keywords.append(image)
        return f

    return _per_node(
        inv, facts, cluster, ns, LOCKUP_REASON, opened, _kernel_says, most=3
    )


def filesystem_faults(
    inv: Investigation, facts: Facts, cluster: Cluster, ns: str
) -> list[Finding]:
    """A node whose kernel logs its disk or filesystem failing (an ext4 or XFS error, an aborted journal, the filesystem remounted read-only, block I/O errors) fails every write of every pod on it and every new container there, while it stays Ready: the node is the fault, not the pods that cannot write."""

    def opened(line: KernelLine) -> Finding:
        f = Finding(
            "infrastructure",
            FILESYSTEM_REASON,
            f"node/{line.node}",
            layers.PLATFORM,
            f"node {line.node}'s disk or filesystem fails (its kernel: "
            f"{short(_after_node(line.message, line.node), 140)}): every write of the pods on "
            "it and every new container there fails while the node stays Ready",
            ns,
        )
        f.keywords = ["node", line.node, FILESYSTEM_REASON, "filesystem", "read-only"]
        f.chain = [f"{line.node} kernel: {short(line.message, 120)}"]
        return f

    return _per_node(
        inv, facts, cluster, ns, FILESYSTEM_REASON, opened, _kernel_says, most=3
    )


def _node_image(cluster: Cluster, node: str) -> str:
    """The OS image and kernel a wide node listing gives for `node`, "" when not listed."""
    table = cluster.table("nodes", "")
    for row in table.rows if table else ():
        if row.get("NAME") == node:
            return " ".join(
                v for v in (row.get("OS-IMAGE", ""), row.get("KERNEL-VERSION", "")) if v
            )
    return ""


def _after_node(message: str, node: str) -> str:
    """The kernel's own words, without the node's name a log line may open with."""
    return message.split(node, 1)[1].strip(" :") if node in message else message


def _filler(cluster: Cluster, ns: str, node: str) -> str | None:
    """The youngest healthy pod on `node`, when it started within the lead before now's failures."""
    young = [
        p
        for p in cluster.pods(ns)
        if p.node == node
        and p.is_healthy
        and p.age_s is not None
        and p.age_s <= FILLER_LEAD_S
    ]
    return min(young, key=lambda p: p.age_s or 0.0).name if young else None
