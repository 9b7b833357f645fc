"""`python -m mcpservers.netcheck --allow URL|HOST [...]`: serve the layered probe on stdio or HTTP."""

from __future__ import annotations

import argparse
import math
import ssl
from pathlib import Path

from mcpservers._common.cli import prepare_start

if __name__ == "__main__":
    prepare_start()  # before the imports below load the SDK

from mcpservers._common import base_parser, fail, run
from mcpservers.netcheck.policy import Policy
from mcpservers.netcheck.probe import MAX_TIMEOUT_S, Prober, Timeouts
from mcpservers.netcheck.resolver import Resolver
from mcpservers.netcheck.server import build_server

PROG = "mcpservers.netcheck"


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= MAX_TIMEOUT_S:
        raise argparse.ArgumentTypeError(
            f"expected seconds, > 0 and <= {MAX_TIMEOUT_S:g}, got {value!r}"
        )
    return seconds


def build_parser() -> argparse.ArgumentParser:
    parser = base_parser(
        PROG, "Layered network probe (DNS → TCP → TLS → HTTP) for allowlisted URLs."
    )
    targets = parser.add_argument_group("targets")
    targets.add_argument(
        "--allow",
        metavar="URL|HOST",
        action="append",
        default=[],
        help="a URL (scheme, host, port, path prefix) or bare host that may be probed; repeatable",
    )
    targets.add_argument(
        "--allow-mcp",
        metavar="URL",
        action="append",
        default=[],
        help="a URL that serves MCP (Streamable HTTP): allowed like --allow, and listed by list_targets "
        "as an mcp_endpoint to probe with protocol='mcp'; repeatable",
    )
    targets.add_argument(
        "--allow-net",
        metavar="CIDR",
        action="append",
        default=[],
        help="also require every resolved address to be inside this network (e.g. 127.0.0.0/8); repeatable",
    )
    targets.add_argument(
        "--resolve",
        metavar="NAME=IP[,IP]|NAME=NXDOMAIN",
        action="append",
        default=[],
        help="answer NAME from this table instead of the system resolver; repeatable",
    )
    targets.add_argument(
        "--hosts-file",
        metavar="PATH",
        type=Path,
        help="hosts-style overrides: 'IP name...' or 'NXDOMAIN name...'",
    )
    targets.add_argument(
        "--dns-server",
        metavar="IP[:PORT]",
        help="ask this DNS server directly (UDP) instead of the system resolver; overrides still win",
    )
    targets.add_argument(
        "--ca-file",
        metavar="PEM",
        type=Path,
        help="extra trusted CA certificates, added to the system store",
    )
    targets.add_argument(
        "--timeout-for",
        metavar="URL=S",
        action="append",
        default=[],
        help="the per-layer timeout of probes of URL when the caller gives none; repeatable",
    )
    timeouts = parser.add_argument_group("per-layer timeouts (seconds)")
    defaults = Timeouts()
    for layer in ("dns", "connect", "tls", "http"):
        timeouts.add_argument(
            f"--{layer}-timeout",
            type=_seconds,
            default=getattr(defaults, layer),
            metavar="S",
            help=f"{layer} layer timeout (default {getattr(defaults, layer):g})",
        )
    return parser


def prober_from_args(args: argparse.Namespace) -> Prober:
    """The Prober the parsed command line describes.

    Raises:
        ValueError, OSError, ssl.SSLError: a bad value, or an unreadable hosts or CA file.
    """
    if not args.allow and not args.allow_mcp:
        raise ValueError("nothing to probe: give at least one --allow or --allow-mcp")
    mcp_urls = [url for url in args.allow_mcp if "://" in url]
    if len(mcp_urls) != len(args.allow_mcp):
        raise ValueError("--allow-mcp takes a URL (http(s)://host[:port]/path)")
    policy = Policy.from_values(args.allow + mcp_urls, networks=args.allow_net)
    resolver = Resolver()
    if args.hosts_file:
        resolver.load_hosts_file(args.hosts_file)
    for spec in args.resolve:
        resolver.add_override(spec)
    if args.dns_server:
        resolver.set_nameserver(args.dns_server)
    context = ssl.create_default_context()
    if args.ca_file:
        context.load_verify_locations(cafile=args.ca_file)
    timeouts = Timeouts(
        dns=args.dns_timeout,
        connect=args.connect_timeout,
        tls=args.tls_timeout,
        http=args.http_timeout,
    )
    return Prober(
        policy=policy,
        resolver=resolver,
        ssl_context=context,
        timeouts=timeouts,
        mcp_endpoints=mcp_urls,
        target_timeouts=dict(_target_timeout(spec) for spec in args.timeout_for),
    )


def _target_timeout(spec: str) -> tuple[str, float]:
    url, sep, seconds = spec.rpartition("=")
    if not sep or "://" not in url:
        raise ValueError(f"--timeout-for takes URL=SECONDS, got {spec!r}")
    try:
        return url, _seconds(seconds)
    except argparse.ArgumentTypeError as exc:
        raise ValueError(f"--timeout-for {url}: {exc}") from None


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    try:
        prober = prober_from_args(args)
    except (ValueError, OSError, ssl.SSLError) as exc:
        fail(PROG, str(exc))
    run(build_server(prober), args, prog=PROG)


if __name__ == "__main__":
    main()
