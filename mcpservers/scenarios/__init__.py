"""Five demo incidents, each a consistent dataset (logs, metrics, runbooks) plus live listeners.

    scenario = load("tls-expired")                  # files only: expected, incident, paths
    async with run("tls-expired") as live:          # starts the real listeners on 127.0.0.1
        live.probes["payments-api"].url             # what netcheck should probe
        live.netcheck_args()                        # --allow/--resolve/--ca-file for the server
    with run_in_thread("tls-expired") as live: ...  # the same, for synchronous callers

`python -m mcpservers.scenarios start <slug>` does the same from a shell.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import ssl
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpservers.scenarios._listeners import Listeners
from mcpservers.scenarios._live import STARTERS, Probe

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from mcpservers.netcheck import Prober, Timeouts

ROOT = Path(__file__).resolve().parent
SLUGS = tuple(STARTERS)
DEFAULT_TIME_SCALE = 0.05

__all__ = [
    "DEFAULT_TIME_SCALE",
    "SLUGS",
    "LiveScenario",
    "Probe",
    "Scenario",
    "UnknownScenario",
    "load",
    "run",
    "run_in_thread",
]


class UnknownScenario(KeyError):
    """No bundled scenario has that slug."""

    def __str__(self) -> str:
        return (
            f"unknown scenario {self.args[0]!r}; bundled scenarios: {', '.join(SLUGS)}"
        )


@dataclass(frozen=True)
class Scenario:
    """A scenario's files: `expected` (root cause, machine-readable) and `incident` (to open the demo)."""

    slug: str
    path: Path
    expected: dict[str, Any]
    incident: dict[str, Any]

    @property
    def logs_path(self) -> Path:
        return self.path / "logs.jsonl"

    @property
    def metrics_path(self) -> Path:
        return self.path / "metrics.json"

    @property
    def runbooks_path(self) -> Path:
        return self.path / "runbooks"

    @property
    def backend(self) -> dict[str, Any]:
        """Back-end behaviour for the tool servers (backend.json), e.g. {"logs": {"mode": "timeout", ...}}."""
        path = self.path / "backend.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def load(slug: str) -> Scenario:
    """Read a bundled scenario's expected.json and incident.json.

    Raises:
        UnknownScenario: `slug` is not one of SLUGS.
    """
    if slug not in STARTERS:
        raise UnknownScenario(slug)
    path = ROOT / slug
    return Scenario(
        slug=slug,
        path=path,
        expected=json.loads((path / "expected.json").read_text(encoding="utf-8")),
        incident=json.loads((path / "incident.json").read_text(encoding="utf-8")),
    )


