"""What each rule that names a cause says about it: the fix, and the one observation it fired on.

`remediation` is the fix the confirming rule names, keyed the way the rules decide: a Kubernetes
finding by its stage and reason (`kubernetes.stages`, `routing`, `nodes`, `performance`), a
network hypothesis by its first failing layer and the probe's reason (`network`), an application
one by what showed it failing by itself (`application`: a connection leak, its own error,
saturation), a tool's back end and the MCP hop by their own rules. None when no rule confirmed it.

`decisive` is the evidence the rule fired on: for Kubernetes the line that shows the reason
(a describe's `Reason: OOMKilled` before an event naming it, before a pod row), for a probe its
own answer, for a leak the metrics that show it; else the first observation the rule cited.

`fits_cause` says whether a runbook hit is about the confirmed cause (its title names the cause's
reason or failing layer), not only about the symptoms the incident describes.
"""

import re
from collections.abc import Mapping
from typing import Any

from reasoning import layers
from reasoning.report import Evidence, Hypothesis

# Kubernetes reason → the fix, "{name}" the object's name, "{component}" its kind/name.
_KUBERNETES: dict[str, str] = {
    "OOMKilled": "Raise the memory limit of {component} above its peak use (or roll back the change that made it grow), then roll it out",
    "Unhealthy": "Fix the failing probe of {component}: point it at the port and path its containers serve, or fix what the probe checks",
    "CrashLoopBackOff": "Fix what makes the containers of {component} exit (its last log line says why), or roll back the rollout that started it",
    "Error": "Fix what makes the containers of {component} exit (its last log line says why), or roll back the rollout that started it",
    "ErrImagePull": "Point {component} at an image that exists and whose registry the nodes reach (fix the name, tag or registry), or roll back",
    "ImagePullBackOff": "Point {component} at an image that exists and whose registry the nodes reach (fix the name, tag or registry), or roll back",
    "InvalidImageName": "Fix the image name of {component}",
    "CreateContainerConfigError": "Create the secret or config map {component} refers to (or fix the reference), then let its pods start",
    "CreateContainerError": "Fix the container configuration of {component} so its containers can be created",
    "RunContainerError": "Fix the container configuration of {component} so its containers can run",
    "FailedMount": "Make the volume {component} mounts available (the claim, secret or config map it names)",
    "FailedAttachVolume": "Detach the volume of {component} from the node that still holds it (force-detach it from a node that is down: taint it out-of-service or delete it), then let the waiting pod attach it",
    "FailedMapVolume": "Make the block volume of {component} mappable on the pod's node (detach it where it is still held, or fix its volume mode)",
    "FailedCreatePodSandBox": "Give the pods of {component} a network: free pod IP addresses (a larger or secondary subnet / CIDR, prefix delegation) or fix the network plugin, then let them start",
    "NetworkNotReady": "Bring the network plugin of the nodes back so the pods of {component} get a network",
    "Preempted": "Lower the priority of {component} below the workloads it preempts (or set preemptionPolicy: Never) and give it its own capacity, so the preempted pods schedule again",
    "FailedScheduling": "Make a node fit the pods of {component}: add capacity or lower its requests, or fix its node selector, affinity or tolerations",
    "zero_replicas": "Scale {component} back up (kubectl scale {component} --replicas=N)",
    "no_endpoints": "Restore the selector of {component} so it matches its pods' labels again",
    "target_port_mismatch": "Set the targetPort of {component} to the port its pods' containers listen on",
    "wrong_service_name": "Point the configuration of {component} at the name of the service it calls",
    "wrong_service": "Point {component} at the service that serves the path",
    "NodeNotReady": "Bring {component} back (its kubelet, network or resources) or drain it so its pods move",
    "NamespaceDeletionDiscoveryFailure": "Delete the stale APIService whose group version discovery cannot reach (kubectl get apiservices: the one not Available), or reinstall its server; {component} then finishes terminating and can be created again",
    "NamespaceDeletionGroupVersionParsingFailure": "Fix or delete the API group version the namespace controller cannot parse; {component} then finishes terminating",
    "NamespaceDeletionContentFailure": "Delete what the namespace controller cannot delete in {component} (its condition names it); it then finishes terminating",
    "NamespaceContentRemaining": "Delete the objects left in {component} (their own finalizers hold them); it then finishes terminating",
    "NamespaceFinalizersRemaining": "Clear the finalizers left on objects in {component} (the controller that owned them is gone); it then finishes terminating",
    "NamespaceTerminating": "Find what holds the deletion of {component} (kubectl describe its conditions: a stale APIService, objects with finalizers) and clear it; it then finishes terminating",
    "IngressBackendProtocol": "Declare the backend's protocol on {component} (nginx.ingress.kubernetes.io/backend-protocol: HTTPS) so it speaks TLS to the backend, or serve plain HTTP on the port it routes to",
    "cpu_throttling": "Raise the CPU limit of {component} (or remove it) so it is no longer throttled",
}
_ADMISSION: dict[str, str] = {
    "exceeded quota": "Raise the resource quota of the namespace or lower the requests of {component} so its pods fit",
    "serviceaccount": "Create the service account {component} runs as (or fix its name)",
}
_TLS: dict[str, str] = {
    "certificate_expired": "Renew the certificate {component} serves",
    "certificate_not_yet_valid": "Serve a certificate of {component} that is valid now (check its start date and the clock)",
    "certificate_name_mismatch": "Serve a certificate that names {component}",
    "certificate_untrusted": "Serve the full chain of {component}'s certificate, up to a CA the callers trust",
    "self_signed": "Serve a certificate of {component} issued by a CA the callers trust",
}
_NETWORK: dict[str, str] = {
    layers.DNS: "Fix the DNS record of {component} (or the name its callers use)",
    layers.CONNECT: "Open the path to {component}: start its listener on the port callers use, or fix the firewall rule that drops or refuses them",
    layers.TLS: "Fix the TLS configuration {component} serves",
    layers.HTTP: "Fix what makes {component} answer with an error",
}


