"""Plumbing shared by the bundled MCP servers: command line, HTTP guard, secret masking, time windows."""

from mcpservers._common.cli import (
    SCENARIOS_ROOT,
    UsageError,
    base_parser,
    fail,
    run,
    scenario_dir,
)
from mcpservers._common.http import GuardMiddleware
from mcpservers._common.timewindow import (
    TimeArgumentError,
    Window,
    format_duration,
    iso,
    parse_duration,
    parse_time,
    parse_window,
)
from reasoning.masking import mask_text as mask_secrets

__all__ = [
    "SCENARIOS_ROOT",
    "GuardMiddleware",
    "TimeArgumentError",
    "UsageError",
    "Window",
    "base_parser",
    "fail",
    "format_duration",
    "iso",
    "mask_secrets",
    "parse_duration",
    "parse_time",
    "parse_window",
    "run",
    "scenario_dir",
]
