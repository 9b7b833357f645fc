"""JSON Schema helpers: validators compiled once per schema hash, and 2026-07-28 x-mcp-header maps."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import jsonschema
import jsonschema.exceptions
import jsonschema.validators

from ._types import canonical_json, sha256_hex

if TYPE_CHECKING:
    from collections.abc import Callable

_VALIDATORS: dict[str, Any] = {}
_MAX_CACHED = 1024
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


def schema_hash(schema: Any) -> str:
    return sha256_hex(canonical_json(schema))


class Validator:
    """A schema compiled once: a fast Python check for plain schemas, jsonschema for the rest.

    Most tool schemas are "an object with typed properties, some required". For those a closure
    answers "valid" in a few microseconds; jsonschema runs only when that check says "invalid"
    (to word the errors) or when the schema uses anything beyond the plain keywords.
    """

    __slots__ = ("fast", "full")

    def __init__(self, schema: dict[str, Any]) -> None:
        cls = jsonschema.validators.validator_for(
            schema, default=jsonschema.Draft202012Validator
        )
        cls.check_schema(schema)
        self.full = cls(schema)
        self.fast = _compile(schema)

    def errors(self, instance: Any) -> list[str]:
        """Human-readable validation errors; empty when valid."""
        if self.fast is not None and self.fast(instance):
            return []
        try:
            return [
                f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
                for e in self.full.iter_errors(instance)
            ][:10]
        except Exception:
            return []


def validator_for(schema: dict[str, Any], digest: str) -> Validator | None:
    """The compiled validator for ``schema`` (cached by its hash); None if the schema itself is invalid."""
    try:
        return _VALIDATORS[digest]
    except KeyError:
        pass
    try:
        validator: Validator | None = Validator(schema)
    except (jsonschema.exceptions.SchemaError, TypeError):
        validator = None
    if len(_VALIDATORS) >= _MAX_CACHED:
        _VALIDATORS.pop(next(iter(_VALIDATORS)))
    _VALIDATORS[digest] = validator
    return validator


def without_optional_nulls(
    arguments: dict[str, Any], schema: dict[str, Any]
) -> dict[str, Any]:
    """``arguments`` minus top-level nulls for properties the schema does not require.

    Callers (LLMs above all) write ``"verbose": null`` for "not given"; we validate that as absent
    rather than refuse the call. What is sent is unchanged; the server decides.
    """
    if None not in arguments.values():
        return arguments
    required = schema.get("required")
    keep = required if isinstance(required, list) else ()
    return {k: v for k, v in arguments.items() if v is not None or k in keep}


def errors_of(validator: Validator | None, instance: Any) -> list[str]:
    """Human-readable validation errors (empty when valid, or when the schema could not be compiled)."""
    return [] if validator is None else validator.errors(instance)


# Keywords that only annotate: they never make an instance invalid (format is an annotation by default).
_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "format",
        "$schema",
        "$id",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "x-mcp-header",
    }
)
_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: type(v) is str,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "integer": lambda v: (type(v) is int) or (type(v) is float and v.is_integer()),
    "number": lambda v: type(v) in (int, float),
}


def _compile(schema: Any) -> Callable[[Any], bool] | None:
    """A closure deciding validity for plain schemas (type, properties, required, items,
    additionalProperties), or None when the schema uses anything else."""
    if schema is True or schema == {}:
        return lambda v: True
    if not isinstance(schema, dict):
        return None
    checks: list[Callable[[Any], bool]] = []
    for key, value in schema.items():
        if key in _ANNOTATIONS or key in (
            "properties",
            "required",
            "additionalProperties",
            "items",
        ):
            continue
        if key != "type":
            return None
        names = [value] if isinstance(value, str) else value
        if (
            not isinstance(names, list)
            or not names
            or not all(n in _TYPE_CHECKS for n in names)
        ):
            return None
        type_checks = [_TYPE_CHECKS[n] for n in names]
        checks.append(
            type_checks[0]
            if len(type_checks) == 1
            else lambda v, cs=type_checks: any(c(v) for c in cs)
        )
    props = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if (
        not isinstance(props, dict)
        or not isinstance(required, list)
        or not all(isinstance(r, str) for r in required)
    ):
        return None
    compiled = {}
    for name, sub in props.items():
        check = _compile(sub)
        if check is None:
            return None
        compiled[name] = check
    extra_check = (
        None
        if extra is True
        else (lambda v: False)
        if extra is False
        else _compile(extra)
    )
    if extra is not True and extra is not False and extra_check is None:
        return None
    if "items" in schema:
        item_check = _compile(schema["items"])
        if item_check is None:
            return None
        checks.append(lambda v: type(v) is not list or all(item_check(i) for i in v))
    if compiled or required or extra_check is not None:

        def object_check(v: Any) -> bool:
            if type(v) is not dict:
                return True  # properties/required only constrain objects
            for name in required:
                if name not in v:
                    return False
            for name, item in v.items():
                check = compiled.get(name)
                if check is not None:
                    if not check(item):
                        return False
                elif extra_check is not None and not extra_check(item):
                    return False
            return True

        checks.append(object_check)
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(c(v) for c in checks)


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
