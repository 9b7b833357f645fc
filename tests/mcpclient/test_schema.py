"""Schema helpers: the fast validator agrees with jsonschema; x-mcp-header maps and their rejections."""

from __future__ import annotations

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpclient import _schema

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(-5, 5, allow_nan=False)
    | st.sampled_from(["", "a", "text"]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(["a", "b", "text", "n", "x"]), children, max_size=4
        )
    ),
    max_leaves=8,
)

PLAIN = [
    {
        "type": "object",
        "properties": {"text": {"type": "string", "title": "Text"}},
        "required": ["text"],
    },
    {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": ["number", "null"]}},
        "additionalProperties": False,
    },
    {
        "type": "object",
        "properties": {"n": {"type": "array", "items": {"type": "boolean"}}},
        "additionalProperties": {"type": "string"},
    },
    {
        "properties": {
            "a": {
                "type": "object",
                "properties": {"x": {"type": "integer"}},
                "required": ["x"],
            }
        }
    },
    {"type": "array", "items": {"type": "integer"}},
    {},
]
RICH = [
    {"type": "object", "properties": {"a": {"type": "integer", "minimum": 3}}},
    {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    {"type": "object", "properties": {"a": {"enum": [1, 2]}}},
    {"type": "object", "required": "a"},
    {"type": "unknown-type"},
    {"type": "object", "additionalProperties": {"minLength": 2}},
    {"type": "array", "items": {"const": 1}},
    {"properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"type": "string"}}},
]


@pytest.mark.parametrize("schema", PLAIN)
def test_plain_schemas_get_a_fast_check(schema):
    assert _schema._compile(schema) is not None


@pytest.mark.parametrize("schema", RICH)
def test_other_schemas_fall_back_to_jsonschema(schema):
    assert _schema._compile(schema) is None


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PLAIN + RICH[:3] + RICH[5:]), json_values)
def test_the_validator_agrees_with_jsonschema(schema, instance):
    validator = _schema.Validator(schema)
    expected = jsonschema.Draft202012Validator(schema).is_valid(instance)
    assert (validator.errors(instance) == []) == expected


def test_an_invalid_schema_compiles_to_none_and_validates_nothing():
    assert _schema.validator_for({"type": 12}, "bad-digest") is None
    assert _schema.errors_of(None, {"anything": 1}) == []


def test_the_validator_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(_schema, "_MAX_CACHED", 2)
    monkeypatch.setattr(_schema, "_VALIDATORS", {})
    for i in range(3):
        _schema.validator_for({"type": "object"}, f"d{i}")
    assert list(_schema._VALIDATORS) == ["d1", "d2"]


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        ({"type": "object", "x-mcp-header": "Root"}, "root"),
        (
            {"properties": {"a": {"type": "string", "x-mcp-header": "bad token"}}},
            "not a token",
        ),
        ({"properties": {"a": {"type": "string", "x-mcp-header": 5}}}, "not a token"),
        (
            {"properties": {"a": {"type": "number", "x-mcp-header": "A"}}},
            "string, integer or boolean",
        ),
        (
            {
                "properties": {
                    "a": {"type": "string", "x-mcp-header": "A"},
                    "b": {"type": "string", "x-mcp-header": "a"},
                }
            },
            "twice",
        ),
    ],
)
def test_invalid_x_mcp_header_annotations_are_reported(schema, reason):
    assert reason in _schema.x_mcp_headers(schema)


def test_x_mcp_header_maps_nested_paths_and_renders_values():
    schema = {
        "properties": {
            "top": {"type": "boolean", "x-mcp-header": "Top"},
            "o": {"properties": {"deep": {"type": "integer", "x-mcp-header": "Deep"}}},
        }
    }
    header_map = _schema.x_mcp_headers(schema)
    assert header_map == {("top",): "Top", ("o", "deep"): "Deep"}
    assert _schema.param_headers(header_map, {"top": True, "o": {"deep": 7}}) == {
        "mcp-param-Top": "true",
        "mcp-param-Deep": "7",
    }
    assert _schema.param_headers(header_map, {"top": False, "o": "not an object"}) == {
        "mcp-param-Top": "false"
    }
    assert _schema.param_headers(header_map, {"o": {"deep": [1]}}) == {}
