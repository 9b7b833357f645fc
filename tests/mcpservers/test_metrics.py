"""The metrics server: the demo PromQL subset, bounds, service_health verdicts, and the Prometheus back end
against a real Prometheus (Debian's package) loaded with the fixture scenario through promtool."""

from __future__ import annotations

import math
import shutil
import socket
import subprocess
import time

import pytest
from mcp.client import Client

from mcpservers.metrics.backends import (
    DemoBackend,
    PrometheusBackend,
    ScenarioDataError,
    load_metrics_json,
)
from mcpservers.metrics.openmetrics import openmetrics_lines
from mcpservers.metrics.promql import Evaluator, PromQLError, Series, parse
from mcpservers.metrics.server import build_server
from tests.mcpservers._support import DEMO, error_text, structured
from tests.prometheusproc import running_prometheus

NOW = 1_764_511_200.0


def _demo(now: float = NOW):
    return DemoBackend(load_metrics_json(DEMO / "metrics.json", now=now), source="demo")


def _last(result: dict, labels: dict | None = None) -> float:
    for series in result["series"]:
        if labels is None or series["metric"] == labels:
            return float(series["values"][-1][1])
    raise AssertionError(f"no series {labels} in {result['series']}")


# --- PromQL subset -------------------------------------------------------------------------------


def _counter(
    name: str, labels: dict, rate: float, n: int = 41, step: float = 15
) -> Series:
    return Series(
        {"__name__": name, **labels},
        [i * step for i in range(n)],
        [i * step * rate for i in range(n)],
    )


def _eval(query: str, series: list[Series], t: float = 600) -> dict[frozenset, float]:
    out = Evaluator(series).range_query(query, start=t, end=t, step=60)
    return {frozenset(s.labels.items()): s.values[-1] for s in out}


def test_selector_matchers() -> None:
    series = [_counter("req", {"code": c}, 1) for c in ("200", "502", "504")]
    assert len(_eval('req{code=~"5.."}', series)) == 2
    assert len(_eval('req{code!~"5.."}', series)) == 1
    assert len(_eval('req{code!="502"}', series)) == 2
    assert (
        len(_eval('req{code="5"}', series)) == 0
    )  # regex matches are anchored, = is exact


def test_rate_handles_counter_reset() -> None:
    values = [
        0,
        15,
        30,
        5,
        20,
    ]  # reset after 30: increase is 15 + 15 + 5 + 15 = 50 over 60 s
    series = [
        Series({"__name__": "c"}, [0, 15, 30, 45, 60], [float(v) for v in values])
    ]
    assert _eval("rate(c[5m])", series, t=60) == {frozenset(): pytest.approx(50 / 60)}
    assert _eval("increase(c[5m])", series, t=60) == {frozenset(): pytest.approx(50)}
    # the range is left-open: at t=60 a 1m range holds the samples at 15..60 (increase 15 + 5 + 15)
    assert _eval("increase(c[1m])", series, t=60) == {frozenset(): pytest.approx(35)}


def test_sum_by_and_without_and_binary_division() -> None:
    series = [
        _counter("req", {"svc": "a", "code": "200"}, 9),
        _counter("req", {"svc": "a", "code": "502"}, 1),
    ]
    assert _eval("sum by (code) (rate(req[5m]))", series) == {
        frozenset({("code", "200")}): pytest.approx(9),
        frozenset({("code", "502")}): pytest.approx(1),
    }
    assert _eval("sum(rate(req[5m])) without (code)", series) == {
        frozenset({("svc", "a")}): pytest.approx(10)
    }
    ratio = 'sum(rate(req{code=~"5.."}[5m])) / sum(rate(req[5m]))'
    assert _eval(ratio, series) == {frozenset(): pytest.approx(0.1)}
    assert _eval("sum(rate(req[5m])) * 60", series) == {frozenset(): pytest.approx(600)}


