"""Client under test for the official MCP conformance suite: ``conformance_client.py <server-url>``.

The suite starts a scenario server and runs this with its URL as the last argument, the scenario in
``MCP_CONFORMANCE_SCENARIO``, the requested version in ``MCP_CONFORMANCE_PROTOCOL_VERSION`` (pinned when
given, unless ``--auto`` is passed; ``--no-validate`` turns off client-side schema validation) and scenario data in ``MCP_CONFORMANCE_CONTEXT`` (JSON; ``toolCalls`` lists calls to make).
It does what an application would: connect, list tools, call them, then list and read resources and
prompts where the server declares them. Every step is printed with its outcome; a failed step does not
stop the others, and the exit status is 1 when any step failed.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import mcpclient

# Scenarios whose servers serve tools/list only: their tools are called with every property given,
# which exercises local validation (the refs in the schema), and the server's refusal is expected.
LIST_ONLY = {"json-schema-ref-no-deref"}
SCHEMA_ECHO = "json_schema_echo"


def _sample(schema: Any) -> Any:
    """A value that satisfies a simple JSON Schema (enough for the scenario tools)."""
    if not isinstance(schema, dict):
        return "x"
    if "default" in schema:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if kind in ("number", "integer"):
        return 1
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        return {name: _sample(props.get(name)) for name in schema.get("required", [])}
    return "x"


class Driver:
    def __init__(self) -> None:
        self.failed = 0

    async def step(self, label: str, awaitable: Any) -> Any:
        try:
            value = await awaitable
        except mcpclient.McpError as exc:
            self.failed += 1
            print(
                f"FAIL {label}: {type(exc).__name__} [layer={exc.layer}] {exc}",
                flush=True,
            )
            return None
        print(f"ok   {label}", flush=True)
        return value

    async def run(
        self,
        url: str,
        scenario: str,
        version: str | None,
        context: dict[str, Any],
        *,
        validate: bool,
    ) -> int:
        print(
            f"scenario={scenario!r} version={version or 'auto'} url={url}", flush=True
        )
        server = mcpclient.HttpServer(url=url)
        try:
            async with mcpclient.connect(
                server, protocol_version=version, timeout=30.0, validate=validate
            ) as client:
                print(
                    f"ok   connect: protocol_version={client.protocol_version} server_info={client.server_info}"
                )
                await self.exercise(client, scenario, context)
        except mcpclient.McpError as exc:
            self.failed += 1
            print(
                f"FAIL connect: {type(exc).__name__} [layer={exc.layer}] {exc}",
                flush=True,
            )
        return 1 if self.failed else 0

    async def exercise(
        self, client: mcpclient.ClientSession, scenario: str, context: dict[str, Any]
    ) -> None:
        caps = client.server_capabilities
        tools = (
            await self.step("tools/list", client.list_tools())
            if "tools" in caps
            else None
        )
        calls = context.get("toolCalls")
        if scenario == "json-schema-2020-12-preservation" and tools:
            # The scenario asks for the focal tool's inputSchema, as the client holds it, sent back verbatim
            # to its echo tool, which then compares it with what the server advertised.
            focal = next(tool for tool in tools if tool.name != SCHEMA_ECHO)
            calls = [{"name": SCHEMA_ECHO, "arguments": {"schema": focal.input_schema}}]
        if calls is None and tools and scenario not in LIST_ONLY:
            calls = [
                {"name": tool.name, "arguments": _sample(tool.input_schema)}
                for tool in tools
            ]
        if scenario in LIST_ONLY:
            for tool in tools or []:
                await self.validated_locally(client, tool)
        for call in calls or []:
            result = await self.step(
                f"tools/call {call['name']}",
                client.call_tool(call["name"], call["arguments"]),
            )
            if result is not None:
                print(f"     -> is_error={result.is_error} text={result.text[:200]!r}")
        if "resources" in caps:
            for resource in (
                await self.step("resources/list", client.list_resources()) or []
            ):
                await self.step(
                    f"resources/read {resource.uri}", client.read_resource(resource.uri)
                )
        if "prompts" in caps:
            for prompt in await self.step("prompts/list", client.list_prompts()) or []:
                arguments = {arg.name: "x" for arg in prompt.arguments if arg.required}
                await self.step(
                    f"prompts/get {prompt.name}",
                    client.get_prompt(prompt.name, arguments),
                )

    async def validated_locally(
        self, client: mcpclient.ClientSession, tool: mcpclient.Tool
    ) -> None:
        """Call ``tool`` with every property present: it must pass our validation and be sent."""
        properties = tool.input_schema.get("properties") or {}
        arguments = {name: _sample(sub) for name, sub in properties.items()}
        label = f"tools/call {tool.name} with every property"
        try:
            await client.call_tool(tool.name, arguments)
        except mcpclient.ToolValidationError as exc:
            self.failed += 1
            print(f"FAIL {label}: refused locally: {exc}", flush=True)
            return
        except mcpclient.JsonRpcError as exc:
            print(f"ok   {label}: validated locally, sent; the server answered {exc}")
            return
        print(f"ok   {label}: validated locally, sent, answered")
        print(f"     schema warnings: {list(tool.schema_warnings)}")


def main() -> None:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    # --auto: ignore the requested version and let the client negotiate (protocol_version=None).
    version = (
        None
        if "--auto" in sys.argv[1:-1]
        else os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION") or None
    )
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    validate = "--no-validate" not in sys.argv[1:-1]
    sys.exit(
        asyncio.run(
            Driver().run(sys.argv[-1], scenario, version, context, validate=validate)
        )
    )


if __name__ == "__main__":
    main()
