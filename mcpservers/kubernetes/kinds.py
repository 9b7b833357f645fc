"""The fixed table of kinds the server answers for, and the name rules every argument must pass.

Nothing reaches a kubectl command line that is not a kind from this table or a DNS-1123 name, so no
argument can become a flag, a second resource or a shell word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    """One resource type as kubectl names it."""

    resource: str  # plural, as in `kubectl get pods`
    singular: str
    kind: str  # the object's kind, as in `kind: Pod`
    short: tuple[str, ...] = ()
    group: str = ""  # API group; "" is the core group
    is_namespaced: bool = True
    # The columns of the plain table, when `-o wide` only appends columns after them: a plain
    # answer can then be cut out of a wide one.
    plain_columns: tuple[str, ...] = ()
    # `-o wide` prints no column more than the plain table (checked against kubectl 1.37), so a
    # plain answer is also the wide one.
    wide_is_plain: bool = False

    @property
    def qualified(self) -> str:
        """The name kubectl's NotFound message uses: `pods`, `deployments.apps`."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    @property
    def row_prefix(self) -> str:
        """How kubectl names this kind's rows when one `get` asks several kinds: `deployment.apps/`."""
        return f"{self.singular}.{self.group}/" if self.group else f"{self.singular}/"


KINDS: tuple[Kind, ...] = (
    Kind(
        "pods",
        "pod",
        "Pod",
        ("po",),
        plain_columns=("NAME", "READY", "STATUS", "RESTARTS", "AGE"),
    ),
    Kind(
        "services",
        "service",
        "Service",
        ("svc",),
        plain_columns=("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"),
    ),
    Kind(
        "deployments",
        "deployment",
        "Deployment",
        ("deploy",),
        "apps",
        plain_columns=("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"),
    ),
    Kind(
        "replicasets",
        "replicaset",
        "ReplicaSet",
        ("rs",),
        "apps",
        plain_columns=("NAME", "DESIRED", "CURRENT", "READY", "AGE"),
    ),
    Kind(
        "statefulsets",
        "statefulset",
        "StatefulSet",
        ("sts",),
        "apps",
        plain_columns=("NAME", "READY", "AGE"),
    ),
    Kind(
        "daemonsets",
        "daemonset",
        "DaemonSet",
        ("ds",),
        "apps",
        plain_columns=(
            "NAME",
            "DESIRED",
            "CURRENT",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "NODE SELECTOR",
            "AGE",
        ),
    ),
    Kind(
        "jobs",
        "job",
        "Job",
        (),
        "batch",
        plain_columns=("NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"),
    ),
    Kind(
        "cronjobs",
        "cronjob",
        "CronJob",
        ("cj",),
        "batch",
        plain_columns=(
            "NAME",
            "SCHEDULE",
            "TIMEZONE",
            "SUSPEND",
            "ACTIVE",
            "LAST SCHEDULE",
            "AGE",
        ),
    ),
    Kind("endpoints", "endpoints", "Endpoints", ("ep",), wide_is_plain=True),
    Kind(
        "endpointslices",
        "endpointslice",
        "EndpointSlice",
        (),
        "discovery.k8s.io",
        wide_is_plain=True,
    ),
    Kind("events", "event", "Event", ("ev",)),
    Kind(
        "nodes",
        "node",
        "Node",
        ("no",),
        is_namespaced=False,
        plain_columns=("NAME", "STATUS", "ROLES", "AGE", "VERSION"),
    ),
    Kind(
        "namespaces",
        "namespace",
        "Namespace",
        ("ns",),
        is_namespaced=False,
        wide_is_plain=True,
    ),
    Kind(
        "persistentvolumeclaims",
        "persistentvolumeclaim",
        "PersistentVolumeClaim",
        ("pvc",),
    ),
    Kind(
        "persistentvolumes",
        "persistentvolume",
        "PersistentVolume",
        ("pv",),
        is_namespaced=False,
    ),
    Kind(
        "storageclasses",
        "storageclass",
        "StorageClass",
        ("sc",),
        "storage.k8s.io",
        is_namespaced=False,
    ),
    Kind("configmaps", "configmap", "ConfigMap", ("cm",), wide_is_plain=True),
    Kind("secrets", "secret", "Secret", wide_is_plain=True),
    Kind(
        "serviceaccounts",
        "serviceaccount",
        "ServiceAccount",
        ("sa",),
        wide_is_plain=True,
    ),
    Kind(
        "resourcequotas",
        "resourcequota",
        "ResourceQuota",
        ("quota",),
        wide_is_plain=True,
    ),
    Kind("limitranges", "limitrange", "LimitRange", ("limits",), wide_is_plain=True),
    Kind(
        "ingresses",
        "ingress",
        "Ingress",
        ("ing",),
        "networking.k8s.io",
        wide_is_plain=True,
    ),
    # Cluster-scoped: which controller serves an Ingress naming it (`spec.ingressClassName`).
    Kind(
        "ingressclasses",
        "ingressclass",
        "IngressClass",
        (),
        "networking.k8s.io",
        is_namespaced=False,
        wide_is_plain=True,
    ),
    Kind(
        "networkpolicies",
        "networkpolicy",
        "NetworkPolicy",
        ("netpol",),
        "networking.k8s.io",
        wide_is_plain=True,
    ),
    Kind(
        "horizontalpodautoscalers",
        "horizontalpodautoscaler",
        "HorizontalPodAutoscaler",
        ("hpa",),
        "autoscaling",
        wide_is_plain=True,
    ),
    # A custom resource (the autoscaler add-on's CRD): absent from clusters without it, so never
    # part of a multi-kind survey (kubectl refuses the whole read for one unknown kind).
    Kind(
        "verticalpodautoscalers",
        "verticalpodautoscaler",
        "VerticalPodAutoscaler",
        ("vpa",),
        "autoscaling.k8s.io",
        wide_is_plain=True,
    ),
    Kind(
        "poddisruptionbudgets",
        "poddisruptionbudget",
        "PodDisruptionBudget",
        ("pdb",),
        "policy",
        wide_is_plain=True,
    ),
    Kind("roles", "role", "Role", (), "rbac.authorization.k8s.io", wide_is_plain=True),
    Kind(
        "rolebindings",
        "rolebinding",
        "RoleBinding",
        (),
        "rbac.authorization.k8s.io",
        plain_columns=("NAME", "ROLE", "AGE"),
    ),
)

