"""An Ingress that speaks plain HTTP to a backend serving TLS (issue 21 classes 1 and 4): the ingress's backend protocol is the fault, not the backend that refuses it.

A backend that starts serving TLS on its own port (a chart's `tls.enabled`, a mesh leaving it, a
Service port moved from 80 to 443) keeps its in-cluster HTTPS callers working, while an Ingress in
front of it still proxies plain HTTP: the controller's requests reach a TLS listener, which logs
`tls: first record does not look like a TLS handshake` (Go), `http request to an https server`
or answers `400 The plain HTTP request was sent to HTTPS port` (nginx), and the users behind the
ingress see 400s and 502s. The backend is loud but right; the ingress that routes a path to it
without declaring its backend protocol (`nginx.ingress.kubernetes.io/backend-protocol: HTTPS`,
`…/service-upstream`'s TLS, Traefik's `serversscheme`, a `appProtocol: https` port) is the fault
(connect, `service_routing` / `IngressBackendProtocol`).
"""

import re

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.ingress_rewrite import backend_logs
from reasoning.layered.kubernetes.routing import ingress_backends
from reasoning.layered.reading import short

# A TLS listener's words for a peer that sent plain HTTP.
PLAINTEXT = re.compile(
    r"first record does not look like a TLS handshake|http request to an https server|"
    r"plain HTTP request was sent to HTTPS port|sent an HTTP request to an HTTPS server|"
    r"SSL routines[^\n]{0,80}http request|wrong version number[^\n]{0,40}plain",
    re.IGNORECASE,
)
# An ingress annotation that tells its controller to speak TLS to the backend.
_TLS_UPSTREAM = re.compile(
    r"backend-protocol:[ \t]*(?:HTTPS|GRPCS)|serversscheme:[ \t]*https|"
    r"ssl-redirect-upstream|secure-backends:[ \t]*\"?true|appProtocol:[ \t]*https",
    re.IGNORECASE,
)


def protocol_faults(cluster: Cluster, facts: Facts, ns: str) -> list[Finding]:
    """An Ingress that routes a path to a backend whose own new lines say it received plain HTTP on its TLS listener, and that declares no TLS backend protocol, sends its requests in the wrong protocol: the ingress is the fault, the backend's refusals its symptom."""
    out: dict[str, Finding] = {}
    for ingress in cluster.names("ingresses", ns):
        described = cluster.describe("ingresses", ns, ingress)
        if described is None or _TLS_UPSTREAM.search(described.text):
            continue
        for prefix, backend, port in ingress_backends(described.text):
            refused = next(
                (
                    (errors, group)
                    for errors in backend_logs(cluster, facts, ns, backend)
                    for group in (*errors.groups, *errors.warnings)
                    if not group.is_stale and PLAINTEXT.search(group.text[:2000])
                ),
                None,
            )
            if refused is None or ingress in out:
                continue
            errors, group = refused
            f = Finding(
                "service_routing",
                "IngressBackendProtocol",
                f"ingress/{ingress}",
                layers.CONNECT,
                f"ingress {ingress} proxies {prefix or '/'} to {backend}:{port} in plain HTTP "
                f"while {backend} serves TLS there (no backend-protocol HTTPS): {backend} "
                f"refuses its requests ({short(group.sample or group.signature, 100)})",
                ns,
            )
            f.cite(
                described,
                f"describe ingress {ingress}: {prefix or '/'} → {backend}:{port}, "
                "no backend-protocol annotation",
            )
            f.cite(errors.obs, errors.fact(group))
            f.keywords = ["ingress", "backend-protocol", ingress, backend]
            f.chain = [
                f"{backend} logs: {short(group.sample or group.signature, 120)}",
                f.statement,
            ]
            out[ingress] = f
    return list(out.values())