def remediation(h: Hypothesis, *, keywords: list[str], leaks: set[str]) -> str | None:
    """The fix the rule that confirmed `h` names; None unless `h` is confirmed."""
    if h.status != "confirmed":
        return None
    component = h.component
    if h.stage is not None and h.reason is not None:
        if h.reason == "FailedCreate":
            kind = next((k for k in _ADMISSION if k in h.statement), "")
            text = _ADMISSION.get(
                kind,
                "Fix what the admission webhook refuses in the pods of {component}",
            )
        elif "refuses its credentials" in h.statement:
            text = "Restore the credentials {component} uses (the secret its back end accepts), then restart its pods"
        elif "PersistentVolumeClaim" in " ".join(keywords):
            text = "Bind the PersistentVolumeClaim of {component}: create a matching PersistentVolume or fix the claim's storage class"
        elif (
            h.stage == "infrastructure"
            and h.reason != "NodeNotReady"
            and not h.component.startswith("namespace/")
        ):
            text = "Restore {component} in kube-system (its pod is down)"
        else:
            text = _KUBERNETES.get(
                h.reason, "Fix the {reason} of {component} at its {stage} stage"
            )
        return text.format(component=component, reason=h.reason, stage=h.stage)
    if h.layer == layers.APPLICATION:
        if "lock holder" in keywords:
            return (
                f"Stop the run of {component} that holds the locks, then schedule it out of peak "
                "hours or make it commit in small batches (short transactions, SKIP LOCKED) so it no "
                "longer holds the rows and tables the other clients use"
            )
        if component in leaks:
            return (
                f"Fix the connection leak in {component} (connections left in CLOSE_WAIT, "
                "the pool never freed); a restart frees them only for a while"
            )
        own = re.search(r"its logs show (.+?)(?:,|$)", h.statement)
        if own:
            return f"Fix the error {component} raises itself ({own.group(1)}), or roll back its last change"
        return f"Give {component} the capacity it lacks, or shed the load that saturates it"
    if h.layer == layers.TLS:
        reason = next((k for k in keywords if k in _TLS), "")
        return _TLS.get(reason, _NETWORK[layers.TLS]).format(component=component)
    if h.layer == layers.CONNECT and "round trip" in keywords:
        return (
            f"Bring the path to {component} back to its usual round trip: look for what moved "
            "it (a failover to another zone or region, a new route or hop) and move it or its "
            "callers back next to each other; batch the calls that pay the round trip"
        )
    if h.layer == layers.HTTP and "stream_cut" in keywords:
        return f"Raise the idle timeout of the proxy in front of {component} above the stream's quiet gaps (or send keep-alives)"
    if h.layer == layers.HTTP and "draining" in keywords:
        return (
            f"Raise the draining time (deregistration delay, connection draining) of {component} "
            "above its longest request, and let the targets finish in-flight requests on SIGTERM"
        )
    if h.layer in _NETWORK:
        return _NETWORK[h.layer].format(component=component)
    if h.layer == layers.TOOL_BACKEND:
        return f"Bring the {component} back end back; until then its tool's answers are missing, not clean"
    if h.layer == layers.MCP:
        return f"Fix the MCP server at {component}: its JSON-RPC answers are errors"
    return None


