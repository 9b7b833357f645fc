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
from pathlib import Path
from typing import Any

import httpx

# This checkout's mcpclient, not the one the venv was installed from (another worktree).
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

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


# The client id the suite's authorization servers accept as a Client ID Metadata Document URL.
CIMD_URL = "https://conformance-test.local/client-metadata.json"
REDIRECT_URI = "http://localhost:3000/callback"
# Auth scenarios where a conformant client must refuse to go on: the refusal is the expected outcome.
REFUSALS = {
    "auth/resource-mismatch": "discovery",
    "auth/iss-supported-missing": "authorization",
    "auth/iss-wrong-issuer": "authorization",
    "auth/iss-unexpected": "authorization",
    "auth/iss-normalized": "authorization",
    "auth/metadata-issuer-mismatch": "discovery",
    "auth/scope-retry-limit": None,  # the server never grants the scope: a 403 after one step
}


async def headless_user_agent(url: str) -> str:
    """The suite's authorization endpoints consent at once: GET the URL and return its redirect."""
    async with httpx.AsyncClient(follow_redirects=False, timeout=30.0) as http:
        response = await http.get(url)
    location = response.headers.get("location")
    if response.status_code not in (301, 302, 303, 307) or not location:
        raise mcpclient.AuthorizationFlowError(
            f"the authorization endpoint answered HTTP {response.status_code} without a redirect",
            stage="authorization",
        )
    return location


def auth_for(scenario: str, context: dict[str, Any]) -> httpx.Auth | None:
    """What an application would configure for this server: client credentials for a service
    account, else the authorization-code grant (pre-registered when given an id, else a metadata
    document URL, else dynamic registration)."""
    if not scenario.startswith("auth/"):
        return None
    if scenario.startswith("auth/client-credentials"):
        return mcpclient.ClientCredentials(
            context["client_id"],
            client_secret=context.get("client_secret"),
            private_key=context.get("private_key_pem"),
            signing_algorithm=context.get("signing_algorithm") or "ES256",
        )
    client = None
    if "client_id" in context:
        client = mcpclient.ClientInfo(
            client_id=context["client_id"], client_secret=context.get("client_secret")
        )
    return mcpclient.AuthorizationCode(
        redirect_uri=REDIRECT_URI,
        user_agent=headless_user_agent,
        client=client,
        metadata=mcpclient.ClientMetadata(
            client_name="agentops-conformance",
            redirect_uris=(REDIRECT_URI,),
            metadata_url=CIMD_URL,
        ),
    )


def accept_defaults(message: str, schema: dict[str, Any]) -> dict[str, Any]:
    """An unattended client accepts an elicitation with nothing filled in: mcpclient sends the
    schema's defaults (SEP-1034)."""
    print(f"     elicitation {message[:80]!r}: accepted with the defaults", flush=True)
    return {}


class Driver:
    def __init__(self, scenario: str = "") -> None:
        self.failed = 0
        self.scenario = scenario
        self.refused = False

    def expected_refusal(self, exc: mcpclient.McpError) -> bool:
        """True (and printed) when ``exc`` is the refusal this scenario expects of a conformant client."""
        if self.scenario not in REFUSALS or not isinstance(
            exc, mcpclient.AuthorizationError
        ):
            return False
        stage = REFUSALS[self.scenario]
        if stage is not None and getattr(exc, "stage", None) != stage:
            return False
        self.refused = True
        print(f"ok   refused as expected: {type(exc).__name__} {exc}", flush=True)
        return True

    async def step(self, label: str, awaitable: Any) -> Any:
        try:
            value = await awaitable
        except mcpclient.McpError as exc:
            if self.expected_refusal(exc):
                return None
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
        server = mcpclient.HttpServer(url=url, auth=auth_for(scenario, context))
        try:
            async with mcpclient.connect(
                server,
                protocol_version=version,
                timeout=30.0,
                validate=validate,
                elicit=accept_defaults,
            ) as client:
                print(
                    f"ok   connect: protocol_version={client.protocol_version} server_info={client.server_info}"
                )
                await self.exercise(client, scenario, context)
        except mcpclient.McpError as exc:
            if not self.expected_refusal(exc):
                self.failed += 1
                print(
                    f"FAIL connect: {type(exc).__name__} [layer={exc.layer}] {exc}",
                    flush=True,
                )
        if scenario in REFUSALS and not self.refused:
            self.failed += 1
            print("FAIL expected the client to refuse, and it went on", flush=True)
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
            Driver(scenario).run(
                sys.argv[-1], scenario, version, context, validate=validate
            )
        )
    )


if __name__ == "__main__":
    main()
