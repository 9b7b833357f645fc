"""A route whose path match is narrower than the paths asked under it (issue 21 class 1): the requests fall through to another backend.

An Ingress (`pathType: Exact | Prefix | ImplementationSpecific`) or a Gateway API HTTPRoute
(`matches: path: type: Exact | PathPrefix`) sends each request to the backend of the rule whose
path takes it, the longest first. A rule of path `/api` with an exact match takes `/api` alone:
`/api/cart/items` falls through to a shorter rule (`/`) and its backend, which never served it.
When that other backend answers a request under the narrow rule's path with a failure (a 4xx or
5xx, in its own logs or in a line naming it, e.g. the controller's upstream `[ns-web-3000]`,
Traefik's `web@kubernetes`, HAProxy's `be_web`), new since the window started, the route is the
fault (service_routing, connect), not the backend that answers nor the callers that cannot read its
answer. Without the match type read (`-o yaml`) the fall-through is the lead to read it
(`wants_routes`).
"""

import re
from dataclasses import dataclass

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.ingress_rewrite import backend_logs
from reasoning.layered.kubernetes.routing import ingress_backends
from reasoning.layered.reading import short
from reasoning.observations import Observation

# A list item's dash, with its indentation.
_ITEM = re.compile(r"^([ \t]*)- ", re.MULTILINE)
# A request a failure names: its method and path; a status of 4xx/5xx on the same line.
_REQUEST = re.compile(r"\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/[^\s\"'?#]*)")
_FAILED_STATUS = re.compile(r"(?<![\d.:/-])[45]\d\d(?![\d.:/-])")
# Match types that take only the literal path.
_EXACT = {"exact"}


@dataclass(frozen=True)
class Route:
    """One rule of an Ingress or an HTTPRoute: its path, how it matches, where it sends."""

    kind: str  # ingress | httproute
    name: str
    path: str
    match: str  # Exact, Prefix, PathPrefix, ImplementationSpecific ("" when not read)
    backend: str
    port: str
    obs: Observation

    def takes(self, request: str) -> bool:
        """Whether this rule's path match takes `request` (a prefix match is element-wise)."""
        if self.match.lower() in _EXACT:
            return request == self.path
        base = self.path.rstrip("/")
        return request == self.path or request == base or request.startswith(base + "/")


def yaml_routes(kind: str, name: str, obs: Observation) -> list[Route]:
    """The rules of an Ingress (`paths:` items) or an HTTPRoute (`rules:` items) as `-o yaml` shows them."""
    text = obs.text or ""
    out: list[Route] = []
    for item in _items(text, "paths" if kind == "ingress" else "rules"):
        backend = re.search(
            r"\bname:\s*([a-z0-9][a-z0-9.-]*)", _after(item, "service", "backendRefs")
        )
        port = re.search(r"\b(?:number|port):\s*(\d+)", item)
        if backend is None:
            continue
        if kind == "ingress":
            path = re.search(r"^\s*-?\s*path:\s*(\S+)", item, re.MULTILINE)
            match = re.search(r"\bpathType:\s*(\w+)", item)
            pairs = [(path.group(1), match.group(1) if match else "")] if path else []
        else:
            pairs = re.findall(
                r"\btype:\s*(\w+)\s*\n\s*value:\s*[\"']?(/[^\s\"']*)", item
            )
            pairs = [(value, typ) for typ, value in pairs] + [
                (value, typ)
                for value, typ in re.findall(
                    r"\bvalue:\s*[\"']?(/[^\s\"']*)[\"']?\s*\n\s*type:\s*(\w+)", item
                )
            ]
        out += [
            Route(
                kind,
                name,
                p.strip("\"'"),
                m,
                backend.group(1),
                port.group(1) if port else "",
                obs,
            )
            for p, m in pairs
        ]
    return out


def _items(text: str, section: str) -> list[str]:
    """The list items directly under each `section:` (at its first item's indentation)."""
    lines = text.splitlines()
    head = re.compile(rf"[ \t]*{section}:[ \t]*")
    items: list[str] = []
    i = 0
    while i < len(lines):
        if not head.fullmatch(lines[i]):
            i += 1
            continue
        i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        first = _ITEM.match(lines[i]) if i < len(lines) else None
        if first is None:
            continue
        indent = first.group(1)
        current: list[str] = []
        while i < len(lines):
            line = lines[i]
            if line.startswith(indent + "- "):
                if current:
                    items.append("\n".join(current))
                current = [line]
            elif line.strip() and len(line) - len(line.lstrip()) <= len(indent):
                break  # the section ended: the outer loop reads this line again
            else:
                current.append(line)
            i += 1
        if current:
            items.append("\n".join(current))
    return items


def _after(item: str, *keys: str) -> str:
    """The item from the first of `keys` on (where its backend's name is), else all of it."""
    for key in keys:
        at = item.find(f"{key}:")
        if at >= 0:
            return item[at:]
    return item