def decisive(h: Hypothesis, *, leaks: set[str]) -> Evidence | None:
    """The evidence the rule fired on (the module docstring says which); None without evidence."""
    if not h.evidence:
        return None
    if h.reason:
        reason = h.reason

        def score(e: Evidence) -> int:
            if f"Reason: {reason}" in e.fact:
                return 3
            if reason in e.fact and e.fact.startswith("describe"):
                return 2
            return 1 if reason in e.fact else 0

        best = max(h.evidence, key=score)  # max keeps the first of equals
        return best if score(best) else h.evidence[0]
    if h.layer == layers.APPLICATION and h.component in leaks:
        return next(
            (e for e in h.evidence if "close_wait" in e.fact.lower()), h.evidence[0]
        )
    return h.evidence[0]


def cause_terms(h: Hypothesis, *, keywords: list[str]) -> set[str]:
    """Words a runbook's title uses when it is about this cause, not only its symptoms."""
    terms: set[str] = set()
    if h.reason and not h.reason.islower():
        terms.add(
            h.reason.lower()
        )  # Kubernetes' own word: OOMKilled, FailedScheduling …
    if h.layer == layers.DNS:
        terms.add("dns")
    elif h.layer == layers.TLS:
        terms.update({"tls", "certificate"})
    elif h.layer == layers.CONNECT and "round trip" in keywords:
        terms.update({"latency", "round trip", "network delay"})
    elif h.layer == layers.CONNECT and h.stage is None:
        terms.update({"connect", "connection refused", "connect timeouts"})
    elif h.layer == layers.HTTP and "stream_cut" in keywords:
        terms.add("idle timeout")
    elif h.layer == layers.APPLICATION and "lock holder" in keywords:
        terms.update({"lock", "locks", "blocking", "long transaction"})
    elif h.layer == layers.HTTP and "draining" in keywords:
        terms.update({"draining", "deregistration"})
    elif h.layer == layers.APPLICATION and "connection leak" in keywords:
        terms.update({"connection pool", "connection-pool", "close_wait"})
    elif h.layer == layers.TOOL_BACKEND:
        terms.add("back end")
    elif h.layer == layers.MCP:
        terms.update({"json-rpc", "mcp"})
    return terms


def fits_cause(hit: Mapping[str, Any], h: Hypothesis, *, keywords: list[str]) -> bool:
    """A runbook hit whose title names the cause (`cause_terms`), not only the symptoms."""
    title = str(hit.get("title") or "").lower()
    return any(
        re.search(rf"(?<![\w-]){re.escape(term)}(?![\w])", title)
        for term in cause_terms(h, keywords=keywords)
    )
