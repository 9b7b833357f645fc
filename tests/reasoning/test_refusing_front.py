"""Issue 21: a host's 401/403 answered by what stands in front of its back end
(reasoning/layered/refusing_front.py).

Names and wordings are invented: a Traefik-like gateway refusing tokens it cannot verify, an
Envoy-like gateway whose authorization filter denies, a back end reached through CDNs that stripped
its credential; near misses where the back end refuses on its own or no intermediary is named.
"""

import pytest

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.layered.refusing_front import dropped_credential, refusing_front
from reasoning.observations import IncidentBrief, Investigation, Observation

_BRIEF = IncidentBrief(
    title="users are signed out",
    service="portal",
    severity="sev2",
    symptoms=(),
    window_start="2030-01-01T10:00:00Z",
    window_end="2030-01-01T11:00:00Z",
)


def _lines(service, *samples, warnings=()):
    return Observation(
        span_id=f"e-{service}",
        agent="a",
        server="logs-mcp",
        tool="top_errors",
        arguments={"service": service},
        is_ok=True,
        result={
            "top": [{"sample": s, "signature": s, "count": 9} for s in samples],
            "warnings": [{"sample": s, "signature": s, "count": 9} for s in warnings],
        },
        text="",
    )


def _probe(url, status=None, layer="none"):
    return Observation(
        span_id=f"p-{url}",
        agent="a",
        server="netcheck",
        tool="probe_url",
        arguments={"url": url},
        is_ok=True,
        result={
            "url": url,
            "status": status,
            "failed_layer": layer,
            "reason": f"http_{status}" if status else None,
            "evidence": [],
            "http": None if status is None else {"status": status, "body_excerpt": ""},
        },
        text="",
    )


def _board(*observations):
    inv = Investigation(incident=_BRIEF, tools=(), observations=list(observations))
    return Board(inv, Facts.read(inv.observations))


@pytest.mark.rule("board.refusing-front")
@pytest.mark.parametrize(
    ("gateway", "line"),
    [
        (
            "front-proxy",
            '[2030-01-01T10:20:00Z] "GET /v1/basket HTTP/1.1" 401 UAEX ext_authz_denied 0 0 2 - '
            '"10.1.2.3" "Shopper/2.1" "abc-1" "shop.quill.example" "-"',
        ),
        (
            "ingress-gw",
            "10.0.4.4 - - host=shop.quill.example GET /v1/basket 401 middleware=jwt-check "
            "invalid signature: kid 7Hq not in key set",
        ),
    ],
)
def test_a_gateway_refusing_the_probed_host_itself_is_the_cause(gateway, line):
    board = _board(
        _probe("https://shop.quill.example/v1/basket", 401, "http"),
        _lines(gateway, warnings=(line,)),
    )
    host = board.get(layers.HTTP, "shop.quill.example", "shop answers 401")
    host.status, host.confidence = "confirmed", 0.9
    refusing_front(board)
    c = board.candidates[f"{layers.APPLICATION}:{gateway}"]
    assert c.status == "confirmed" and c.confidence >= 0.9
    assert f"e-{gateway}" in {e.span_id for e in c.evidence}
    assert host.status == "ruled_out"


@pytest.mark.rule("board.refusing-front")
def test_a_back_end_refusing_on_its_own_or_another_host_names_no_front():
    board = _board(
        _probe("https://shop.quill.example/v1/basket", 403, "http"),
        # A 403 with no auth verdict of its own: the gateway only relays.
        _lines("front-proxy", '"GET /v1/basket" 403 via_upstream "shop.quill.example"'),
        # A refusal with a verdict, but for another host.
        _lines(
            "partner-gw",
            '"GET /x" 401 jwt_authn_access_denied "partners.quill.example"',
        ),
    )
    refusing_front(board)
    assert board.candidates == {}


@pytest.mark.rule("board.dropped-credential")
@pytest.mark.parametrize(
    ("line", "front"),
    [
        (
            '{"req":{"url":"/v2/profile","headers":{"via":"1.1 a1b2.cloudfront.net (CloudFront)"}},'
            '"msg":"401 missing bearer token"}',
            "cloudfront",
        ),
        (
            "GET /v2/profile 401: Authorization header is missing (via: 1.1 varnish)",
            "varnish",
        ),
        (
            "rejected GET /v2/profile: no api key supplied; cf-ray=7d1e-AMS",
            "cloudflare",
        ),
    ],
)
def test_a_back_end_reached_without_its_credential_through_an_intermediary_blames_it(
    line, front
):
    board = _board(
        _probe("https://app.quill.example/v2/profile", 401, "http"),
        _probe("http://origin.quill.internal/healthz", 200),
        _lines("profile-api", warnings=(line,)),
    )
    host = board.get(layers.HTTP, "app.quill.example", "app answers 401")
    host.status, host.confidence = "likely", 0.55
    dropped_credential(board)
    c = board.candidates[f"{layers.HTTP}:{front}"]
    assert c.status == "confirmed" and c.confidence >= 0.88
    assert "e-profile-api" in {e.span_id for e in c.evidence}
    assert host.status == "ruled_out"


@pytest.mark.rule("board.dropped-credential")
def test_a_missing_credential_with_no_intermediary_or_no_refused_probe_names_none():
    board = _board(
        _probe("https://app.quill.example/v2/profile", 401, "http"),
        _lines("profile-api", "GET /v2/profile 401: no bearer token"),
    )
    dropped_credential(board)
    assert board.candidates == {}
    board = _board(
        _probe("https://app.quill.example/v2/profile", 200),
        _lines(
            "profile-api", "GET /v2/profile 401: no bearer token (via: 1.1 varnish)"
        ),
    )
    dropped_credential(board)
    assert board.candidates == {}


@pytest.mark.rule("board.refusing-front")
@pytest.mark.rule("board.dropped-credential")
@pytest.mark.timeout(60)
def test_long_lines_stay_linear():
    long_line = "401 jwt no authorization via: " * 7000
    board = _board(
        _probe("https://app.quill.example/v2/profile", 401, "http"),
        _lines("a-gw", long_line + " app.quill.example", warnings=("x" * 200000,)),
    )
    refusing_front(board)
    dropped_credential(board)
