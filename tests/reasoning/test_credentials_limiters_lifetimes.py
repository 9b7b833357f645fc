"""Faults whose loud lines sit at the wrong party (issue 21 classes 1 and 4), each with invented names:

- a remote refusing the caller's own credential as expired or revoked blames the caller holding it,
  and the hosts of the remote's message (a help link) are not a TLS path (`credentials`,
  `logged_paths`);
- a hop's own rate limiter refusing keys that are none of our services is an HTTP fault of the hop;
  a third party's 429 in our own lines and a limiter naming our client are not (`own_limiter`);
- signed links or tokens refused as expired after their issuer lowered the lifetime setting blame
  the issuer's setting, not the side that checks them (`signed_lifetime`).
"""

import pytest

from reasoning.layered.credentials import refuses_own_credential
from reasoning.layered.facts import Change
from reasoning.layered.own_limiter import limits_by_key
from reasoning.layered.reading import before_answer, error_classes, hosts_in
from reasoning.layered.signed_lifetime import EXPIRED_SIGNED, SETTING_QUERY, lowered
from reasoning.observations import Observation
from tests.reasoning.test_planner import World, health, incident, probe, targets
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    lines,
    logged,
    run_with_schemas,
)


def _standing(report):
    return [h for h in report.hypotheses if h.status != "ruled_out"]


# --- an expired or revoked credential of the caller's own ----------------------------------------

IDP_REFUSAL = (
    "POST https://id.northwind-idp.example/tenant-7/oauth2/token failed: 401 invalid_client: "
    "ERR9001: the client secret for app 'ledger-reader' has expired. Rotate it at "
    "https://help.northwind-docs.example/rotate or consider certificate credentials: "
    "https://help.northwind-docs.example/certs"
)


def test_a_remotes_refusal_of_the_callers_own_credential_is_recognised():
    assert refuses_own_credential(IDP_REFUSAL)
    assert refuses_own_credential(
        "send via https://api.mailhop.example/v3/send returned 403 Forbidden: API key revoked"
    )
    assert refuses_own_credential(
        "upload to bucket archive-9 rejected: ExpiredToken: the provided token has expired"
    )
    # A verifier refusing its own clients' credentials is the client's doing.
    assert not refuses_own_credential(
        "rejecting request: api key expired for client 77"
    )
    assert not refuses_own_credential("GET /v2/items 500: database unavailable")


@pytest.mark.rule("board.logged-paths")
def test_the_hosts_and_words_after_a_remotes_answer_are_not_a_failing_path():
    """What follows the remote's HTTP answer is its own message: its help links are no TLS path."""
    head = before_answer(IDP_REFUSAL)
    assert "help.northwind-docs.example" not in hosts_in(head)
    assert not error_classes(head) & {"tls", "dns", "connect"}
    # A failure before any answer is still read whole.
    failing = "GET https://pay.vendor-k.example/v1: x509: certificate signed by unknown authority"
    assert before_answer(failing) == failing and "tls" in error_classes(failing)
    # "certificate credentials" is an identity provider's word, not a TLS failure.
    assert "tls" not in error_classes("consider using certificate credentials instead")


