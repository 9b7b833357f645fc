"""JSON-RPC framing helpers."""

from __future__ import annotations

import pytest

import mcpclient
from mcpclient import _jsonrpc


def test_encode_is_compact_utf8_without_newlines():
    data = _jsonrpc.encode(
        {"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"t": "a\nb é"}}
    )
    assert b"\n" not in data and "é".encode() in data and b", " not in data


def test_decode_refuses_what_is_not_a_jsonrpc_object():
    assert _jsonrpc.decode(b'{"jsonrpc":"2.0","id":1,"result":{}}')["id"] == 1
    for bad in (b"[]", b'{"id":1}', b"nope", b'{"jsonrpc":"1.0"}', b"\xff\xfe"):
        with pytest.raises(mcpclient.MalformedMessage):
            _jsonrpc.decode(bad)
    with pytest.raises(mcpclient.MalformedMessage):
        _jsonrpc.decode_batch(b"{}")
    with pytest.raises(mcpclient.MalformedMessage):
        _jsonrpc.decode_batch(b"[")


def test_message_builders():
    assert _jsonrpc.request(1, "ping", None) == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "ping",
    }
    assert _jsonrpc.notification("n", {"a": 1})["params"] == {"a": 1}
    assert _jsonrpc.is_response({"id": 1, "result": {}}) and not _jsonrpc.is_response(
        {"id": 1, "method": "x"}
    )


def test_nan_is_not_valid_json_and_is_refused():
    with pytest.raises(ValueError):
        _jsonrpc.encode({"x": float("nan")})
