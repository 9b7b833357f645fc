"""`python -m mcpservers.scenarios list | show | start | serve-kube | regenerate-kube <slug|DIR>`.

`start` runs the scenario's listeners until Ctrl-C and prints one JSON object first: the probe
URLs and the exact `--allow/--resolve/--ca-file` arguments for `python -m mcpservers.netcheck`.
`serve-kube` serves a scenario's `cluster.json` to kubectl on 127.0.0.1 until Ctrl-C and prints
the kubeconfig to use; `regenerate-kube` serves it, captures it with the real kubectl and writes
the scenario's `kubernetes.json`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
import tempfile
import threading
from pathlib import Path

from mcpservers.scenarios import (
    DEFAULT_TIME_SCALE,
    SLUGS,
    TargetsError,
    UnknownScenario,
    load,
    run,
)
from mcpservers.scenarios.cluster import (
    CONTEXT,
    SNAPSHOT_FILE,
    ClusterError,
    regenerate,
    served,
    snapshot_text,
)


def _serve_kube(folder: Path) -> None:
    with (
        tempfile.TemporaryDirectory(prefix="kube-") as tmp,
        served(folder, Path(tmp)) as (api, kubeconfig),
    ):
        print(
            json.dumps(
                {
                    "server": api.url,
                    "kubeconfig": str(kubeconfig),
                    "context": CONTEXT,
                    "namespace": json.loads(
                        (folder / "cluster.json").read_text(encoding="utf-8")
                    )["namespace"],
                },
                indent=2,
            ),
            flush=True,
        )
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        stop.wait()
    print(f"scenario {folder.name}: fake API stopped", file=sys.stderr)


def _regenerate_kube(folder: Path) -> None:
    snapshot, failures = regenerate(folder)
    for failure in failures:
        print(
            f"mcpservers.scenarios regenerate-kube: warning: {failure}", file=sys.stderr
        )
    target = folder / SNAPSHOT_FILE
    target.write_text(snapshot_text(snapshot), encoding="utf-8")
    print(f"{target}: {len(snapshot)} commands", file=sys.stderr)


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
    for name, text in (
        ("serve-kube", "serve the scenario's cluster.json to kubectl until Ctrl-C"),
        (
            "regenerate-kube",
            "rewrite the scenario's kubernetes.json from its cluster.json (real kubectl + capture)",
        ),
    ):
        commands.add_parser(name, help=text).add_argument(
            "slug", metavar="SLUG|DIR", help="a bundled slug or a scenario folder"
        )
    args = parser.parse_args(argv)
    if args.command in ("serve-kube", "regenerate-kube"):
        try:
            folder = load(args.slug).path
            if args.command == "serve-kube":
                _serve_kube(folder)
            else:
                _regenerate_kube(folder)
        except (UnknownScenario, ClusterError, FileNotFoundError) as exc:
            parser.error(str(exc))
        return
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
