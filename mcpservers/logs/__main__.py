"""`python -m mcpservers.logs`: pick a back end (--loki-url, --file or --scenario) and serve it."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from mcpservers._common.cli import prepare_start

if __name__ == "__main__":
    prepare_start()  # before the imports below load the SDK

from mcpservers._common import UsageError, base_parser, fail, run, scenario_dir
from mcpservers.logs.backends import (
    DEFAULT_LOKI_ERROR_FILTER,
    FileBackend,
    LokiBackend,
    ScenarioDataError,
    load_jsonl,
)
from mcpservers.logs.server import build_server

PROG = "mcpservers.logs"


def main(argv: list[str] | None = None) -> None:
    parser = base_parser(PROG, "Log search MCP server over Loki or a JSON-lines file.")
    source = parser.add_argument_group(
        "back end (exactly one)"
    ).add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--loki-url", metavar="URL", help="Loki base URL, e.g. http://loki:3100"
    )
    source.add_argument(
        "--file",
        metavar="PATH",
        help="JSON-lines file: {offset_s|ts, service, level, message, labels}",
    )
    source.add_argument(
        "--scenario",
        metavar="NAME|DIR",
        help="demo scenario: loads <scenario>/logs.jsonl",
    )
    loki = parser.add_argument_group("Loki options")
    loki.add_argument(
        "--loki-service-label",
        default="service",
        help="stream label naming the service (default: service)",
    )
    loki.add_argument(
        "--loki-tenant",
        metavar="ORG",
        help="X-Scope-OrgID header for multi-tenant Loki",
    )
    loki.add_argument(
        "--loki-token-env",
        metavar="NAME",
        help="environment variable holding a bearer token for Loki",
    )
    loki.add_argument(
        "--loki-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="per-request timeout (default 10)",
    )
    loki.add_argument(
        "--loki-error-filter",
        default=DEFAULT_LOKI_ERROR_FILTER,
        help="LogQL line filter top_errors uses to find error lines",
    )
    args = parser.parse_args(argv)
    try:
        if args.loki_url:
            token = None
            if args.loki_token_env:
                token = os.environ.get(args.loki_token_env) or fail(
                    PROG, f"{args.loki_token_env} is unset or empty"
                )
            backend = LokiBackend(
                args.loki_url,
                service_label=args.loki_service_label,
                tenant=args.loki_tenant,
                token=token,
                timeout=args.loki_timeout,
                error_filter=args.loki_error_filter,
            )
        else:
            path = (
                scenario_dir(args.scenario) / "logs.jsonl"
                if args.scenario
                else Path(args.file)
            )
            backend = FileBackend(load_jsonl(path, now=time.time()), source=str(path))
    except (UsageError, ScenarioDataError) as exc:
        fail(PROG, str(exc))
    run(build_server(backend), args, prog=PROG)


def _path(value: str):
    from pathlib import Path

    return Path(value)


if __name__ == "__main__":
    main(sys.argv[1:])
