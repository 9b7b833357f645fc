"""The tools a session has listed: schemas compiled once, x-mcp-header maps, argument and output checks.

Built from each tools/list answer (untrusted: a tool whose 2026-07-28 header annotations are
invalid is dropped, as the spec requires) and consulted by every tools/call.
"""

from __future__ import annotations

import logging
from typing import Any

from . import _catalog, _schema
from ._exceptions import OutputSchemaMismatch
from ._types import CallToolResult, Tool, ToolAnnotations

logger = logging.getLogger("mcpclient")

_Validators = tuple[_schema.Validator | None, _schema.Validator | None]


class ToolCatalog:
    """What the last tools/list said, with compiled validators; ``tools`` is None until listed."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.tools: dict[str, Tool] | None = None
        self._validators: dict[str, _Validators] = {}  # by Tool.schema_hash
        self._header_maps: dict[str, dict[tuple[str, ...], str]] = {}

    def replace(self, items: list[Any], *, modern: bool) -> list[Tool]:
        """Take a new listing (header maps are rebuilt: annotations may have gone).

        Raises:
            MalformedResult: an entry without a string name or an object inputSchema.
        """
        tools: dict[str, Tool] = {}
        self._header_maps = {}
        for item in items:
            tool = self._parse(item, modern=modern)
            if tool is not None:
                tools[tool.name] = tool
        self.tools = tools
        return list(tools.values())

    def forget(self) -> None:
        """notifications/tools/list_changed: the listing is stale."""
        self.tools = None

    def get(self, name: str) -> Tool | None:
        return self.tools.get(name) if self.tools is not None else None

    def header_map(self, name: str) -> dict[tuple[str, ...], str] | None:
        return self._header_maps.get(name)

    def argument_errors(self, tool: Tool, arguments: dict[str, Any]) -> list[str]:
        """Why ``arguments`` do not match the tool's inputSchema (empty when they do)."""
        validators = self._validators.get(tool.schema_hash)
        if validators is None:
            return []
        return _schema.errors_of(
            validators[0], _schema.without_optional_nulls(arguments, tool.input_schema)
        )

    def check_output(self, tool: Tool, result: CallToolResult) -> None:
        """Raises OutputSchemaMismatch when a declared outputSchema is not met (isError excepted)."""
        validators = self._validators.get(tool.schema_hash)
        if validators is None or validators[1] is None or result.is_error:
            return
        if result.structured_content is None:
            raise OutputSchemaMismatch(
                f"{tool.name!r} declares an outputSchema but returned no structuredContent",
                tool=tool.name,
                errors=["structuredContent missing"],
            )
        if errors := _schema.errors_of(validators[1], result.structured_content):
            raise OutputSchemaMismatch(
                f"structuredContent of {tool.name!r} does not match its outputSchema: {'; '.join(errors)}",
                tool=tool.name,
                errors=errors,
            )

    def _parse(self, item: Any, *, modern: bool) -> Tool | None:
        item = _catalog.tool_entry(item, server=self.server)
        name = item["name"]
        input_schema = item["inputSchema"]
        output_schema = (
            item.get("outputSchema")
            if isinstance(item.get("outputSchema"), dict)
            else None
        )
        digest = _schema.schema_hash(
            {"inputSchema": input_schema, "outputSchema": output_schema}
        )
        if modern:
            header_map = _schema.x_mcp_headers(input_schema)
            if isinstance(header_map, str):
                # 2026-07-28: clients MUST drop tools whose x-mcp-header annotations are invalid.
                logger.warning(
                    "%s: dropping tool %r: %s", self.server, name, header_map
                )
                return None
            if header_map:
                self._header_maps[name] = header_map
        in_digest = _schema.schema_hash(input_schema)
        out_digest = (
            _schema.schema_hash(output_schema) if output_schema is not None else None
        )
        if digest not in self._validators:
            self._validators[digest] = (
                _schema.validator_for(input_schema, in_digest),
                _schema.validator_for(output_schema, out_digest)
                if output_schema is not None and out_digest is not None
                else None,
            )
        warnings = _schema.warnings_for(in_digest)
        if out_digest is not None:
            warnings += _schema.warnings_for(out_digest)
        for warning in warnings:
            logger.warning("%s: tool %r: %s", self.server, name, warning)
        description = item.get("description")
        title = item.get("title")
        annotations = item.get("annotations")
        return Tool(
            name=name,
            description=description if isinstance(description, str) else None,
            input_schema=input_schema,
            output_schema=output_schema,
            annotations=ToolAnnotations.from_wire(
                annotations if isinstance(annotations, dict) else None
            ),
            schema_hash=digest,
            title=title if isinstance(title, str) else None,
            raw=item,
            schema_warnings=warnings,
        )
