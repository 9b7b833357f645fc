"""JSON Schema helpers: validators compiled once per schema hash, and 2026-07-28 x-mcp-header maps.

A tool's schema comes from the server and is untrusted (seed 000 §7.1): no ``$ref`` ever reaches the
network or the disk. Every validator gets a ``referencing`` registry that holds only the document
itself (and the JSON Schema metaschemas) and refuses to retrieve anything else. A reference that
cannot be resolved inside the document is not enforced: it is removed before compiling, the rest of
the schema is still validated, and the fact is reported (``Validator.warnings``, ``Tool.schema_warnings``
and a log line), never silently.
"""

from __future__ import annotations

import logging
import re
import urllib.parse
from typing import TYPE_CHECKING, Any

import jsonschema
import jsonschema.exceptions
import jsonschema.validators
import referencing
import referencing.exceptions
import referencing.jsonschema
from jsonschema_specifications import REGISTRY as _METASCHEMAS

from ._types import canonical_json, sha256_hex

if TYPE_CHECKING:
    from collections.abc import Callable

logger = logging.getLogger("mcpclient")

_VALIDATORS: dict[str, Validator | None] = {}
_WARNINGS: dict[str, tuple[str, ...]] = {}
_MAX_CACHED = 1024
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")
# Where subschemas live (drafts 4 to 2020-12). Anything else is data or a keyword no validator
# applies, so a "$ref" in it is never followed.
_SCHEMA_MAPS = frozenset(
    {
        "properties",
        "patternProperties",
        "$defs",
        "definitions",
        "dependentSchemas",
        "dependencies",
    }
)
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_SCHEMA_VALUES = frozenset(
    {
        "not",
        "if",
        "then",
        "else",
        "items",
        "additionalItems",
        "additionalProperties",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)


def _refuse(uri: str) -> referencing.Resource[Any]:
    """The registry's retrieve hook: nothing outside the document is ever fetched."""
    # An attrs exception; mypy's view of its generated __init__ misses the field.
    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]


#: Metaschemas (in memory, from jsonschema-specifications) plus a retrieve hook that refuses.
LOCAL_ONLY: referencing.Registry[Any] = _METASCHEMAS.combine(
    referencing.Registry(retrieve=_refuse)  # type: ignore[call-arg]
)


def schema_hash(schema: Any) -> str:
    return sha256_hex(canonical_json(schema))


def without_unresolvable_refs(schema: Any) -> tuple[Any, list[str]]:
    """``schema`` minus every reference that does not resolve inside it, and the refs removed.

    Same-document pointers (``#/$defs/x``), anchors and ``$id``-named subschemas (``urn:…``) resolve;
    anything else (``http://…``, ``file://…``, a relative ref against a remote ``$id``) would need a
    retrieval, which the registry refuses. The copy keeps every other keyword, so validation still
    checks what it can.
    """
    if not isinstance(schema, dict):
        return schema, []
    resource = referencing.Resource.from_contents(
        schema, default_specification=referencing.jsonschema.DRAFT202012
    )
    root_uri = resource.id() or ""
    registry = LOCAL_ONLY.with_resource(root_uri, resource).crawl()
    dropped: list[str] = []

    def resolves(ref: Any, base: str) -> bool:
        if not isinstance(ref, str):
            return False
        try:
            registry.resolver(base_uri=base).lookup(ref)
        except referencing.exceptions.Unresolvable:
            return False
        except Exception:  # a malformed pointer or URI: it cannot resolve either
            return False
        return True

    def clean(node: Any, base: str) -> Any:
        # Recursion is bounded: messages are depth-limited (_jsonrpc.MAX_DEPTH).
        if not isinstance(node, dict):
            return node
        node_id = node.get("$id")
        if isinstance(node_id, str):
            base = urllib.parse.urljoin(base, node_id)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _REF_KEYWORDS and not resolves(value, base):
                dropped.append(f"{key} {value!r}")
                continue
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                value = {name: clean(sub, base) for name, sub in value.items()}
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                value = [clean(sub, base) for sub in value]
            elif key in _SCHEMA_VALUES:
                value = clean(value, base)
            out[key] = value
        return out

    cleaned = clean(schema, root_uri)
    return cleaned, dropped


class Validator:
    """A schema compiled once: a fast Python check for plain schemas, jsonschema for the rest.

    Most tool schemas are "an object with typed properties, some required". For those a closure
    answers "valid" in a few microseconds; jsonschema runs only when that check says "invalid"
    (to word the errors) or when the schema uses anything beyond the plain keywords.
    ``warnings`` lists what of the schema is not enforced (references that would need a fetch).
    """

    __slots__ = ("fast", "full", "warnings")

    def __init__(self, schema: dict[str, Any]) -> None:
        cls = jsonschema.validators.validator_for(
            schema, default=jsonschema.Draft202012Validator
        )
        cls.check_schema(schema)
        cleaned, dropped = without_unresolvable_refs(schema)
        self.warnings = tuple(
            f"not enforced: {ref} does not resolve inside the schema (never fetched)"
            for ref in dropped
        )
        self.full = cls(cleaned, registry=LOCAL_ONLY)
        self.fast = _compile(cleaned)

    def errors(self, instance: Any) -> list[str]:
        """Human-readable validation errors; empty when valid."""
        if self.fast is not None and self.fast(instance):
            return []
        try:
            return [
                f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
                for e in self.full.iter_errors(instance)
            ][:10]
        except Exception as exc:  # e.g. a "pattern" that is not a regex
            # Fail closed: a schema we cannot apply is reported, never taken as "valid".
            return [f"<schema>: cannot be applied: {type(exc).__name__}: {exc}"[:500]]


def validator_for(schema: dict[str, Any], digest: str) -> Validator | None:
    """The compiled validator for ``schema`` (cached by its hash); None if the schema itself is invalid.

    ``warnings_for(digest)`` then says why nothing (or not everything) is enforced.
    """
    try:
        return _VALIDATORS[digest]
    except KeyError:
        pass
    validator: Validator | None
    try:
        validator = Validator(schema)
        warnings = validator.warnings
    except (jsonschema.exceptions.SchemaError, TypeError, RecursionError) as exc:
        validator = None
        reason = (
            exc.message if isinstance(exc, jsonschema.exceptions.SchemaError) else exc
        )
        warnings = (f"not enforced: not a valid JSON Schema ({reason})",)
    if len(_VALIDATORS) >= _MAX_CACHED:
        oldest = next(iter(_VALIDATORS))
        _VALIDATORS.pop(oldest)
        _WARNINGS.pop(oldest, None)
    _VALIDATORS[digest] = validator
    _WARNINGS[digest] = warnings
    return validator


def warnings_for(digest: str) -> tuple[str, ...]:
    """What ``validator_for(…, digest)`` could not enforce (empty when everything is)."""
    return _WARNINGS.get(digest, ())


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


def _any_of(checks: list[Callable[[Any], bool]]) -> Callable[[Any], bool]:
    return lambda v: any(c(v) for c in checks)


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
        checks.append(type_checks[0] if len(type_checks) == 1 else _any_of(type_checks))
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
            if not isinstance(token, str) or not _TOKEN.fullmatch(token):
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
