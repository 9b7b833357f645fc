"""The targets.json fault catalogue: every kind is a real listener that netcheck's Prober meets."""

import asyncio
import json
import socket

import pytest

from mcpservers import scenarios
from mcpservers.netcheck import Timeouts

FAST = Timeouts(dns=1, connect=1, tls=1, http=1.5)
SCALE = 0.05

# name → (url, fault, stream_s in production seconds, expected (failed_layer, reason))
CATALOGUE = {
    "ok": ("https://ok.internal/healthz", {"kind": "ok"}, 0, ("none", None)),
    "ok-by-ip": ("https://127.0.0.1/healthz", {"kind": "ok"}, 0, ("none", None)),
    "expired": (
        "https://expired.internal/",
        {"kind": "tls_expired", "expired_s_ago": 3000},
        0,
        ("tls", "certificate_expired"),
    ),
    "self-signed": (
        "https://self.internal/",
        {"kind": "tls_self_signed"},
        0,
        ("tls", "certificate_untrusted"),
    ),
    "wrong-host": (
        "https://api.internal/",
        {"kind": "tls_wrong_host", "cert_names": ["other.internal"]},
        0,
        ("tls", "certificate_name_mismatch"),
    ),
    "wrong-chain": (
        "https://chain.internal/",
        {"kind": "tls_wrong_chain"},
        0,
        ("tls", "certificate_untrusted"),
    ),
    "refused": (
        "http://refused.internal/",
        {"kind": "connect_refused"},
        0,
        ("connect", "refused"),
    ),
    "syn-dropped": (
        "http://blackhole.internal/",
        {"kind": "connect_timeout"},
        0,
        ("connect", "timeout"),
    ),
    "nxdomain": (
        "https://gone.payments.internal/",
        {"kind": "dns_nxdomain"},
        0,
        ("dns", "nxdomain"),
    ),
    "servfail": (
        "http://broken.zone.internal/",
        {"kind": "dns_servfail"},
        0,
        ("dns", "servfail"),
    ),
    "slow-dns": (
        "http://slow.zone.internal/",
        {"kind": "dns_slow", "delay_s": 60},
        0,
        ("dns", "timeout"),
    ),
    # The record points at an address where nothing listens: what netcheck meets is the connect.
    "moved-record": (
        "https://bank.corp.internal/v1/payouts",
        {"kind": "dns_wrong_address", "address": "127.0.0.9"},
        0,
        ("connect", "refused"),
    ),
    "rate-limited": (
        "http://gw.internal/v1/orders",
        {
            "kind": "http_status",
            "status": 429,
            "body": "rate limit exceeded",
            "headers": {"Retry-After": "30"},
            "paths": {"/healthz": 200},
        },
        0,
        ("http", "http_429"),
    ),
    "rate-limited-health": (
        "http://gw.internal/healthz",
        {
            "kind": "http_status",
            "status": 429,
            "body": "rate limit exceeded",
            "headers": {"Retry-After": "30"},
            "paths": {"/healthz": 200},
        },
        0,
        ("none", None),
    ),
    "slow-503": (
        "http://slow503.internal/",
        {"kind": "http_status", "status": 503, "delay_s": 8},
        0,
        ("http", "http_503"),
    ),
    "first-byte-late": (
        "http://late.internal/",
        {"kind": "slow_first_byte", "delay_s": 60},
        0,
        ("http", "timeout"),
    ),
    "stuck": ("http://stuck.internal/", {"kind": "silent"}, 0, ("http", "timeout")),
    "cut-stream": (
        "http://cut.internal/v1/stream",
        {"kind": "stream_cut", "after_s": 30, "heartbeat_s": 10},
        60,
        ("http", "stream_cut"),
    ),
    "stream": (
        "http://stream.internal/v1/stream",
        {"kind": "sse", "heartbeat_s": 10},
        60,
        ("none", None),
    ),
    "via-proxy": (
        "http://proxy.internal/v1/stream",
        {"kind": "idle_cut_proxy", "upstream": "quiet-stream", "idle_timeout_s": 30},
        60,
        ("http", "stream_cut"),
    ),
    "quiet-stream": (
        "http://quiet.internal/v1/stream",
        {"kind": "sse", "heartbeat_s": 90},
        0,
        ("none", None),
    ),
    "reset": (
        "http://reset.internal/v1/export",
        {"kind": "reset_mid_body", "after_bytes": 64},
        0,
        # netcheck reads the body to its end: the RST after 64 bytes is a reset at http.
        ("http", "connection_reset"),
    ),
    "gw-to-expired": (
        "http://gw-tls.internal/v1/charges",
        {"kind": "gateway", "upstream": "expired"},
        0,
        ("http", "http_502"),
    ),
    "gw-to-refused": (
        "http://gw-refused.internal/",
        {"kind": "gateway", "upstream": "refused"},
        0,
        ("http", "http_502"),
    ),
    "gw-to-nxdomain": (
        "http://gw-dns.internal/",
        {"kind": "gateway", "upstream": "nxdomain"},
        0,
        ("http", "http_503"),
    ),
    "gw-to-ok": (
        "http://gw-ok.internal/healthz",
        {"kind": "gateway", "upstream": "ok"},
        0,
        ("none", None),
    ),
    "gw-to-moved": (
        "http://gw-moved.internal/v1/payouts",
        {"kind": "gateway", "upstream": "moved-record"},
        0,
        ("http", "http_502"),
    ),
    "mcp": (
        "http://mcp.internal/mcp",
        {"kind": "jsonrpc_error", "code": -32603, "message": "backend unavailable"},
        0,
        # netcheck sends GET: a Streamable HTTP endpoint without SSE answers 405.
        ("http", "http_405"),
    ),
}