def test_histogram_quantile_interpolates_like_prometheus() -> None:
    # 100 observations/s: 50 ≤ 0.1 s, 40 in (0.1, 1], 10 in (1, +Inf)
    series = [
        _counter("h_bucket", {"le": le}, rate)
        for le, rate in (("0.1", 50), ("1", 90), ("+Inf", 100))
    ]
    q50 = _eval("histogram_quantile(0.5, sum by (le) (rate(h_bucket[5m])))", series)
    q75 = _eval("histogram_quantile(0.75, sum by (le) (rate(h_bucket[5m])))", series)
    q99 = _eval("histogram_quantile(0.99, sum by (le) (rate(h_bucket[5m])))", series)
    assert q50 == {frozenset(): pytest.approx(0.1)}
    assert q75 == {frozenset(): pytest.approx(0.1 + 0.9 * (25 / 40))}
    assert q99 == {
        frozenset(): pytest.approx(1.0)
    }  # rank in +Inf bucket → highest finite bound


def test_instant_selector_respects_5m_lookback() -> None:
    series = [Series({"__name__": "g"}, [0.0], [1.0])]
    assert _eval("g", series, t=300) == {frozenset({("__name__", "g")}): 1.0}
    assert _eval("g", series, t=301) == {}


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("topk(3, req)", "not supported"),
        ("rate(req)", "needs a range"),
        ("req[5m]", "must be inside rate"),
        ('req{code="200"', "expected"),
        ('req{code=~"("}', "bad regular expression"),
        ("", "empty"),
        ("sum by (code) req", "expected ("),
    ],
)
def test_outside_the_subset_is_a_clear_error(query: str, message: str) -> None:
    with pytest.raises(PromQLError, match=message.replace("(", r"\(")):
        Evaluator([_counter("req", {"code": "200"}, 1)]).range_query(
            query, start=0, end=60, step=60
        )


def test_parse_accepts_the_service_health_queries() -> None:
    from mcpservers.metrics.server import health_queries

    for query in health_queries("checkout").values():
        parse(query)


# --- the server on demo series ---------------------------------------------------------------------


@pytest.mark.anyio
async def test_query_metric_rate_sum_by_on_demo_series() -> None:
    server = build_server(_demo(), clock=lambda: NOW)
    promql = 'sum by (code) (rate(http_requests_total{service="checkout"}[5m]))'
    async with Client(server) as client:
        data = structured(
            await client.call_tool(
                "query_metric", {"promql": promql, "start": "now-10m", "step": "1m"}
            )
        )
    assert _last(data, {"code": "200"}) == pytest.approx(10)
    assert _last(data, {"code": "502"}) == pytest.approx(2)
    assert data["points"] == 22
    assert (
        data["series"][0]["values"][-1][0] == NOW
    )  # Unix seconds, millisecond precision


@pytest.mark.anyio
async def test_query_metric_bounds_points_per_series() -> None:
    async with Client(build_server(_demo(), clock=lambda: NOW)) as client:
        message = error_text(
            await client.call_tool(
                "query_metric",
                {"promql": "db_pool_max", "start": "now-2d", "step": "15s"},
            )
        )
    assert "11521 points per series is more than 11000" in message
    assert "raise step to at least 16s" in message


@pytest.mark.anyio
async def test_query_metric_cuts_total_points_and_says_so(monkeypatch) -> None:
    monkeypatch.setattr("mcpservers.metrics.server.MAX_POINTS_PER_RESULT", 100)
    async with Client(build_server(_demo(), clock=lambda: NOW)) as client:
        data = structured(
            await client.call_tool(
                "query_metric", {"promql": "http_requests_total", "step": "60s"}
            )
        )
    assert data["points"] == 61
    assert data["truncated"] is True
    assert "cut to 1 of 3 series" in data["notes"][0]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"promql": 'count_values("x", up)'}, "not supported by the demo back end"),
        ({"promql": "  "}, "promql is empty"),
        ({"promql": "up", "step": "0s"}, "step must be a positive duration"),
        ({"promql": "up", "start": "now-8d"}, "longer than the 7d limit"),
        ({"promql": "up", "start": "soon"}, "is not a time"),
    ],
)
async def test_query_metric_bad_arguments_are_tool_errors(
    arguments: dict, expected: str
) -> None:
    async with Client(build_server(_demo(), clock=lambda: NOW)) as client:
        assert expected in error_text(await client.call_tool("query_metric", arguments))


