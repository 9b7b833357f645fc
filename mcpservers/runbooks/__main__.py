"""`python -m mcpservers.runbooks`: serve Markdown runbooks from the bundled folder or --dir folders."""

from __future__ import annotations

import sys
from pathlib import Path

from mcpservers._common.cli import prepare_start

if __name__ == "__main__":
    prepare_start()  # before the imports below load the SDK

from mcpservers._common import UsageError, base_parser, fail, run, scenario_dir
from mcpservers.runbooks.library import RunbookError, load_folders
from mcpservers.runbooks.server import build_server

PROG = "mcpservers.runbooks"
BUNDLED = Path(__file__).resolve().parent / "data"


def main(argv: list[str] | None = None) -> None:
    parser = base_parser(
        PROG, "Runbook MCP server: Markdown runbooks as resources, with search."
    )
    parser.add_argument(
        "--dir",
        metavar="PATH",
        action="append",
        type=Path,
        help=f"folder of <slug>.md runbooks; repeatable; replaces the bundled folder ({BUNDLED})",
    )
    parser.add_argument(
        "--scenario",
        metavar="NAME|DIR",
        help="also load <scenario>/runbooks/ when it exists",
    )
    args = parser.parse_args(argv)
    folders = list(args.dir or [BUNDLED])
    try:
        if args.scenario:
            extra = scenario_dir(args.scenario) / "runbooks"
            if extra.is_dir():
                folders.append(extra)
        library = load_folders(folders)
    except (UsageError, RunbookError) as exc:
        fail(PROG, str(exc))
    if not library:
        fail(PROG, f"no runbooks (*.md) found in {', '.join(map(str, folders))}")
    run(build_server(library), args, prog=PROG)


if __name__ == "__main__":
    main(sys.argv[1:])
