"""Demo scenarios: files in the agreed formats, visible signals, and live listeners that fail as expected."""

import asyncio
import datetime as dt
import json
import math
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mcpservers import scenarios
from mcpservers.netcheck import Timeouts
from mcpservers.netcheck.__main__ import build_parser, prober_from_args
from mcpservers.scenarios import _generate, _timeline

ROOT = Path(__file__).resolve().parents[2]
NETWORK_LAYERS = {"dns", "connect", "tls", "http"}
LAYERS = NETWORK_LAYERS | {"app", "tool_backend"}
METRIC_NAMES = {
    "http_requests_total": "counter",
    "http_request_duration_seconds_bucket": "counter",
    "process_open_connections": "gauge",
    "db_pool_in_use": "gauge",
    "db_pool_max": "gauge",
    "tcp_close_wait": "gauge",
}
LEVELS = {"debug", "info", "warn", "error"}
FAST = Timeouts(dns=1, connect=1, tls=1, http=2.5)
# The first five scenarios: generated data (_generate.py) and one root-cause layer each. Other
# bundled folders are checked by the format tests over scenarios.SLUGS only.
FIVE = (
    "dns-nxdomain",
    "log-backend-timeout",
    "pool-exhaustion",
    "proxy-idle-timeout",
    "tls-expired",
)


