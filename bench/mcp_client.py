"""Benchmark: our mcpclient against the official SDK client, side by side, loopback only.

Run: ``.venv/bin/python bench/mcp_client.py [--calls 500] [--no-profile]``. One run prints a table and
the ratios against the issue's targets. Peers: ``mcp_raw_echo_server.py`` (no SDK, isolates client
overhead) and ``mcp_sdk_server.py`` (mcp 2.3.0, stdio and Streamable HTTP on 127.0.0.1). The floor is a
blocking pipe write/readline loop against the raw server. Every measurement runs in a fresh process
(``--worker``) with a time limit, so one client's imports, GC and event loop never touch another's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RAW_SERVER = [sys.executable, str(HERE / "mcp_raw_echo_server.py")]
SDK_SERVER = [sys.executable, str(HERE / "mcp_sdk_server.py")]
HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"
CALLERS = 16
WARMUP = 50
WORKER_TIMEOUT = 120.0

# target name -> (label, server command, transport, protocol version)
TARGETS: dict[str, tuple[str, list[str], str, str]] = {
    "raw-stdio": ("raw echo, stdio", RAW_SERVER, "stdio", HANDSHAKE),
    "sdk-stdio": (f"SDK server, stdio {HANDSHAKE}", SDK_SERVER, "stdio", HANDSHAKE),
    "sdk-stdio-modern": (f"SDK server, stdio {MODERN}", SDK_SERVER, "stdio", MODERN),
    "sdk-http": (f"SDK server, HTTP {HANDSHAKE}", SDK_SERVER, "http", HANDSHAKE),
    "sdk-http-modern": (f"SDK server, HTTP {MODERN}", SDK_SERVER, "http", MODERN),
}


@dataclass
class Measurement:
    median_ms: float
    p99_ms: float
    calls_per_s: float
    detail: str = ""


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _summary(
    latencies: list[float], calls_per_s: float, detail: str = ""
) -> dict[str, Any]:
    return {
        "median_ms": statistics.median(latencies) * 1e3,
        "p99_ms": _percentile(latencies, 0.99) * 1e3,
        "calls_per_s": calls_per_s,
        "detail": detail,
    }


# --- workers: each runs in its own process --------------------------------------------------------


def _raw_request(request_id: int, method: str, params: dict[str, Any]) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def worker_pipe(calls: int, per_caller: int) -> dict[str, Any]:
    """The floor: blocking writes and readline on the raw server's pipes, no event loop."""
    proc = subprocess.Popen(
        RAW_SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
    )
    assert proc.stdin is not None and proc.stdout is not None
    fd, stdout = proc.stdin.fileno(), proc.stdout
    init = {
        "protocolVersion": HANDSHAKE,
        "capabilities": {},
        "clientInfo": {"name": "pipe", "version": "0"},
    }
    os.write(fd, _raw_request(0, "initialize", init))
    stdout.readline()
    os.write(fd, b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    params = {"name": "echo", "arguments": {"text": "hello"}}
    latencies = []
    for i in range(WARMUP + calls):
        start = time.perf_counter()
        os.write(fd, _raw_request(i + 1, "tools/call", params))
        line = stdout.readline()
        elapsed = time.perf_counter() - start
        assert b'"hello"' in line, line
        if i >= WARMUP:
            latencies.append(elapsed)
    # Pipelined: CALLERS requests in one write, then CALLERS answers, as 16 callers on one connection would.
    total = CALLERS * per_caller
    batch = b"".join(
        _raw_request(10_000 + i, "tools/call", params) for i in range(CALLERS)
    )
    start = time.perf_counter()
    for _ in range(per_caller):
        os.write(fd, batch)
        for _ in range(CALLERS):
            stdout.readline()
    calls_per_s = total / (time.perf_counter() - start)
    proc.stdin.close()
    proc.wait(5)
    return _summary(latencies, calls_per_s, f"pipelined x{CALLERS}")


@contextlib.asynccontextmanager
async def _http_server():
    """Start mcp_sdk_server.py --http; yield its /mcp URL."""
    proc = await asyncio.create_subprocess_exec(
        *SDK_SERVER, "--http", stdout=subprocess.PIPE
    )
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        port = int(line.split()[1])
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        await proc.wait()


async def _measure(call, calls: int, per_caller: int) -> tuple[list[float], float]:
    for _ in range(WARMUP):
        await call()
    latencies = []
    for _ in range(calls):
        start = time.perf_counter()
        await call()
        latencies.append(time.perf_counter() - start)

    async def caller() -> None:
        for _ in range(per_caller):
            await call()

    start = time.perf_counter()
    await asyncio.gather(*(caller() for _ in range(CALLERS)))
    return latencies, CALLERS * per_caller / (time.perf_counter() - start)


async def worker_sdk(target: str, calls: int, per_caller: int) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters

    _, command, transport, version = TARGETS[target]
    mode = "legacy" if version == HANDSHAKE else version
    async with contextlib.AsyncExitStack() as stack:
        if transport == "stdio":
            server: Any = StdioServerParameters(command=command[0], args=command[1:])
        else:
            server = await stack.enter_async_context(_http_server())
        client = await stack.enter_async_context(Client(server, mode=mode))
        assert client.protocol_version == version, client.protocol_version

        async def call() -> None:
            result = await client.call_tool("echo", {"text": "hello"})
            assert not result.is_error and result.content[0].text == "hello", result

        latencies, calls_per_s = await _measure(call, calls, per_caller)
    return _summary(latencies, calls_per_s)


async def worker_ours(target: str, calls: int, per_caller: int) -> dict[str, Any]:
    import mcpclient

    _, command, transport, version = TARGETS[target]
    async with contextlib.AsyncExitStack() as stack:
        if transport == "stdio":
            server: Any = mcpclient.StdioServer(command=command)
        else:
            server = mcpclient.HttpServer(
                url=await stack.enter_async_context(_http_server())
            )
        client = await stack.enter_async_context(
            mcpclient.connect(server, protocol_version=version)
        )
        assert client.protocol_version == version, client.protocol_version
        await client.list_tools()

        async def call() -> None:
            result = await client.call_tool("echo", {"text": "hello"})
            assert not result.is_error and result.content[0]["text"] == "hello", result

        latencies, calls_per_s = await _measure(call, calls, per_caller)
    return _summary(latencies, calls_per_s)


def run_worker(args: argparse.Namespace) -> None:
    profiler = cProfile.Profile() if args.profile else None
    if profiler:
        profiler.enable()
    if args.worker == "pipe":
        summary = worker_pipe(args.calls, args.per_caller)
    elif args.worker == "sdk":
        summary = asyncio.run(worker_sdk(args.target, args.calls, args.per_caller))
    else:
        summary = asyncio.run(worker_ours(args.target, args.calls, args.per_caller))
    if profiler:
        profiler.disable()
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats("tottime").print_stats(18)
        summary["profile"] = _trim_profile(out.getvalue())
    sys.stdout.write(json.dumps(summary) + "\n")


def _trim_profile(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if "function calls" in line), 0)
    return "\n".join(lines[start:])


