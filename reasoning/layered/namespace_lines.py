"""A namespace stuck Terminating, seen in the logs alone: what creates in it is refused, what deletes it fails.

Without kubectl answers (or before them), the same fault as `k8s.namespace-terminating` shows in
the lines of the programs around the namespace: the API server refuses new content "because it is
being terminated" (an operator, a pipeline logs it), a create fails because the namespace "is being
deleted", the namespace controller logs that the deletion of the namespace failed (discovery of an
API group version, content or finalizers remaining). Those lines name the namespace: it is the
platform fault, not the programs that log the refusals. Two programs' lines about it (the refusal and
the controller's failure), or a line with the condition's words, confirm it; one line is a lead.
"""

import re
from typing import TYPE_CHECKING, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.kubernetes.namespace_lifecycle import apiservice
from reasoning.layered.reading import short

if TYPE_CHECKING:
    from reasoning.layered.facts import ErrorGroup, Errors

# The namespace a refusal or a failed deletion names.
_NAMED: Final = (
    re.compile(
        r"in namespace \"?([a-z0-9][a-z0-9-]{0,62})\"? because it is being terminated",
        re.IGNORECASE,
    ),
    re.compile(
        r"deletion of namespace \"?([a-z0-9][a-z0-9-]{0,62})\"? failed", re.IGNORECASE
    ),
    re.compile(
        r"namespaces? \"?([a-z0-9][a-z0-9-]{0,62})\"? (?:is being deleted|is being terminated|"
        r"(?:is )?still terminating|(?:is )?stuck (?:in )?terminating)",
        re.IGNORECASE,
    ),
)
# The namespace controller's words for why: discovery, content or finalizers.
_WHY: Final = (
    (
        "NamespaceDeletionDiscoveryFailure",
        re.compile(
            r"discovery failed|unable to retrieve the complete list of server apis",
            re.IGNORECASE,
        ),
    ),
    (
        "NamespaceFinalizersRemaining",
        re.compile(r"finalizers? remaining", re.IGNORECASE),
    ),
    (
        "NamespaceContentRemaining",
        re.compile(
            r"content remaining|some (?:content|resources) remain", re.IGNORECASE
        ),
    ),
)
_CONFIRMED: Final = 0.8
_LEAD: Final = 0.55


def named_namespace(text: str) -> str | None:
    """The namespace a line says is going away and cannot be used or deleted, if any."""
    for pattern in _NAMED:
        match = pattern.search(text)
        if match is not None:
            return match.group(1).lower()
    return None


def namespace_lines(board: Board) -> None:
    """Lines saying new content in a namespace is refused because it is being terminated, or that its deletion failed, blame the namespace (platform) over the programs that log them: confirmed by two programs' lines or the controller's reason."""
    seen: dict[str, list[tuple[str, str]]] = {}
    cited: dict[str, list[tuple[Errors, ErrorGroup]]] = {}
    for errors, group in board.facts.error_texts():
        text = group.sample or group.signature
        name = named_namespace(text)
        if name is None:
            continue
        seen.setdefault(name, []).append((errors.service, text))
        cited.setdefault(name, []).append((errors, group))
    for name, lines in seen.items():
        component = f"namespace/{name}"
        existing = board.candidates.get(f"{layers.PLATFORM}:{component}")
        if existing is not None and existing.stage is not None:
            continue  # the Kubernetes agent's finding says it already
        joined = "\n".join(text for _, text in lines)
        reason = next(
            (r for r, pattern in _WHY if pattern.search(joined)), "NamespaceTerminating"
        )
        served = (
            apiservice(joined)
            if reason == "NamespaceDeletionDiscoveryFailure"
            else None
        )
        why = f"; API discovery fails for a stale APIService {served}" if served else ""
        c = board.get(
            layers.PLATFORM,
            component,
            f"namespace {name} is stuck Terminating ({reason}){why}: its deletion cannot "
            "finish, so nothing can be created in it",
        )
        c.stage, c.reason = "infrastructure", reason
        for errors, group in cited[name][:3]:
            c.cite(errors.obs, errors.fact(group))
        services = {service for service, _ in lines}
        sure = len(services) > 1 or reason != "NamespaceTerminating"
        c.status = "confirmed" if sure else "likely"
        c.confidence = max(c.confidence, _CONFIRMED if sure else _LEAD)
        c.chain = [
            board.symptom(),
            *(f"{service}: {short(text, 120)}" for service, text in lines[:2]),
            c.statement,
        ]
        c.keywords = [
            name,
            reason,
            "namespace",
            "Terminating",
            *([served, "apiservice"] if served else []),
        ]
