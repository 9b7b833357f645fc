"""netcheck's layered probe against real failing listeners on 127.0.0.1: each lands on its layer."""

import asyncio
import datetime as dt
import ipaddress
import socket
import ssl
import struct

import pytest

from mcpservers.netcheck import (
    BadArgument,
    Policy,
    Prober,
    Resolver,
    TargetRefused,
    Timeouts,
)
from mcpservers.netcheck.probe import MAX_BODY_BYTES, Target
from mcpservers.scenarios._certs import CertAuthority, self_signed
from mcpservers.scenarios._listeners import Listeners, Response, server_ssl_context
from mcpservers.scenarios.targets import _reset_handler

pytestmark = pytest.mark.anyio

NAME = "api.payments.internal"
SHORT = Timeouts.uniform(0.5)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("certs")
    now = dt.datetime.now(dt.UTC)
    ca = CertAuthority(folder)
    return {
        "ca": ca.files.cert,
        "good": ca.issue("good", [NAME, "127.0.0.1"]),
        "expired": ca.issue(
            "expired",
            [NAME],
            not_before=now - dt.timedelta(days=90),
            not_after=now - dt.timedelta(hours=3),
        ),
        "self_signed": self_signed(
            folder,
            "self",
            [NAME],
            not_before=now - dt.timedelta(days=1),
            not_after=now + dt.timedelta(days=30),
        ),
    }


@pytest.fixture
async def listeners():
    async with Listeners() as group:
        yield group


def make_prober(
    certs,
    *,
    allow=(NAME, "127.0.0.1", "wrong-name.internal", "gone.internal"),
    resolve=None,
):
    resolver = Resolver()
    for spec in resolve or [
        f"{NAME}=127.0.0.1",
        "wrong-name.internal=127.0.0.1",
        "gone.internal=NXDOMAIN",
    ]:
        resolver.add_override(spec)
    context = ssl.create_default_context(cafile=str(certs["ca"]))
    return Prober(
        policy=Policy.from_values(list(allow)),
        resolver=resolver,
        ssl_context=context,
        timeouts=SHORT,
    )


def answer(status, body="", delay=0.0):
    async def handler(request, writer):
        if delay:
            await asyncio.sleep(delay)
        return Response(status, body, {"Server": "demo-gw"})

    return handler


async def tls_listener(listeners, files, status=200, body="ok"):
    return await listeners.http(
        answer(status, body), ssl_context=server_ssl_context(files.cert, files.key)
    )


async def probe(prober, url, **kwargs):
    async with asyncio.timeout(10):
        return await prober.probe(url, **kwargs)


async def test_healthy_tls_server_passes_every_layer_with_timings_and_certificate(
    certs, listeners
):
    port = await tls_listener(listeners, certs["good"])

    result = await probe(make_prober(certs), f"https://{NAME}:{port}/health")

    assert result["failed_layer"] == "none"
    assert result["reason"] is None
    assert result["http"]["status"] == 200
    assert result["resolver"] == "override"
    assert result["addresses"] == ["127.0.0.1"]
    for key in ("dns_ms", "connect_ms", "tls_ms", "ttfb_ms"):
        assert isinstance(result[key], float)
    assert result["tls"]["verified"] is True
    assert result["certificate"]["san"] == [NAME, "127.0.0.1"]
    assert "AgentOps demo CA" in result["certificate"]["issuer"]
    assert result["certificate"]["problems"] == []
    assert 29 < result["certificate"]["expires_in_days"] <= 30


async def test_expired_certificate_fails_at_tls_and_still_shows_the_certificate(
    certs, listeners
):
    port = await tls_listener(listeners, certs["expired"])

    result = await probe(make_prober(certs), f"https://{NAME}:{port}/")

    assert (result["failed_layer"], result["reason"]) == ("tls", "certificate_expired")
    assert result["ttfb_ms"] is None
    assert result["http"] is None
    assert result["tls"]["verified"] is False
    assert result["certificate"]["common_name"] == NAME
    assert -0.2 < result["certificate"]["expires_in_days"] < 0
    assert any("certificate expired" in line for line in result["evidence"])
    assert any(
        p.startswith("expired 3 hours ago") for p in result["certificate"]["problems"]
    )