def read_logs(slug):
    path = scenarios.load(slug).logs_path
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def read_metrics(slug):
    return json.loads(scenarios.load(slug).metrics_path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("slug", FIVE)
def test_expected_and_incident_files_follow_the_format(slug):
    scenario = scenarios.load(slug)
    expected, incident = scenario.expected, scenario.incident

    assert expected["slug"] == slug
    assert {
        "slug",
        "title",
        "service",
        "symptoms",
        "root_cause_layer",
        "root_cause",
        "evidence",
    } <= set(expected)
    assert expected["root_cause_layer"] in LAYERS
    assert isinstance(expected["root_cause"], str) and len(expected["root_cause"]) > 40
    assert (
        all(isinstance(item, str) for item in expected["evidence"])
        and len(expected["evidence"]) >= 3
    )
    assert expected["netcheck"], "every scenario has netcheck targets"
    for outcome in expected["netcheck"].values():
        assert outcome["failed_layer"] in NETWORK_LAYERS | {"none"}
    if expected["root_cause_layer"] in NETWORK_LAYERS:
        probe = expected["root_cause_probe"]
        assert (
            expected["netcheck"][probe]["failed_layer"] == expected["root_cause_layer"]
        )
    assert {"title", "service", "severity", "symptoms"} <= set(incident)
    assert incident["severity"] in {
        "sev1",
        "sev2",
        "sev3",
        "sev4",
    }  # diagnosis.models.Severity
    assert incident["service"] == expected["service"]
    window = incident["window"]
    assert (
        window["start_offset_s"]
        < expected["started_offset_s"]
        < window["end_offset_s"]
        == 0
    )
    assert all(isinstance(s, str) for s in incident["symptoms"])


def test_root_cause_layers_differ_between_scenarios():
    layers = [scenarios.load(slug).expected["root_cause_layer"] for slug in FIVE]

    assert len(set(layers)) == len(FIVE)


def test_the_five_are_bundled_and_slugs_are_the_folders_with_an_incident():
    bundled = {
        p.name
        for p in scenarios.ROOT.iterdir()
        if (p / "incident.json").is_file() and p.name[0] not in "._"
    }

    assert set(FIVE) <= set(scenarios.SLUGS) == bundled
    assert list(scenarios.SLUGS) == sorted(scenarios.SLUGS)


@pytest.mark.parametrize("slug", scenarios.SLUGS)
def test_every_bundled_targets_and_backend_file_passes_the_checks(slug):
    scenario = scenarios.load(slug)

    names = {target.name for target in scenario.targets}
    for body in scenario.backend.values():
        assert {body.get("loki_target"), body.get("prometheus_target")} & names
    assert scenario.targets_path.exists() == ("netcheck" in scenario.servers)


def test_tls_expired_certificate_expires_when_the_logs_say():
    (target,) = [
        t for t in scenarios.load("tls-expired").targets if t.kind == "tls_expired"
    ]

    assert target.params["expired_s_ago"] == -_timeline.TLS_EXPIRED_AT


def test_proxy_idle_timeout_targets_use_the_timeline_numbers():
    by_kind = {t.kind: t for t in scenarios.load("proxy-idle-timeout").targets}

    assert (
        by_kind["idle_cut_proxy"].params["idle_timeout_s"] == _timeline.IDLE_TIMEOUT_S
    )
    assert by_kind["sse"].params["heartbeat_s"] == _timeline.HEARTBEAT_S


@pytest.mark.parametrize("slug", FIVE)
def test_logs_follow_the_format_with_noise_and_secrets(slug):
    lines = read_logs(slug)

    assert 300 <= len(lines) <= 5000
    for line in lines:
        assert set(line) == {"offset_s", "service", "level", "message", "labels"}
        assert -2 * 3600 <= line["offset_s"] <= 0
        assert line["service"] and isinstance(line["message"], str)
        assert line["level"] in LEVELS
        assert all(
            isinstance(k, str) and isinstance(v, str) for k, v in line["labels"].items()
        )
    assert [line["offset_s"] for line in lines] == sorted(
        line["offset_s"] for line in lines
    )
    levels = {line["level"] for line in lines}
    assert {"info", "error"} <= levels
    text = "\n".join(line["message"] for line in lines)
    assert "password=" in text
    assert "Authorization: Bearer " in text
    assert len({line["service"] for line in lines}) >= 2


@pytest.mark.parametrize("slug", FIVE)
def test_metrics_follow_the_format(slug):
    doc = read_metrics(slug)

    assert doc["step_s"] == 15
    names = set()
    for series in doc["series"]:
        name = series["name"]
        names.add(name)
        assert series["type"] == METRIC_NAMES[name]
        assert "service" in series["labels"]
        assert ("le" in series["labels"]) == (
            name == "http_request_duration_seconds_bucket"
        )
        assert ("code" in series["labels"]) == (name == "http_requests_total")
        offsets = [p[0] for p in series["points"]]
        assert offsets == sorted(set(offsets))
        assert offsets[0] <= -7000 and offsets[-1] == 0
        values = [p[1] for p in series["points"]]
        assert all(
            isinstance(v, int | float) and math.isfinite(v) and v >= 0 for v in values
        )
        if series["type"] == "counter":
            assert values == sorted(values), (
                f"{name}{series['labels']} must not decrease"
            )
    assert {
        "http_requests_total",
        "http_request_duration_seconds_bucket",
        "process_open_connections",
        "tcp_close_wait",
    } <= names


@pytest.mark.parametrize("slug", FIVE)
def test_runbooks_have_a_title_line(slug):
    runbooks = sorted(scenarios.load(slug).runbooks_path.glob("*.md"))

    assert runbooks
    for path in runbooks:
        assert path.read_text(encoding="utf-8").splitlines()[0].startswith("# ")


def test_log_backend_scenario_points_the_logs_back_end_at_a_target():
    assert scenarios.load("log-backend-timeout").backend == {
        "logs": {"loki_target": "loki-read-0", "timeout_s": 2}
    }
    assert scenarios.load("tls-expired").backend == {}


@pytest.mark.parametrize("slug", FIVE)
def test_committed_data_is_what_the_generator_writes(slug):
    logs_text, metrics_text = _generate.generate(slug)
    scenario = scenarios.load(slug)

    assert scenario.logs_path.read_text(encoding="utf-8") == logs_text
    assert scenario.metrics_path.read_text(encoding="utf-8") == metrics_text


# --- signals ------------------------------------------------------------------------------------


def _series(doc, name, **labels):
    return [
        s
        for s in doc["series"]
        if s["name"] == name and all(s["labels"].get(k) == v for k, v in labels.items())
    ]


def _value(series, offset):
    return max((p for p in series["points"] if p[0] <= offset), key=lambda p: p[0])[1]


def _increase(series, start, end):
    return _value(series, end) - _value(series, start)


def error_ratio(doc, service, start, end):
    total = errors = 0.0
    for series in _series(doc, "http_requests_total", service=service):
        delta = _increase(series, start, end)
        total += delta
        if series["labels"]["code"].startswith("5"):
            errors += delta
    return errors / total


def p99_s(doc, service, start, end):
    buckets = sorted(
        (
            (
                math.inf if s["labels"]["le"] == "+Inf" else float(s["labels"]["le"]),
                _increase(s, start, end),
            )
            for s in _series(
                doc, "http_request_duration_seconds_bucket", service=service
            )
        ),
    )
    total = buckets[-1][1]
    return next(le for le, count in buckets if count >= 0.99 * total)


def gauge_at(doc, name, service, offset):
    return _value(_series(doc, name, service=service)[0], offset)


@pytest.mark.parametrize("slug", FIVE)
def test_the_incident_signal_is_visible_in_the_metrics(slug):
    doc = read_metrics(slug)
    scenario = scenarios.load(slug)
    t0 = scenario.expected["started_offset_s"]
    service = scenario.expected["service"]
    before = (t0 - 1200, t0 - 60)
    after = (-900, 0)

    if slug == "pool-exhaustion":
        assert gauge_at(doc, "db_pool_in_use", service, 0) == gauge_at(
            doc, "db_pool_max", service, 0
        )
        assert gauge_at(doc, "db_pool_in_use", service, t0 - 60) < 10
        assert gauge_at(doc, "tcp_close_wait", service, 0) > 10 * max(
            gauge_at(doc, "tcp_close_wait", service, t0 - 60), 1
        )
        assert p99_s(doc, service, *after) >= 2.5 > p99_s(doc, service, *before)
    elif slug == "proxy-idle-timeout":
        assert (
            error_ratio(doc, "edge-proxy", *after)
            > 0.1
            > 0.01
            > error_ratio(doc, "edge-proxy", *before)
        )
    else:
        assert error_ratio(doc, service, *after) > 0.05
        assert error_ratio(doc, service, *before) < 0.01
    if slug == "log-backend-timeout":
        assert p99_s(doc, "loki", *after) >= 10 > p99_s(doc, "loki", *before)


def test_tls_expired_logs_start_failing_when_the_certificate_expires():
    failures = [
        line["offset_s"]
        for line in read_logs("tls-expired")
        if "certificate has expired" in line["message"]
    ]

    assert _timeline.TLS_EXPIRED_AT <= min(failures) <= _timeline.TLS_EXPIRED_AT + 10


# --- live listeners -----------------------------------------------------------------------------


def _port(url):
    return int(url.split("/")[2].rsplit(":", 1)[1])


def _refused(port):
    with socket.socket() as sock:
        sock.settimeout(2)
        try:
            sock.connect(("127.0.0.1", port))
        except ConnectionRefusedError:
            return True
    return False


@pytest.mark.anyio
@pytest.mark.parametrize("slug", FIVE)
async def test_live_listeners_fail_as_expected_and_stop_on_exit(slug):
    expected = scenarios.load(slug).expected

    async with asyncio.timeout(30), scenarios.run(slug, time_scale=0.02) as live:
        prober = live.prober(timeouts=FAST)
        results = await asyncio.gather(
            *(
                prober.probe(probe.url, stream_s=probe.stream_s)
                for probe in live.probes.values()
            )
        )
        found = {
            name: (r["failed_layer"], r["reason"])
            for name, r in zip(live.probes, results, strict=True)
        }
        certificates = {
            name: r["certificate"] for name, r in zip(live.probes, results, strict=True)
        }
        ports = {_port(probe.url) for probe in live.probes.values()}

    assert found == {
        name: (o["failed_layer"], o["reason"])
        for name, o in expected["netcheck"].items()
    }
    if expected["root_cause_layer"] in NETWORK_LAYERS:
        assert found[expected["root_cause_probe"]][0] == expected["root_cause_layer"]
    if slug == "tls-expired":
        not_after = dt.datetime.fromisoformat(certificates["payments-api"]["not_after"])
        expired_for = (dt.datetime.now(dt.UTC) - not_after).total_seconds()
        assert (
            -_timeline.TLS_EXPIRED_AT - 60
            <= expired_for
            <= -_timeline.TLS_EXPIRED_AT + 60
        )
    assert all(_refused(port) for port in ports)


def test_run_in_thread_serves_until_the_block_ends():
    with scenarios.run_in_thread("log-backend-timeout", timeout_s=20) as live:
        port = _port(live.probes["checkout"].url)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(
                b"GET /healthz HTTP/1.1\r\nHost: checkout\r\nConnection: close\r\n\r\n"
            )
            answer = sock.recv(200)

    assert answer.startswith(b"HTTP/1.1 200 OK")
    assert _refused(port)


@pytest.mark.anyio
async def test_log_backend_scenario_points_the_logs_server_at_the_stuck_reader():
    async with asyncio.timeout(30), scenarios.run("log-backend-timeout") as live:
        args = live.server_args()
        stuck = _port(live.probes["loki-read-0"].url)

    assert args["logs"] == [
        "--loki-url",
        f"http://127.0.0.1:{stuck}",
        "--loki-timeout",
        "2",
    ]
    assert args["metrics"] == [
        "--scenario",
        str(scenarios.ROOT / "log-backend-timeout"),
    ]


def test_scenarios_and_the_probe_load_without_the_mcp_sdk_or_django():
    code = (
        "import sys, mcpservers.scenarios as s, mcpservers.netcheck;"
        "s.load('tls-expired');"
        "print(sorted(m for m in ('mcp', 'starlette', 'django') if m in sys.modules))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )

    assert completed.stdout.strip() == "[]"


def test_unknown_scenario_names_the_bundled_ones():
    with pytest.raises(scenarios.UnknownScenario) as caught:
        scenarios.load("nope")

    assert "not a folder with an incident.json" in str(caught.value)
    assert all(slug in str(caught.value) for slug in FIVE)


@pytest.mark.anyio
async def test_cli_start_prints_netcheck_args_that_find_the_root_cause():
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "mcpservers.scenarios",
        "start",
        "tls-expired",
        cwd=str(ROOT),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        async with asyncio.timeout(60):
            text = b""
            while not text.endswith(b"\n}\n"):
                chunk = await process.stdout.read(4096)
                assert chunk, "scenario exited before printing its wiring"
                text += chunk
        wiring = json.loads(text)
        # The printed arguments, parsed by netcheck's own command line, give a working prober.
        prober = prober_from_args(build_parser().parse_args(wiring["netcheck_args"]))
        async with asyncio.timeout(30):
            result = await prober.probe(wiring["probes"]["payments-api"]["url"])
    finally:
        process.send_signal(signal.SIGINT)
        async with asyncio.timeout(10):
            returncode = await process.wait()

    assert result["failed_layer"] == wiring["expected"]["root_cause_layer"] == "tls"
    assert result["reason"] == "certificate_expired"
    assert wiring["server_args"]["logs"] == [
        "--scenario",
        str(scenarios.ROOT / "tls-expired"),
    ]
    assert wiring["server_args"]["netcheck"] == wiring["netcheck_args"]
    assert returncode == 0
