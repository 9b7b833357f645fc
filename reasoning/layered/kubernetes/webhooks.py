"""Admission webhooks: a webhook the API server cannot call refuses the pods it should admit.

Rule: a `FailedCreate` whose message says the API server failed calling an admission webhook
(`failed calling webhook "…"`: no endpoints for its service, its connection refused or timed out)
is the fault of the webhook's back end — the Service its URL or message names and the workload
behind that Service — at admission; a call that timed out while no back-end pod is seen failing
names the webhook itself (what fails is the call its configuration makes: path, timeout); the workloads that cannot create their pods are its victims
(`explains`). The back end's namespace comes from the webhook's URL (`<service>.<namespace>.svc`);
its endpoints, pods and failing log line join the evidence when they were read. A call that failed
its TLS handshake reached a back end that answers: that is `webhook_tls`'s rule.
"""

import re
from dataclasses import dataclass

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Event
from reasoning.layered.kubernetes.logs import FAILING
from reasoning.layered.reading import short

_CALLING = re.compile(r'failed calling (?:admission )?webhook "([^"]+)"', re.IGNORECASE)
_URL = re.compile(r"https?://([a-z0-9][a-z0-9-]*)\.([a-z0-9][a-z0-9-]*)\.svc\b")
_NO_ENDPOINTS = re.compile(r'no endpoints available for service "([^"]+)"')
_URLS = re.compile(r"\bhttps?://\S+")
# A call that got no answer in time (not refused, not without endpoints).
_TIMED_OUT = re.compile(
    r"context deadline exceeded|\bi/o timeout\b|\btimed? ?out\b|awaiting headers",
    re.IGNORECASE,
)
# A call that reached the back end and failed its TLS handshake: `webhook_tls`'s, not this rule's.
_TLS_FAILED = re.compile(
    r"\bx509: |tls: (?:failed to verify certificate|bad certificate|handshake failure)|"
    r"certificate has expired",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class WebhookCall:
    """The webhook a FailedCreate failed calling, and the Service behind it (namespace may be "")."""

    webhook: str
    service: str
    namespace: str


def failed_webhook(message: str) -> WebhookCall | None:
    """The webhook and its back-end Service that a FailedCreate message says could not be called."""
    calling = _CALLING.search(message)
    if calling is None:
        return None
    url = _URL.search(message)
    named = _NO_ENDPOINTS.search(message)
    service = url.group(1) if url else (named.group(1) if named else "")
    if not service:
        return None
    return WebhookCall(calling.group(1), service, url.group(2) if url else "")


def webhook_refusals(cluster: Cluster, ns: str) -> list[tuple[Event, WebhookCall]]:
    """The namespace's FailedCreate warnings that name a webhook that could not be called."""
    out: list[tuple[Event, WebhookCall]] = []
    for event in cluster.warnings(ns):
        call = failed_webhook(event.message) if event.reason == "FailedCreate" else None
        if call is not None:
            out.append((event, call))
    return out


def backend_workloads(cluster: Cluster, call: WebhookCall, ns: str) -> list[str]:
    """The workloads behind the webhook's Service (in its own namespace, else the victim's)."""
    space = call.namespace or ns
    return cluster.service_workloads(space, call.service) or cluster.intended_workloads(
        space, call.service
    )


def webhook_faults(cluster: Cluster, ns: str) -> list[Finding]:
    """The back ends of webhooks that refuse this namespace's pods, their victims explained."""
    found: dict[str, Finding] = {}
    for event, call in webhook_refusals(cluster, ns):
        if _TLS_FAILED.search(event.message):
            continue  # the back end answers; its certificate fails (`webhook_tls`)
        space = call.namespace or ns
        workloads = backend_workloads(cluster, call, ns)
        component = workloads[0] if workloads else f"service/{call.service}"
        if _TIMED_OUT.search(_URLS.sub("", event.message)) and not any(
            not p.is_healthy
            for w in workloads
            if "/" in w
            for p in cluster.pods_of(space, w)
        ):
            # The call timed out and no back-end pod is seen failing: what fails is the call the
            # webhook's configuration makes (its path, its timeout), so the webhook is named.
            component = call.webhook
        f = found.get(component)
        if f is None:
            f = _finding(cluster, ns, call, component)
            found[component] = f
        f.cite(event.obs, event.fact)
        victim = cluster.owner(ns, event.kind, event.name)
        if victim not in f.explains:
            f.explains.append(victim)
            f.chain.insert(
                0, f"{victim} cannot create its pods: {short(event.message, 120)}"
            )
        if space != ns:
            f.keywords.append(space)
    return list(found.values())


def _finding(cluster: Cluster, ns: str, call: WebhookCall, component: str) -> Finding:
    space = call.namespace or ns
    endpoints = cluster.endpoints(space, call.service)
    statement = (
        f"admission webhook {call.webhook} cannot be called: its service {call.service}"
        + (f" ({space})" if space != ns else "")
        + (" has no endpoints" if endpoints in ("<none>", "") else " does not answer")
    )
    pods = cluster.pods_of(space, component) if "/" in component else []
    failing = [p for p in pods if not p.is_healthy]
    if failing:
        statement += f": {component}'s pods are {failing[0].status} ({'/'.join(map(str, failing[0].ready))} ready)"
    statement += ", so the pods it should admit are refused"
    f = Finding("admission", "FailedCreate", component, layers.PLATFORM, statement, ns)
    table = cluster.table("endpoints", space)
    if table is not None and table.row(call.service) is not None:
        f.cite(table.obs, f"get endpoints -n {space}: {table.line(call.service)}")
    pods_table = cluster.table("pods", space)
    for pod in failing[:2]:
        if pods_table is not None:
            f.cite(pods_table.obs, f"get pods -n {space}: {pod.line}")
        for obs, text in cluster.log_text(space, pod.name):
            tail = [line for line in text.splitlines() if FAILING.search(line)]
            if tail:
                f.cite(obs, f"logs {pod.name}: {short(tail[-1], 200)}")
    f.keywords = ["webhook", "FailedCreate", "admission", call.webhook, call.service]
    f.chain = [statement]
    return f