async def test_name_mismatch_fails_at_tls(certs, listeners):
    port = await tls_listener(listeners, certs["good"])

    result = await probe(make_prober(certs), f"https://wrong-name.internal:{port}/")

    assert (result["failed_layer"], result["reason"]) == (
        "tls",
        "certificate_name_mismatch",
    )
    assert any(
        "wrong-name.internal is not in the SAN" in p
        for p in result["certificate"]["problems"]
    )


async def test_untrusted_self_signed_certificate_fails_at_tls(certs, listeners):
    port = await tls_listener(listeners, certs["self_signed"])

    result = await probe(make_prober(certs), f"https://{NAME}:{port}/")

    assert (result["failed_layer"], result["reason"]) == (
        "tls",
        "certificate_untrusted",
    )
    assert result["certificate"]["self_signed"] is True


async def test_plain_http_port_probed_with_https_fails_the_handshake(certs, listeners):
    port = await listeners.http(answer(200))

    result = await probe(make_prober(certs), f"https://127.0.0.1:{port}/")

    assert (result["failed_layer"], result["reason"]) == ("tls", "handshake_failed")


async def test_closed_port_is_refused_at_connect(certs, listeners):
    port = listeners.closed_port()

    result = await probe(make_prober(certs), f"http://{NAME}:{port}/")

    assert (result["failed_layer"], result["reason"]) == ("connect", "refused")
    assert result["tls_ms"] is None
    assert result["connect_attempts"] == [
        {"address": "127.0.0.1", "ok": False, "reason": "refused"}
    ]


async def test_full_backlog_times_out_at_connect(certs, listeners):
    port = listeners.backlog_full()

    result = await probe(make_prober(certs), f"http://127.0.0.1:{port}/")

    assert (result["failed_layer"], result["reason"]) == ("connect", "timeout")
    assert result["connect_ms"] >= 500


async def test_listener_that_never_says_hello_times_out_at_tls(certs, listeners):
    port = await listeners.silent()

    result = await probe(make_prober(certs), f"https://{NAME}:{port}/")

    assert (result["failed_layer"], result["reason"]) == ("tls", "timeout")
    assert isinstance(result["connect_ms"], float)
    assert result["tls_ms"] >= 500


async def test_upstream_slower_than_the_timeout_times_out_at_http(certs, listeners):
    port = await listeners.http(answer(200, delay=5))

    result = await probe(make_prober(certs), f"http://{NAME}:{port}/")

    assert (result["failed_layer"], result["reason"]) == ("http", "timeout")
    assert result["ttfb_ms"] is None


async def test_slow_upstream_within_the_timeout_shows_in_ttfb(certs, listeners):
    port = await listeners.http(answer(200, delay=0.2))

    prober = make_prober(certs)
    prober.timeouts = Timeouts.uniform(
        3.0
    )  # room for a loaded machine; the delay is what we measure

    result = await probe(prober, f"http://{NAME}:{port}/")

    assert result["failed_layer"] == "none"
    assert result["ttfb_ms"] >= 200
    assert result["connect_ms"] < 200


async def test_gateway_502_fails_at_http_with_status_and_body(certs, listeners):
    port = await listeners.http(
        answer(502, "upstream connect error: certificate has expired")
    )

    result = await probe(make_prober(certs), f"http://{NAME}:{port}/")

    assert (result["failed_layer"], result["reason"]) == ("http", "http_502")
    assert result["http"]["status"] == 502
    assert result["http"]["headers"]["server"] == "demo-gw"
    assert "certificate has expired" in result["evidence"][0]


