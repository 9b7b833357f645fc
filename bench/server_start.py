"""Benchmark: cold start of each bundled stdio MCP server, to `initialize` and `tools/list` answered.

Run: ``.venv/bin/python bench/server_start.py [-n 5] [--servers logs,metrics] [--no-sdk] [--no-fork]
[--baseline DIR]``.
``--baseline DIR`` also starts the servers of another checkout (rows "baseline"), alternating start by
start with this one, so a before/after comparison sees the same machine load.

Each server starts with the command line a demo environment gives it (`diagnosis.registry`), through
our own client exactly as the engine connects (`registry.connect_server`: mcpclient's stdio transport,
the entry's version pin), and, side by side in the same run, through the official SDK's client
(`mcp.Client` with a `StdioServerParameters`, its defaults). Right after `tools/list` is answered the
child's CPU time (user + system, from /proc/<pid>/stat) is read, before the session closes; that is
the start cost the issue's target (250 ms CPU) is about. Wall time is from before the spawn to the
answer. Rows "forked" start the same command as the session pool does, through the worker's fork
server (diagnosis/engine/forkserver.py): CPU is the launcher's plus the forked server's. The
machine may be shared, so the CPU column is the figure to compare; each cell is the
median of ``-n`` starts, the clients alternating start by start.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import functools
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import mcpclient
from diagnosis import registry
from diagnosis.engine.forkserver import ForkServer

TARGET_CPU_MS = 250.0
CONNECT_TIMEOUT_S = 60.0
_TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def cpu_ms(pid: int) -> float:
    """User + system CPU time of a live process, in ms (clock-tick resolution)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # After the command name: state is field 3, utime 14 and stime 15 (1-based, `man 5 proc`).
    return (int(fields[11]) + int(fields[12])) * _TICK_S * 1e3


def children(pid: int | None = None) -> set[int]:
    """Pids of a process's direct children (default this one's: the SDK client does not expose
    its child's pid)."""
    out: set[int] = set()
    for task in Path(f"/proc/{pid or os.getpid()}/task").iterdir():
        try:
            out.update(int(p) for p in (task / "children").read_text().split())
        except OSError:
            continue
    return out


def entries() -> dict[str, registry.ServerEntry]:
    """One demo-environment entry per bundled server: the first scenario that runs it."""
    root = registry.bundled_scenarios_dir()
    assert root is not None, "mcpservers is not importable"
    found: dict[str, registry.ServerEntry] = {}
    for env in registry.demo_environments(root):
        for entry in env.servers:
            found.setdefault(entry.name, entry)
    return dict(sorted(found.items()))


async def start_ours(
    entry: registry.ServerEntry, cwd: str | None = None
) -> tuple[float, float, int]:
    """One start through mcpclient as the engine does it: (child CPU ms, wall ms, tools).

    `registry.connect_server`'s settings, with a longer connect timeout (a loaded machine), and
    `cwd` to run the servers of another checkout (`python -m` imports from the working folder).
    """
    stdio = registry.client_server(entry, environ=os.environ)
    assert isinstance(stdio, mcpclient.StdioServer), entry
    spec = dataclasses.replace(stdio, cwd=cwd)
    began = time.perf_counter()
    async with mcpclient.connect(
        spec, protocol_version=entry.protocol_version, timeout=CONNECT_TIMEOUT_S
    ) as session:
        tools = await session.list_tools()
        wall = (time.perf_counter() - began) * 1e3
        pid = session.transport.pid  # type: ignore[attr-defined]
        cpu = cpu_ms(pid)
    return cpu, wall, len(tools)


