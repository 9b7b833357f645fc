"""Service resolution: the incident's service name onto a name the data knows, and how it was found.

People name a service as users see it (`checkout`, `login`, `webshop`); metrics, logs and Kubernetes
know it by its deployed name (`checkout-api`). `resolve` tries the rules of `RULES` in order, strongest
first; the first rule that finds exactly one service decides. A rule that finds several stops the search
unresolved (ambiguous): a wrong service is worse than none, since an unresolved name starts the
diagnosis from everything unhealthy instead (`reasoning.layered.survey`).

`Known` is what the data sources showed so far (`known_names` reads it from the observations); the
rules are pure functions of the name, `Known` and the alert's labels.
"""

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.reading import as_dict, as_list, host_of, hosts_in
from reasoning.observations import Investigation
from reasoning.tools import QUERY_METRIC, SEARCH_LOGS, TOP_ERRORS

# Words that qualify a service's name without naming it (checkout-api is checkout's API).
AFFIXES: Final = ("api", "service", "svc", "web", "app", "server", "backend")
_GENERIC_TOKENS: Final = frozenset(AFFIXES)
# Label names of an alert (or a Kubernetes object) that carry a service's name, strongest first.
ALERT_LABELS: Final = (
    "service",
    "app.kubernetes.io/name",
    "app_kubernetes_io_name",  # as Prometheus spells the Kubernetes label
    "app",
    "job",
    "k8s_app",
    "k8s-app",
    "container",
    "deployment",
)
# Label names whose value names a service less directly, weakest last: a pod (its workload), an
# instance (its host, `checkout-api:8080`), a namespace named after its one service.
POD_LABELS: Final = ("pod", "pod_name", "kubernetes_pod_name")
INSTANCE_LABELS: Final = ("instance",)
NAMESPACE_LABELS: Final = ("namespace", "kubernetes_namespace")
KUBERNETES_LABELS: Final = ("app.kubernetes.io/name", "app", "k8s-app")
_LABEL_PAIR = re.compile(
    r"(?<![\w./-])(" + "|".join(re.escape(n) for n in ALERT_LABELS) + r"|namespace)"
    r"\s*[=:]\s*[\"'`]?([A-Za-z0-9][A-Za-z0-9_.-]*)"
)
_KNOWN_SERVICES = re.compile(r"known services:\s*(.+)$", re.IGNORECASE | re.MULTILINE)
_TOKEN_SPLIT = re.compile(r"[-_.]+")


@dataclass
class Known:
    """What the data sources know so far: service names (with who knows them), labels, routes, hosts."""

    services: dict[str, list[str]] = field(default_factory=dict)  # name → sources
    # (label name, value, the workload or service carrying it, namespace)
    labels: list[tuple[str, str, str, str]] = field(default_factory=list)
    # (host, path, backend service) of Ingress rules
    routes: list[tuple[str, str, str]] = field(default_factory=list)
    hosts: dict[str, str] = field(default_factory=dict)  # DNS name → where it was seen
    pods: dict[str, str] = field(default_factory=dict)  # pod name → its workload's name

    def add(self, name: str, source: str) -> None:
        name = name.strip().lower()
        if not name:
            return
        sources = self.services.setdefault(name, [])
        if source not in sources:
            sources.append(source)


@dataclass(frozen=True)
class Resolution:
    """How the incident's service name maps onto the data: `service` is None when it does not."""

    named: str
    service: str | None
    method: str  # a RULES name, or "unresolved" / "ambiguous"
    evidence: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()  # ambiguous: the services that tied

    @property
    def is_resolved(self) -> bool:
        return self.service is not None

    @property
    def renamed(self) -> bool:
        return self.service is not None and self.service != self.named.lower()

    def sentence(self) -> str:
        """One line for the report: how the name was resolved, or why it was not."""
        why = "; ".join(self.evidence)
        if self.service is not None and self.method == "exact":
            return f"service {self.named!r} is known to the data as is ({why})"
        if self.service is not None and self.method in (
            "alert_label",
            "alert_namespace",
        ):
            return f"service {self.named!r} resolved to {self.service!r} from {why}"
        if self.service is not None:
            return f"service {self.named!r} resolved to {self.service!r} by {RULE_TITLES[self.method]}: {why}"
        if self.method == "ambiguous":
            return (
                f"service {self.named!r} is ambiguous ({', '.join(self.candidates)}: {why}); "
                "not resolved to any of them"
            )
        return f"service {self.named!r} is unknown to every data source read"


# The rules: (name, title for the report, rule). A rule returns {candidate service: evidence}.
Rule = Callable[[str, Known, Mapping[str, str]], dict[str, str]]


