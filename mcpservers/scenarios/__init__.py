"""Demo incidents as data: each a folder (incident, expected answer, logs, metrics, runbooks,
kubernetes.json, targets.json) whose targets.json lists live listeners from a fault catalogue.

    scenario = load("tls-expired")                  # files only (a slug, or any scenario folder)
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

from mcpservers.scenario_folder import data_servers
from mcpservers.scenarios._listeners import HOST, Listeners
from mcpservers.scenarios.targets import (
    FAULTS,
    Probe,
    Target,
    TargetsError,
    load_backend,
    load_targets,
    start_targets,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from mcpservers.netcheck import Prober, Timeouts

ROOT = Path(__file__).resolve().parent
#: The bundled scenarios: every folder here with an incident.json.
SLUGS = tuple(
    sorted(
        p.name
        for p in ROOT.iterdir()
        if p.name[0] not in "._" and (p / "incident.json").is_file()
    )
)
DEFAULT_TIME_SCALE = 0.05

__all__ = [
    "DEFAULT_TIME_SCALE",
    "FAULTS",
    "ROOT",
    "SLUGS",
    "LiveScenario",
    "Probe",
    "Scenario",
    "TargetsError",
    "UnknownScenario",
    "data_servers",
    "load",
    "run",
    "run_in_thread",
]


class UnknownScenario(KeyError):
    """Neither a bundled scenario's slug nor a folder holding an incident.json."""

    def __str__(self) -> str:
        return (
            f"unknown scenario {self.args[0]!r} (not a folder with an incident.json); "
            f"bundled scenarios: {', '.join(SLUGS)}"
        )


@dataclass(frozen=True)
class Scenario:
    """A scenario folder: `expected` (root cause, machine-readable), `incident` (to open the demo), data files."""

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
    def targets_path(self) -> Path:
        return self.path / "targets.json"

    @property
    def kubernetes_path(self) -> Path:
        return self.path / "kubernetes.json"

    @property
    def targets(self) -> list[Target]:
        """targets.json's checked entries; [] without the file.

        Raises:
            TargetsError: the file is malformed (the message names the target and field).
        """
        return load_targets(self.targets_path) if self.targets_path.exists() else []

    @property
    def backend(self) -> dict[str, Any]:
        """backend.json: which server's real back end meets which target, e.g. {"logs": {"loki_target": ...}}.

        Raises:
            TargetsError: the file is malformed or names a target targets.json lacks.
        """
        path = self.path / "backend.json"
        return load_backend(path, self.targets) if path.exists() else {}

    @property
    def servers(self) -> tuple[str, ...]:
        """The bundled data servers this folder has data for (actions, which needs none, not included)."""
        return data_servers(self.path)


def _folder(slug_or_path: str | Path) -> Path:
    text = str(slug_or_path)
    if text in SLUGS:
        return ROOT / text
    path = Path(text).expanduser()
    if path.is_dir() and (path / "incident.json").is_file():
        return path.resolve()
    raise UnknownScenario(text)


def load(slug_or_path: str | Path) -> Scenario:
    """Read a scenario's expected.json and incident.json: a bundled slug or any folder with an incident.json.

    Raises:
        UnknownScenario: neither a bundled slug nor such a folder.
    """
    path = _folder(slug_or_path)
    return Scenario(
        slug=path.name,
        path=path,
        # expected.json is for evaluation; a folder without one still runs.
        expected=(
            json.loads((path / "expected.json").read_text(encoding="utf-8"))
            if (path / "expected.json").is_file()
            else {}
        ),
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
    # Per-server arguments that replace the `--scenario <folder>` default (backend.json).
    server_overrides: dict[str, list[str]] = field(default_factory=dict)
    # Loopback addresses that wrong DNS records point at: netcheck may dial them (and be refused).
    wrong_addresses: tuple[str, ...] = ()

    @property
    def networks(self) -> list[str]:
        """The networks netcheck may dial: the listeners' 127.0.0.1 and any wrong record's address."""
        return ["127.0.0.1/32", *(f"{a}/32" for a in self.wrong_addresses)]

    @property
    def allow(self) -> list[str]:
        """Allowlist entries covering the HTTP probes: scheme, host and port of each URL, without repeats."""
        entries = (
            probe.url.split("/", 3)[0] + "//" + probe.url.split("/", 3)[2]
            for probe in self.probes.values()
            if probe.protocol != "mcp"
        )
        return list(dict.fromkeys(entries))

    @property
    def mcp_endpoints(self) -> list[str]:
        """The probes' URLs that serve MCP (targets.json "protocol": "mcp"), for `--allow-mcp`."""
        return [p.url for p in self.probes.values() if p.protocol == "mcp"]

    def netcheck_args(self) -> list[str]:
        """Command-line arguments for `python -m mcpservers.netcheck` that cover exactly these probes."""
        args: list[str] = []  # every demo target lives on loopback
        for network in self.networks:
            args += ["--allow-net", network]
        for entry in self.allow:
            args += ["--allow", entry]
        for url in self.mcp_endpoints:
            args += ["--allow-mcp", url]
        for name, value in self.resolve.items():
            args += ["--resolve", f"{name}={value}"]
        if self.ca_file is not None:
            args += ["--ca-file", str(self.ca_file)]
        if self.dns_server is not None:
            args += ["--dns-server", self.dns_server]
        for url, seconds in self.target_timeouts.items():
            args += ["--timeout-for", f"{url}={seconds:g}"]
        return args

    @property
    def target_timeouts(self) -> dict[str, float]:
        """URL → netcheck's per-layer timeout for it: a target's `timeout_s`, scaled like every duration."""
        return {
            p.url: p.timeout_s for p in self.probes.values() if p.timeout_s is not None
        }

    def server_args(self) -> dict[str, list[str]]:
        """Arguments for each bundled server (`python -m mcpservers.<name> <args>`) to serve this scenario.

        Only the servers the folder has data for (`Scenario.servers`); a back end that
        backend.json points at a target gets that listener's URL instead of the folder.
        """
        folder = str(self.scenario.path)
        args: dict[str, list[str]] = {}
        for name in self.scenario.servers:
            if name == "netcheck":
                args[name] = self.netcheck_args()
            else:
                args[name] = self.server_overrides.get(name, ["--scenario", folder])
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
            policy=Policy.from_values(
                self.allow + self.mcp_endpoints, networks=self.networks
            ),
            resolver=resolver,
            ssl_context=context,
            timeouts=timeouts,
            mcp_endpoints=self.mcp_endpoints,
            target_timeouts=self.target_timeouts,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "slug": self.scenario.slug,
            "title": self.scenario.incident["title"],
            "data_dir": str(self.scenario.path),
            "probes": {
                name: {"url": p.url, "stream_s": p.stream_s, "protocol": p.protocol}
                for name, p in self.probes.items()
            },
            "netcheck_args": self.netcheck_args(),
            "server_args": self.server_args(),
            "expected": {
                "root_cause_layer": self.scenario.expected.get("root_cause_layer"),
                "netcheck": self.scenario.expected.get("netcheck", {}),
            },
        }