async def test_secrets_in_an_error_page_are_masked_in_the_excerpt(certs, listeners):
    port = await listeners.http(
        answer(
            500,
            "upstream said password=hunter2; Authorization: Bearer abcdef123456",
        )
    )

    result = await probe(make_prober(certs), f"http://{NAME}:{port}/")

    excerpt = result["http"]["body_excerpt"]
    assert "hunter2" not in excerpt
    assert "abcdef123456" not in excerpt
    assert "password=***" in excerpt
    assert "hunter2" not in " ".join(result["evidence"])


async def test_server_closing_without_an_answer_fails_at_http(certs, listeners):
    async def hang_up(request, writer):
        return None

    port = await listeners.http(hang_up)

    result = await probe(make_prober(certs), f"http://{NAME}:{port}/")

    assert (result["failed_layer"], result["reason"]) == ("http", "empty_reply")


async def test_nxdomain_override_fails_at_dns_without_connecting(certs):
    result = await probe(make_prober(certs), "https://gone.internal/")

    assert (result["failed_layer"], result["reason"]) == ("dns", "nxdomain")
    assert result["connect_ms"] is None
    assert result["connect_attempts"] == []
    assert "NXDOMAIN" in result["evidence"][0]


async def sse_upstream(listeners, *, heartbeat_s):
    async def stream(request, writer):
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
        )
        writer.write(b"event: hello\ndata: {}\n\n")
        await writer.drain()
        while True:
            await asyncio.sleep(heartbeat_s)
            writer.write(b": heartbeat\n\n")
            await writer.drain()

    return await listeners.http(stream)


async def test_proxy_idle_timeout_cutting_an_event_stream_fails_at_http(
    certs, listeners
):
    upstream = await sse_upstream(listeners, heartbeat_s=1.5)
    proxy = await listeners.idle_cut_proxy(upstream, idle_timeout_s=0.25)

    result = await probe(
        make_prober(certs), f"http://{NAME}:{proxy}/events", stream_s=3
    )

    assert (result["failed_layer"], result["reason"]) == ("http", "stream_cut")
    assert result["stream"]["closed_by"] == "peer"
    assert result["stream"]["events"] == 1
    assert 200 <= result["stream"]["idle_before_close_ms"] < 600


async def test_event_stream_with_heartbeats_survives_the_watch(certs, listeners):
    upstream = await sse_upstream(listeners, heartbeat_s=0.05)
    proxy = await listeners.idle_cut_proxy(upstream, idle_timeout_s=0.5)

    result = await probe(
        make_prober(certs), f"http://{NAME}:{proxy}/events", stream_s=1.0
    )

    assert result["failed_layer"] == "none"
    assert result["stream"]["closed_by"] == "probe"
    assert result["stream"]["events"] >= 5


# --- SSRF and arguments -------------------------------------------------------------------------


async def test_host_not_on_the_allowlist_is_refused_before_any_lookup(certs):
    prober = make_prober(certs, allow=[NAME])

    with pytest.raises(
        TargetRefused, match=r"not in the allowlist.*allowed: api\.payments\.internal"
    ):
        await probe(prober, "http://other.internal/")


async def test_url_entry_limits_scheme_port_and_path(certs):
    prober = make_prober(certs, allow=[f"https://{NAME}:8443/api"])

    for url in (
        f"http://{NAME}:8443/api",
        f"https://{NAME}:9443/api",
        f"https://{NAME}:8443/admin",
    ):
        with pytest.raises(TargetRefused, match="not in the allowlist"):
            await probe(prober, url)


@pytest.mark.parametrize(
    "path", ["/api/../admin", "/api/%2e%2e/admin", "/api2", "/apiary/x"]
)
async def test_path_prefix_cannot_be_escaped(certs, path):
    prober = make_prober(certs, allow=[f"https://{NAME}:8443/api"])

    with pytest.raises(TargetRefused, match="not in the allowlist"):
        await probe(prober, f"https://{NAME}:8443{path}")