async def start_forked(
    entry: registry.ServerEntry, forkserver: ForkServer
) -> tuple[float, float, int]:
    """One start as the session pool does it: the launcher asks the fork server for a fork.

    CPU is the launcher's (a bare interpreter that hands its pipes over) plus the forked
    server's own, both read after `tools/list` is answered; the fork server's one-time imports
    are reported apart (`main`).
    """
    environ = await forkserver.environ(os.environ)
    assert forkserver.pid is not None, "the fork server did not start"
    stdio = registry.client_server(entry, environ=environ)
    before = children(forkserver.pid)
    began = time.perf_counter()
    async with mcpclient.connect(
        stdio, protocol_version=entry.protocol_version, timeout=CONNECT_TIMEOUT_S
    ) as session:
        tools = await session.list_tools()
        wall = (time.perf_counter() - began) * 1e3
        launcher = session.transport.pid  # type: ignore[attr-defined]
        (forked,) = children(forkserver.pid) - before
        cpu = cpu_ms(launcher) + cpu_ms(forked)
    return cpu, wall, len(tools)


async def start_sdk(entry: registry.ServerEntry) -> tuple[float, float, int]:
    """One start through the official SDK's client (`mcp.Client`, its defaults)."""
    from mcp import Client, StdioServerParameters

    before = children()
    command = list(entry.command or ())
    params = StdioServerParameters(command=command[0], args=command[1:])
    began = time.perf_counter()
    async with Client(params) as client:
        tools = (await client.list_tools()).tools
        wall = (time.perf_counter() - began) * 1e3
        # The SDK may start the command through a helper; the server is the new child.
        (pid,) = children() - before
        cpu = cpu_ms(pid)
    return cpu, wall, len(tools)


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("-n", type=int, default=5, help="starts per server and client")
    parser.add_argument(
        "--servers", help="comma-separated subset (default: all bundled)"
    )
    parser.add_argument(
        "--no-sdk", action="store_true", help="skip the official SDK client peer"
    )
    parser.add_argument(
        "--no-fork",
        action="store_true",
        help="skip the fork-server starts (the pool's way)",
    )
    parser.add_argument(
        "--baseline",
        metavar="DIR",
        help="also start the servers of this checkout (e.g. a `git archive` of main), alternating",
    )
    args = parser.parse_args(argv)
    all_entries = entries()
    names = args.servers.split(",") if args.servers else list(all_entries)
    clients: dict[str, Any] = {"mcpclient": start_ours}
    forkserver = None
    if not args.no_fork:
        forkserver = ForkServer()
        clients["forked"] = functools.partial(start_forked, forkserver=forkserver)
    if args.baseline:
        clients["baseline"] = functools.partial(start_ours, cwd=args.baseline)
    if not args.no_sdk:
        clients["sdk"] = start_sdk
    print(
        f"bundled stdio servers, {args.n} starts each, median; CPU = the child's user+sys "
        f"to tools/list answered; target {TARGET_CPU_MS:g} ms CPU"
    )
    print(
        f"{'server':<11} {'client':<10} {'cpu ms':>8} {'wall ms':>8} {'x target':>9} "
        f"{'tools':>5}  command"
    )
    for name in names:
        entry = all_entries[name]
        samples: dict[str, list[tuple[float, float, int]]] = {c: [] for c in clients}
        for _ in range(args.n):
            for client, start in clients.items():
                samples[client].append(await start(entry))
        for client, rows in samples.items():
            cpu = statistics.median(r[0] for r in rows)
            wall = statistics.median(r[1] for r in rows)
            shown = " ".join(
                Path(a).name if a == sys.executable else a for a in entry.command or ()
            ).replace(str(registry.bundled_scenarios_dir()) + "/", "")
            print(
                f"{name:<11} {client:<10} {cpu:8.0f} {wall:8.0f} "
                f"{cpu / TARGET_CPU_MS:9.2f} {rows[0][2]:5d}  {shown}"
            )
    if forkserver is not None and forkserver.pid is not None:
        pid = forkserver.pid
        rss = (
            int(Path(f"/proc/{pid}/status").read_text().split("VmRSS:")[1].split()[0])
            // 1024
        )
        print(
            f"fork server (once per worker process): {cpu_ms(pid):.0f} ms CPU so far "
            f"(its imports), RSS {rss} MiB, pid {pid}"
        )
        await forkserver.close()


if __name__ == "__main__":
    asyncio.run(main())