@dataclass(frozen=True)
class LiveScenario:
    """A scenario whose listeners are running: the netcheck probes and how to configure netcheck."""

    scenario: Scenario
    probes: dict[str, Probe]
    resolve: dict[str, str]
    ca_file: Path | None
    time_scale: float
    dns_server: str | None = None
    # Per-server arguments that replace the `--scenario <slug>` default (see server_args()).
    server_overrides: dict[str, list[str]] = field(default_factory=dict)

    @property
    def allow(self) -> list[str]:
        """Allowlist entries covering the probes: scheme, host and port of each URL, without repeats."""
        entries = (
            probe.url.split("/", 3)[0] + "//" + probe.url.split("/", 3)[2]
            for probe in self.probes.values()
        )
        return list(dict.fromkeys(entries))

    def netcheck_args(self) -> list[str]:
        """Command-line arguments for `python -m mcpservers.netcheck` that cover exactly these probes."""
        args: list[str] = [
            "--allow-net",
            "127.0.0.1/32",
        ]  # every demo target lives on loopback
        for entry in self.allow:
            args += ["--allow", entry]
        for name, value in self.resolve.items():
            args += ["--resolve", f"{name}={value}"]
        if self.ca_file is not None:
            args += ["--ca-file", str(self.ca_file)]
        if self.dns_server is not None:
            args += ["--dns-server", self.dns_server]
        return args

    def server_args(self) -> dict[str, list[str]]:
        """Arguments for each bundled server (`python -m mcpservers.<name> <args>`) to serve this scenario."""
        slug = self.scenario.slug
        args = {name: ["--scenario", slug] for name in ("logs", "metrics", "runbooks")}
        args.update(self.server_overrides)
        args["netcheck"] = self.netcheck_args()
        return args

    def prober(self, *, timeouts: Timeouts | None = None) -> Prober:
        """An in-process netcheck Prober configured like `netcheck_args()`."""
        from mcpservers.netcheck import Policy, Prober, Resolver

        resolver = Resolver()
        for name, value in self.resolve.items():
            resolver.add_override(f"{name}={value}")
        if self.dns_server is not None:
            resolver.set_nameserver(self.dns_server)
        context = ssl.create_default_context()
        if self.ca_file is not None:
            context.load_verify_locations(cafile=self.ca_file)
        return Prober(
            policy=Policy.from_values(self.allow, networks=["127.0.0.1/32"]),
            resolver=resolver,
            ssl_context=context,
            timeouts=timeouts,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "slug": self.scenario.slug,
            "title": self.scenario.incident["title"],
            "data_dir": str(self.scenario.path),
            "probes": {
                name: {"url": p.url, "stream_s": p.stream_s}
                for name, p in self.probes.items()
            },
            "netcheck_args": self.netcheck_args(),
            "server_args": self.server_args(),
            "expected": {
                "root_cause_layer": self.scenario.expected["root_cause_layer"],
                "netcheck": self.scenario.expected.get("netcheck", {}),
            },
        }


@contextlib.asynccontextmanager
async def run(
    slug: str, *, time_scale: float = DEFAULT_TIME_SCALE
) -> AsyncIterator[LiveScenario]:
    """Start `slug`'s listeners on 127.0.0.1 and stop them on exit.

    `time_scale` shrinks the scenario's live timers (proxy idle timeout, SSE heartbeat) so a demo
    probe takes seconds; the dataset keeps production numbers.

    Raises:
        UnknownScenario: `slug` is not one of SLUGS.
    """
    scenario = load(slug)
    folder = Path(tempfile.mkdtemp(prefix=f"agentops-{slug}-"))
    try:
        async with Listeners() as listeners:
            wiring = await STARTERS[slug](listeners, folder, time_scale)
            yield LiveScenario(
                scenario=scenario,
                probes={probe.name: probe for probe in wiring.probes},
                resolve=wiring.resolve,
                ca_file=wiring.ca_file,
                time_scale=time_scale,
                dns_server=wiring.dns_server,
                server_overrides=wiring.server_args,
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def run_in_thread(
    slug: str, *, time_scale: float = DEFAULT_TIME_SCALE, timeout_s: float = 30.0
) -> Iterator[LiveScenario]:
    """`run()` on an event loop in a background thread, for synchronous callers (the app, scripts).

    Raises:
        UnknownScenario: `slug` is not one of SLUGS.
        TimeoutError: the listeners did not start within `timeout_s`.
    """
    load(slug)  # fail fast, in the caller's thread, on an unknown slug
    started = threading.Event()
    box: dict[str, Any] = {}

    async def main() -> None:
        box["stop"] = asyncio.Event()
        box["loop"] = asyncio.get_running_loop()
        try:
            async with run(slug, time_scale=time_scale) as live:
                box["live"] = live
                started.set()
                await box["stop"].wait()
        except BaseException as exc:
            box["error"] = exc
            raise
        finally:
            started.set()

    thread = threading.Thread(
        target=asyncio.run, args=(main(),), name=f"scenario-{slug}", daemon=True
    )
    thread.start()
    if not started.wait(timeout_s):
        raise TimeoutError(f"scenario {slug} did not start within {timeout_s} s")
    if "live" not in box:
        thread.join(timeout_s)
        raise RuntimeError(f"scenario {slug} failed to start") from box.get("error")
    try:
        yield box["live"]
    finally:
        box["loop"].call_soon_threadsafe(box["stop"].set)
        thread.join(timeout_s)
