"""Record planner fixtures: drive LayeredPlanner round by round against the real bundled servers.

    .venv/bin/python -m tests.reasoning.record [NAME ...]     # default: every scenario + default

NAME is a bundled scenario slug (its live listeners run meanwhile, the servers are the demo
environment's, bound to them) or "default" (the default environment on baseline data, with a plain
"payment" incident). Each fixture, tests/reasoning/fixtures/<NAME>.json, holds the incident,
the tools, and per round the calls the planner asked and what the servers answered; then the actions
it proposed (run against a throw-away ledger) and the verification calls. The planner is the one
under test, so the fixture is exactly what it asked; re-record after changing what it asks.
"""

import asyncio
import contextlib
import dataclasses
import json
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import mcpclient
from diagnosis.registry import (
    BUNDLED_FILE,
    connect_server,
    demo_environment_name,
    load_registry,
)
from mcpservers import scenarios
from reasoning import layers
from reasoning.layered import LayeredPlanner
from reasoning.observations import (
    IncidentBrief,
    Investigation,
    Observation,
    PlannedCall,
    ToolInfo,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"
DEFAULT = "default"
# The default environment's incident: nothing in the baseline data is about it.
DEFAULT_INCIDENT = {
    "title": "Payment failures reported",
    "service": "payment",
    "severity": "sev3",
    "symptoms": ["customers report that some payments fail"],
    "window": {"start_offset_s": -3600, "end_offset_s": 0},
}
CALL_TIMEOUT_S = 30.0


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def brief_from(incident: dict[str, Any], now: datetime) -> IncidentBrief:
    window = incident.get("window") or {}
    start = window.get("start_offset_s")
    end = window.get("end_offset_s", 0)
    return IncidentBrief(
        title=incident["title"],
        service=incident["service"],
        severity=incident["severity"],
        symptoms=tuple(incident["symptoms"]),
        window_start=None if start is None else _iso(now + timedelta(seconds=start)),
        window_end=_iso(now + timedelta(seconds=end)),
    )


def observation_to_json(obs: Observation) -> dict[str, Any]:
    return dataclasses.asdict(obs)


def observation_from_json(data: dict[str, Any]) -> Observation:
    return Observation(**data)


def call_to_json(call: PlannedCall) -> dict[str, Any]:
    return dataclasses.asdict(call)


class Servers:
    """One session per server of the environment, and the tools they list."""

    def __init__(self, environment: Any, ledger: Path) -> None:
        self.environment = environment
        self.ledger = ledger
        self.sessions: dict[str, mcpclient.ClientSession] = {}
        self.tools: list[ToolInfo] = []

    async def __aenter__(self) -> "Servers":
        self._stack = contextlib.AsyncExitStack()
        await self._stack.__aenter__()
        for entry in self.environment.servers:
            if entry.name == "actions":
                # A throw-away ledger: recording must not leave restarts in the shared demo one.
                entry = dataclasses.replace(
                    entry, command=(*entry.command, "--ledger", str(self.ledger))
                )
            session = await self._stack.enter_async_context(connect_server(entry))
            self.sessions[entry.name] = session
            for tool in await session.list_tools():
                if not entry.is_tool_allowed(tool.name):
                    continue
                self.tools.append(
                    ToolInfo(
                        server=entry.name,
                        name=tool.name,
                        description=tool.description or "",
                        input_schema=tool.input_schema,
                        is_read_only=tool.annotations.read_only_hint,
                        is_destructive=tool.annotations.destructive_hint,
                        is_idempotent=tool.is_idempotent,
                    )
                )
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.__aexit__(*exc)

    async def run(self, call: PlannedCall, span_id: str) -> Observation:
        session = self.sessions[call.server]
        arguments = dict(call.arguments)
        try:
            result = await session.call_tool(
                call.tool, arguments, timeout=CALL_TIMEOUT_S
            )
        except mcpclient.McpError as exc:
            return Observation(
                span_id=span_id,
                agent=call.agent,
                server=call.server,
                tool=call.tool,
                arguments=call.arguments,
                is_ok=False,
                error_layer=layers.from_mcpclient(str(exc.layer)),
                error_code=type(exc).__name__,
                error_message=str(exc),
            )
        return Observation(
            span_id=span_id,
            agent=call.agent,
            server=call.server,
            tool=call.tool,
            arguments=call.arguments,
            is_ok=not result.is_error,
            result=result.structured_content,
            text=result.text[:4000],
            error_layer=layers.TOOL_BACKEND if result.is_error else None,
            error_code="tool_error" if result.is_error else None,
            error_message=result.text[:2000] if result.is_error else None,
        )


async def drive(environment: Any, incident: IncidentBrief) -> dict[str, Any]:
    planner = LayeredPlanner()
    with tempfile.TemporaryDirectory(prefix="agentops-record-") as tmp:
        async with Servers(environment, Path(tmp) / "ledger.jsonl") as servers:
            inv = Investigation(incident=incident, tools=list(servers.tools))
            rounds: list[dict[str, Any]] = []
            while True:
                calls = await planner.next_round(inv)
                if not calls:
                    break
                n = inv.round + 1
                observations = await asyncio.gather(
                    *(
                        servers.run(call, f"r{n}-{i}-{call.tool}")
                        for i, call in enumerate(calls, 1)
                    )
                )
                inv.observations.extend(observations)
                inv.round = n
                rounds.append(
                    {
                        "calls": [call_to_json(c) for c in calls],
                        "observations": [observation_to_json(o) for o in observations],
                    }
                )
                await planner.conclude(inv)
            report = await planner.conclude(inv)
            actions = []
            for i, action in enumerate(await planner.actions(inv, report), 1):
                keyed = dataclasses.replace(
                    action,
                    arguments={
                        **action.arguments,
                        "idempotency_key": f"record:{action.tool}:{action.arguments.get('name')}:{i}",
                    },
                )
                done = await servers.run(keyed, f"a{i}-{action.tool}")
                inv.observations.append(done)
                checks = await planner.verify(inv, action)
                verified = await asyncio.gather(
                    *(
                        servers.run(call, f"v{i}-{j}-{call.tool}")
                        for j, call in enumerate(checks, 1)
                    )
                )
                inv.observations.extend(verified)
                actions.append(
                    {
                        "action": call_to_json(action),
                        "observation": observation_to_json(done),
                        "verify_calls": [call_to_json(c) for c in checks],
                        "verify_observations": [
                            observation_to_json(o) for o in verified
                        ],
                    }
                )
            return {
                "incident": dataclasses.asdict(incident),
                "tools": [dataclasses.asdict(t) for t in servers.tools],
                "rounds": rounds,
                "actions": actions,
                # For a reader of the fixture only: the tests recompute it from the rounds.
                "report_when_recorded": report.to_dict(),
            }


async def record(name: str) -> Path:
    registry = load_registry(BUNDLED_FILE)
    now = datetime.now(UTC)
    if name == DEFAULT:
        environment = registry.environments[registry.default_environment or DEFAULT]
        data = await drive(environment, brief_from(DEFAULT_INCIDENT, now))
    else:
        environment = registry.environments[demo_environment_name(name)]
        async with scenarios.run(name) as live:
            bound = environment.bind_live(live.server_args())
            data = await drive(bound, brief_from(live.scenario.incident, now))
    data = {"name": name, "recorded_at": _iso(now), **data}
    FIXTURES.mkdir(exist_ok=True)
    path = FIXTURES / f"{name}.json"
    path.write_text(
        json.dumps(data, indent=1, sort_keys=False, default=str) + "\n",
        encoding="utf-8",
    )
    return path


def main(argv: list[str]) -> None:
    names = argv or [*scenarios.SLUGS, DEFAULT]
    for name in names:
        path = asyncio.run(record(name))
        data = json.loads(path.read_text(encoding="utf-8"))
        top = next(
            (
                h
                for h in data["report_when_recorded"]["hypotheses"]
                if h["status"] != "ruled_out"
            ),
            None,
        )
        calls = sum(len(r["calls"]) for r in data["rounds"])
        print(
            f"{name}: {len(data['rounds'])} rounds, {calls} calls, top "
            f"{top['id'] + ' ' + top['status'] if top else 'none'} -> {path}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
