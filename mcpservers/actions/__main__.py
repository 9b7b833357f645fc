"""`python -m mcpservers.actions`: serve the actions tools over a ledger file (demo back end)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from mcpservers._common.cli import prepare_start

if __name__ == "__main__":
    prepare_start()  # before the imports below load the SDK

from mcpservers._common import base_parser, fail, run
from mcpservers.actions.ledger import Ledger
from mcpservers.actions.server import DEFAULT_MAX_REPLICAS, build_server

PROG = "mcpservers.actions"
DEFAULT_LEDGER = Path(tempfile.gettempdir()) / "agentops-actions" / "ledger.jsonl"


def main(argv: list[str] | None = None) -> None:
    parser = base_parser(
        PROG,
        "Actions MCP server (demo back end): idempotent restart/scale recorded in a ledger.",
    )
    parser.add_argument(
        "--ledger",
        metavar="PATH",
        type=Path,
        default=DEFAULT_LEDGER,
        help=f"JSON-lines ledger (default {DEFAULT_LEDGER})",
    )
    parser.add_argument(
        "--max-replicas",
        type=int,
        default=DEFAULT_MAX_REPLICAS,
        metavar="N",
        help=f"upper bound for scale_workload (default {DEFAULT_MAX_REPLICAS})",
    )
    parser.add_argument(
        "--exit-after-write",
        action="store_true",
        help="fault injection: exit right after recording a new action, before answering "
        "(the write happened, its answer is lost)",
    )
    args = parser.parse_args(argv)
    if args.max_replicas < 1:
        fail(PROG, "--max-replicas must be at least 1")
    try:
        ledger = Ledger(args.ledger)
    except OSError as exc:
        fail(PROG, f"cannot use ledger {args.ledger}: {exc.strerror}")
    run(
        build_server(
            ledger,
            max_replicas=args.max_replicas,
            exit_after_write=args.exit_after_write,
        ),
        args,
        prog=PROG,
    )


if __name__ == "__main__":
    main(sys.argv[1:])