@pytest.mark.anyio
async def test_service_health_flags_errors_latency_pool_and_close_wait() -> None:
    async with Client(build_server(_demo(), clock=lambda: NOW)) as client:
        data = structured(
            await client.call_tool("service_health", {"service": "checkout"})
        )
    assert data["verdict"] == "unhealthy"
    signals = data["signals"]
    assert signals["error_ratio"]["current"] == pytest.approx(2 / 12, rel=1e-3)
    assert signals["error_ratio"]["start"] == 0
    assert signals["p99_latency_s"]["current"] == pytest.approx(4.7222, rel=1e-3)
    assert signals["db_pool_utilization"]["current"] == pytest.approx(1.0)
    assert {f["signal"]: f["severity"] for f in data["findings"]} == {
        "error_ratio": "critical",
        "p99_latency_s": "warning",
        "db_pool_utilization": "critical",
        "tcp_close_wait": "warning",
    }
    assert "error ratio 16.7%" in data["summary"]
    assert "CLOSE_WAIT sockets grew from 2 to 150" in data["summary"]


@pytest.mark.anyio
async def test_service_health_healthy_and_unknown() -> None:
    async with Client(build_server(_demo(), clock=lambda: NOW)) as client:
        healthy = structured(
            await client.call_tool("service_health", {"service": "payments"})
        )
        unknown = structured(
            await client.call_tool("service_health", {"service": "nope"})
        )
        before = structured(
            await client.call_tool(
                "service_health",
                {"service": "checkout", "start": "now-60m", "end": "now-25m"},
            )
        )
    assert healthy["verdict"] == "healthy"
    assert unknown["verdict"] == "unknown"
    assert "no data for service 'nope'" in unknown["summary"]
    assert before["verdict"] == "healthy"  # the incident starts 20 min before now


@pytest.mark.anyio
async def test_service_health_rejects_injection_in_service_name() -> None:
    async with Client(build_server(_demo(), clock=lambda: NOW)) as client:
        message = error_text(
            await client.call_tool("service_health", {"service": 'x"} or vector(1) #'})
        )
    assert "not a valid service name" in message


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ('{"series": 3}', "expected"),
        ('{"step_s": 0, "series": []}', "step_s must be a positive"),
        (
            '{"series": [{"name": "bad name", "points": [[0, 1]]}]}',
            "'name' must be a metric name",
        ),
        (
            '{"series": [{"name": "m", "labels": {"a": 1}, "points": [[0, 1]]}]}',
            "'labels' must map",
        ),
        ('{"series": [{"name": "m", "points": []}]}', "non-empty list"),
        ('{"series": [{"name": "m", "points": [[0, "x"]]}]}', "each point must be"),
        (
            '{"series": [{"name": "m", "type": "weird", "points": [[0, 1]]}]}',
            "'type' must be one of",
        ),
        ("{not json", "not JSON"),
    ],
)
def test_metrics_json_loader_names_the_problem(
    tmp_path, doc: str, message: str
) -> None:
    path = tmp_path / "metrics.json"
    path.write_text(doc)
    with pytest.raises(ScenarioDataError, match=message):
        load_metrics_json(path, now=NOW)


def test_openmetrics_output_groups_families_and_ends_with_eof() -> None:
    series = [
        Series({"__name__": "b", "x": 'q"uote'}, [1.5], [math.nan]),
        Series({"__name__": "a"}, [1.0], [2.0]),
    ]
    assert list(openmetrics_lines(series)) == [
        "a 2.0 1.000",
        'b{x="q\\"uote"} NaN 1.500',
        "# EOF",
    ]