def test_unicode_host_names_are_matched_in_idna_form():
    policy = Policy.from_values(["xn--bcher-kva.internal"])

    policy.check_url(
        scheme="http",
        host=Target.parse("http://bücher.internal/").host,
        port=80,
        path="/",
    )


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
        ("http://[fd00:ec2::254]/", "cloud metadata"),
        ("http://169.254.10.20/", "link-local"),
        ("http://[fe80::1]/", "link-local"),
        ("http://0.0.0.0:8080/", "unspecified"),
    ],
)
async def test_metadata_and_link_local_literals_are_refused(certs, url, why):
    with pytest.raises(TargetRefused, match=why):
        await probe(make_prober(certs), url)


@pytest.mark.parametrize(
    "address",
    [
        "169.254.169.254",
        "::ffff:169.254.169.254",
        "64:ff9b::a9fe:a9fe",
        "2002:a9fe:a9fe::1",
        "::169.254.169.254",
        "fe80::1",
    ],
)
async def test_listed_name_resolving_to_a_forbidden_address_is_refused(certs, address):
    prober = make_prober(
        certs,
        allow=["rebind.internal"],
        resolve=[f"rebind.internal=127.0.0.1,{address}"],
    )

    with pytest.raises(TargetRefused, match=r"rebind\.internal resolves to"):
        await probe(prober, "http://rebind.internal/")


def test_forbidden_addresses_cannot_be_allowlisted():
    with pytest.raises(ValueError, match="cloud metadata"):
        Policy.from_values(["http://169.254.169.254/"])


@pytest.mark.parametrize(
    ("url", "hint"),
    [
        ("", "url is empty"),
        ("ftp://api.payments.internal/", "scheme must be http or https"),
        ("api.payments.internal/health", "scheme must be http or https"),
        ("https://", "has no host"),
        ("https://api.payments.internal:99999/", "port must be a number"),
        ("https://user:pw@api.payments.internal/", "credentials in URLs"),
    ],
)
async def test_malformed_urls_are_bad_arguments_with_a_hint(certs, url, hint):
    with pytest.raises(BadArgument, match=hint):
        await probe(make_prober(certs), url)


@pytest.mark.parametrize(
    ("kwargs", "hint"),
    [({"timeout_s": 0}, "timeout_s"), ({"stream_s": 999}, "stream_s")],
)
async def test_out_of_range_options_are_bad_arguments(certs, kwargs, hint):
    with pytest.raises(BadArgument, match=hint):
        await probe(make_prober(certs), f"https://{NAME}/", **kwargs)


