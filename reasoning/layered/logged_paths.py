"""A network path the logs show failing when no probe reached it (issue 21: read what the data shows).

A caller's error lines that name a host and a specific failure class (DNS, TCP connect, TLS) are
evidence about that path, probe or not: netcheck may have no target for it, or no netcheck at all.
The hypothesis is the path's (layer, host), as a probe's would be, so a later probe of the host
lands on the same candidate (`network.corroborate`). It is confirmed the way an application
failure is: two servers agree, here the caller's logs naming the failure and the caller's own
metrics showing it fail; one server alone is a lead. Lines all logged before the window too (stale)
make a lead at most.
"""

from collections.abc import Iterator

from reasoning import layers
from reasoning.layered.application import stale
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import before_answer, error_classes, hosts_in, short

SPECIFIC: tuple[str, ...] = (
    layers.DNS,
    layers.CONNECT,
    layers.TLS,
)  # lowest layer first
_VERBS = {
    layers.DNS: "DNS resolution of {host} fails",
    layers.CONNECT: "TCP connect to {host} fails",
    layers.TLS: "TLS handshake with {host} fails",
}
_FAILING = ("degraded", "unhealthy")


def logged_paths(board: Board) -> None:
    """Error lines naming a host and a DNS, connect or TLS failure are a hypothesis about that path, probed or not, confirmed by the callers' metrics and a lead when stale."""
    probed = {p.host for p in board.facts.probes.values()}
    callers: dict[str, set[str]] = {}
    current: set[str] = (
        set()
    )  # candidates with a line not already logged before the window
    for errors, group, layer, host in _failing_paths(board):
        if host in probed:
            continue  # the probe's hypothesis cites these lines (network.corroborate)
        c = board.get(layer, host, _VERBS[layer].format(host=host))
        _support(board, c, errors, group)
        callers.setdefault(c.id, set()).add(errors.service)
        if not group.is_stale:
            current.add(c.id)
    for key, services in callers.items():
        _grade(board, board.candidates[key], services)
        if key not in current:
            stale(board.candidates[key])


def _failing_paths(board: Board) -> Iterator[tuple[Errors, ErrorGroup, str, str]]:
    """(errors, group, layer, host) for each error group naming a host and a specific class.

    A line can show several classes (a TLS error mentions the connection); the lowest layer that
    fails is the one the path fails at first. A line reporting the remote's HTTP answer is read
    only up to it: the remote was reached, and the hosts and words of its message (a help link,
    "certificate credentials") are not a path that failed.
    """
    for errors, group in board.facts.error_texts():
        text = "\n".join(before_answer(part) for part in group.text.split("\n"))
        classes = error_classes(text)
        layer = next((k for k in SPECIFIC if k in classes), None)
        if layer is None:
            continue
        for host in hosts_in(text):
            yield errors, group, layer, host


def _support(board: Board, c: Candidate, errors: Errors, group: ErrorGroup) -> None:
    c.cite(errors.obs, errors.fact(group))
    line = f"{errors.service} logs: {short(group.sample or group.signature, 120)}"
    if line not in c.chain:
        c.chain.append(line)
    health = board.facts.health.get(errors.service)
    if health is not None and health.verdict in _FAILING:
        # The caller's own metrics show it failing: a second server agrees the path hurts it.
        c.cite(health.obs, health.fact)
    c.keywords = [c.layer, c.component]


def _grade(board: Board, c: Candidate, callers: set[str]) -> None:
    """Logs and the callers' metrics agreeing confirm it; logs alone are a lead, stronger on a dependency."""
    if len(c.sources) >= 2:
        c.status = "confirmed"
        c.confidence = min(0.8 + 0.03 * (len(callers) - 1), 0.9)
    else:
        c.status = "likely"
        c.confidence = 0.6 if board.is_dependency(c.component) else 0.5
    head = board.symptom()
    lines = [x for x in c.chain if x != head][:2]
    c.chain = [head, *lines, c.statement]
