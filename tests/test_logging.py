"""Structured logs (issue 12 item 4): JSON lines with the task's context, a human format when
DEBUG, and no secrets in messages, arguments, extra fields, headers or exception texts."""

import asyncio
import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
import structlog

from diagnosis.observability.logs import (
    bind_task_context,
    formatter,
    span_context,
    task_context,
    unbind,
)
from diagnosis.tasks import diagnosis_run
from tests import factories

BASE_DIR = Path(__file__).resolve().parent.parent

# Real-looking credentials (shapes of real providers; none is live).
GITHUB_PAT = "ghp_R4nd0mL00k1ngT0k3nV4lu3F0rT3st1ng0A"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6Im9uLWNhbGwifQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
SLACK = "xoxb-2048-4096-d3adb33fc0ffee0123456789"
OPENAI = "sk-proj-9aF3kLmQ2rT8vX1zB7nC4dE6"
PASSWORD = "hunter2-Correct-Horse"
SECRETS = [GITHUB_PAT, AWS_KEY, JWT, SLACK, OPENAI, PASSWORD]


class Capture:
    """A handler with the app's formatter on a logger of its own, read back as lines."""

    def __init__(self, style: str = "json", name: str = "capture") -> None:
        self.stream = io.StringIO()
        self.handler = logging.StreamHandler(self.stream)
        self.handler.setFormatter(formatter(style))
        self.logger = logging.getLogger(name)
        self.logger.addHandler(self.handler)
        self.logger.setLevel(logging.DEBUG)

    def lines(self) -> list[str]:
        return [line for line in self.stream.getvalue().splitlines() if line]

    def records(self) -> list[dict]:
        return [json.loads(line) for line in self.lines()]

    def close(self) -> None:
        self.logger.removeHandler(self.handler)


@pytest.fixture
def capture():
    made: list[Capture] = []

    def make(style: str = "json", name: str = "capture") -> Capture:
        made.append(Capture(style, name))
        return made[-1]

    yield make
    for item in made:
        item.close()


# --- JSON shape --------------------------------------------------------------------------------


def test_a_line_is_one_json_object_leading_with_time_level_logger_message(capture):
    log = capture()

    log.logger.info("served %s in %d ms", "/api/incidents", 12, extra={"status": 201})

    [line] = log.lines()
    record = json.loads(line)
    assert list(record)[:4] == ["timestamp", "level", "logger", "message"]
    assert record["message"] == "served /api/incidents in 12 ms"
    assert (record["level"], record["logger"], record["status"]) == (
        "info",
        "capture",
        201,
    )
    assert record["timestamp"].endswith("Z")


def test_structlog_loggers_write_the_same_lines(capture):
    log = capture(name="native")

    structlog.get_logger("native").warning("lease lost", attempt=2)

    [record] = log.records()
    assert (record["message"], record["attempt"], record["level"]) == (
        "lease lost",
        2,
        "warning",
    )
    assert record["logger"] == "native"


# --- context -----------------------------------------------------------------------------------


def test_task_and_span_context_appear_while_bound_and_leave_with_their_block(capture):
    log = capture()

    with task_context(
        task_id="9b2f", tenant="acme", trace_id="4bf92f3577b34da6a3ce929d0e0e4736"
    ):
        log.logger.info("claimed")
        with span_context("00f067aa0ba902b7"):
            log.logger.info("calling tool")
        log.logger.info("between calls")
    log.logger.info("outside")

    claimed, calling, between, outside = log.records()
    assert (claimed["task_id"], claimed["tenant"], claimed["trace_id"]) == (
        "9b2f",
        "acme",
        "4bf92f3577b34da6a3ce929d0e0e4736",
    )
    assert "span_id" not in claimed
    assert calling["span_id"] == "00f067aa0ba902b7"
    assert calling["task_id"] == "9b2f"
    assert "span_id" not in between
    assert not {"task_id", "tenant", "trace_id", "span_id"} & set(outside)
    # The context keys follow the message, before any other field.
    assert list(calling)[4:8] == ["trace_id", "task_id", "tenant", "span_id"]


def test_unknown_ids_are_left_out_and_unbind_restores_the_outer_binding(capture):
    log = capture()

    outer = bind_task_context(task_id="outer", tenant="acme", trace_id=None)
    inner = bind_task_context(task_id="inner", tenant=None, trace_id="")
    log.logger.info("inner")
    unbind(inner)
    log.logger.info("outer")
    unbind(outer)

    inner_line, outer_line = log.records()
    assert (inner_line["task_id"], inner_line["tenant"]) == ("inner", "acme")
    assert "trace_id" not in inner_line
    assert outer_line["task_id"] == "outer"


