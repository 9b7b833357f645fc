"""Kubernetes findings on the board: each faulty object a hypothesis, graded by where it lies.

The Kubernetes agent (`reasoning.layered.kubernetes`) names each faulty object's stage, its
victims, whether it is on the incident's path and whether it is over; this module turns those
findings into hypotheses.
"""

import re

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.warning_leads import names_service
from reasoning.tools import KUBERNETES_TOOLS

# A fault the incident's path is not shown to touch, but whose workload (or a victim's) other
# services' new lines name: confirmed, below a fault on the path (0.88 and up), above a service's
# own warnings (0.78).
_NAMED_BY_CALLERS = 0.82
# A line that says its call failed: timed out, refused, a 5xx, disconnected, unreachable.
_FAILED_CALL = re.compile(
    r"time(?:d)? ?out|deadline exceeded|\b5\d\d\b|fail|error|exception|refused|reset|"
    r"unavailable|disconnect|unreachable|no route|could not (?:connect|reach)|"
    r"cannot (?:connect|reach)|not (?:reachable|available)",
    re.IGNORECASE,
)


def kubernetes_findings(board: Board) -> None:
    """Each Kubernetes object's fault is a hypothesis at its stage's layer: confirmed on the incident's path, a lead off it, below its cause as a victim, weak when over before the window."""
    if not any(o.tool in KUBERNETES_TOOLS for o in board.inv.observations):
        return
    board.cluster = kubernetes.diagnosis(board.inv, board.facts)
    findings = board.cluster.findings
    by_component = {f.component: f for f in findings}
    for f in findings:
        c = board.get(f.layer, f.component, f.statement)
        c.stage, c.reason = f.stage, f.reason
        for obs, fact in f.evidence:
            c.cite(obs, fact)
        c.keywords = [k for k in f.keywords if k]
        cause = by_component.get(f.victim_of or "")
        spans = len({e.span_id for e in c.evidence})
        if cause is not None:
            c.status, c.confidence = "likely", 0.4
            c.statement += (
                f"; a symptom of {cause.component} ({cause.stage}: {cause.reason})"
            )
            c.chain = [f.statement, *cause.chain[-1:]]
        elif f.is_stale:
            # Over before the incident's window: what happened, not what fails now.
            c.status, c.confidence = "likely", 0.3
            c.statement += "; over (its pods run ready now, none restarted recently)"
            c.chain = list(f.chain)
        elif f.is_relevant:
            c.status = "confirmed"
            c.confidence = min(
                0.88 + 0.02 * min(spans - 1, 3) + 0.01 * min(f.depth, 3), 0.97
            )
            c.chain = [board.symptom(), *f.chain]
        elif callers := named_by_callers(board.facts, f, findings):
            errors, group, name = callers[0]
            c.cite(errors.obs, errors.fact(group))
            c.status = "confirmed"
            c.confidence = min(_NAMED_BY_CALLERS + 0.02 * min(spans - 1, 3), 0.87)
            reached = (
                name if name == f.component.partition("/")[2] else f"its victim {name}"
            )
            c.statement += f"; it reaches services that fail: {errors.service}'s new lines name {reached}"
            c.chain = [
                board.symptom(),
                f"{errors.service} logs (new): {(group.sample or group.signature)[:120]}",
                *f.chain,
            ]
        else:
            # A fault the incident's path is not shown to touch: a lead, not the explanation.
            c.status, c.confidence = "likely", 0.5 if spans > 1 else 0.45
            c.statement += f"; not shown to be on {board.service}'s path"
            c.chain = list(f.chain)


# The endpoints an operator names after a data store's cluster for each role (CloudNativePG's
# `<cluster>-rw`/`-ro`/`-r`, Patroni's `-primary`/`-replica`, Redis' `-master`/`-headless`, a
# pooler's `-pooler`): a caller's line naming one names the cluster's workload.
_ROLE_SUFFIX = r"-(?:rw|ro|r|primary|replicas?|master|leader|writer|reader|headless|pooler(?:-rw|-ro)?)"


def _names_role_endpoint(text: str, name: str) -> bool:
    """True when `text` names `name` by one of its role endpoints (`orders-db-rw` for `orders-db`)."""
    pattern = rf"(?<![\w.-]){re.escape(name.lower())}{_ROLE_SUFFIX}(?![\w-])"
    return re.search(pattern, text[:8000].lower()) is not None


def named_by_callers(
    facts: Facts, f: Finding, findings: list[Finding]
) -> list[tuple[Errors, ErrorGroup, str]]:
    """A fault off the incident's path reaches services that fail when their new failing lines name its workload (or a role endpoint named after it, `<cluster>-rw`) or one of its victims' (in any namespace), so it is confirmed, below a fault on the path.

    The Kubernetes path follows only the calls a workload's own lines show, inside one namespace;
    a caller in another namespace, or one whose line names the callee in words the path does not
    read (`504 after 8000ms (quote-engine)`), leaves the fault a lead though its callers fail.
    """
    own = f.component.partition("/")[2]
    names = [own] + [
        v.component.partition("/")[2]
        for v in findings
        if v.victim_of == f.component and v is not f
    ]
    names = [n for n in dict.fromkeys(names) if len(n) >= 3]
    out: list[tuple[Errors, ErrorGroup, str]] = []
    lines = [(e, g) for e in facts.errors.values() for g in (*e.groups, *e.warnings)]
    for errors, group in lines:
        if (
            not group.is_new
            or not _FAILED_CALL.search(group.text)
            or any(
                errors.service == n or errors.service.startswith(f"{n}-") for n in names
            )
        ):
            continue
        name = next(
            (
                n
                for n in names
                if names_service(group.text, n) or _names_role_endpoint(group.text, n)
            ),
            None,
        )
        if name is not None:
            out.append((errors, group, name))
    return out


def workload_victims(board: Board) -> None:
    """A service whose Kubernetes workload is the victim of another object's fault fails because of that fault: its own error lines make it a lead below the cause, not a cause."""
    if board.cluster is None:
        return
    by_component = {f.component: f for f in board.cluster.findings}
    for f in board.cluster.findings:
        cause = by_component.get(f.victim_of or "")
        if cause is None:
            continue
        blamed = board.candidates.get(f"{cause.layer}:{cause.component}")
        if blamed is None or blamed.status == "ruled_out":
            continue
        name = f.component.partition("/")[2]
        for c in list(board.candidates.values()):
            if c.component == name and c.layer == layers.APPLICATION:
                c.explained_by(
                    blamed, f"a symptom of {blamed.id} (its workload {f.component} is)"
                )
