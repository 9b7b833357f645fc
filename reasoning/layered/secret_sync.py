"""A credential refused because the controller that delivers it stopped syncing: the controller's fault, not the back end's.

Credentials are rotated at their store (a cloud secrets manager, Vault) and copied to the clients by
a sync controller (External Secrets' `ExternalSecret`, the Secrets Store CSI driver's
`SecretProviderClass`, a Vault agent, a sealed-secrets controller). When that controller quietly
fails (it cannot reach the API server or the store, its role was removed), nothing breaks until the
next rotation: then the store and the back end hold the new credential, the clients keep the old
one, and the back end refuses them (`password authentication failed for user …`, `Access denied for
user`, `WRONGPASS`). The back end and the clients are loud; the controller's errors began earlier
and are not new. So when a back end's credential refusals are new since the window started while a
secret-sync controller has been failing since before they began, the controller's failure is the
cause, at the layer its own lines fail at (a connect timeout to the API server, a DNS failure, else
its application), and the refusing back end and the refused clients are its victims. A Kubernetes
fault that explains the controller's workload (an egress policy dropping its calls) is named instead.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.kubernetes.logs import failure_kind
from reasoning.layered.reading import short
from reasoning.layered.unread_services import every_service_errors

# A back end refusing the credential a client presented (not a token an API rejects: 401s are
# many things).
REFUSED: Final = re.compile(
    r"password authentication failed|authentication failed for user|access denied for user|"
    r"\bWRONGPASS\b|\bNOAUTH\b|login failed for user|invalid (?:username or )?password",
    re.IGNORECASE,
)
# A secret-sync controller, by its name or by the objects its lines are about.
SYNCER: Final = re.compile(
    r"\b(?:Cluster)?(?:ExternalSecrets?|SecretStore|SecretProviderClass|SealedSecrets?|PushSecret|"
    r"VaultStaticSecret|VaultDynamicSecret)\b|external-secrets|secrets?-store|sealed-secrets|"
    r"vault-agent|secrets?[ -]sync|sync(?:ing|ed)? (?:the )?secrets?",
    re.IGNORECASE,
)
_FAILED: Final = re.compile(
    r"error|fail|timeout|timed out|refused|denied|unable|cannot|could not|forbidden",
    re.IGNORECASE,
)
_CONFIRMED: Final = 0.86
_LAYERS: Final = {"dns": layers.DNS, "connect": layers.CONNECT}
_HEAD: Final = 4000  # the head of a group's text the words are looked for in


def _groups(errors: Errors) -> tuple[ErrorGroup, ...]:
    return (*errors.groups, *errors.warnings)


def _refusals(found: list[tuple[str, Errors]]) -> list[tuple[Errors, ErrorGroup]]:
    """The new groups in which a back end refuses a client's credential (or a client is refused)."""
    return [
        (errors, group)
        for _, errors in found
        for group in _groups(errors)
        if group.is_new and REFUSED.search(group.text[:_HEAD])
    ]


def _syncer(
    found: list[tuple[str, Errors]], refused: set[str], since: str
) -> tuple[Errors, ErrorGroup] | None:
    """A secret-sync controller's failing group that began before the refusals (or was already
    logged before the window), the most lines first."""
    out: list[tuple[Errors, ErrorGroup]] = []
    for service, errors in found:
        if service in refused:
            continue
        for group in _groups(errors):
            head = group.text[:_HEAD]
            if not _FAILED.search(head) or REFUSED.search(head):
                continue
            if not (SYNCER.search(service) or SYNCER.search(head)):
                continue
            if group.is_stale or (
                group.first_seen and since and group.first_seen < since
            ):
                out.append((errors, group))
    out.sort(key=lambda eg: -eg[1].count)
    return out[0] if out else None


def stale_secret(board: Board) -> None:
    """A back end's credential refusals new since the window started, while a secret-sync controller has been failing since before they began, are the controller's fault (at the layer its own lines fail at): the back end and its refused clients are its victims."""
    found = every_service_errors(board.inv, board.facts)
    refusals = _refusals(found)
    if not refusals:
        return
    refused = {errors.service for errors, _ in refusals}
    since = min((g.first_seen for _, g in refusals if g.first_seen), default="")
    hit = _syncer(found, refused, since)
    if hit is None:
        return
    errors, group = hit
    line = group.sample or group.signature
    cause = _kubernetes_cause(board, errors.service)
    if cause is None:
        layer = _LAYERS.get(failure_kind(line[:_HEAD]), layers.APPLICATION)
        cause = board.get(
            layer,
            errors.service,
            f"{errors.service}, which syncs the clients' secrets, has been failing since before "
            f"the credential refusals began: the clients kept a credential the back end no "
            f"longer accepts",
        )
        cause.status = "confirmed"
        cause.confidence = max(cause.confidence, _CONFIRMED)
        cause.keywords = [layer, errors.service, "secret", "rotation", "sync"]
    cause.cite(errors.obs, errors.fact(group))
    first_errors, first = refusals[0]
    cause.cite(first_errors.obs, first_errors.fact(first))
    cause.chain = [
        board.symptom(),
        f"{first_errors.service}: {short(first.sample or first.signature, 120)}",
        f"{errors.service} (failing before): {short(line, 140)}",
        cause.statement,
    ]
    why = f"a symptom of {cause.id} (the secret it syncs is stale)"
    for c in list(board.candidates.values()):
        if c is not cause and c.layer == layers.APPLICATION and c.component in refused:
            c.explained_by(cause, why)


def _kubernetes_cause(board: Board, service: str) -> Candidate | None:
    """The confirmed or likely candidate of a Kubernetes fault that explains the controller's workload."""
    if board.cluster is None:
        return None
    for f in board.cluster.findings:
        if any(w.partition("/")[2] == service for w in f.explains):
            c = board.candidates.get(f"{f.layer}:{f.component}")
            if c is not None and c.status != "ruled_out":
                c.status = "confirmed"
                c.confidence = max(c.confidence, _CONFIRMED + 0.02)
                return c
    return None
