"""HTTP 5xx from a hop or gateway (rule 3): explained by a lower failure when one shows, else a weaker lead.

A gateway's answer that names a lower failure it sits in front of makes that failure the lead, even unprobed.
"""

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import Probe
from reasoning.layered.reading import belongs, error_classes, hosts_in, upstreams


def gateway(board: Board, probe: Probe, direct: list[Candidate]) -> None:
    """A hop's HTTP 5xx is explained by the lower failure it passes on when one shows (a gateway relays, it does not fail), else it is a weaker lead."""
    hop = f"{probe.host} answers HTTP {probe.status}" + (
        f" naming a {'/'.join(sorted(probe.body_classes))} failure behind it"
        if probe.body_classes
        else ""
    )
    named = [h for h in hosts_in(probe.body) if h != probe.host]
    cause = _cause(probe, direct, named)
    c = board.get(layers.HTTP, probe.host, hop)
    c.cite(probe.obs, probe.fact, is_support=False)
    for errors, group in board.facts.error_texts():
        if belongs(probe.host, errors.service) or any(
            belongs(probe.host, u) for u in upstreams(group.text)
        ):
            c.cite(errors.obs, errors.fact(group), is_support=False)
    if cause is not None:
        _explained(board, probe, c, hop, cause)
        return
    if probe.body_classes:
        inferred = _inferred(board, probe, hop, named)
        c.status, c.confidence = "likely", 0.35
        c.chain = [board.symptom(), hop, inferred.statement]
    else:
        c.status, c.confidence = (
            "likely",
            0.5 if board.is_dependency(probe.host) else 0.4,
        )
        c.chain = [board.symptom(), hop]
    c.keywords = [layers.HTTP, probe.reason or "", probe.host]


def _cause(probe: Probe, direct: list[Candidate], named: list[str]) -> Candidate | None:
    """The lower failure behind the hop: one on a host its answer names, else the lowest of the class it names."""
    by_name = next((c for c in direct if c.component in named), None)
    if by_name is not None:
        return by_name
    return next(
        (
            c
            for c in sorted(direct, key=lambda c: layers.rank(c.layer))
            if c.layer in probe.body_classes
        ),
        None,
    )


def _explained(
    board: Board, probe: Probe, c: Candidate, hop: str, cause: Candidate
) -> None:
    """The hop's answer supports the lower failure it shows and is ruled out as a cause of its own."""
    cause.cite(probe.obs, probe.fact, is_support=False)
    if len(cause.chain) >= 2 and hop not in cause.chain:
        cause.chain.insert(len(cause.chain) - 1, hop)
    c.status, c.confidence = "ruled_out", 0.2
    c.reason_ruled_out = f"explained by {cause.id}: {cause.statement}"
    c.chain = [board.symptom(), hop, cause.statement]


def _inferred(board: Board, probe: Probe, hop: str, named: list[str]) -> Candidate:
    """The hop names a lower failure we could not probe: that failure is the lead, and an open question."""
    layer = min(probe.body_classes, key=layers.rank)
    component = named[0] if named else f"upstream of {probe.host}"
    inferred = board.get(
        layer,
        component,
        f"{layer} failure between {probe.host} and {component}, as {probe.host}'s answer says",
    )
    inferred.cite(probe.obs, probe.fact)
    for errors, group in board.facts.error_texts():
        if layer in error_classes(group.text):
            inferred.cite(errors.obs, errors.fact(group))
    inferred.status = "likely"
    inferred.confidence = 0.7 if len(inferred.sources) >= 2 else 0.55
    inferred.chain = [board.symptom(), hop, inferred.statement]
    inferred.keywords = [layer, probe.reason or "", component, str(probe.status)]
    board.open_questions.append(
        f"{component} is not a netcheck target: the {layer} failure {probe.host} reports could not be probed directly"
    )
    return inferred
