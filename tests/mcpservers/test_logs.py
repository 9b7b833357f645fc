"""The logs server: limits, masking and tool errors on the file back end; the Loki back end against a local
HTTP server that answers exactly in the shape of Loki's documented `GET /loki/api/v1/query_range`."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import anyio
import pytest
from mcp.client import Client

from mcpservers.logs.backends import (
    FileBackend,
    LogRecord,
    LokiBackend,
    ScenarioDataError,
    load_jsonl,
)
from mcpservers.logs.server import MAX_RESULT_BYTES, build_server, error_signature
from tests.mcpservers._support import DEMO, error_text, structured

NOW = 1_764_511_200.0


def _demo_server():
    return build_server(
        FileBackend(load_jsonl(DEMO / "logs.jsonl", now=NOW), source="demo"),
        clock=lambda: NOW,
    )


def _records(
    n: int, *, size: int = 100, service: str = "api", level: str = "info"
) -> list[LogRecord]:
    return [
        LogRecord(
            ts=NOW - i, service=service, level=level, message=f"line {i} " + "x" * size
        )
        for i in range(n)
    ]


@pytest.mark.anyio
async def test_search_logs_returns_newest_first_within_window() -> None:
    async with Client(_demo_server()) as client:
        data = structured(
            await client.call_tool(
                "search_logs", {"service": "checkout", "start": "now-10m"}
            )
        )
    times = [line["time"] for line in data["lines"]]
    assert times == sorted(times, reverse=True)
    assert (
        len(times) == 22
    )  # 20 fixture lines 30 s apart plus the warning and the fatal line
    assert data["truncated"] is False


@pytest.mark.anyio
async def test_search_logs_query_is_case_insensitive_substring() -> None:
    async with Client(_demo_server()) as client:
        data = structured(
            await client.call_tool(
                "search_logs",
                {"service": "checkout", "query": "X509", "start": "now-6h"},
            )
        )
    assert (
        len(data["lines"]) == 30
    )  # the oldest sits exactly on the window start (inclusive)
    assert all("x509" in line["message"] for line in data["lines"])


@pytest.mark.anyio
async def test_search_logs_masks_secrets_in_lines_and_labels() -> None:
    async with Client(_demo_server()) as client:
        data = structured(
            await client.call_tool(
                "search_logs", {"service": "checkout", "query": "retrying"}
            )
        )
    (line,) = data["lines"]
    assert "hunter2" not in line["message"]
    assert "sk-live" not in line["message"]
    assert line["labels"]["db_url"] == "postgres://app:***@db:5432/shop"


@pytest.mark.anyio
async def test_search_logs_limit_cuts_and_says_so() -> None:
    async with Client(_demo_server()) as client:
        data = structured(
            await client.call_tool("search_logs", {"service": "checkout", "limit": 3})
        )
    assert len(data["lines"]) == 3
    assert data["truncated"] is True
    assert "more than 3 lines match" in data["notes"][0]


@pytest.mark.anyio
async def test_search_logs_limit_above_5000_is_a_tool_error() -> None:
    async with Client(_demo_server()) as client:
        message = error_text(
            await client.call_tool(
                "search_logs", {"service": "checkout", "limit": 5001}
            )
        )
    assert "limit" in message
    assert "5000" in message


@pytest.mark.anyio
async def test_search_logs_window_over_6h_is_a_tool_error() -> None:
    async with Client(_demo_server()) as client:
        message = error_text(
            await client.call_tool(
                "search_logs", {"service": "checkout", "start": "now-6h1m"}
            )
        )
    assert "longer than the 6h limit" in message


@pytest.mark.anyio
async def test_result_over_1_mib_is_cut_to_newest_lines_and_says_so() -> None:
    server = build_server(
        FileBackend(_records(2000, size=800), source="big"), clock=lambda: NOW
    )
    async with Client(server) as client:
        result = await client.call_tool(
            "search_logs", {"service": "api", "limit": 2000}
        )
    data = structured(result)
    assert len(result.content[0].text.encode()) <= MAX_RESULT_BYTES
    assert 500 < len(data["lines"]) < 2000
    assert data["lines"][0]["message"].startswith("line 0 ")
    assert data["truncated"] is True
    assert f"kept the newest {len(data['lines'])} of 2000 lines" in data["notes"][-1]


@pytest.mark.anyio
async def test_a_single_huge_line_is_cut() -> None:
    server = build_server(
        FileBackend(_records(1, size=100_000), source="huge"), clock=lambda: NOW
    )
    async with Client(server) as client:
        data = structured(await client.call_tool("search_logs", {"service": "api"}))
    assert len(data["lines"][0]["message"]) < 17_000
    assert data["lines"][0]["message"].endswith("characters]")


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"service": "nope"}, "known services: checkout, payments"),
        ({"service": "bad service!"}, "not a valid service name"),
        ({"service": "checkout", "start": "yesterday"}, "is not a time"),
        (
            {"service": "checkout", "start": "now", "end": "now-1h"},
            "must be before end",
        ),
    ],
)
async def test_bad_arguments_are_tool_errors_a_person_can_act_on(
    arguments: dict, expected: str
) -> None:
    async with Client(_demo_server()) as client:
        message = error_text(await client.call_tool("search_logs", arguments))
    assert expected in message
    assert "Traceback" not in message


@pytest.mark.anyio
async def test_search_logs_without_a_service_searches_every_service_and_names_each() -> (
    None
):
    records = [
        LogRecord(
            ts=NOW - 60,
            service="ledger",
            level="info",
            message="vault.acme.test rotated",
        ),
        LogRecord(
            ts=NOW - 30,
            service="audit",
            level="info",
            message="CNAME vault.acme.test changed",
        ),
        LogRecord(ts=NOW - 10, service="ledger", level="info", message="unrelated"),
    ]
    server = build_server(FileBackend(records, source="t"), clock=lambda: NOW)
    async with Client(server) as client:
        data = structured(
            await client.call_tool("search_logs", {"query": "vault.acme.test"})
        )
    assert [(line["service"], line["message"]) for line in data["lines"]] == [
        ("audit", "CNAME vault.acme.test changed"),
        ("ledger", "vault.acme.test rotated"),
    ]


@pytest.mark.anyio
async def test_top_errors_of_every_service_groups_by_service_and_pattern() -> None:
    def line(ago: float, service: str, level: str, message: str) -> LogRecord:
        return LogRecord(ts=NOW - ago, service=service, level=level, message=message)

    records = [
        line(5000, "till-web", "error", "basket 17 not found"),  # baseline only
        line(600, "till-web", "error", "basket 18 not found"),
        line(500, "stock-feeder", "error", "record 9 rejected: bad encoding"),  # new
        line(400, "stock-feeder", "error", "record 9 rejected: bad encoding"),
        line(
            300, "till-web", "warn", "record 9 rejected: bad encoding"
        ),  # other service
        line(200, "stock-feeder", "info", "poll ok"),
    ]
    server = build_server(FileBackend(records, source="t"), clock=lambda: NOW)
    async with Client(server) as client:
        data = structured(
            await client.call_tool("top_errors", {"warnings": True, "baseline_s": 3600})
        )
        unknown = error_text(
            await client.call_tool("top_errors", {"service": "no such one"})
        )
    assert [(g["service"], g["count"], g["before"]) for g in data["top"]] == [
        ("stock-feeder", 2, 0),
        ("till-web", 1, 1),
    ]
    assert [(g["service"], g["sample"]) for g in data["warnings"]] == [
        ("till-web", "record 9 rejected: bad encoding")
    ]
    assert data["service"] == "" and data["patterns"] == 2
    assert "service" in unknown


@pytest.mark.anyio
async def test_search_logs_regex_matches_either_order_and_refuses_look_around() -> None:
    records = [
        LogRecord(
            ts=NOW - 50,
            service="ops",
            level="info",
            message="vault.acme.test: CNAME changed",
        ),
        LogRecord(
            ts=NOW - 40,
            service="ops",
            level="info",
            message="Deploy of vault.acme.test done",
        ),
        LogRecord(
            ts=NOW - 30,
            service="ops",
            level="info",
            message="vault.acme.test answered 200",
        ),
    ]
    server = build_server(FileBackend(records, source="t"), clock=lambda: NOW)
    pattern = r"vault\.acme\.test.*(cname|deploy)|(cname|deploy).*vault\.acme\.test"
    async with Client(server) as client:
        data = structured(
            await client.call_tool("search_logs", {"query": pattern, "regex": True})
        )
        plain = structured(await client.call_tool("search_logs", {"query": pattern}))
        refused = error_text(
            await client.call_tool("search_logs", {"query": "(?!x)y", "regex": True})
        )
    assert [line["message"] for line in data["lines"]] == [
        "Deploy of vault.acme.test done",
        "vault.acme.test: CNAME changed",
    ]
    assert plain["lines"] == []
    assert "look-around" in refused


@pytest.mark.anyio
async def test_top_errors_groups_warnings_apart_and_counts_each_pattern_in_the_baseline() -> (
    None
):
    def line(ago: float, level: str, message: str) -> LogRecord:
        return LogRecord(ts=NOW - ago, service="quotes", level=level, message=message)

    records = [
        line(5000, "error", "cache miss storm on shard 3"),  # baseline only
        line(4000, "warning", "feature flag poll slow"),  # baseline and window
        line(600, "warning", "feature flag poll slow"),
        line(500, "warn", "lock wait 812ms on table prices"),  # new
        line(400, "warn", "lock wait 930ms on table prices"),
        line(300, "error", "upstream rates-api answered 503"),  # new
        line(200, "info", "GET /quote 200"),
    ]
    server = build_server(FileBackend(records, source="t"), clock=lambda: NOW)
    async with Client(server) as client:
        plain = structured(await client.call_tool("top_errors", {"service": "quotes"}))
        data = structured(
            await client.call_tool(
                "top_errors",
                {"service": "quotes", "warnings": True, "baseline_s": 3600},
            )
        )
    assert "warnings" not in plain
    assert "before" not in plain["top"][0]
    assert [(g["sample"], g["count"], g["before"]) for g in data["top"]] == [
        ("upstream rates-api answered 503", 1, 0)
    ]
    assert [(g["signature"], g["count"], g["before"]) for g in data["warnings"]] == [
        ("lock wait <n> on table prices", 2, 0),
        ("feature flag poll slow", 1, 1),
    ]
    assert data["error_lines"] == 1
    assert data["warning_lines"] == 3


@pytest.mark.anyio
async def test_top_errors_groups_by_signature_within_the_window() -> None:
    async with Client(_demo_server()) as client:
        data = structured(
            await client.call_tool(
                "top_errors", {"service": "checkout", "start": "now-6h"}
            )
        )
    assert [group["count"] for group in data["top"]] == [30, 1]
    assert data["top"][0]["signature"] == (
        "upstream connect error to payments <ip>: x509: certificate has expired (request_id=<hex>)"
    )
    assert data["top"][1]["levels"] == {"fatal": 1}
    assert (
        data["error_lines"] == 31
    )  # the error 7 h ago is outside every allowed window


@pytest.mark.anyio
async def test_top_errors_masks_secrets_in_signature_and_sample() -> None:
    records = [
        LogRecord(
            ts=NOW - i,
            service="api",
            level="error",
            message=f"auth failed password=pw{i}secret for 10.0.0.{i}",
        )
        for i in range(5)
    ]
    async with Client(
        build_server(FileBackend(records, source="t"), clock=lambda: NOW)
    ) as client:
        data = structured(await client.call_tool("top_errors", {"service": "api"}))
    (group,) = data["top"]
    assert group["count"] == 5
    assert "secret" not in group["signature"] + group["sample"]


def test_error_signature_normalizes_ids_numbers_and_addresses() -> None:
    a = error_signature("timeout after 3000ms calling 10.1.2.3:8080 req=5f2b9a1c7d8e")
    b = error_signature("timeout after 120ms calling 10.9.9.9:8080 req=0a1b2c3d4e5f")
    assert a == b


def test_jsonl_loader_makes_offsets_absolute(tmp_path) -> None:
    path = tmp_path / "logs.jsonl"
    path.write_text(
        '{"offset_s": -60, "service": "a", "level": "ERROR", "message": "m"}\n\n'
    )
    (record,) = load_jsonl(path, now=NOW)
    assert record.ts == NOW - 60
    assert record.level == "error"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "logs.jsonl:1: not JSON"),
        ('{"service": "a", "message": "m"}', "needs 'offset_s'"),
        (
            '{"offset_s": "x", "service": "a", "message": "m"}',
            "'offset_s' must be a number",
        ),
        (
            '{"offset_s": -1, "service": "", "message": "m"}',
            "'service' must be a non-empty string",
        ),
        (
            '{"offset_s": -1, "service": "a", "message": "m", "labels": []}',
            "'labels' must be an object",
        ),
    ],
)
def test_jsonl_loader_names_file_line_and_problem(
    tmp_path, line: str, message: str
) -> None:
    path = tmp_path / "logs.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(ScenarioDataError, match=message):
        load_jsonl(path, now=NOW)


# --- Loki back end against a local HTTP server ---------------------------------------------------


class FakeLoki:
    """Answers /loki/api/v1/query_range like Loki: {"status":"success","data":{"resultType":"streams",...}}."""

    def __init__(self) -> None:
        self.requests: list[dict[str, str]] = []
        self.streams: list[dict] = []
        self.status = 200
        self.raw_body: bytes | None = None
        self.hang = threading.Event()
        self.hanging = False
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urlsplit(self.path)
                params = {k: v[0] for k, v in parse_qs(url.query).items()}
                fake.requests.append(
                    {
                        "path": url.path,
                        **params,
                        "X-Scope-OrgID": self.headers.get("X-Scope-OrgID", ""),
                    }
                )
                if fake.hanging:
                    fake.hang.wait(10)  # released at teardown; bounded either way
                    return
                body = fake.raw_body
                if body is None:
                    body = json.dumps(
                        {
                            "status": "success",
                            "data": {
                                "resultType": "streams",
                                "result": fake.streams,
                                "stats": {},
                            },
                        }
                    ).encode()
                self.send_response(fake.status)
                self.send_header(
                    "Content-Type",
                    "application/json" if fake.status == 200 else "text/plain",
                )
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.hang.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def loki():
    fake = FakeLoki()
    yield fake
    fake.close()


def _ns(seconds: float) -> str:
    return str(int(seconds * 1e9))


def _loki_server(url: str, **options):
    return build_server(LokiBackend(url, **options), clock=lambda: NOW)


@pytest.mark.anyio
async def test_loki_search_sends_logql_and_merges_streams_newest_first(
    loki: FakeLoki,
) -> None:
    loki.streams = [
        {
            "stream": {"service": "checkout", "pod": "checkout-0", "level": "error"},
            "values": [
                [_ns(NOW - 10), "upstream error token=abc123def"],
                [_ns(NOW - 40), "upstream error 2"],
            ],
        },
        {
            "stream": {"service": "checkout", "pod": "checkout-1"},
            "values": [[_ns(NOW - 20), "level=warn slow upstream"]],
        },
    ]
    async with Client(_loki_server(loki.url, tenant="team-a")) as client:
        data = structured(
            await client.call_tool(
                "search_logs",
                {"service": "checkout", "query": 'up"stream.*', "limit": 10},
            )
        )
    (request,) = loki.requests
    assert request["path"] == "/loki/api/v1/query_range"
    assert request["query"] == '{service="checkout"} |~ "(?i)up\\"stream\\\\.\\\\*"'
    assert request["start"] == _ns(NOW - 3600)
    assert request["end"] == _ns(NOW)
    assert request["limit"] == "11"
    assert request["direction"] == "backward"
    assert request["X-Scope-OrgID"] == "team-a"
    assert [line["message"] for line in data["lines"]] == [
        "upstream error token=***",
        "level=warn slow upstream",
        "upstream error 2",
    ]
    assert [line["level"] for line in data["lines"]] == ["error", "warning", "error"]
    assert data["truncated"] is False


@pytest.mark.anyio
async def test_loki_more_lines_than_limit_is_reported(loki: FakeLoki) -> None:
    loki.streams = [
        {
            "stream": {"service": "api"},
            "values": [[_ns(NOW - i), f"line {i}"] for i in range(3)],
        }
    ]
    async with Client(_loki_server(loki.url)) as client:
        data = structured(
            await client.call_tool("search_logs", {"service": "api", "limit": 2})
        )
    assert [line["message"] for line in data["lines"]] == ["line 0", "line 1"]
    assert data["truncated"] is True


@pytest.mark.anyio
async def test_loki_top_errors_uses_error_filter_and_groups(loki: FakeLoki) -> None:
    loki.streams = [
        {
            "stream": {"service": "api"},
            "values": [
                [_ns(NOW - 1), "ERROR dial tcp 10.0.0.1:5432: connection refused"],
                [_ns(NOW - 2), "ERROR dial tcp 10.0.0.2:5432: connection refused"],
                [
                    _ns(NOW - 3),
                    "INFO no errors found",
                ],  # matched the line filter, but is info
                [_ns(NOW - 4), "panic: nil map"],
            ],
        }
    ]
    async with Client(_loki_server(loki.url)) as client:
        data = structured(await client.call_tool("top_errors", {"service": "api"}))
    assert "|~" in loki.requests[0]["query"]
    assert "error" in loki.requests[0]["query"]
    assert [(g["signature"], g["count"]) for g in data["top"]] == [
        ("ERROR dial tcp <ip>: connection refused", 2),
        ("panic: nil map", 1),
    ]


def test_loki_logql_for_every_service_and_for_warnings() -> None:
    backend = LokiBackend("http://loki.test")
    assert backend.build_logql(service="", text="x", errors_only=False).startswith(
        '{service=~".+"} |~'
    )
    logql = backend.build_logql(service="api", text="", errors_only=True, warnings=True)
    assert logql.startswith('{service="api"}')
    assert "warn" in logql
    assert "error" in logql
    assert backend.build_logql(
        service="api", text="a.b|c", errors_only=False, regex=True
    ).endswith('|~ "(?i)a.b|c"')


@pytest.mark.anyio
async def test_loki_query_error_is_a_tool_error_with_lokis_reason(
    loki: FakeLoki,
) -> None:
    loki.status = 400
    loki.raw_body = (
        b"parse error at line 1, col 12: syntax error: unexpected IDENTIFIER\n"
    )
    async with Client(_loki_server(loki.url)) as client:
        message = error_text(await client.call_tool("search_logs", {"service": "api"}))
    assert "HTTP 400" in message
    assert "parse error at line 1" in message


@pytest.mark.anyio
async def test_loki_unexpected_result_type_is_a_tool_error(loki: FakeLoki) -> None:
    loki.raw_body = json.dumps(
        {"status": "success", "data": {"resultType": "matrix", "result": []}}
    ).encode()
    async with Client(_loki_server(loki.url)) as client:
        message = error_text(await client.call_tool("search_logs", {"service": "api"}))
    assert "expected resultType 'streams'" in message


@pytest.mark.anyio
async def test_loki_timeout_is_reported_as_log_back_end_timeout(loki: FakeLoki) -> None:
    loki.hanging = True
    async with Client(_loki_server(loki.url, timeout=0.3)) as client:
        with anyio.fail_after(10):
            message = error_text(
                await client.call_tool("search_logs", {"service": "api"})
            )
    assert "log back end timeout" in message


@pytest.mark.anyio
async def test_loki_unreachable_is_a_tool_error() -> None:
    # A port that was just free: nothing listens on it.
    fake = FakeLoki()
    url = fake.url
    fake.close()
    async with Client(_loki_server(url, timeout=2)) as client:
        message = error_text(await client.call_tool("search_logs", {"service": "api"}))
    assert "cannot reach Loki" in message


def test_fixture_data_is_fresh() -> None:
    (newest,) = [
        r
        for r in load_jsonl(DEMO / "logs.jsonl", now=time.time())
        if r.service == "payments"
    ]
    assert time.time() - newest.ts < 130


@pytest.mark.anyio
async def test_loki_back_end_serves_successive_sessions(loki: FakeLoki) -> None:
    # Over HTTP every client gets its own session (and SDK lifespan); the back end must outlive them.
    loki.streams = [{"stream": {"service": "api"}, "values": [[_ns(NOW - 1), "ok"]]}]
    server = _loki_server(loki.url)
    for _ in range(2):
        async with Client(server) as client:
            assert structured(
                await client.call_tool("search_logs", {"service": "api"})
            )["lines"]
    assert len(loki.requests) == 2


@pytest.mark.anyio
async def test_loki_limit_never_exceeds_lokis_default_max_entries(
    loki: FakeLoki,
) -> None:
    loki.streams = [
        {
            "stream": {"service": "api"},
            "values": [[_ns(NOW - i / 10), f"l{i}"] for i in range(5000)],
        }
    ]
    async with Client(_loki_server(loki.url)) as client:
        data = structured(
            await client.call_tool("search_logs", {"service": "api", "limit": 5000})
        )
    assert loki.requests[0]["limit"] == "5000"
    assert len(data["lines"]) == 5000
    assert data["truncated"] is True  # a full page at the cap: there may be more


@pytest.mark.anyio
async def test_an_empty_log_file_says_it_knows_no_service() -> None:
    server = build_server(FileBackend([], source="empty.jsonl"), clock=lambda: NOW)
    async with Client(server) as client:
        message = error_text(await client.call_tool("search_logs", {"service": "api"}))
    assert message.endswith("known services: none (the log file is empty)"), message