def write_scenario(folder, targets, **files):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "incident.json").write_text(json.dumps({"title": "t", "service": "s"}))
    (folder / "expected.json").write_text(json.dumps({"root_cause_layer": "http"}))
    if targets is not None:
        (folder / "targets.json").write_text(json.dumps({"targets": targets}))
    for name, body in files.items():
        (folder / name.replace("_", ".")).write_text(json.dumps(body))
    return folder


def catalogue_targets():
    return [
        {"name": name, "url": url, "fault": fault, "stream_s": stream_s}
        for name, (url, fault, stream_s, _) in CATALOGUE.items()
    ]


def test_the_catalogue_covers_every_kind():
    assert {fault["kind"] for _, fault, _, _ in CATALOGUE.values()} == set(
        scenarios.FAULTS
    )


@pytest.mark.anyio
async def test_every_kind_fails_as_netcheck_sees_it(tmp_path):
    folder = write_scenario(tmp_path / "catalogue", catalogue_targets())

    async with (
        asyncio.timeout(30),
        scenarios.run(folder, time_scale=SCALE) as live,
    ):
        prober = live.prober(timeouts=FAST)
        results = dict(
            zip(
                live.probes,
                await asyncio.gather(
                    *(
                        prober.probe(p.url, stream_s=p.stream_s)
                        for p in live.probes.values()
                    )
                ),
                strict=True,
            )
        )
        mcp_port = int(live.probes["mcp"].url.split("/")[2].rsplit(":", 1)[1])
        rpc = await _post(mcp_port, {"jsonrpc": "2.0", "id": 7, "method": "ping"})
        reset_port = int(live.probes["reset"].url.split("/")[2].rsplit(":", 1)[1])
        received, error = await _read_until_reset(reset_port)

    found = {name: (r["failed_layer"], r["reason"]) for name, r in results.items()}
    assert found == {name: row[3] for name, row in CATALOGUE.items()}
    assert (
        "CERTIFICATE_VERIFY_FAILED: certificate has expired"
        in (results["gw-to-expired"]["http"]["body_excerpt"])
    )
    assert results["gw-to-nxdomain"]["http"]["body_excerpt"] == "no healthy upstream"
    assert (
        "delayed connect error: 111" in (results["gw-to-moved"]["http"]["body_excerpt"])
    )
    assert "127.0.0.9" in json.dumps(results["moved-record"])
    assert results["rate-limited"]["http"]["body_excerpt"] == "rate limit exceeded"
    assert results["slow-503"]["ttfb_ms"] >= 8 * SCALE * 1000 * 0.9
    assert results["wrong-host"]["certificate"]["san"] == ["other.internal"]
    assert results["stream"]["stream"]["events"] >= 2  # heartbeats arrived
    assert results["cut-stream"]["stream"]["closed_after_ms"] >= 30 * SCALE * 900
    assert results["servfail"]["resolver"].startswith("dns-server 127.0.0.1:")
    assert results["ok"]["resolver"] == "override"
    # Names whose targets have dns_* faults share one DNS server; others are overrides.
    assert "gone.payments.internal" not in live.resolve
    assert json.loads(rpc)["error"] == {
        "code": -32603,
        "message": "backend unavailable",
    }
    assert json.loads(rpc)["id"] == 7
    assert len(received) < 200 and isinstance(error, ConnectionResetError)


async def _post(port, payload):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    body = json.dumps(payload).encode()
    writer.write(
        b"POST /mcp HTTP/1.1\r\nHost: mcp\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, rest = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK")
    return rest