def test_hosts_file_overrides_and_nxdomain_lines(tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text(
        "# demo\n127.0.0.1 a.internal b.internal\n::1 a.internal\nNXDOMAIN gone.internal\n"
    )
    resolver = Resolver()

    resolver.load_hosts_file(hosts)

    assert resolver.overrides == {
        "a.internal": [ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")],
        "b.internal": [ipaddress.ip_address("127.0.0.1")],
        "gone.internal": None,
    }


def test_resolve_override_rejects_garbage():
    with pytest.raises(ValueError, match="neither an IP address list nor NXDOMAIN"):
        Resolver().add_override("a.internal=not-an-ip")


# --- a real DNS server (--dns-server) -----------------------------------------------------------


def dns_prober(certs, port, *, allow=(NAME, "other.internal")):
    resolver = Resolver()
    resolver.set_nameserver(f"127.0.0.1:{port}")
    context = ssl.create_default_context(cafile=str(certs["ca"]))
    return Prober(
        policy=Policy.from_values(list(allow)),
        resolver=resolver,
        ssl_context=context,
        timeouts=SHORT,
    )


async def test_dns_server_answer_is_what_the_probe_connects_to(certs, listeners):
    port = await tls_listener(listeners, certs["good"])
    dns_port = await listeners.dns_server({NAME: ["127.0.0.1"]})

    result = await probe(dns_prober(certs, dns_port), f"https://{NAME}:{port}/")

    assert result["failed_layer"] == "none"
    assert result["resolver"] == f"dns-server 127.0.0.1:{dns_port}"
    assert result["addresses"] == ["127.0.0.1"]


@pytest.mark.parametrize(
    ("rcode", "reason"), [(3, "nxdomain"), (2, "servfail"), (5, "error")]
)
async def test_dns_server_error_codes_fail_at_dns(certs, listeners, rcode, reason):
    dns_port = await listeners.dns_server({NAME: rcode})

    result = await probe(dns_prober(certs, dns_port), f"https://{NAME}/")

    assert (result["failed_layer"], result["reason"]) == ("dns", reason)
    assert f"127.0.0.1:{dns_port}" in result["evidence"][0]


async def test_name_the_dns_server_knows_without_addresses_fails_at_dns(
    certs, listeners
):
    dns_port = await listeners.dns_server({NAME: []})

    result = await probe(dns_prober(certs, dns_port), f"https://{NAME}/")

    assert (result["failed_layer"], result["reason"]) == ("dns", "no_address")


async def test_silent_dns_server_times_out_at_dns(certs, listeners):
    dns_port = listeners.silent_udp()

    result = await probe(dns_prober(certs, dns_port), f"https://{NAME}/")

    assert (result["failed_layer"], result["reason"]) == ("dns", "timeout")
    assert result["dns_ms"] >= 500
    assert result["resolver"] == f"dns-server 127.0.0.1:{dns_port}"


async def test_dns_server_pointing_a_listed_name_at_metadata_is_refused(
    certs, listeners
):
    dns_port = await listeners.dns_server({"other.internal": ["169.254.169.254"]})

    with pytest.raises(
        TargetRefused, match=r"other\.internal resolves to 169\.254\.169\.254"
    ):
        await probe(dns_prober(certs, dns_port), "http://other.internal/")


@pytest.mark.parametrize("spec", ["127.0.0.1:99999", "dns.internal:53", "127.0.0.1:x"])
def test_dns_server_spec_must_be_an_ip_and_port(spec):
    with pytest.raises(ValueError, match="--dns-server"):
        Resolver().set_nameserver(spec)


async def test_allow_net_refuses_a_listed_name_resolving_outside_it(certs):
    resolver = Resolver()
    resolver.add_override("db.internal=10.0.0.5")
    prober = Prober(
        policy=Policy.from_values(
            ["db.internal", "10.0.0.6"], networks=["127.0.0.0/8"]
        ),
        resolver=resolver,
        timeouts=SHORT,
    )

    with pytest.raises(
        TargetRefused,
        match=r"resolves to 10\.0\.0\.5, outside the networks allowed at start \(127\.0\.0\.0/8\)",
    ):
        await probe(prober, "http://db.internal/")
    with pytest.raises(TargetRefused, match="outside the networks allowed"):
        await probe(prober, "http://10.0.0.6/")


# The body is read to its end (bounded), so a reset or a short body fails at http.


def raw(head, *parts, close="fin", pause=0.05, stall=0.0):
    """A handler writing `head` and `parts` itself, then closing (FIN), resetting (RST) or stalling."""

    async def handler(request, writer):
        writer.write(head)
        for part in parts:
            await writer.drain()
            await asyncio.sleep(pause)  # what was sent is read before what follows
            writer.write(part)
        await writer.drain()
        await asyncio.sleep(pause)
        if stall:
            await asyncio.sleep(stall)
        if close == "rst":
            sock = writer.get_extra_info("socket")
            sock.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
            )
        writer.transport.abort()

    return handler


async def test_reset_mid_body_listener_fails_at_http_as_connection_reset(
    certs, listeners
):
    port = await listeners.http(_reset_handler(200, 64))

    result = await probe(make_prober(certs), f"http://127.0.0.1:{port}/v1/export")

    assert (result["failed_layer"], result["reason"]) == ("http", "connection_reset")
    assert result["status"] == 200
    assert result["http"]["body_bytes"] == 64
    assert "connection reset after 64 bytes of the body" in result["evidence"][0]


async def test_body_shorter_than_its_content_length_is_truncated(certs, listeners):
    port = await listeners.http(
        raw(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", b"x" * 100)
    )

    result = await probe(make_prober(certs), f"http://127.0.0.1:{port}/")

    assert (result["failed_layer"], result["reason"]) == ("http", "truncated_body")
    assert "ended after 100 bytes of the 1000 promised" in result["evidence"][0]
    assert result["http"]["body_excerpt"] == "x" * 100


async def test_chunked_body_cut_before_its_last_chunk_is_truncated(certs, listeners):
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    cut = await listeners.http(raw(head, b"5\r\nhello\r\n", b"5\r\nwor"))
    whole = await listeners.http(
        raw(head, b"5\r\nhello\r\n", b"6\r\n world\r\n0\r\n\r\n")
    )

    broken = await probe(make_prober(certs), f"http://127.0.0.1:{cut}/")
    fine = await probe(make_prober(certs), f"http://127.0.0.1:{whole}/")

    assert (broken["failed_layer"], broken["reason"]) == ("http", "truncated_body")
    assert (fine["failed_layer"], fine["reason"]) == ("none", None)
    assert fine["http"]["body_excerpt"] == "hello world"
    assert (fine["http"]["body_bytes"], fine["http"]["body_complete"]) == (11, True)


async def test_healthy_large_body_is_read_whole_and_only_an_excerpt_kept(
    certs, listeners
):
    port = await tls_listener(listeners, certs["good"], body="y" * 900_000)

    result = await probe(make_prober(certs), f"https://{NAME}:{port}/export")

    assert (result["failed_layer"], result["reason"]) == ("none", None)
    assert result["http"]["body_bytes"] == 900_000
    assert result["http"]["body_complete"] is True
    assert result["http"]["body_excerpt"] == "y" * 512


async def test_body_over_the_read_limit_is_not_judged_past_it(certs, listeners):
    size = MAX_BODY_BYTES + 300_000
    port = await listeners.http(answer(200, "z" * size))

    result = await probe(make_prober(certs), f"http://127.0.0.1:{port}/")

    assert (result["failed_layer"], result["reason"]) == ("none", None)
    assert result["http"]["body_complete"] is False
    assert MAX_BODY_BYTES <= result["http"]["body_bytes"] < size


async def test_body_that_stalls_past_the_http_timeout_fails_at_http(certs, listeners):
    port = await listeners.http(
        raw(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n", b"partial", stall=2.0)
    )

    result = await probe(make_prober(certs), f"http://127.0.0.1:{port}/")

    assert (result["failed_layer"], result["reason"]) == ("http", "body_timeout")
    assert result["http"]["body_bytes"] == 7


async def test_error_status_wins_over_a_body_reset_and_both_are_evidence(
    certs, listeners
):
    port = await listeners.http(
        raw(
            b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 500\r\n\r\n",
            b"upstream died",
            close="rst",
        )
    )

    result = await probe(make_prober(certs), f"http://127.0.0.1:{port}/")

    assert (result["failed_layer"], result["reason"]) == ("http", "http_502")
    assert "connection reset after 13 bytes" in result["evidence"][-1]


async def test_url_entry_with_a_path_prefix_allows_that_path_and_below(
    certs, listeners
):
    port = await listeners.http(answer(200, "ok"))
    prober = make_prober(certs, allow=[f"http://127.0.0.1:{port}/api"])

    exact = await probe(prober, f"http://127.0.0.1:{port}/api")
    below = await probe(prober, f"http://127.0.0.1:{port}/api/v1/x")

    assert exact["failed_layer"] == below["failed_layer"] == "none"
