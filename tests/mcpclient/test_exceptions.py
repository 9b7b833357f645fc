"""The error tree: every error knows its layer, whether a retry can help, whether it may have run."""

from __future__ import annotations

import inspect

import pytest

import mcpclient
from mcpclient import _exceptions

L = mcpclient.Layer


def leaves():
    return [
        (mcpclient.ConnectError("x"), L.TRANSPORT, True, False),
        (mcpclient.CircuitOpen("x"), L.TRANSPORT, True, False),
        (mcpclient.ConnectionLost("x"), L.TRANSPORT, True, True),
        (mcpclient.ResponseTimeout("x"), L.TRANSPORT, True, True),
        (mcpclient.HttpStatusError("x", status=400), L.TRANSPORT, False, False),
        (mcpclient.HttpStatusError("x", status=502), L.TRANSPORT, True, True),
        (mcpclient.HttpStatusError("x", status=503), L.TRANSPORT, True, False),
        (mcpclient.HttpStatusError("x", status=504), L.TRANSPORT, True, True),
        (mcpclient.RateLimited("x", retry_after=3), L.TRANSPORT, True, False),
        (mcpclient.SessionExpired("x"), L.TRANSPORT, True, False),
        (mcpclient.AuthorizationError("x", status=401), L.AUTHORIZATION, False, False),
        (mcpclient.JsonRpcError("x", code=-32601), L.PROTOCOL, False, False),
        (mcpclient.JsonRpcError("x", code=-32021), L.CAPABILITY, False, False),
        (mcpclient.MalformedMessage("x"), L.PROTOCOL, False, True),
        (mcpclient.VersionMismatch("x"), L.PROTOCOL, False, False),
        (mcpclient.CapabilityError("x"), L.CAPABILITY, False, False),
        (
            mcpclient.ToolValidationError("x", tool="t", errors=[]),
            L.TOOL_VALIDATION,
            False,
            False,
        ),
        (mcpclient.ToolExecutionError("x"), L.TOOL_EXECUTION, False, False),
        (mcpclient.MessageTooLarge("x", limit=1), L.RESULT_CONSUMPTION, False, True),
        (
            mcpclient.OutputSchemaMismatch("x", tool="t", errors=[]),
            L.RESULT_CONSUMPTION,
            False,
            False,
        ),
        (mcpclient.MalformedResult("x"), L.RESULT_CONSUMPTION, False, False),
    ]


@pytest.mark.parametrize(
    ("error", "layer", "retryable", "outcome_unknown"),
    leaves(),
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else None,
)
def test_each_leaf_knows_its_layer_retryability_and_outcome(
    error, layer, retryable, outcome_unknown
):
    assert isinstance(error, mcpclient.McpError)
    assert error.layer is layer
    assert error.retryable is retryable
    assert error.outcome_unknown is outcome_unknown
    assert error.code is not None


def test_every_exception_class_is_drawn_in_the_module_docstring():
    doc = _exceptions.__doc__
    for name, obj in vars(_exceptions).items():
        if inspect.isclass(obj) and issubclass(obj, Exception):
            assert name in doc, name


def test_every_exception_class_is_exported():
    for name, obj in vars(_exceptions).items():
        if inspect.isclass(obj) and issubclass(obj, Exception):
            assert getattr(mcpclient, name) is obj


def test_the_usage_error_is_outside_the_tree():
    assert issubclass(mcpclient.UsageError, RuntimeError)
    assert not issubclass(mcpclient.UsageError, mcpclient.McpError)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, {}),
        ("", {}),
        ("Bearer", {"scheme": "Bearer"}),
        (
            'Bearer realm="mcp", scope="a b"',
            {"scheme": "Bearer", "realm": "mcp", "scope": "a b"},
        ),
        (
            'Bearer error=insufficient_scope, scope="x\\"y"',
            {"scheme": "Bearer", "error": "insufficient_scope", "scope": 'x"y'},
        ),
        (
            "Bearer ,  resource_metadata=http://h/x ,",
            {"scheme": "Bearer", "resource_metadata": "http://h/x"},
        ),
        ("Bearer junk", {"scheme": "Bearer"}),
    ],
)
def test_www_authenticate_challenges_are_parsed(header, expected):
    assert _exceptions.parse_challenge(header) == expected


def test_messages_and_str():
    assert str(mcpclient.ConnectError("refused")) == "refused"
    assert mcpclient.ConnectError("refused").message == "refused"
    assert (
        str(mcpclient.JsonRpcError("Method not found", code=-32601))
        == "-32601: Method not found"
    )
    assert [str(m) for m in mcpclient.Layer] == [
        "transport",
        "authorization",
        "protocol",
        "capability",
        "tool_validation",
        "tool_execution",
        "result_consumption",
    ]