async def _read_until_reset(port):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /v1/export HTTP/1.1\r\nHost: reset\r\n\r\n")
    await writer.drain()
    data, error = b"", None
    try:
        while chunk := await reader.read(4096):
            data += chunk
    except ConnectionResetError as exc:
        error = exc
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    declared = int(
        next(
            line.split(b":")[1]
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
    )
    assert declared > len(body) == 64
    return body, error


@pytest.mark.anyio
async def test_a_folder_without_targets_starts_nothing_and_gets_only_its_servers(
    tmp_path,
):
    folder = write_scenario(tmp_path / "k8s-only", None, kubernetes_json={})
    (folder / "logs.jsonl").write_text("")

    async with scenarios.run(folder) as live:
        args = live.server_args()

    assert live.probes == {}
    assert args == {
        "logs": ["--scenario", str(folder.resolve())],
        "kubernetes": ["--scenario", str(folder.resolve())],
    }


@pytest.mark.anyio
async def test_backend_json_points_the_metrics_server_at_a_target(tmp_path):
    folder = write_scenario(
        tmp_path / "prom",
        [
            {
                "name": "prom-0",
                "url": "http://prom-0.monitoring.internal/",
                "fault": {"kind": "silent"},
            }
        ],
        backend_json={"metrics": {"prometheus_target": "prom-0", "timeout_s": 1.5}},
    )

    async with scenarios.run(folder) as live:
        args = live.server_args()
        port = live.probes["prom-0"].url.split("/")[2].rsplit(":", 1)[1]

    assert args["metrics"] == [
        "--prometheus-url",
        f"http://127.0.0.1:{port}",
        "--prometheus-timeout",
        "1.5",
    ]
    assert set(args) == {"metrics", "netcheck"}


def test_run_in_thread_takes_a_folder(tmp_path):
    folder = write_scenario(
        tmp_path / "one",
        [{"name": "api", "url": "http://api.internal/", "fault": {"kind": "ok"}}],
    )

    with scenarios.run_in_thread(folder, timeout_s=20) as live:
        port = int(live.probes["api"].url.rsplit(":", 1)[1].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: api\r\n\r\n")
            answer = sock.recv(100)

    assert answer.startswith(b"HTTP/1.1 200 OK")


def _target(**overrides):
    return {
        "name": "api",
        "url": "http://api.internal/x",
        "fault": {"kind": "ok"},
        **overrides,
    }


@pytest.mark.parametrize(
    ("targets", "where", "field"),
    [
        ([_target(fault={"kind": "tls_broken"})], "api", "fault.kind"),
        ([_target(url="http://api.internal:8080/")], "api", "url"),
        ([_target(url="ftp://api.internal/")], "api", "url"),
        ([_target(fault={"kind": "tls_expired"})], "api", "fault.expired_s_ago"),
        (
            [
                _target(
                    url="https://a/",
                    fault={"kind": "tls_expired", "expired_s_ago": "1h"},
                )
            ],
            "api",
            "fault.expired_s_ago",
        ),
        ([_target(fault={"kind": "silent", "delay_s": 3})], "api", "fault.delay_s"),
        (
            [_target(fault={"kind": "http_status", "status": 700})],
            "api",
            "fault.status",
        ),
        (
            [_target(fault={"kind": "gateway", "upstream": "db"})],
            "api",
            "fault.upstream",
        ),
        (
            [
                _target(fault={"kind": "gateway", "upstream": "b"}),
                _target(name="b", fault={"kind": "gateway", "upstream": "api"}),
            ],
            "api",
            "fault.upstream",
        ),
        (
            [_target(fault={"kind": "gateway", "upstream": []})],
            "api",
            "fault.upstream",
        ),
        (
            [
                _target(fault={"kind": "gateway", "upstream": ["c", "b"]}),
                _target(name="b", fault={"kind": "ok"}),
                _target(name="c", fault={"kind": "gateway", "upstream": ["api"]}),
            ],
            "api",
            "fault.upstream",
        ),
        (
            [_target(fault={"kind": "dns_wrong_address", "address": "10.1.2.3"})],
            "api",
            "fault.address",
        ),
        (
            [_target(fault={"kind": "dns_wrong_address", "address": "127.0.0.1"})],
            "api",
            "fault.address",
        ),
        (
            [
                _target(
                    fault={
                        "kind": "http_status",
                        "status": 503,
                        "paths": {"/healthz": {"status": 200, "etag": "x"}},
                    }
                )
            ],
            "api",
            "fault.paths./healthz",
        ),
        (
            [
                _target(
                    fault={
                        "kind": "reset_mid_body",
                        "paths": {"/healthz": {"status": 200, "headers": {"A": 1}}},
                    }
                )
            ],
            "api",
            "fault.paths./healthz.headers",
        ),
        ([_target(timeout_s=0)], "api", "timeout_s"),
        # 1e400 in JSON is infinity and NaN is accepted by Python's json: neither is a duration.
        ([_target(timeout_s=float("inf"))], "api", "timeout_s"),
        ([_target(stream_s=float("nan"))], "api", "stream_s"),
        ([_target(), _target()], "api", "name"),
        ([_target(stream_s=-1)], "api", "stream_s"),
        ([_target(timeout=3)], "api", "timeout"),
        ([_target(fault={"kind": "tls_self_signed"})], "api", "url"),
        ([{"url": "http://x/"}], "targets[0]", "name"),
    ],
)
def test_a_bad_targets_file_names_the_file_target_and_field(
    tmp_path, targets, where, field
):
    folder = write_scenario(tmp_path / "bad", targets)

    with pytest.raises(scenarios.TargetsError) as caught:
        _ = scenarios.load(folder).targets

    assert (caught.value.target, caught.value.field) == (where, field)
    assert str(caught.value).startswith(
        f"{folder.resolve() / 'targets.json'}: {where}: {field}: "
    )


def test_a_backend_naming_no_target_is_refused_before_anything_starts(tmp_path):
    folder = write_scenario(
        tmp_path / "bad-backend",
        [_target()],
        backend_json={"logs": {"loki_target": "loki-0"}},
    )

    with pytest.raises(scenarios.TargetsError, match="loki_target: 'loki-0'"):
        scenarios.run_in_thread(folder).__enter__()


def test_a_folder_without_incident_json_is_unknown(tmp_path):
    with pytest.raises(scenarios.UnknownScenario):
        scenarios.load(tmp_path)


@pytest.mark.anyio
async def test_paths_replicas_and_route_timeouts_answer_as_written(tmp_path):
    """A path's own body and headers; replicas taken in turn; a route timeout scaled like any duration."""
    targets = [
        {
            "name": "origin",
            "url": "http://origin.internal/v1/items",
            "fault": {
                "kind": "reset_mid_body",
                "paths": {
                    "/healthz": {
                        "status": 200,
                        "body": '{"db": "down", "status": "degraded"}',
                        "headers": {"X-Check": "shallow"},
                    }
                },
            },
        },
        {
            "name": "bad-replica",
            "url": "http://shop-1.internal/",
            "fault": {"kind": "http_status", "status": 503, "body": "pool exhausted"},
        },
        {
            "name": "good-replica",
            "url": "http://shop-2.internal/",
            "fault": {"kind": "ok"},
        },
        {
            "name": "shop",
            "url": "http://shop.internal/",
            "fault": {"kind": "gateway", "upstream": ["bad-replica", "good-replica"]},
        },
        {
            "name": "slow",
            "url": "http://slow.internal/",
            "fault": {"kind": "slow_first_byte", "delay_s": 20},
        },
        # 20 s * 0.05 = 1 s upstream; a 10 s route timeout * 0.05 = 0.5 s: Envoy gives up first.
        {
            "name": "edge",
            "url": "http://edge.internal/",
            "fault": {"kind": "gateway", "upstream": "slow", "route_timeout_s": 10},
        },
        # The same slow listener, probed under its own (scaled) netcheck timeout: 0.5 s < 1 s.
        {
            "name": "slow-watched",
            "url": "http://slow.internal/v2",
            "fault": {"kind": "slow_first_byte", "delay_s": 20},
            "timeout_s": 10,
        },
        # Without its own route timeout the gateway waits its default 3 real seconds.
        {
            "name": "patient-edge",
            "url": "http://patient.internal/",
            "fault": {"kind": "gateway", "upstream": "slow"},
        },
    ]
    folder = write_scenario(tmp_path / "format", targets)

    async with (
        asyncio.timeout(30),
        scenarios.run(folder, time_scale=SCALE) as live,
    ):
        prober = live.prober(timeouts=FAST)
        health = await prober.probe(_url(live, "origin", "/healthz"))
        shop = [await prober.probe(live.probes["shop"].url) for _ in range(4)]
        edge = await prober.probe(live.probes["edge"].url)
        patient = await prober.probe(live.probes["patient-edge"].url)
        slow = await prober.probe(live.probes["slow"].url)
        watched = await prober.probe(live.probes["slow-watched"].url)
        args = live.netcheck_args()

    assert health["failed_layer"] == "none"
    assert health["http"]["body_excerpt"] == '{"db": "down", "status": "degraded"}'
    assert [r["reason"] for r in shop] == [
        "http_503",
        None,
        "http_503",
        None,
    ]
    assert shop[0]["http"]["body_excerpt"] == "pool exhausted"
    assert (edge["failed_layer"], edge["reason"]) == ("http", "http_504")
    assert (patient["failed_layer"], patient["reason"]) == ("none", None)
    assert (slow["failed_layer"], watched["failed_layer"]) == ("none", "http")
    assert watched["reason"] == "timeout"
    flag = args.index("--timeout-for")
    assert args[flag + 1] == f"{live.probes['slow-watched'].url}=0.5"
    assert args.count("--timeout-for") == 1


def _url(live, name, path):
    base = live.probes[name].url.split("/", 3)
    return f"{base[0]}//{base[2]}{path}"