def routes(cluster: Cluster, ns: str) -> list[Route]:
    """Every rule of the namespace's ingresses and HTTPRoutes: from `-o yaml` where read (with
    the match type), else from the ingress's describe (without it)."""
    out: list[Route] = []
    for (plural, space, name), obs in sorted(cluster.yamls.items()):
        if space == ns and plural in ("ingresses", "httproutes"):
            out += yaml_routes(
                "ingress" if plural == "ingresses" else "httproute", name, obs
            )
    read = {(r.kind, r.name) for r in out}
    for ingress in cluster.names("ingresses", ns):
        described = cluster.describe("ingresses", ns, ingress)
        if described is None or ("ingress", ingress) in read:
            continue
        out += [
            Route("ingress", ingress, path, "", backend, port, described)
            for path, backend, port in ingress_backends(described.text)
            if path
        ]
    return out


@dataclass(frozen=True)
class FallThrough:
    """A request under `narrow`'s path that reached `other`'s backend and failed there."""

    narrow: Route
    other: Route
    request: str
    obs: Observation | None
    fact: str


def fall_throughs(
    cluster: Cluster, facts: Facts, ns: str, failing: str
) -> list[FallThrough]:
    """Requests under a rule's path answered with a failure by another rule's backend: the rule
    meant for them did not take them."""
    all_routes = routes(cluster, ns)
    out: list[FallThrough] = []
    seen: set[tuple[str, str]] = set()
    for narrow in all_routes:
        if narrow.path in ("", "/"):
            continue
        for other in all_routes:
            if (
                other.name != narrow.name
                or other.backend == narrow.backend
                or (narrow.name, other.backend) in seen
            ):
                continue
            shown = _failed_under(cluster, facts, ns, narrow, other, failing)
            if shown is not None:
                seen.add((narrow.name, other.backend))
                out.append(FallThrough(narrow, other, *shown))
    return out


def _failed_under(
    cluster: Cluster, facts: Facts, ns: str, narrow: Route, other: Route, failing: str
) -> tuple[str, Observation | None, str] | None:
    """(request, span, fact) of a failure `other`'s backend answered for a request strictly under
    `narrow`'s path, new since the start."""
    base = narrow.path.rstrip("/")

    def under(line: str) -> str | None:
        for found in _REQUEST.finditer(line):
            request = found.group(1)
            if request.startswith(base + "/") and request != narrow.path:
                return request
        return None

    for errors in backend_logs(cluster, facts, ns, other.backend):
        for group in (*errors.groups, *errors.warnings):
            line = group.sample or group.signature
            request = under(line)
            if not group.is_stale and request and _FAILED_STATUS.search(line):
                return request, errors.obs, errors.fact(group)
    named = re.compile(rf"(?<![a-z0-9]){re.escape(other.backend)}(?![a-z0-9])")
    for line in failing.splitlines():
        request = under(line)
        if request and named.search(line) and _FAILED_STATUS.search(line):
            return request, None, short(line.strip(), 200)
    return None


def wants_routes(
    cluster: Cluster, facts: Facts, ns: str, failing: str = ""
) -> list[str]:
    """The ingresses whose requests fall through to another rule's backend while their match
    type is not read yet: their `-o yaml` says why."""
    return list(
        dict.fromkeys(
            t.narrow.name
            for t in fall_throughs(cluster, facts, ns, failing)
            if t.narrow.kind == "ingress" and not t.narrow.match
        )
    )


def path_match_faults(
    cluster: Cluster, facts: Facts, ns: str, failing: str
) -> list[Finding]:
    """An Ingress or HTTPRoute rule whose path match is narrower than the requests under its path (an Exact `/api` for `/api/cart/items`) lets them fall through to another rule's backend, which answers them with failures: the route is the fault."""
    out: dict[str, Finding] = {}
    for t in fall_throughs(cluster, facts, ns, failing):
        narrow, other = t.narrow, t.other
        if narrow.takes(t.request) or not other.takes(t.request):
            continue  # the match type read says the narrow rule takes it, or is not read
        component = f"{narrow.kind}/{narrow.name}"
        if component in out:
            continue
        f = Finding(
            "service_routing",
            "IngressPathMismatch",
            component,
            layers.CONNECT,
            f"{narrow.kind} {narrow.name} matches {narrow.path} with pathType {narrow.match}: "
            f"{t.request} is not taken by it and falls through to {other.path} → "
            f"{other.backend}:{other.port}, which answers it with a failure (the requests "
            f"meant for {narrow.backend} never reach it)",
            ns,
        )
        f.cite(
            narrow.obs,
            f"get {narrow.kind} {narrow.name} -o yaml: path {narrow.path} pathType: "
            f"{narrow.match} → {narrow.backend}:{narrow.port}; path {other.path} "
            f"pathType: {other.match or '?'} → {other.backend}:{other.port}",
        )
        if t.obs is not None:
            f.cite(t.obs, t.fact)
        f.keywords = [
            "ingress",
            "pathType",
            narrow.match,
            narrow.name,
            narrow.backend,
            other.backend,
        ]
        f.chain = [
            f"{other.backend} answers {t.request} with a failure: {short(t.fact, 120)}",
            f.statement,
        ]
        f.is_relevant = True  # requests under its path are seen failing
        out[component] = f
    return list(out.values())