@pytest.mark.rule("board.expired-credential")
def test_an_expired_client_secret_blames_the_caller_not_the_idp_or_its_help_links():
    world = World(
        {
            ("service_health", "claims-web"): health(
                "claims-web", "unhealthy", FAILING
            ),
            ("top_errors", "claims-web"): logged(
                "claims-web",
                errors=[
                    group(
                        "POST /claims 502: GET http://claims-sync/v1/approvers answered 502"
                    )
                ],
            ),
            ("service_health", "claims-sync"): health(
                "claims-sync", "unhealthy", FAILING
            ),
            ("top_errors", "claims-sync"): logged(
                "claims-sync", errors=[group(IDP_REFUSAL, count=300)]
            ),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(
        world, incident("claims-web", "claims cannot be filed"), names=NO_NETCHECK
    )

    assert report.top.id == "application:claims-sync"
    assert report.top.status == "confirmed" and report.conclusive
    assert "invalid_client" in " ".join(e.fact for e in report.top.evidence)
    assert not any(h.layer == "tls" for h in _standing(report))


@pytest.mark.rule("board.expired-credential")
def test_a_revoked_api_key_at_a_third_party_blames_the_service_that_presents_it():
    revoked = (
        "send via https://api.mailhop.example/v3/send returned 403 Forbidden: "
        "API key revoked (key id mk_51)"
    )
    world = World(
        {
            ("service_health", "digest-mailer"): health(
                "digest-mailer", "degraded", FAILING
            ),
            ("top_errors", "digest-mailer"): logged(
                "digest-mailer", errors=[group(revoked, count=80)]
            ),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(
        world, incident("digest-mailer", "weekly digests not sent"), names=NO_NETCHECK
    )

    assert report.top.id == "application:digest-mailer"
    assert report.top.status == "confirmed"
    assert "API key revoked" in " ".join(e.fact for e in report.top.evidence)


@pytest.mark.rule("board.expired-credential")
def test_a_probe_seeing_the_same_refusal_keeps_the_http_hypothesis_of_the_remote_on_top():
    """netcheck's own 401 from the remote host is the path's answer: the caller's line is a lead below it."""
    url = "https://api.textgate.example/v2/send"
    world = World(
        {
            ("service_health", "code-sender"): health(
                "code-sender", "unhealthy", FAILING
            ),
            ("top_errors", "code-sender"): logged(
                "code-sender",
                errors=[
                    group(f"POST {url} -> 401 Unauthorized: API key expired", count=90)
                ],
            ),
            ("list_targets", ""): targets(url),
            ("probe_url", url): probe(
                url, "http", "http_401", ["HTTP 401"], status=401, body="key expired"
            ),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(world, incident("code-sender", "codes not sent"))

    assert report.top.id == "http:api.textgate.example"
    own = next(h for h in report.hypotheses if h.id == "application:code-sender")
    assert own.status == "likely" and own.confidence < report.top.confidence


# --- a hop's own rate limiter --------------------------------------------------------------------

NGINX_LIMIT = (
    'limiting requests, excess: 12.400 by zone "per_ip", client: 198.51.100.9, '
    'server: shop.tidewater.example, request: "GET /cart HTTP/1.1"'
)


def test_a_limiters_own_refusal_is_told_from_a_429_it_got():
    assert limits_by_key(NGINX_LIMIT)
    assert limits_by_key(
        "throttle: rate limit exceeded for key 10.4.0.0/16 (limit_by ip)"
    )
    assert not limits_by_key(
        "POST https://api.partner-x.example/rates 429 Too Many Requests, Retry-After 20"
    )
    assert not limits_by_key(
        "rate limit exceeded for key sk_88 (429 from api.partner-x)"
    )
    # A limiter naming a client by a service's name blames that client's load, not itself.
    assert not limits_by_key(
        "POST /token 429: rate limit 50/s exceeded for client order-sync"
    )


@pytest.mark.rule("board.own-rate-limiter")
def test_a_hops_own_limiter_refusing_nearly_everyone_is_an_http_fault_of_the_hop():
    world = World(
        {
            ("service_health", "shop-bff"): health("shop-bff", "healthy"),
            ("top_errors", "shop-bff"): logged(
                "shop-bff",
                errors=[
                    group(
                        "GET http://edge-router/cart 429: Too Many Requests; user 4410",
                        count=900,
                    )
                ],
            ),
            ("service_health", "edge-router"): health("edge-router", "healthy"),
            ("top_errors", "edge-router"): logged(
                "edge-router", warnings=[group(NGINX_LIMIT, count=700)]
            ),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(
        world,
        incident("shop-bff", "shoppers get 'too many requests'"),
        names=NO_NETCHECK,
    )

    assert report.top.id == "http:edge-router"
    assert report.top.status == "confirmed" and report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "limiting requests" in cited and "edge-router/cart 429" in cited
    app = next(h for h in report.hypotheses if h.id == "application:edge-router")
    assert app.status == "ruled_out"


STORE = "https://store.quillmark.example/"
LIMIT_FOR_STORE = (
    "2031/02/01 08:14:09 [error] 77#77: *9120 limiting requests, excess: 30.100 by zone "
    '"by_addr", client: 203.0.113.40, server: store.quillmark.example, request: "GET /p/9"'
)


def _probed_limiter_world(line, status=429):
    return World(
        {
            ("service_health", "quill-web"): health("quill-web", "degraded", FAILING),
            ("top_errors", "quill-web"): logged("quill-web"),
            ("top_errors", "front-proxy"): logged(
                "front-proxy", errors=[group(line, count=600)]
            ),
            ("service_health", "front-proxy"): health("front-proxy", "healthy"),
            ("list_targets", ""): targets(STORE),
            ("probe_url", STORE): probe(
                STORE,
                "http",
                f"http_{status}",
                [f"HTTP {status} from store.quillmark.example"],
                status=status,
            ),
            ("search_logs", ""): lines(),
        }
    )


@pytest.mark.rule("board.own-rate-limiter")
def test_a_probe_refused_429_by_the_host_a_limiter_serves_confirms_the_limiter_over_the_host():
    _, _, report = run_with_schemas(
        _probed_limiter_world(LIMIT_FOR_STORE),
        incident("quill-web", "front-proxy refuses shoppers"),
    )

    assert report.top.id == "http:front-proxy"
    assert report.top.status == "confirmed"
    assert any(e.tool == "probe_url" for e in report.top.evidence)
    host = next(h for h in report.hypotheses if h.id == "http:store.quillmark.example")
    assert host.confidence < report.top.confidence


@pytest.mark.rule("board.own-rate-limiter")
def test_a_limiter_line_for_another_host_does_not_take_the_probes_refusal():
    other = LIMIT_FOR_STORE.replace(
        "store.quillmark.example", "store.quillmark.example.internal"
    )
    _, _, report = run_with_schemas(
        _probed_limiter_world(other),
        incident("quill-web", "front-proxy refuses shoppers"),
    )

    limiter = next((h for h in report.hypotheses if h.id == "http:front-proxy"), None)
    assert limiter is None or not any(e.tool == "probe_url" for e in limiter.evidence)


@pytest.mark.rule("board.own-rate-limiter")
def test_a_third_party_limiting_us_is_not_a_hop_fault_of_ours():
    world = World(
        {
            ("service_health", "fx-poller"): health("fx-poller", "degraded", FAILING),
            ("top_errors", "fx-poller"): logged(
                "fx-poller",
                errors=[
                    group(
                        "POST https://api.partner-x.example/rates 429 Too Many Requests, "
                        "Retry-After 20",
                        count=200,
                    )
                ],
            ),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(
        world, incident("fx-poller", "rates stale"), names=NO_NETCHECK
    )

    # The partner's limit is the partner's http fault (`board.shared-rate-limit`), never one of
    # fx-poller as a hop of ours.
    standing = _standing(report)
    assert not any(h.layer == "http" and h.component == "fx-poller" for h in standing)
    assert any(
        h.layer == "http" and h.component == "api.partner-x.example" for h in standing
    )


# --- a signed artifact's lifetime lowered by its issuer ------------------------------------------


def _change(message):
    obs = Observation(
        span_id="s1",
        agent="logs",
        server="logs",
        tool="search_logs",
        arguments={},
        is_ok=True,
    )
    return Change(obs, None, "invoice-mailer", message, is_dns_record=False)


def test_a_lowered_lifetime_setting_and_an_expired_signature_are_recognised():
    found = lowered(_change("settings reloaded: DOWNLOAD_LINK_TTL 86400 -> 120"))
    assert found is not None and (found.old, found.new) == (86400, 120)
    found = lowered(_change("session token lifetime changed from 3600 to 30 by ops"))
    assert found is not None and found.new == 30
    assert lowered(_change("settings reloaded: DOWNLOAD_LINK_TTL 120 -> 86400")) is None
    assert EXPIRED_SIGNED.search("GET /inv/7.pdf?expires=120 403 Signature has expired")
    assert EXPIRED_SIGNED.search("download link expired for document 88")
    assert not EXPIRED_SIGNED.search("session cache entry expired, refreshing")


@pytest.mark.rule("board.signed-lifetime")
def test_links_refused_as_expired_blame_the_issuer_that_shortened_their_lifetime():
    refusal = group(
        "GET /inv/7.pdf?X-Sig=ab12&Expires=120 403 AccessDenied: Signature has expired",
        count=400,
        first_seen="2030-01-01T10:15:00Z",
    )
    world = World(
        {
            ("service_health", "billing-portal"): health(
                "billing-portal", "degraded", FAILING
            ),
            ("top_errors", "billing-portal"): logged(
                "billing-portal",
                errors=[
                    group(
                        "GET /invoices/open 502: GET http://blob-store/inv/7.pdf answered 403"
                    )
                ],
            ),
            ("service_health", "blob-store"): health("blob-store", "healthy"),
            ("top_errors", "blob-store"): logged("blob-store", warnings=[refusal]),
            ("search_logs", ""): lines(
                (
                    "invoice-mailer",
                    "2030-01-01T10:09:00Z",
                    "settings reloaded: DOWNLOAD_LINK_TTL 86400 -> 120 (hardening)",
                )
            ),
        }
    )

    _, _, report = run_with_schemas(
        world,
        incident("billing-portal", "invoice links open an error"),
        names=NO_NETCHECK,
    )

    searched = [a for tool, a in world.arguments if tool == "search_logs"]
    assert any(a.get("query") == SETTING_QUERY for a in searched)
    assert report.top.id == "application:invoice-mailer"
    assert report.top.status == "confirmed" and report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "DOWNLOAD_LINK_TTL" in cited and "Signature has expired" in cited


@pytest.mark.timeout(60)
def test_a_hostile_change_line_is_read_in_linear_time():
    # A log line is not ours to trust: a 100 000-character dotted token took seconds per line
    # before the setting's name was bounded.
    assert lowered(_change("a." * 50_000)) is None
    found = lowered(_change("a-" * 50_000 + " LINK_TTL 3600 -> 60"))
    assert found is not None and found.new == 60


@pytest.mark.parametrize(
    "line",
    [
        "upload 40711.pdf failed: An error occurred (SlowDown) when calling PutObject",
        "wrote part-0007.parquet to s3 then retried invoice_77.xlsx",
        "cannot open cache/sessions.sqlite: database is locked",
    ],
)
def test_a_file_name_is_not_a_host(line):
    assert hosts_in(line) == []


def test_hosts_beside_file_names_are_still_read():
    line = "GET https://files.vendor-q.example/a/7.pdf via edge.acme.pl: 503"
    assert hosts_in(line) == ["files.vendor-q.example", "edge.acme.pl"]
