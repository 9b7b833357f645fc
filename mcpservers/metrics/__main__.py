"""`python -m mcpservers.metrics`: pick a back end (--prometheus-url or --scenario) and serve it."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from mcpservers._common.cli import prepare_start

if __name__ == "__main__":
    prepare_start()  # before the imports below load the SDK

from mcpservers._common import UsageError, base_parser, fail, run, scenario_dir
from mcpservers.metrics.backends import (
    DemoBackend,
    PrometheusBackend,
    ScenarioDataError,
    load_metrics_json,
)
from mcpservers.metrics.server import build_server

PROG = "mcpservers.metrics"


def main(argv: list[str] | None = None) -> None:
    parser = base_parser(
        PROG, "Metrics MCP server over Prometheus or demo scenario series."
    )
    source = parser.add_argument_group(
        "back end (exactly one)"
    ).add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--prometheus-url",
        metavar="URL",
        help="Prometheus base URL, e.g. http://prometheus:9090",
    )
    source.add_argument(
        "--scenario",
        metavar="NAME|DIR",
        help="demo scenario: loads <scenario>/metrics.json",
    )
    source.add_argument(
        "--file", metavar="PATH", help="a metrics.json file in the scenario format"
    )
    prom = parser.add_argument_group("Prometheus options")
    prom.add_argument(
        "--prometheus-token-env",
        metavar="NAME",
        help="environment variable holding a bearer token",
    )
    prom.add_argument(
        "--prometheus-timeout",
        type=float,
        default=15.0,
        metavar="SECONDS",
        help="per-query timeout (default 15)",
    )
    args = parser.parse_args(argv)
    try:
        if args.prometheus_url:
            token = None
            if args.prometheus_token_env:
                token = os.environ.get(args.prometheus_token_env, "").strip()
                if not token:
                    raise UsageError(
                        f"--prometheus-token-env: {args.prometheus_token_env} is unset or empty"
                    )
            backend = PrometheusBackend(
                args.prometheus_url, token=token, timeout=args.prometheus_timeout
            )
        else:
            path = (
                scenario_dir(args.scenario) / "metrics.json"
                if args.scenario
                else Path(args.file)
            )
            backend = DemoBackend(
                load_metrics_json(path, now=time.time()), source=str(path)
            )
    except (UsageError, ScenarioDataError) as exc:
        fail(PROG, str(exc))
    run(build_server(backend), args, prog=PROG)


if __name__ == "__main__":
    main(sys.argv[1:])
