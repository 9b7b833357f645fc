"""Benchmark: our mcpclient against the official SDK client, side by side, loopback only.

Run: ``.venv/bin/python bench/mcp_client.py [--rounds 2] [--calls 500] [--no-profile]``. One run prints a
table and the ratios against the issue's targets. Peers: ``mcp_raw_echo_server.py`` (no SDK: isolates the
client's overhead) and ``mcp_sdk_server.py`` (mcp 2.3.0, stdio and Streamable HTTP on 127.0.0.1). The
stdio floor is a blocking loop against the raw server (encode, one write, one buffered readline, decode),
one call at a time and pipelined x16; the HTTP floor is blocking ``http.client`` keep-alive POSTs.
Every peer is configured as its authors recommend (see each worker's docstring): the floors read
through a buffer, the SDK client is ``mcp.Client`` with its defaults, our client is ``mcpclient.connect``.

Every measurement runs in a fresh process (``--worker``), so one client's imports, GC and event loop never
touch another's. The clients alternate in ``--rounds`` rounds and each cell keeps its best round (lowest
median, highest calls/s): on a shared, noisy machine that compares the clients at their least disturbed.
Each phase stops at its call count or its time cap, whichever comes first, so a run is bounded.
The ``cpu ms`` column is the client process's own CPU time per sequential call (lowest round): the
steadier figure when neighbours make wall-clock latency noisy. ``--targets`` runs a subset.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
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
LATENCY_CAP = 8.0  # seconds of sequential calls at most, per measurement
THROUGHPUT_CAP = 6.0  # seconds of the concurrent phase at most, per measurement
WORKER_TIMEOUT = 120.0
PROFILER: cProfile.Profile | None = None  # set in a --profile worker

# target -> (label, server command, transport, protocol version)
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
    samples: int
    detail: str = ""
    cpu_ms: float = 0.0  # the client process's CPU time per sequential call


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _summary(
    latencies: list[float], calls_per_s: float, detail: str = "", *, cpu_s: float
) -> dict[str, Any]:
    return {
        "cpu_ms": cpu_s / len(latencies) * 1e3,
        "median_ms": statistics.median(latencies) * 1e3,
        "p99_ms": _percentile(latencies, 0.99) * 1e3,
        "calls_per_s": calls_per_s,
        "samples": len(latencies),
        "detail": detail,
    }


# --- workers: each runs in its own process --------------------------------------------------------


def _raw_request(request_id: int, method: str, params: dict[str, Any]) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def worker_pipe(calls: int, per_caller: int) -> dict[str, Any]:
    """The floor: blocking writes and buffered readline on the raw server's pipes, no event loop.

    What any client must do per call and nothing more: encode the request, one ``os.write``,
    one buffered ``readline`` (one ``read`` syscall per answer, however long), decode the answer.
    Popen's default buffering (``bufsize=-1``) gives stdout a BufferedReader; with ``bufsize=0``
    it is a raw FileIO, whose ``readline`` makes one syscall per byte (measured here ~3x slower
    than this loop: 0.16 ms against 0.05 ms a call, so "ours / floor" read 1.0-1.3x where it is
    ~2.7x).
    """
    proc = subprocess.Popen(RAW_SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    # Requests go straight to the fd (one write syscall each, no flush); answers through the buffer.
    fd, readline = proc.stdin.fileno(), proc.stdout.readline
    init = {
        "protocolVersion": HANDSHAKE,
        "capabilities": {},
        "clientInfo": {"name": "pipe", "version": "0"},
    }
    os.write(fd, _raw_request(0, "initialize", init))
    readline()
    os.write(fd, b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    params = {"name": "echo", "arguments": {"text": "hello"}}
    latencies = []
    cpu = 0.0
    for i in range(WARMUP + calls):
        if i == WARMUP:
            cpu = time.process_time()
        start = time.perf_counter()
        os.write(fd, _raw_request(i + 1, "tools/call", params))
        answer = json.loads(readline())
        elapsed = time.perf_counter() - start
        assert answer["id"] == i + 1, answer
        assert answer["result"]["content"][0]["text"] == "hello", answer
        if i >= WARMUP:
            latencies.append(elapsed)
    cpu = time.process_time() - cpu
    # Pipelined: CALLERS requests in one write, then CALLERS answers (buffered: several lines per
    # read syscall), as 16 callers on one connection would. Encoded per round, as callers would.
    start = time.perf_counter()
    for r in range(per_caller):
        base = 10_000 + r * CALLERS
        os.write(
            fd,
            b"".join(
                _raw_request(base + i, "tools/call", params) for i in range(CALLERS)
            ),
        )
        for i in range(CALLERS):
            answer = json.loads(readline())
            assert answer["id"] == base + i, answer
    calls_per_s = CALLERS * per_caller / (time.perf_counter() - start)
    proc.stdin.close()
    proc.wait(5)
    return _summary(
        latencies, calls_per_s, f"buffered; pipelined x{CALLERS}", cpu_s=cpu
    )


def worker_httpc(target: str, calls: int) -> dict[str, Any]:
    """The HTTP floor: blocking http.client keep-alive POSTs to the SDK server, no event loop, latency only.

    http.client as its docs show it: one ``HTTPConnection`` reused, which sets TCP_NODELAY, sends
    headers and body in one write, and reads the answer through a buffered ``makefile``.
    """
    import http.client

    version = TARGETS[target][3]
    proc = subprocess.Popen([*SDK_SERVER, "--http"], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().split()[1])
        conn = http.client.HTTPConnection("127.0.0.1", port)
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }

        def post(
            body: dict[str, Any], extra: dict[str, str]
        ) -> tuple[http.client.HTTPResponse, bytes]:
            conn.request(
                "POST",
                "/mcp",
                json.dumps(body, separators=(",", ":")),
                {**headers, **extra},
            )
            response = conn.getresponse()
            return response, response.read()  # an SSE answer ends with its stream

        if version == MODERN:
            meta = {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "httpc", "version": "0"},
            }
            params: dict[str, Any] = {
                "name": "echo",
                "arguments": {"text": "hello"},
                "_meta": meta,
            }
            extra = {
                "MCP-Protocol-Version": MODERN,
                "Mcp-Method": "tools/call",
                "Mcp-Name": "echo",
            }
        else:
            init = {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "httpc", "version": "0"},
            }
            response, _ = post(
                {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}, {}
            )
            extra = {
                "MCP-Protocol-Version": version,
                "Mcp-Session-Id": response.headers["mcp-session-id"],
            }
            post({"jsonrpc": "2.0", "method": "notifications/initialized"}, extra)
            params = {"name": "echo", "arguments": {"text": "hello"}}
        latencies = []
        deadline = time.perf_counter() + LATENCY_CAP
        cpu = 0.0
        for i in range(WARMUP + calls):
            if i == WARMUP:
                cpu = time.process_time()
            start = time.perf_counter()
            _, body = post(
                {
                    "jsonrpc": "2.0",
                    "id": i + 1,
                    "method": "tools/call",
                    "params": params,
                },
                extra,
            )
            elapsed = time.perf_counter() - start
            assert b'"hello"' in body, body
            if i >= WARMUP:
                latencies.append(elapsed)
                if start > deadline:
                    break
        cpu = time.process_time() - cpu
        return _summary(latencies, 0.0, "http.client, latency only", cpu_s=cpu)
    finally:
        proc.terminate()
        proc.wait(10)


@contextlib.asynccontextmanager
async def _http_server():
    """Start mcp_sdk_server.py --http; yield its /mcp URL."""
    proc = await asyncio.create_subprocess_exec(
        *SDK_SERVER, "--http", stdout=subprocess.PIPE
    )
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 60)
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        proc.terminate()
        await proc.wait()


async def _measure(
    call, calls: int, per_caller: int
) -> tuple[list[float], float, float]:
    """Sequential latencies, then calls/s of CALLERS concurrent callers; each phase also stops at its cap.

    Also the process CPU seconds of the sequential phase: on a shared machine the client's own cost
    per call is steadier than its wall-clock latency, which includes the server and the neighbours.
    """
    for _ in range(WARMUP):
        await call()
    if (
        PROFILER is not None
    ):  # --profile: only the timed phases, not imports and start-up
        PROFILER.enable()
    latencies = []
    deadline = time.perf_counter() + LATENCY_CAP
    cpu = time.process_time()
    for _ in range(calls):
        start = time.perf_counter()
        await call()
        latencies.append(time.perf_counter() - start)
        if start > deadline:
            break
    cpu = time.process_time() - cpu

    stop = time.perf_counter() + THROUGHPUT_CAP

    async def caller() -> int:
        done = 0
        while done < per_caller and time.perf_counter() < stop:
            await call()
            done += 1
        return done

    start = time.perf_counter()
    done = await asyncio.gather(*(caller() for _ in range(CALLERS)))
    elapsed = time.perf_counter() - start
    if PROFILER is not None:
        PROFILER.disable()
    return latencies, sum(done) / elapsed, cpu


async def worker_sdk(target: str, calls: int, per_caller: int) -> dict[str, Any]:
    """The official SDK client, used the way its README and ``Client`` docstring show.

    ``mcp.Client`` given a ``StdioServerParameters`` (its own ``stdio_client``) or the server's URL
    (its own ``streamable_http_client`` and the httpx client it makes), every other option at its
    default: the asyncio backend, the default response cache, no callbacks. The one argument set is
    ``mode``, which pins the protocol version our client speaks to the same server ("legacy" for
    the handshake era, the version string for 2026-07-28), the pinning ``Client.mode`` documents;
    the default "auto" would only add one ``server/discover`` probe at connect, before anything
    is timed.
    """
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

        latencies, calls_per_s, cpu = await _measure(call, calls, per_caller)
    return _summary(latencies, calls_per_s, cpu_s=cpu)


async def worker_ours(target: str, calls: int, per_caller: int) -> dict[str, Any]:
    """Our client as the app uses it: ``mcpclient.connect`` with defaults, tools listed first."""
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
        await (
            client.list_tools()
        )  # as an application would: arguments are then validated

        async def call() -> None:
            result = await client.call_tool("echo", {"text": "hello"})
            assert not result.is_error and result.content[0]["text"] == "hello", result

        latencies, calls_per_s, cpu = await _measure(call, calls, per_caller)
    return _summary(latencies, calls_per_s, cpu_s=cpu)


def run_worker(args: argparse.Namespace) -> None:
    global PROFILER
    profiler = PROFILER = cProfile.Profile() if args.profile else None
    if args.worker == "pipe":
        summary = worker_pipe(args.calls, args.per_caller)
    elif args.worker == "httpc":
        summary = worker_httpc(args.target, args.calls)
    elif args.worker == "sdk":
        summary = asyncio.run(worker_sdk(args.target, args.calls, args.per_caller))
    else:
        summary = asyncio.run(worker_ours(args.target, args.calls, args.per_caller))
    if profiler:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(20)
        lines = [line for line in out.getvalue().splitlines() if line.strip()]
        start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
        summary["profile"] = "\n".join(lines[start:])
    sys.stdout.write(json.dumps(summary) + "\n")


# --- the driver -----------------------------------------------------------------------------------


def measure(
    worker: str, target: str, args: argparse.Namespace, *, profile: bool = False
) -> dict[str, Any] | str:
    """One worker process; its JSON summary, or why it failed."""
    command = [sys.executable, __file__, "--worker", worker, "--target", target]
    command += ["--calls", str(args.calls), "--per-caller", str(args.per_caller)]
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
    return json.loads(done.stdout.strip().splitlines()[-1])


def best(rounds: list[dict[str, Any] | str]) -> Measurement | str:
    """The best round of a cell: lowest median (with its p99), highest calls/s."""
    good = [r for r in rounds if isinstance(r, dict)]
    if not good:
        return str(rounds[-1]) if rounds else "not run"
    fastest = min(good, key=lambda r: r["median_ms"])
    calls_per_s = max(r["calls_per_s"] for r in good)
    return Measurement(
        fastest["median_ms"],
        fastest["p99_ms"],
        calls_per_s,
        fastest["samples"],
        fastest["detail"],
        min(r["cpu_ms"] for r in good),
    )


def _row(label: str, client: str, m: Measurement | str) -> str:
    if isinstance(m, str):
        return f"{label:<36} {client:<5} {m}"
    extra = f"  ({m.detail})" if m.detail else ""
    rate = f"{m.calls_per_s:>12,.0f}" if m.calls_per_s else f"{'-':>12}"
    return f"{label:<36} {client:<5} {m.median_ms:>9.3f} {m.p99_ms:>9.3f} {rate} {m.cpu_ms:>7.3f}{extra}"


def _ratio(a: Measurement | str, b: Measurement | str, attr: str) -> float | None:
    if isinstance(a, str) or isinstance(b, str):
        return None
    return getattr(a, attr) / getattr(b, attr)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--calls",
        type=int,
        default=500,
        help="sequential calls timed, after 50 warm-up",
    )
    parser.add_argument(
        "--per-caller",
        type=int,
        default=125,
        help="calls per caller in the 16-caller phase",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="alternating rounds per cell; the best is kept",
    )
    parser.add_argument(
        "--no-profile", action="store_true", help="skip the profiles of missed targets"
    )
    parser.add_argument(
        "--worker", choices=["pipe", "httpc", "sdk", "ours"], help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--target", choices=list(TARGETS), default="raw-stdio", help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--targets",
        default=",".join(TARGETS),
        help="comma-separated subset of: " + ", ".join(TARGETS),
    )
    parser.add_argument("--profile", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        run_worker(args)
        return

    started = time.perf_counter()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"MCP client benchmark: up to {args.calls} sequential calls after {WARMUP} warm-up (median, p99 in ms),"
    )
    print(
        f"then {CALLERS} concurrent callers on one connection (calls/s); caps {LATENCY_CAP:.0f} s and"
    )
    print(
        f"{THROUGHPUT_CAP:.0f} s per phase; best of {args.rounds} alternating rounds per cell."
    )
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load} at start, loopback only."
    )

    cells: dict[tuple[str, str], list[dict[str, Any] | str]] = {}
    chosen = [t for t in TARGETS if t in args.targets.split(",")]
    order = [("raw-stdio", "pipe")] if "raw-stdio" in chosen else []
    order += [(t, c) for t in chosen for c in ("sdk", "ours")]
    order += [(t, "httpc") for t in ("sdk-http", "sdk-http-modern") if t in chosen]
    for _ in range(args.rounds):
        for target, client in order:
            cells.setdefault((target, client), []).append(measure(client, target, args))
    results: dict[tuple[str, str], Measurement | str] = collections.defaultdict(
        lambda: "not run"
    )
    results.update({key: best(rounds) for key, rounds in cells.items()})

    print(
        f"\n{'target':<36} {'client':<5} {'median ms':>9} {'p99 ms':>9} {f'{CALLERS}-caller/s':>12} {'cpu ms':>7}"
    )
    for target, client in order:
        label = TARGETS[target][0] + (" (floor)" if client in ("pipe", "httpc") else "")
        print(_row(label, client, results[(target, client)]))

    print("\nTargets")
    missed: list[tuple[str, str]] = []

    def check(
        name: str, value: float | None, goal: str, *, ok: bool, target: str
    ) -> None:
        if target not in chosen:
            return
        shown = "n/a" if value is None else f"{value:.2f}x"
        print(f"  {name:<62} {shown:>7}   {goal:<8} {'pass' if ok else 'MISS'}")
        if not ok and target not in [t for t, _ in missed]:
            missed.append((target, name))

    r = _ratio(
        results[("raw-stdio", "ours")], results[("raw-stdio", "pipe")], "median_ms"
    )
    check(
        "stdio median, ours / pipe floor (raw echo server)",
        r,
        "<= 1.3x",
        ok=r is not None and r <= 1.3,
        target="raw-stdio",
    )
    r = _ratio(
        results[("raw-stdio", "ours")], results[("raw-stdio", "sdk")], "calls_per_s"
    )
    check(
        f"{CALLERS}-caller calls/s, ours / SDK client (raw echo server)",
        r,
        ">= 3x",
        ok=r is not None and r >= 3,
        target="raw-stdio",
    )
    for target in ("sdk-http", "sdk-http-modern"):
        r = _ratio(results[(target, "sdk")], results[(target, "ours")], "median_ms")
        name = f"HTTP median, SDK client / ours ({TARGETS[target][3]})"
        check(name, r, ">= 1.8x", ok=r is not None and r >= 1.8, target=target)

    print("\nFor reference (not targets)")
    r = _ratio(
        results[("raw-stdio", "sdk")], results[("raw-stdio", "pipe")], "median_ms"
    )
    if r is not None:
        print(f"  stdio median, SDK client / pipe floor (raw echo server)  {r:.2f}x")
    r = _ratio(
        results[("raw-stdio", "pipe")], results[("raw-stdio", "ours")], "calls_per_s"
    )
    if r is not None:
        print(
            f"  {CALLERS}-caller calls/s, pipelined pipe floor / ours (raw echo server)  {r:.2f}x"
        )
    r = _ratio(results[("raw-stdio", "ours")], results[("raw-stdio", "pipe")], "cpu_ms")
    if r is not None:
        print(
            f"  stdio client CPU per call, ours / pipe floor (raw echo server)  {r:.2f}x"
        )
    for target in TARGETS:
        r1 = _ratio(results[(target, "sdk")], results[(target, "ours")], "median_ms")
        r2 = _ratio(results[(target, "ours")], results[(target, "sdk")], "calls_per_s")
        if r1 is not None and r2 is not None:
            label = TARGETS[target][0]
            print(
                f"  {label:<30} median SDK/ours {r1:>5.2f}x   {CALLERS}-caller calls/s ours/SDK {r2:>5.2f}x"
            )
    for target in ("sdk-http", "sdk-http-modern"):
        # The best any client could reach against this server: the SDK client / the http.client floor.
        ceiling = _ratio(
            results[(target, "sdk")], results[(target, "httpc")], "median_ms"
        )
        over = _ratio(
            results[(target, "ours")], results[(target, "httpc")], "median_ms"
        )
        if ceiling is not None and over is not None:
            print(
                f"  {TARGETS[target][0]:<30} SDK client / http.client floor {ceiling:>5.2f}x (reachable ceiling),"
                f" ours / floor {over:>5.2f}x"
            )
        cpu = _ratio(results[(target, "sdk")], results[(target, "ours")], "cpu_ms")
        if cpu is not None:
            print(
                f"  {TARGETS[target][0]:<30} client CPU per call, SDK / ours {cpu:>5.2f}x"
            )

    if missed and not args.no_profile:
        for target, name in missed:
            print(
                f"\nProfile of our client on {target!r} (missed: {name}); timed phases only, top by own time:"
            )
            profiled = measure("ours", target, args, profile=True)
            text = (
                profiled.get("profile", "") if isinstance(profiled, dict) else profiled
            )
            print("\n".join("  " + line for line in text.splitlines()))
    print(f"\nTotal bench time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
