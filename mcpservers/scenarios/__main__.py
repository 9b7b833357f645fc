"""`python -m mcpservers.scenarios list | show <slug|DIR> | start <slug|DIR>`.

`start` runs the scenario's listeners until Ctrl-C and prints one JSON object first: the probe
URLs and the exact `--allow/--resolve/--ca-file` arguments for `python -m mcpservers.netcheck`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys

from mcpservers.scenarios import (
    DEFAULT_TIME_SCALE,
    SLUGS,
    TargetsError,
    UnknownScenario,
    load,
    run,
)


async def _start(slug: str, time_scale: float) -> None:
    async with run(slug, time_scale=time_scale) as live:
        print(json.dumps(live.as_dict(), indent=2), flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    print(f"scenario {slug}: listeners stopped", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="mcpservers.scenarios", description="Demo incident scenarios."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="list the scenarios and their root-cause layers")
    show = commands.add_parser(
        "show", help="print a scenario's incident.json and expected.json"
    )
    show.add_argument(
        "slug", metavar="SLUG|DIR", help="a bundled slug or a scenario folder"
    )
    start = commands.add_parser(
        "start", help="start the scenario's listeners until Ctrl-C"
    )
    start.add_argument(
        "slug", metavar="SLUG|DIR", help="a bundled slug or a scenario folder"
    )
    start.add_argument(
        "--time-scale",
        type=float,
        default=DEFAULT_TIME_SCALE,
        help=f"speed of the live timers relative to production (default {DEFAULT_TIME_SCALE}: a 60 s idle timeout lasts 3 s)",
    )
    args = parser.parse_args(argv)
    if args.command != "list":
        try:
            load(args.slug).backend  # noqa: B018  (checks targets.json and backend.json)
        except (UnknownScenario, TargetsError) as exc:
            parser.error(str(exc))
    if args.command == "list":
        for slug in SLUGS:
            scenario = load(slug)
            print(
                f"{slug:36} {scenario.expected.get('root_cause_layer', '?'):13} {scenario.incident['title']}"
            )
    elif args.command == "show":
        scenario = load(args.slug)
        print(
            json.dumps(
                {"incident": scenario.incident, "expected": scenario.expected}, indent=2
            )
        )
    else:
        if not 0 < args.time_scale <= 1:
            parser.error("--time-scale must be > 0 and <= 1")
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_start(args.slug, args.time_scale))


if __name__ == "__main__":
    main()