# --- the driver -----------------------------------------------------------------------------------


def measure(
    client: str, target: str, calls: int, per_caller: int, *, profile: bool = False
) -> Measurement | str:
    command = [sys.executable, __file__, "--worker", client, "--target", target]
    command += ["--calls", str(calls), "--per-caller", str(per_caller)]
    if profile:
        command.append("--profile")
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=WORKER_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {WORKER_TIMEOUT:.0f} s"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"failed: {last[:150]}"
    data = json.loads(done.stdout.strip().splitlines()[-1])
    if profile:
        return data.get("profile", "")
    return Measurement(
        data["median_ms"], data["p99_ms"], data["calls_per_s"], data["detail"]
    )


def _row(label: str, client: str, m: Measurement | str) -> str:
    if isinstance(m, str):
        return f"{label:<32} {client:<6} {m}"
    throughput = f"{m.calls_per_s:>10,.0f}" + (f"  ({m.detail})" if m.detail else "")
    return f"{label:<32} {client:<6} {m.median_ms:>9.3f} {m.p99_ms:>9.3f} {throughput}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--calls",
        type=int,
        default=500,
        help="sequential calls timed (after 50 warm-up)",
    )
    parser.add_argument(
        "--per-caller",
        type=int,
        default=125,
        help="calls per caller in the 16-caller phase",
    )
    parser.add_argument(
        "--no-profile", action="store_true", help="skip the profiles of missed targets"
    )
    parser.add_argument(
        "--worker", choices=["pipe", "sdk", "ours"], help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--target", choices=list(TARGETS), default="raw-stdio", help=argparse.SUPPRESS
    )
    parser.add_argument("--profile", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        run_worker(args)
        return

    started = time.perf_counter()
    print(
        f"MCP client benchmark: {args.calls} sequential calls after {WARMUP} warm-up (median, p99),"
    )
    print(
        f"then {CALLERS} concurrent callers x {args.per_caller} calls on one connection (calls/s)."
    )
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load}, loopback only.\n"
    )
    print(
        f"{'target':<32} {'client':<6} {'median ms':>9} {'p99 ms':>9} {f'{CALLERS}-caller calls/s':>10}"
    )
    results: dict[tuple[str, str], Measurement | str] = {}
    results[("raw-stdio", "pipe")] = m = measure(
        "pipe", "raw-stdio", args.calls, args.per_caller
    )
    print(_row("raw echo, stdio (floor)", "pipe", m), flush=True)
    for target, (label, *_rest) in TARGETS.items():
        for client in ("sdk", "ours"):
            results[(target, client)] = m = measure(
                client, target, args.calls, args.per_caller
            )
            print(_row(label, client, m), flush=True)

    print("\nTargets")
    missed: list[tuple[str, str]] = []

    def check(
        name: str, value: float | None, goal: str, *, ok: bool, profile_target: str
    ) -> None:
        if value is None:
            print(f"  {name:<58} {'n/a':>7}   {goal:<10} MISS (no measurement)")
            return
        print(f"  {name:<58} {value:>6.2f}x   {goal:<10} {'pass' if ok else 'MISS'}")
        if not ok and profile_target not in [t for t, _ in missed]:
            missed.append((profile_target, name))

    def ratio(a: Measurement | str, b: Measurement | str, attr: str) -> float | None:
        if isinstance(a, str) or isinstance(b, str):
            return None
        return getattr(a, attr) / getattr(b, attr)

    floor = results[("raw-stdio", "pipe")]
    r = ratio(results[("raw-stdio", "ours")], floor, "median_ms")
    check(
        "stdio median, ours / pipe floor (raw echo server)",
        r,
        "<= 1.3x",
        ok=r is not None and r <= 1.3,
        profile_target="raw-stdio",
    )
    r = ratio(
        results[("raw-stdio", "ours")], results[("raw-stdio", "sdk")], "calls_per_s"
    )
    check(
        f"{CALLERS}-caller calls/s, ours / SDK client (raw echo server)",
        r,
        ">= 3x",
        ok=r is not None and r >= 3,
        profile_target="raw-stdio",
    )
    for target in ("sdk-http", "sdk-http-modern"):
        r = ratio(results[(target, "sdk")], results[(target, "ours")], "median_ms")
        check(
            f"HTTP median, SDK client / ours ({TARGETS[target][3]})",
            r,
            ">= 1.8x",
            ok=r is not None and r >= 1.8,
            profile_target=target,
        )

    print("\nFor reference (not targets)")
    r = ratio(results[("raw-stdio", "sdk")], floor, "median_ms")
    print(
        f"  stdio median, SDK client / pipe floor (raw echo server)   {r:>6.2f}x"
        if r
        else "  n/a"
    )
    for target in ("sdk-stdio", "sdk-stdio-modern", "sdk-http", "sdk-http-modern"):
        r1 = ratio(results[(target, "sdk")], results[(target, "ours")], "median_ms")
        r2 = ratio(results[(target, "ours")], results[(target, "sdk")], "calls_per_s")
        if r1 is not None and r2 is not None:
            print(
                f"  {TARGETS[target][0]:<32} median SDK/ours {r1:>5.2f}x   {CALLERS}-caller ours/SDK {r2:>5.2f}x"
            )

    if missed and not args.no_profile:
        for target, name in missed:
            print(
                f"\nProfile of our client, target {target!r} (missed: {name}), top functions by own time:"
            )
            profile = measure("ours", target, args.calls, args.per_caller, profile=True)
            print(
                textwrap_indent(profile if isinstance(profile, str) else str(profile))
            )
    print(f"\nTotal bench time {time.perf_counter() - started:.0f} s")


def textwrap_indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


if __name__ == "__main__":
    main()
