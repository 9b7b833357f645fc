"""A controller's repeated error naming the object it cannot reconcile blames that object, not the controller (issue 21, class 4).

Controllers log structured lines that name what they act on as `<kind>="<namespace>/<name>"`
(`ingress="shop/web"`, `certificate="edge/api-tls"`). When such a line is an error or a warning,
logged again and again, the controller is telling what it skips or cannot reconcile: the named
object is the fault (an Ingress the controller refuses is not served, so its hosts fall to the
default backend), and the controller, whose own error group made it a candidate, is only the
reporter. The layer follows the kind: routing objects are connect, certificates TLS, the rest
platform.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board

# `<kind>="<namespace>/<name>"` as controller-runtime and klog structured lines write it.
_NAMED: Final = re.compile(
    r"\b([a-z][a-z]{2,30})=\"?([a-z0-9][a-z0-9-]{0,62})/([a-z0-9][a-z0-9.-]{0,252})\"?"
)
_CONNECT_KINDS: Final = frozenset(
    {
        "ingress",
        "service",
        "gateway",
        "httproute",
        "grpcroute",
        "virtualservice",
        "destinationrule",
        "networkpolicy",
        "endpoints",
        "endpointslice",
    }
)
_TLS_KINDS: Final = frozenset({"certificate", "certificaterequest", "issuer"})
_PLATFORM_KINDS: Final = frozenset(
    {
        "secret",
        "configmap",
        "persistentvolumeclaim",
        "pvc",
        "statefulset",
        "deployment",
        "daemonset",
        "job",
        "cronjob",
        "pod",
        "externalsecret",
        "horizontalpodautoscaler",
        "poddisruptionbudget",
        "nodepool",
    }
)
_REPEATED: Final = 2
_CONFIDENCE: Final = 0.9


def _layer(kind: str) -> str | None:
    if kind in _CONNECT_KINDS:
        return layers.CONNECT
    if kind in _TLS_KINDS:
        return layers.TLS
    if kind in _PLATFORM_KINDS:
        return layers.PLATFORM
    return None


def named_object(text: str) -> tuple[str, str, str] | None:
    """The (kind, namespace, name) a structured line names as `kind="ns/name"`, when the key is a Kubernetes kind."""
    for match in _NAMED.finditer(text[:4000]):
        kind = match.group(1).lower()
        if _layer(kind) is not None:
            return kind, match.group(2), match.group(3)
    return None


def controller_objects(board: Board) -> None:
    """A service's repeated error or warning naming a Kubernetes object as `kind="ns/name"` blames that object at its kind's layer, and the service that logs it is only the reporter."""
    for errors, group in board.facts.error_texts():
        if group.count < _REPEATED or group.is_stale:
            continue
        named = named_object(group.sample or group.signature)
        if named is None:
            continue
        kind, namespace, name = named
        layer = _layer(kind)
        if layer is None:
            continue
        component = f"{kind}/{name}"
        existing = board.candidates.get(f"{layer}:{component}")
        if existing is not None and existing.confidence >= _CONFIDENCE:
            continue
        c = board.get(
            layer,
            component,
            f"{errors.service} cannot reconcile {kind} {namespace}/{name} and skips it "
            f"({group.count} times in the window): the {kind} is the fault, "
            f"{errors.service} its reporter",
        )
        c.cite(errors.obs, errors.fact(group))
        c.status = "confirmed"
        c.confidence = max(c.confidence, _CONFIDENCE)
        c.chain = [board.symptom(), errors.fact(group), c.statement]
        c.keywords = [kind, name, namespace, errors.service]
        reporter = board.candidates.get(f"{layers.APPLICATION}:{errors.service}")
        if reporter is not None:
            reporter.explained_by(
                c, f"it reports that {component} cannot be reconciled"
            )