def _exact(name: str, known: Known, labels: Mapping[str, str]) -> dict[str, str]:
    """A name a data source knows is itself."""
    sources = known.services.get(name)
    return {name: f"known to {', '.join(sources)}"} if sources else {}


def spelled(name: str) -> str:
    """A name's words joined by '-' (`Payments API`, `payments_api` → `payments-api`)."""
    return "-".join(w for w in re.split(r"[\s_-]+", name.strip().lower()) if w)


def _spelling(name: str, known: Known, labels: Mapping[str, str]) -> dict[str, str]:
    """A name is the known service spelled with the same words (a dashboard's `Payments API` is
    payments-api, `checkout_api` checkout-api)."""
    wanted = spelled(name)
    return {
        service: f"{service} is spelled with the same words, known to {', '.join(sources)}"
        for service, sources in known.services.items()
        if service != name and spelled(service) == wanted
    }


def _alert_label(name: str, known: Known, labels: Mapping[str, str]) -> dict[str, str]:
    """A name is the known service the first of the alert's labels names: a service, app, job,
    container or deployment label's value itself, a pod label's workload, an instance label's host."""
    return _labelled(
        name,
        known,
        labels,
        (
            (ALERT_LABELS, _as_named),
            (POD_LABELS, _pod_workload),
            (INSTANCE_LABELS, _instance_host),
        ),
    )


def _alert_namespace(
    name: str, known: Known, labels: Mapping[str, str]
) -> dict[str, str]:
    """A name is the known service the alert's namespace label is named after, the weakest rule.

    Namespace `payouts` holds payouts; the rule is last because a namespace usually holds several
    services."""
    return _labelled(name, known, labels, ((NAMESPACE_LABELS, _as_named),))


LabelReader = Callable[[str, "Known"], str | None]


def _labelled(
    name: str,
    known: Known,
    labels: Mapping[str, str],
    readers: tuple[tuple[tuple[str, ...], LabelReader], ...],
) -> dict[str, str]:
    """{service: evidence} of the first label (by `readers`' order) whose reader names a known
    service other than `name`."""
    for keys, reader in readers:
        for key in keys:
            value = labels.get(key, "").strip().lower()
            service = reader(value, known) if value else None
            if service is not None and service != name:
                why = f"the alert's label {key}={value}"
                if service != value:
                    why += f" ({service}'s)"
                return {service: why}
    return {}


def _as_named(value: str, known: Known) -> str | None:
    """A label value that is a known service's name."""
    return value if value in known.services else None


_POD_SUFFIXES: Final = (
    re.compile(r"-[a-z0-9]{5}$"),  # a pod of a ReplicaSet or DaemonSet: -x7k2p
    re.compile(r"-[a-z0-9]{6,10}$"),  # the ReplicaSet's pod-template hash: -7d9f8b6c5
    re.compile(r"-\d+$"),  # a StatefulSet's ordinal: -0
)


def _pod_workload(value: str, known: Known) -> str | None:
    """The workload of a pod the data listed, else the known service its name is generated from
    (`checkout-api-7d9f8b6c5-x7k2p` → checkout-api); a name the data knows as is stays itself."""
    owner = known.pods.get(value)
    if owner is not None and owner in known.services:
        return owner
    if value in known.services:
        return value
    stem = value
    for suffix in _POD_SUFFIXES:
        stem = suffix.sub("", stem)
        if stem != value and stem in known.services:
            return stem
    return None


def _instance_host(value: str, known: Known) -> str | None:
    """The known service an instance label's host is (`checkout-api:8080`,
    `checkout-api.shop.svc:8080`, `http://checkout-api/healthz`); an address names none."""
    host = host_of(value) if "://" in value else value.rsplit(":", 1)[0]
    host = (host or "").strip("[]").lower()
    if not host or re.fullmatch(r"[\d.:]+", host):
        return None
    for candidate in (host, host.split(".")[0]):
        if candidate in known.services:
            return candidate
    return None


def _kubernetes_label(
    name: str, known: Known, labels: Mapping[str, str]
) -> dict[str, str]:
    """A name is the workload whose pods carry it as their app.kubernetes.io/name, app or k8s-app label."""
    namespace = labels.get("namespace", "").lower()
    found: dict[str, str] = {}
    for key in KUBERNETES_LABELS:
        for label, value, owner, ns in known.labels:
            if label == key and value.lower() == name and owner != name:
                if namespace and ns and ns != namespace:
                    continue
                found.setdefault(owner, f"{owner} carries the label {label}={value}")
        if found:
            return found  # the stronger label name decides
    return found


