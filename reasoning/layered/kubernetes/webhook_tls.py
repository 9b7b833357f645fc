"""Admission webhooks the API server does not trust: the webhook's certificate, not its back end, refuses the pods.

Rule: a `FailedCreate` whose message says the API server failed calling an admission webhook
(validating or mutating, `failed calling webhook "…"`) because the TLS handshake failed (`x509:
certificate signed by unknown authority`, `certificate has expired or is not yet valid`, `is valid
for … not …`, `tls: failed to verify certificate`) is a TLS fault of that webhook: its back end
answers, but with a serving certificate the webhook configuration's `caBundle` does not vouch for
(the CA re-keyed and not re-injected, or the certificate expired, or issued for another name). The
webhook, by its own name, is the fault at the tls layer (a certificate that expired — its renewal
failed, so the webhook cannot serve at all — at the platform layer); the workloads that cannot create their pods
are its victims (`explains`), and the back end's pods, though their logs show the handshakes
failing, are not at fault. A webhook refused for any other reason (no endpoints, a timeout, a
denial) stays `webhooks`' (its back end) or admission's (its policy).
"""

import re

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Event
from reasoning.layered.kubernetes.webhooks import WebhookCall, failed_webhook
from reasoning.layered.reading import short

# What a failed TLS handshake says in Go's words (the API server's client), most specific first.
_TLS_FAILURES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (
        re.compile(r"x509: certificate has expired|certificate has expired", re.I),
        "the serving certificate has expired",
        "its back end's serving certificate has expired (renew it, or the secret it is read from)",
    ),
    (
        re.compile(r"x509: certificate is not yet valid", re.I),
        "the serving certificate is not yet valid",
        "its back end serves a certificate not yet valid (a clock or an issuance ahead of time)",
    ),
    (
        re.compile(r"x509: certificate signed by unknown authority", re.I),
        "the serving certificate is signed by an authority the webhook's caBundle does not hold",
        "the caBundle of its webhook configuration no longer holds the CA that signs its back "
        "end's certificate (the CA re-issued or re-keyed and the bundle not re-injected)",
    ),
    (
        re.compile(
            r"x509: certificate is valid for [^\n]*?, not |certificate is not valid for any names",
            re.I,
        ),
        "the serving certificate is issued for another name",
        "its back end serves a certificate issued for another name than its service's",
    ),
    (
        re.compile(
            r"tls: failed to verify certificate|x509: |tls: (?:bad certificate|handshake failure)",
            re.I,
        ),
        "the TLS handshake fails",
        "the API server does not accept its back end's certificate",
    ),
)
_CALLING = re.compile(r'failed calling (?:admission )?webhook "([^"]+)"', re.IGNORECASE)
# The back end's own side of the failed handshakes (Go's http server, most webhook servers).
_HANDSHAKE = re.compile(
    r"TLS handshake error|tls: (?:bad certificate|unknown certificate authority)|"
    r"remote error: tls",
    re.IGNORECASE,
)


def _handshake_words(message: str) -> str:
    """The message from where its TLS failure starts (`tls: …` or `x509: …`)."""
    at = re.search(r"tls: |x509: ", message)
    return message[at.start() :] if at else message


# A serving certificate that lapsed: its renewal (the platform's issuer) failed, not a trust
# that does not match.
_LAPSED = re.compile(r"certificate has expired", re.I)


def layer_of(message: str) -> str:
    """platform for a serving certificate that expired (its renewal failed: the webhook is down
    like any back end that cannot serve), tls for a trust that does not match (an unknown
    authority, another name)."""
    return layers.PLATFORM if _LAPSED.search(message) else layers.TLS


def tls_failure(message: str) -> tuple[str, str] | None:
    """(what the handshake found, why) when a webhook call's message is a TLS failure, else None."""
    for pattern, found, why in _TLS_FAILURES:
        if pattern.search(message):
            return found, why
    return None


def webhook_tls_refusals(cluster: Cluster, ns: str) -> list[tuple[Event, WebhookCall]]:
    """The namespace's webhook refusals whose call failed the TLS handshake (a webhook called by
    URL outside the cluster names no service: the webhook alone is named)."""
    out: list[tuple[Event, WebhookCall]] = []
    for event in cluster.warnings(ns):
        if event.reason != "FailedCreate" or tls_failure(event.message) is None:
            continue
        call = failed_webhook(event.message)
        calling = _CALLING.search(event.message)
        if call is None and calling is not None:
            call = WebhookCall(calling.group(1), "", "")
        if call is not None:
            out.append((event, call))
    return out


def webhook_tls_faults(cluster: Cluster, facts: Facts, ns: str) -> list[Finding]:
    """An admission webhook the API server cannot call because its back end's certificate fails the TLS handshake (unknown authority: a stale caBundle; another name) is the fault, at tls (an expired one, whose renewal failed, at platform): the workloads it should admit are its victims."""
    found: dict[str, Finding] = {}
    for event, call in webhook_tls_refusals(cluster, ns):
        component = call.webhook
        f = found.get(component)
        if f is None:
            f = found[component] = _finding(facts, ns, call, event)
        # The handshake's words, not the URL before them, are what a short fact must keep.
        f.cite(
            event.obs,
            f"{event.type} {event.reason} {event.object}: failed calling webhook "
            f"{call.webhook}: {_handshake_words(event.message)}",
        )
        victim = cluster.owner(ns, event.kind, event.name)
        if victim not in f.explains:
            f.explains.append(victim)
            f.chain.insert(
                0, f"{victim} cannot create its pods: {short(event.message, 120)}"
            )
    return list(found.values())


def _finding(facts: Facts, ns: str, call: WebhookCall, event: Event) -> Finding:
    found, why = tls_failure(event.message) or ("the TLS handshake fails", "")
    space = call.namespace or ns
    statement = (
        f"admission webhook {call.webhook} cannot be called: {found} "
        + (
            f"(its service {call.service}"
            + (f" in {space}" if space != ns else "")
            + ")"
            if call.service
            else "(called by URL)"
        )
        + "; "
        f"{why}, so the API server refuses the pods it should admit"
    )
    f = Finding(
        "admission",
        "WebhookCertificate",
        call.webhook,
        layer_of(event.message),
        statement,
        ns,
    )
    # The back end's own logs of the refused handshakes: its side of the same failure.
    for name in _backend_names(call.service):
        errors = facts.errors.get(name)
        if errors is None:
            continue
        for group in (*errors.groups, *errors.warnings):
            if not group.is_stale and _HANDSHAKE.search(
                group.sample or group.signature
            ):
                f.cite(errors.obs, errors.fact(group))
                break
    f.keywords = [
        "webhook",
        "x509",
        "caBundle",
        "certificate",
        call.webhook,
        call.service,
    ]
    f.chain = [statement]
    return f


def _backend_names(service: str) -> list[str]:
    """The names a webhook's back end may log under: its service's, and that name without a
    `-svc`/`-service` suffix."""
    bare = re.sub(r"-(?:svc|service)$", "", service)
    return list(dict.fromkeys([service, bare]))