_BY_ALIAS: dict[str, Kind] = {}
for _kind in KINDS:
    for _alias in (_kind.resource, _kind.singular, _kind.kind.lower(), *_kind.short):
        _BY_ALIAS[_alias] = _kind

_DNS_LABEL = re.compile(r"^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(
    r"^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$"
)
_KNOWN = ", ".join(k.resource for k in KINDS)


class ArgumentRefused(ValueError):
    """An argument a caller must change; the message says how."""


def find_kind(text: str) -> Kind | None:
    """The kind `text` names: plural, singular, short name or Kind, any case, optionally group-qualified
    (`deployments.apps`, `deploy.v1.apps`); None when it names none of the table."""
    alias = text.strip().lower()
    if alias in _BY_ALIAS:
        return _BY_ALIAS[alias]
    head, _, group = alias.partition(".")
    kind = _BY_ALIAS.get(head)
    if kind is None or not kind.group:
        return None
    # `deployments.apps` or `deployments.v1.apps`
    version, _, rest = group.partition(".")
    if group == kind.group or (
        rest == kind.group and re.fullmatch(r"v\d+(?:(?:alpha|beta)\d+)?", version)
    ):
        return kind
    return None


def kind_arg(text: str) -> Kind:
    """The kind for a tool's `kind` argument.

    Raises:
        ArgumentRefused: not a kind of the table; the message lists them.
    """
    kind = find_kind(text) if len(text) <= 80 else None
    if kind is None:
        raise ArgumentRefused(
            f"kind {text[:80]!r} is not one this server reads; use one of: {_KNOWN} (or a short name: po, svc, deploy, rs, ep, sa, cm, pvc, pv, sc, no …)"
        )
    return kind


MAX_KINDS = 24


def kinds_arg(texts: list[str]) -> tuple[Kind, ...]:
    """The kinds of one multi-kind `get`: each from the table, no kind twice, all namespaced.

    `texts` are the kinds as asked (a comma list `pods,deploy` is split first); the answer keeps
    their order, which is the order kubectl prints their tables in.

    Raises:
        ArgumentRefused: none, too many, an unknown or repeated kind, or a cluster-scoped one.
    """
    words = [w.strip() for text in texts for w in text.split(",")]
    if not words or any(not w for w in words):
        raise ArgumentRefused(
            "kinds: give one or more kinds, e.g. ['pods', 'deployments'] or 'pods,deployments' (no empty entry)"
        )
    if len(words) > MAX_KINDS:
        raise ArgumentRefused(
            f"kinds: {len(words)} kinds asked; at most {MAX_KINDS} in one call"
        )
    found: list[Kind] = []
    for word in words:
        try:
            kind = kind_arg(word)
        except ArgumentRefused as exc:
            raise ArgumentRefused(f"kinds: {exc}") from None
        if kind in found:
            raise ArgumentRefused(
                f"kinds: {word[:80]!r} repeats {kind.resource}; name each kind once"
            )
        found.append(kind)
    scoped = [k.resource for k in found if not k.is_namespaced]
    if scoped and len(found) > 1:
        raise ArgumentRefused(
            f"kinds: {', '.join(scoped)} has no namespace; ask it on its own, not with namespaced kinds"
        )
    return tuple(found)


def namespace_arg(text: str) -> str:
    """A namespace: a DNS-1123 label.

    Raises:
        ArgumentRefused: anything else.
    """
    if not _DNS_LABEL.match(text):
        raise ArgumentRefused(
            f"namespace {text[:80]!r} is not a Kubernetes namespace (lowercase letters, digits and '-', at most 63 characters, e.g. 'shop')"
        )
    return text


def name_arg(text: str, *, what: str = "name") -> str:
    """An object name: a DNS-1123 subdomain (at most 253 characters).

    Raises:
        ArgumentRefused: anything else.
    """
    if len(text) > 253 or not _DNS_SUBDOMAIN.match(text):
        raise ArgumentRefused(
            f"{what} {text[:80]!r} is not a Kubernetes object name (lowercase letters, digits, '-' and '.', e.g. 'cartservice-7f9c-x2x4q')"
        )
    return text


def container_arg(text: str) -> str:
    """A container name: a DNS-1123 label.

    Raises:
        ArgumentRefused: anything else.
    """
    if not _DNS_LABEL.match(text):
        raise ArgumentRefused(
            f"container {text[:80]!r} is not a container name (lowercase letters, digits and '-', at most 63 characters)"
        )
    return text


def object_ref_arg(text: str) -> tuple[Kind, str]:
    """`kind/name` (e.g. `pod/cart-7f9-x`, `deploy/cart`): the kind from the table, the name a DNS-1123 subdomain.

    Raises:
        ArgumentRefused: no slash, an unknown kind or a bad name.
    """
    kind_text, slash, name = text.partition("/")
    if not slash:
        raise ArgumentRefused(
            f"for_object {text[:80]!r} must be kind/name, e.g. 'pod/cartservice-7f9c-x2x4q' or 'deployment/cartservice'"
        )
    return kind_arg(kind_text), name_arg(name, what="for_object name")