def _ingress(name: str, known: Known, labels: Mapping[str, str]) -> dict[str, str]:
    """A name is the Service an Ingress routes its host (`login.example.com`) or first path segment (`/login`) to."""
    found: dict[str, str] = {}
    for host, path, backend in known.routes:
        first = path.strip("/").split("/")[0].lower()
        if (host and host.split(".")[0] == name) or first == name:
            found.setdefault(
                backend, f"Ingress routes {host or '*'}{path or '/'} to {backend}"
            )
    return found


def _dns(name: str, known: Known, labels: Mapping[str, str]) -> dict[str, str]:
    """A name is the known service a DNS name in the data belongs to when the name is one of its labels."""
    found: dict[str, str] = {}
    for host, where in known.hosts.items():
        parts = host.lower().split(".")
        if name not in parts:
            continue
        words = set(parts) | {t for p in parts for t in _tokens(p)}
        for service in known.services:
            if service == name:
                continue
            tokens = set(_TOKEN_SPLIT.split(service))
            if parts[0] == service or (len(tokens) > 1 and tokens <= words):
                found.setdefault(service, f"{host} ({where}) is {service}'s")
    return found


def _affix(name: str, known: Known, labels: Mapping[str, str]) -> dict[str, str]:
    """A name is the known service it names with or without an affix such as -api, -service or -svc."""
    found: dict[str, str] = {}
    for affix in AFFIXES:
        forms = {
            f"{name}-{affix}": f"{name} + -{affix}",
            f"{name}{affix}": f"{name} + {affix}",
            f"{affix}-{name}": f"{affix}- + {name}",
        }
        for stem in (f"-{affix}", affix):
            if name.endswith(stem) and len(name) > len(stem) + 2:
                forms.setdefault(
                    name[: -len(stem)].rstrip("-"), f"{name} without {stem}"
                )
        for form, how in forms.items():
            if form != name and form in known.services:
                found.setdefault(
                    form, f"{how} is {form}, known to {', '.join(known.services[form])}"
                )
    return found


def _token_overlap(
    name: str, known: Known, labels: Mapping[str, str]
) -> dict[str, str]:
    """A name is the known service whose own words are all among its words (order-status → orders)."""
    mine = _significant(name)
    if not mine:
        return {}
    found: dict[str, str] = {}
    for service in known.services:
        theirs = _significant(service)
        if not theirs or service == name:
            continue
        if theirs <= mine:
            shared = ", ".join(sorted(mine & theirs))
            found[service] = f"{service} shares the words {shared} with {name}"
    return found


RULES: Final[tuple[tuple[str, str, Rule], ...]] = (
    ("exact", "its exact name", _exact),
    ("spelling", "its spelling", _spelling),
    ("alert_label", "the alert's labels", _alert_label),
    ("kubernetes_label", "a Kubernetes app label", _kubernetes_label),
    ("ingress", "an Ingress host or path", _ingress),
    ("dns", "a DNS name in the data", _dns),
    ("affix", "a prefix or suffix", _affix),
    ("tokens", "shared words", _token_overlap),
    ("alert_namespace", "the alert's namespace", _alert_namespace),
)
RULE_TITLES: Final = {name: title for name, title, _ in RULES}
_AS_GIVEN: Final = frozenset({"exact", "spelling"})


def resolve(
    name: str, known: Known, labels: Mapping[str, str] | None = None
) -> Resolution:
    """The service the data knows `name` as, and how: the first rule with exactly one candidate.

    A rule with several candidates ends the search: ambiguous, unresolved. The rules after the
    exact ones read the name with its words joined by '-' (a label's `Checkout Service` is
    checkout-service, which the affix rule maps onto checkout).
    """
    given = {k: v for k, v in (labels or {}).items() if v}
    for method, _, rule in RULES:
        # The exact rules read the name as given; the others its words joined by '-'.
        wanted = name.strip().lower() if method in _AS_GIVEN else spelled(name)
        found = rule(wanted, known, given)
        if len(found) == 1:
            ((service, why),) = found.items()
            return Resolution(name, service, method, (why,))
        if len(found) > 1:
            return Resolution(
                name,
                None,
                "ambiguous",
                (f"{RULE_TITLES[method]} fits several",),
                tuple(sorted(found)),
            )
    return Resolution(name, None, "unresolved", _sources_read(known))


def _sources_read(known: Known) -> tuple[str, ...]:
    sources = sorted({s for names in known.services.values() for s in names})
    return (f"read: {', '.join(sources)}",) if sources else ()


def _tokens(name: str) -> list[str]:
    return [t for t in _TOKEN_SPLIT.split(name.lower()) if t]


