"""An Ingress that speaks plain HTTP to a backend serving TLS (issue 21 classes 1 and 4): the
backend's own lines say it got plaintext on its TLS listener, and the Ingress declares no TLS
backend protocol: the Ingress is the fault, at connect (reasoning/layered/kubernetes/ingress_protocol.py).

Names and wordings are invented; kubectl's layouts are its own.
"""

import pytest

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.ingress_protocol import PLAINTEXT, protocol_faults

from .answers import NS, describe, listing
from .test_ingress_rewrite import _logs

INGRESS = """Name:             atlas
Namespace:        shop
Ingress Class:    nginx
Rules:
  Host                  Path  Backends
  ----                  ----  --------
  atlas.quillberry.example
                        /api/maps   maps-svc:443 (10.40.1.7:8443,10.40.2.9:8443)
                        /           atlas-web:3000 (10.40.1.8:3000)
Annotations:            nginx.ingress.kubernetes.io/proxy-body-size: 4m
{extra}Events:                 <none>
"""
GO_TLS = "http: TLS handshake error from 10.40.3.3:51234: tls: first record does not look like a TLS handshake"


def _cluster(extra: str = "") -> Cluster:
    return Cluster.read(
        [
            listing(
                "ingresses",
                ("NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"),
                ("atlas", "nginx", "atlas.quillberry.example", "1.2.3.4", "80", "1y"),
            ),
            describe("ingress", "atlas", INGRESS.format(extra=extra)),
        ]
    )


@pytest.mark.rule("k8s.ingress-backend-protocol")
def test_a_backend_refusing_plaintext_on_its_tls_port_blames_the_ingress_without_backend_protocol():
    facts = Facts.read([_logs("maps-svc", GO_TLS)])

    (finding,) = protocol_faults(_cluster(), facts, NS)

    assert finding.component == "ingress/atlas"
    assert (finding.stage, finding.reason, finding.layer) == (
        "service_routing",
        "IngressBackendProtocol",
        layers.CONNECT,
    )
    cited = [fact for _, fact in finding.evidence]
    assert any("first record does not look like a TLS handshake" in f for f in cited)
    assert any("/api/maps → maps-svc:443" in f for f in cited)


@pytest.mark.rule("k8s.ingress-backend-protocol")
def test_an_ingress_that_declares_https_to_its_backend_is_not_blamed():
    facts = Facts.read([_logs("maps-svc", GO_TLS)])
    extra = (
        "                        nginx.ingress.kubernetes.io/backend-protocol: HTTPS\n"
    )

    assert protocol_faults(_cluster(extra), facts, NS) == []


@pytest.mark.rule("k8s.ingress-backend-protocol")
def test_a_plaintext_refusal_logged_before_the_window_too_is_no_new_fault():
    facts = Facts.read([_logs("maps-svc", GO_TLS, before=40)])

    assert protocol_faults(_cluster(), facts, NS) == []


@pytest.mark.rule("k8s.ingress-backend-protocol")
@pytest.mark.timeout(60)
def test_the_plaintext_reader_stays_linear_on_hostile_lines():
    PLAINTEXT.search("SSL routines " * 50_000 + "wrong version number " * 50_000)