# --- real Prometheus -----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory):
    """Prometheus on 127.0.0.1 serving the fixture scenario, backfilled with promtool; yields (url, now)."""
    missing = [
        name for name in ("prometheus", "promtool") if shutil.which(name) is None
    ]
    if missing:
        pytest.skip(
            f"{' and '.join(missing)} not installed; scripts/setup.d/20-prometheus.sh installs Debian's prometheus"
        )
    tmp = tmp_path_factory.mktemp("prometheus")
    now = time.time()
    series = load_metrics_json(DEMO / "metrics.json", now=now)
    (tmp / "series.om").write_text("\n".join(openmetrics_lines(series)) + "\n")
    subprocess.run(
        [
            "promtool",
            "tsdb",
            "create-blocks-from",
            "openmetrics",
            str(tmp / "series.om"),
            str(tmp / "data"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    (tmp / "prometheus.yml").write_text("global:\n  scrape_interval: 1h\n")
    with running_prometheus(
        tmp / "prometheus.yml", tmp / "data", "--storage.tsdb.retention.time=30d"
    ) as (base, _log):
        yield base, now


@pytest.mark.anyio
async def test_prometheus_back_end_matches_demo_back_end(prometheus) -> None:
    url, now = prometheus
    queries = [
        'sum by (code) (rate(http_requests_total{service="checkout"}[5m]))',
        'histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{service="checkout"}[5m])))',
        'max(db_pool_in_use{service="checkout"}) / max(db_pool_max{service="checkout"})',
        'tcp_close_wait{service="checkout"}',
    ]
    window = {"start": str(now - 1800), "end": str(now - 60), "step": "5m"}
    async with (
        Client(build_server(PrometheusBackend(url), clock=lambda: now)) as real,
        Client(build_server(_demo(now), clock=lambda: now)) as demo,
    ):
        for promql in queries:
            got = structured(
                await real.call_tool("query_metric", {"promql": promql, **window})
            )
            want = structured(
                await demo.call_tool("query_metric", {"promql": promql, **window})
            )
            assert [s["metric"] for s in got["series"]] == [
                s["metric"] for s in want["series"]
            ], promql
            for g, w in zip(got["series"], want["series"], strict=True):
                assert [t for t, _ in g["values"]] == pytest.approx(
                    [t for t, _ in w["values"]]
                ), promql
                assert [float(v) for _, v in g["values"]] == pytest.approx(
                    [float(v) for _, v in w["values"]], rel=0.02
                ), promql


@pytest.mark.anyio
async def test_prometheus_service_health_verdict(prometheus) -> None:
    url, now = prometheus
    async with Client(
        build_server(PrometheusBackend(url), clock=lambda: now)
    ) as client:
        data = structured(
            await client.call_tool("service_health", {"service": "checkout"})
        )
        healthy = structured(
            await client.call_tool("service_health", {"service": "payments"})
        )
    assert data["verdict"] == "unhealthy"
    assert data["signals"]["error_ratio"]["current"] == pytest.approx(2 / 12, rel=0.02)
    assert healthy["verdict"] == "healthy"


@pytest.mark.anyio
async def test_prometheus_rejects_bad_promql_as_tool_error(prometheus) -> None:
    url, now = prometheus
    async with Client(
        build_server(PrometheusBackend(url), clock=lambda: now)
    ) as client:
        message = error_text(
            await client.call_tool("query_metric", {"promql": "sum(rate(x[5m]"})
        )
    assert "Prometheus rejected the query (bad_data)" in message
    assert "parse error" in message


@pytest.mark.anyio
async def test_prometheus_unreachable_is_a_tool_error() -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    async with Client(build_server(PrometheusBackend(url, timeout=2))) as client:
        message = error_text(await client.call_tool("query_metric", {"promql": "up"}))
    assert "cannot reach Prometheus" in message


@pytest.mark.anyio
async def test_prometheus_back_end_serves_successive_sessions(prometheus) -> None:
    url, now = prometheus
    server = build_server(PrometheusBackend(url), clock=lambda: now)
    for _ in range(2):
        async with Client(server) as client:
            assert structured(
                await client.call_tool("query_metric", {"promql": "db_pool_max"})
            )["series"]
