"""Ingress TLS: the Secret an Ingress terminates TLS with, and whether the namespace holds it.

Rule: an Ingress whose describe names under `TLS:` a Secret the namespace does not hold (absent
from the secrets list, or the ingress controller logging that it was not found) is served with the
controller's default, self-signed certificate for the hosts it terminates: the Ingress is the fault
(`service_routing`, at the tls layer, however healthy its pods are); a probe failing at tls on one
of those hosts puts it on the incident's path.
"""

import re
from dataclasses import dataclass

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.observations import Observation

# `  <secret> terminates <host>,<host>` under `TLS:` (`SNI routes …` names no secret).
_TERMINATES = re.compile(r"^\s+(\S+)\s+terminates\s+(\S+)\s*$")


@dataclass(frozen=True)
class Terminated:
    ingress: str
    secret: str
    hosts: tuple[str, ...]
    obs: Observation
    line: str


def terminated(cluster: Cluster, ns: str) -> list[Terminated]:
    """The TLS secrets of the described ingresses of `ns`, each with the hosts it terminates."""
    out: list[Terminated] = []
    for (kind, space, name), obs in sorted(cluster.describes.items()):
        if kind != "ingresses" or space != ns:
            continue
        section = False
        for line in obs.text.splitlines():
            if line.startswith("TLS:"):
                section = True
                continue
            if section and line and not line[0].isspace():
                break
            match = _TERMINATES.match(line) if section else None
            if match:
                hosts = tuple(h for h in match.group(2).split(",") if h)
                out.append(Terminated(name, match.group(1), hosts, obs, line.strip()))
    return out


def wants_secrets(cluster: Cluster, ns: str) -> bool:
    """A described ingress terminates TLS and the namespace's secrets were not listed yet."""
    return bool(terminated(cluster, ns)) and cluster.wants_list(
        "secrets", ns, wide=False
    )


def _controller_says_missing(
    facts: Facts, ns: str, secret: str
) -> tuple[Observation, str] | None:
    """An ingress controller's error or warning that `ns/secret` was not found."""
    wanted = f"{ns}/{secret}".lower()
    for errors in facts.errors.values():
        for group in (*errors.groups, *errors.warnings):
            text = f"{group.sample} {group.signature}".lower()
            if wanted in text and "not found" in text:
                return errors.obs, errors.fact(group)
    return None


def ingress_tls_faults(cluster: Cluster, facts: Facts, ns: str) -> list[Finding]:
    """An Ingress that terminates TLS with a Secret the namespace does not hold serves the controller's default self-signed certificate for its hosts."""
    secrets = cluster.table("secrets", ns)
    held = set(cluster.names("secrets", ns))
    failing_hosts = {
        p.host.lower() for p in facts.probes.values() if p.layer == layers.TLS
    }
    out: dict[str, Finding] = {}
    for tls in terminated(cluster, ns):
        logged = _controller_says_missing(facts, ns, tls.secret)
        absent = secrets is not None and tls.secret not in held
        if not absent and logged is None:
            continue
        hosts = ", ".join(tls.hosts)
        f = out.get(tls.ingress)
        if f is None:
            f = out[tls.ingress] = Finding(
                "service_routing",
                "IngressTLSSecretMissing",
                f"ingress/{tls.ingress}",
                layers.TLS,
                f"ingress {tls.ingress} terminates TLS for {hosts} with secret "
                f"{tls.secret}, which namespace {ns} does not hold: the controller serves "
                "its default self-signed certificate there",
                ns,
            )
            f.keywords = ["ingress", "tls", tls.ingress, tls.secret, *tls.hosts]
            f.chain = [
                f"ingress {tls.ingress}: {tls.line}",
                f"secret {tls.secret} is not in namespace {ns}",
            ]
        f.cite(tls.obs, f"describe ingress {tls.ingress}: TLS {tls.line}")
        if absent and secrets is not None:
            f.cite(
                secrets.obs,
                f"get secrets -n {ns}: {', '.join(sorted(held)) or 'none'} "
                f"(no {tls.secret})",
            )
        if logged is not None:
            f.cite(*logged)
        if failing_hosts & {h.lower() for h in tls.hosts}:
            f.is_relevant = True
    return list(out.values())
