"""An HTTP failure of a service's own host whose own logs or metrics show an application fault: the fault is the cause.

A probe of a service's host that times out or answers 5xx (not a hop's 502/504 about what lies behind
it, not a cut stream) only shows how the service fails to answer; when the service's own hypothesis is
confirmed by its own logs or metrics (a deadlock, an exhausted pool, saturation), the HTTP failure is
that fault's symptom, as the 5xx a service answers itself is (`network._answered_by`).
"""

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import Probe
from reasoning.layered.network import network_statement
from reasoning.layered.reading import belongs

# A third server (netcheck) showing the same failure as the service's logs and metrics.
_AGREEING_PROBE = 0.03


def http_symptoms(board: Board) -> None:
    """An HTTP timeout or 5xx of a service's own host is explained by that service's confirmed application fault."""
    for probe in board.facts.probes.values():
        if not _is_own_http_failure(probe):
            continue
        http = board.candidates.get(f"{layers.HTTP}:{probe.host}")
        if http is None or http.status == "ruled_out":
            continue
        app = _own_fault(board, probe.host)
        if app is None:
            continue
        hop = network_statement(probe)
        app.cite(probe.obs, probe.fact)
        if hop not in app.chain:
            app.chain.insert(max(len(app.chain) - 1, 0), hop)
        app.confidence = min(app.confidence + _AGREEING_PROBE, 0.95)
        http.status, http.confidence = "ruled_out", min(http.confidence, 0.2)
        http.reason_ruled_out = (
            f"explained by {app.id}: the {probe.reason or probe.status} is how "
            f"{app.component}'s own fault shows on the wire ({app.statement})"
        )


def _is_own_http_failure(probe: Probe) -> bool:
    """A timeout or a 5xx at the HTTP layer that is not a hop's answer about an upstream."""
    if probe.layer != layers.HTTP or probe.reason == "stream_cut" or probe.body_classes:
        return False
    if probe.status is None:
        return "timeout" in (probe.reason or "")
    return probe.is_server_error and probe.status not in (502, 504)


def _own_fault(board: Board, host: str) -> Candidate | None:
    """The confirmed application hypothesis (logs or metrics of its own) of the service `host` belongs to."""
    return next(
        (
            c
            for c in board.candidates.values()
            if c.layer == layers.APPLICATION
            and c.status == "confirmed"
            and c.stage is None
            and belongs(host, c.component)
        ),
        None,
    )