_BACKEND_FLAGS = {
    "logs": ("loki_target", "--loki-url", "--loki-timeout"),
    "metrics": ("prometheus_target", "--prometheus-url", "--prometheus-timeout"),
}


@contextlib.asynccontextmanager
async def run(
    slug_or_path: str | Path, *, time_scale: float = DEFAULT_TIME_SCALE
) -> AsyncIterator[LiveScenario]:
    """Start a scenario's listeners (its targets.json; none without one) on 127.0.0.1, stop them on exit.

    `slug_or_path` is a bundled slug or any folder with an incident.json. `time_scale` shrinks
    the faults' durations (idle timeouts, heartbeats, delays) so a demo probe takes seconds;
    the dataset keeps production numbers.

    Raises:
        UnknownScenario: neither a bundled slug nor a scenario folder.
        TargetsError: targets.json or backend.json is malformed.
    """
    scenario = load(slug_or_path)
    targets = scenario.targets
    backend = scenario.backend
    temp = Path(tempfile.mkdtemp(prefix=f"agentops-{scenario.slug}-"))
    try:
        async with Listeners() as listeners:
            wiring = await start_targets(targets, listeners, temp, time_scale)
            by_name = {t.name: t for t in targets}
            overrides: dict[str, list[str]] = {}
            for server, body in backend.items():
                key, url_flag, timeout_flag = _BACKEND_FLAGS[server]
                target = by_name[body[key]]
                url = f"{target.scheme}://{HOST}:{wiring.ports[target.name]}"
                # timeout_s is the demo server's own client timeout, in real seconds (not scaled).
                overrides[server] = [
                    url_flag,
                    url,
                    timeout_flag,
                    f"{body.get('timeout_s', 2):g}",
                ]
            yield LiveScenario(
                scenario=scenario,
                probes={probe.name: probe for probe in wiring.probes},
                resolve=wiring.resolve,
                ca_file=wiring.ca_file,
                time_scale=time_scale,
                dns_server=wiring.dns_server,
                wrong_addresses=tuple(wiring.wrong_addresses),
                server_overrides=overrides,
            )
    finally:
        shutil.rmtree(temp, ignore_errors=True)


@contextlib.contextmanager
def run_in_thread(
    slug_or_path: str | Path,
    *,
    time_scale: float = DEFAULT_TIME_SCALE,
    timeout_s: float = 30.0,
) -> Iterator[LiveScenario]:
    """`run()` on an event loop in a background thread, for synchronous callers (the app, scripts).

    Raises:
        UnknownScenario: neither a bundled slug nor a scenario folder.
        TargetsError: targets.json or backend.json is malformed.
        TimeoutError: the listeners did not start within `timeout_s`.
    """
    scenario = load(slug_or_path)  # fail fast, in the caller's thread
    scenario.targets  # noqa: B018  (checks targets.json here too)
    scenario.backend  # noqa: B018  (and backend.json)
    slug = scenario.slug
    started = threading.Event()
    box: dict[str, Any] = {}

    async def main() -> None:
        box["stop"] = asyncio.Event()
        box["loop"] = asyncio.get_running_loop()
        try:
            async with run(scenario.path, time_scale=time_scale) as live:
                box["live"] = live
                started.set()
                await box["stop"].wait()
        except BaseException as exc:
            box["error"] = exc  # the caller raises it: not an unhandled thread error
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