def test_spans_of_concurrent_calls_do_not_leak_into_each_other(capture):
    log = capture()

    async def call(span_id: str, started: asyncio.Event, other: asyncio.Event) -> None:
        with span_context(span_id):
            started.set()
            await other.wait()  # both calls are inside their span at once
            log.logger.info("result of %s", span_id)

    async def main() -> None:
        with task_context(task_id="t-1", tenant="acme", trace_id=None):
            a, b = asyncio.Event(), asyncio.Event()
            async with asyncio.timeout(5):
                await asyncio.gather(call("aaaa", a, b), call("bbbb", b, a))

    asyncio.run(main())

    spans = {record["message"]: record["span_id"] for record in log.records()}
    assert spans == {"result of aaaa": "aaaa", "result of bbbb": "bbbb"}
    assert {record["task_id"] for record in log.records()} == {"t-1"}


# --- redaction ---------------------------------------------------------------------------------


def _log_everything_secret(logger: logging.Logger) -> None:
    logger.info("calling github with %s, aws %s", GITHUB_PAT, AWS_KEY)
    logger.warning(
        "upstream answered 401",
        extra={
            "headers": {
                "Authorization": f"Bearer {JWT}",
                "Cookie": f"sessionid={PASSWORD}",
                "X-Request-Id": "req-7f3c",
            },
            "api_key": OPENAI,
            "arguments": {
                "query": "rate(http_requests_total[5m])",
                "password": PASSWORD,
            },
        },
    )
    try:
        raise ConnectionError(
            f"POST https://deploy:{PASSWORD}@hooks.example.com/ failed; slack token={SLACK}"
        )
    except ConnectionError:
        logger.exception("notifying failed")


def test_json_lines_carry_no_secret_from_arguments_headers_extras_or_exceptions(
    capture,
):
    log = capture()

    _log_everything_secret(log.logger)

    text = log.stream.getvalue()
    for secret in SECRETS:
        assert secret not in text, secret
    args, answered, failed = log.records()
    assert args["message"].startswith("calling github with ghp_***")
    assert answered["headers"]["Authorization"] == "***"
    assert answered["headers"]["Cookie"] == "***"
    assert answered["headers"]["X-Request-Id"] == "req-7f3c"  # what is no secret stays
    assert answered["api_key"] == "***"
    assert answered["arguments"] == {
        "query": "rate(http_requests_total[5m])",
        "password": "***",
    }
    assert "ConnectionError" in failed["exception"]
    assert "Traceback" in failed["exception"]
    assert "https://deploy:***@hooks.example.com/" in failed["exception"]


def test_human_lines_are_redacted_too(capture):
    log = capture("human")

    _log_everything_secret(log.logger)

    text = log.stream.getvalue()
    for secret in SECRETS:
        assert secret not in text, secret
    assert "notifying failed" in text
    assert "ConnectionError" in text


# --- the format the settings choose ------------------------------------------------------------


def _log_line_from_settings(**env: str) -> str:
    """Configure logging from agentops.settings in a fresh process; return what one warning prints."""
    script = (
        "import logging, django\n"
        "django.setup()\n"
        f"logging.getLogger('probe').warning('token is %s', {GITHUB_PAT!r})\n"
    )
    base = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "LOG_FORMAT"}}
    result = subprocess.run(
        [sys.executable, "-c", script],
        env={**base, "DJANGO_SETTINGS_MODULE": "agentops.settings", **env},
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = [line for line in result.stderr.splitlines() if "probe" in line]
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_production_logs_are_json_lines():
    record = json.loads(_log_line_from_settings(DEBUG="0"))

    assert (record["logger"], record["message"]) == ("probe", "token is ghp_***")


def test_debug_logs_are_human_lines_and_still_redacted():
    line = _log_line_from_settings(DEBUG="1")

    with pytest.raises(json.JSONDecodeError):
        json.loads(line)
    assert "token is ghp_***" in line
    assert "warning" in line
    assert GITHUB_PAT not in line


def test_log_format_overrides_the_debug_default():
    record = json.loads(_log_line_from_settings(DEBUG="1", LOG_FORMAT="json"))

    assert record["level"] == "warning"


# --- the worker binds the task's context -------------------------------------------------------


def test_a_diagnosis_run_logs_with_its_task_tenant_and_trace(transactional_db, capture):
    tenant = factories.make_tenant("ctx-tenant")
    _incident, task = factories.make_incident(
        tenant, plan_args={"steps": [0], "fail_at": 0}
    )
    task.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    task.save(update_fields=["trace_id"])
    log = capture(name="diagnosis.runner")

    # apply(): Celery's tracer with its task_prerun / task_postrun signals, in this process.
    diagnosis_run.apply(args=[str(task.pk)])
    log.logger.info("after the run")

    failed, after = log.records()
    assert failed["message"] == f"step step-0 of task {task.pk} failed"
    assert (failed["task_id"], failed["tenant"], failed["trace_id"]) == (
        str(task.pk),
        "ctx-tenant",
        "4bf92f3577b34da6a3ce929d0e0e4736",
    )
    assert "RuntimeError: step 0 failed on purpose" in failed["exception"]
    # The postrun signal unbound it: the thread's next line is nobody's.
    assert "task_id" not in after
