"""An Ingress that changes the request (issue 21 class 1): the path its backend receives is not the one asked.

An ingress rule may rewrite the path before it forwards it (`nginx.ingress.kubernetes.io/
rewrite-target`, and the same annotation of other controllers): `/$2` keeps what the path's second
group captured, a target without a group (`/`) sends every request under the path to that one
path. When the backend then answers 404 for exactly the rewritten form (the target itself, or what
the rule makes of a request path the failures name), new since the window started, the ingress sent
its requests to a path the backend never served: the ingress is the fault (connect), the backend's
404s and its callers' failures its symptoms.
"""

import re
from dataclasses import dataclass

from reasoning import layers
from reasoning.layered.facts import ErrorGroup, Errors, Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.routing import ingress_backends
from reasoning.layered.reading import short
from reasoning.observations import Observation

# describe ingress's Annotations: `<controller>/rewrite-target: <target>`.
_REWRITE = re.compile(r"(?P<key>[\w.-]+/rewrite-target):[ \t]*(?P<target>\S+)")
# A request line answered 404: the method, the path it asked, then the status.
_ANSWERED_404 = re.compile(
    r"\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(?P<path>/\S*)[^\n]*?\b404\b"
)
# A request path a failure names: after a method, or after a host (`api.example.com/orders/7`).
_REQUESTED = re.compile(
    r"(?:\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+|[a-z0-9-]\.[a-z]{2,}(?::\d+)?)(/[^\s\"'?#]*)",
    re.IGNORECASE,
)
_GROUP_REF = re.compile(r"\$(\d)")


@dataclass(frozen=True)
class _Rewrite:
    ingress: str
    obs: Observation
    key: str  # the annotation's name
    target: str
    prefix: str  # the rule's path (a regular expression where the controller reads one)
    backend: str
    port: str


def rewritten(prefix: str, target: str, request: str) -> str | None:
    """The path a backend receives for `request` through a rule of path `prefix` rewritten to
    `target` (`$N`: the path's Nth group), or None when the rule does not take the request."""
    try:
        match = re.match(prefix, request, re.IGNORECASE)
    except re.error:
        match = None
        if request.startswith(prefix):
            return _GROUP_REF.sub("", target)
    if match is None:
        return None

    def group(ref: re.Match[str]) -> str:
        n = int(ref.group(1))
        return (match.group(n) or "") if n <= (match.re.groups) else ""

    return _GROUP_REF.sub(group, target)


def _rewrites(cluster: Cluster, ns: str) -> list[_Rewrite]:
    out: list[_Rewrite] = []
    for ingress in cluster.names("ingresses", ns):
        described = cluster.describe("ingresses", ns, ingress)
        if described is None:
            continue
        annotation = _REWRITE.search(described.text)
        if annotation is None:
            continue
        for prefix, backend, port in ingress_backends(described.text):
            if prefix:
                out.append(
                    _Rewrite(
                        ingress,
                        described,
                        annotation.group("key"),
                        annotation.group("target"),
                        prefix,
                        backend,
                        port,
                    )
                )
    return out


def backend_logs(cluster: Cluster, facts: Facts, ns: str, backend: str) -> list[Errors]:
    """The backend's own top_errors: under the service's name or a workload it selects."""
    names = [backend] + [
        w.partition("/")[2] for w in cluster.service_workloads(ns, backend)
    ]
    return [facts.errors[n] for n in dict.fromkeys(names) if n in facts.errors]


def _not_served(
    rewrite: _Rewrite, logs: list[Errors], requests: list[str]
) -> tuple[Errors, ErrorGroup, str, str] | None:
    """The backend's 404 group for a path the rule makes of a request, with that request ("" when
    the target alone names the path) and the path."""
    forms: dict[str, str] = {}
    for request in requests:
        path = rewritten(rewrite.prefix, rewrite.target, request)
        if path is not None and path != request:
            forms.setdefault(path, request)
    if not _GROUP_REF.search(rewrite.target):
        forms.setdefault(rewrite.target, "")  # every request becomes the target itself
    for errors in logs:
        for group in (*errors.groups, *errors.warnings):
            if group.is_stale:
                continue
            answered = _ANSWERED_404.search(group.sample or group.signature)
            if answered is None:
                continue
            path = answered.group("path").split("?")[0]
            if path in forms:
                return errors, group, forms[path], path
    return None


def rewrite_faults(
    cluster: Cluster, facts: Facts, ns: str, failing: str
) -> list[Finding]:
    """An Ingress whose rewrite-target turns its paths into one its backend answers 404 for (new since the start) sends every request there to a path the backend never served."""
    requests = list(dict.fromkeys(_REQUESTED.findall(failing)))
    out: dict[str, Finding] = {}
    for rewrite in _rewrites(cluster, ns):
        if rewrite.ingress in out:
            continue
        logs = backend_logs(cluster, facts, ns, rewrite.backend)
        shown = _not_served(rewrite, logs, requests)
        if shown is None:
            continue
        errors, group, request, path = shown
        asked = (
            f"{request} reaches it as {path}"
            if request
            else f"every request reaches it as {path}"
        )
        f = Finding(
            "service_routing",
            "IngressRewrite",
            f"ingress/{rewrite.ingress}",
            layers.CONNECT,
            f"ingress {rewrite.ingress} rewrites its path {rewrite.prefix} to "
            f"{rewrite.target} ({rewrite.key}): {asked} on {rewrite.backend}, which answers "
            "404 there (a path it never served)",
            ns,
        )
        f.cite(
            rewrite.obs,
            f"describe ingress {rewrite.ingress}: {rewrite.key}: {rewrite.target}; "
            f"{rewrite.prefix} → {rewrite.backend}:{rewrite.port}",
        )
        f.cite(errors.obs, errors.fact(group))
        f.keywords = ["ingress", "rewrite-target", rewrite.ingress, rewrite.backend]
        f.chain = [
            f"{rewrite.backend} logs: {short(group.sample or group.signature, 120)}",
            f.statement,
        ]
        # A failure names a request the rule took: the incident's traffic goes through it.
        f.is_relevant = bool(request)
        out[rewrite.ingress] = f
    return list(out.values())
