"""JSON Schema helpers: validators compiled once per schema hash, and 2026-07-28 x-mcp-header maps."""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import jsonschema.exceptions
import jsonschema.validators

from ._types import canonical_json, sha256_hex

_VALIDATORS: dict[str, Any] = {}
_MAX_CACHED = 1024
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


def schema_hash(schema: Any) -> str:
    return sha256_hex(canonical_json(schema))


def validator_for(schema: dict[str, Any], digest: str) -> Any:
    """A compiled validator for ``schema`` (cached by its hash); None if the schema itself is invalid."""
    try:
        return _VALIDATORS[digest]
    except KeyError:
        pass
    cls = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft202012Validator
    )
    try:
        cls.check_schema(schema)
        validator = cls(schema)
    except (jsonschema.exceptions.SchemaError, TypeError):
        validator = None
    if len(_VALIDATORS) >= _MAX_CACHED:
        _VALIDATORS.pop(next(iter(_VALIDATORS)))
    _VALIDATORS[digest] = validator
    return validator


def errors_of(validator: Any, instance: Any) -> list[str]:
    """Human-readable validation errors (empty when valid); cheap when valid."""
    if validator is None:
        return []
    try:
        if validator.is_valid(instance):
            return []
        return [
            f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
            for e in validator.iter_errors(instance)
        ][:10]
    except Exception:
        return []


def x_mcp_headers(input_schema: Any) -> dict[tuple[str, ...], str] | str:
    """Map argument paths to Mcp-Param-* header tokens, or a reason string if an annotation is invalid.

    Only properties reachable through plain ``properties`` chains may carry ``x-mcp-header``; the
    value must be an RFC 9110 token on a string/integer/boolean property, unique ignoring case.
    """
    found: dict[tuple[str, ...], str] = {}
    seen: set[str] = set()
    stack: list[tuple[tuple[str, ...], Any]] = [((), input_schema)]
    while stack:
        path, node = stack.pop()
        if not isinstance(node, dict):
            continue
        if "x-mcp-header" in node:
            token = node["x-mcp-header"]
            if not path:
                return "x-mcp-header on the schema root"
            if not isinstance(token, str) or not _TOKEN.match(token):
                return f"x-mcp-header {token!r} on {'.'.join(path)} is not a token"
            if node.get("type") not in ("string", "integer", "boolean"):
                return f"x-mcp-header on {'.'.join(path)} needs a string, integer or boolean property"
            if token.lower() in seen:
                return f"x-mcp-header {token!r} is declared twice"
            seen.add(token.lower())
            found[path] = token
        props = node.get("properties")
        if isinstance(props, dict):
            stack.extend(((*path, key), sub) for key, sub in props.items())
    return found


def param_headers(
    header_map: dict[tuple[str, ...], str], arguments: dict[str, Any]
) -> dict[str, str]:
    """The Mcp-Param-* headers mirroring annotated arguments (absent values are skipped)."""
    from ._transports.streamable_http import encode_header_value

    headers: dict[str, str] = {}
    for path, token in header_map.items():
        node: Any = arguments
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        if node is None or isinstance(node, dict | list):
            continue
        text = ("true" if node else "false") if isinstance(node, bool) else str(node)
        headers[f"mcp-param-{token}"] = encode_header_value(text)
    return headers