def _significant(name: str) -> set[str]:
    """A name's words without the generic ones (api, service …), plural s dropped."""
    return {
        t[:-1] if len(t) > 4 and t.endswith("s") and not t.endswith("ss") else t
        for t in _tokens(name)
        if t not in _GENERIC_TOKENS and len(t) >= 3
    }


# Reading what the data knows.


def incident_labels(inv: Investigation) -> dict[str, str]:
    """The alert's labels: the brief's own, then `key=value` pairs its title, symptoms and
    description quote."""
    labels = {k.lower(): v for k, v in inv.incident.labels}
    for text in (inv.incident.title, *inv.incident.symptoms, inv.incident.description):
        for key, value in _LABEL_PAIR.findall(text):
            labels.setdefault(key.lower(), value)
    return labels


def known_names(inv: Investigation, facts: Facts) -> Known:
    """The service names, labels, Ingress routes and DNS names the observations show."""
    known = Known()
    for service, health in facts.health.items():
        if health.verdict != "unknown":
            known.add(service, "metrics")
    for service, errors in facts.errors.items():
        if errors.groups:
            known.add(service, "logs")
    for service, lines in facts.log_lines.items():
        if lines:
            known.add(service, "logs")
    for obs in inv.observations:
        if obs.tool == QUERY_METRIC and obs.is_ok:
            for series in map(as_dict, as_list(as_dict(obs.result).get("series"))):
                value = as_dict(series.get("metric")).get("service")
                if isinstance(value, str):
                    known.add(value, "metrics")
        elif obs.tool in (TOP_ERRORS, SEARCH_LOGS) and not obs.is_ok:
            match = _KNOWN_SERVICES.search(obs.error_message or obs.text or "")
            for name in (match.group(1) if match else "").split(","):
                if re.fullmatch(r"\s*[A-Za-z0-9][A-Za-z0-9_.:/-]*\s*", name):
                    known.add(name, "logs")
    _kubernetes(known, Cluster.read(inv.observations))
    for url in facts.targets:
        host = host_of(url)
        if host:
            known.hosts.setdefault(host, "a netcheck target")
    for errors, group in facts.error_texts():
        for host in hosts_in(group.text):
            known.hosts.setdefault(host, f"{errors.service}'s logs")
    for service, lines in facts.log_lines.items():
        for line in lines:
            for host in hosts_in(str(line.get("message") or line.get("line") or "")):
                known.hosts.setdefault(host, f"{service}'s logs")
    return known


def _kubernetes(known: Known, cluster: Cluster) -> None:
    namespaces = sorted({ns for _, ns in cluster.tables if ns})
    for ns in namespaces:
        for service in cluster.names("services", ns):
            known.add(service, "Kubernetes services")
        for workload in cluster.workloads(ns):
            known.add(workload.split("/", 1)[1], "Kubernetes workloads")
        for pod in cluster.pods(ns):
            owner = cluster.owner(ns, "pod", pod.name).split("/", 1)[-1]
            if owner != pod.name:
                known.pods.setdefault(pod.name.lower(), owner.lower())
            for key, value in (pod.labels or {}).items():
                entry = (key, value, owner, ns)
                if key in KUBERNETES_LABELS and entry not in known.labels:
                    known.labels.append(entry)
        for ingress in cluster.names("ingresses", ns):
            described = cluster.describe("ingresses", ns, ingress)
            if described is not None:
                known.routes += _routes(described.text)


_RULE_LINE = re.compile(
    r"^\s*(?:([a-z0-9*][a-z0-9.*-]*\.[a-z]{2,})\s+)?(/\S*)\s+([a-z0-9][a-z0-9-]*):\S+",
    re.MULTILINE,
)
_HOST_LINE = re.compile(r"^\s*([a-z0-9*][a-z0-9.*-]*\.[a-z]{2,})\s*$", re.MULTILINE)


def _routes(text: str) -> list[tuple[str, str, str]]:
    """(host, path, backend) of a `kubectl describe ingress` Rules table."""
    routes: list[tuple[str, str, str]] = []
    host = ""
    for line in text.lower().splitlines():
        if (m := _HOST_LINE.match(line)) is not None:
            host = m.group(1)
            continue
        if (m := _RULE_LINE.match(line)) is not None:
            host = m.group(1) or host
            routes.append((host, m.group(2), m.group(3)))
    return routes


def resolve_incident(inv: Investigation, facts: Facts) -> Resolution:
    """The incident's service resolved against what the observations show."""
    return resolve(inv.incident.service, known_names(inv, facts), incident_labels(inv))
