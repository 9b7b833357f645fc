"""The SSE parser: WHATWG framing however the bytes are chunked."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpclient import MessageTooLarge
from mcpclient._sse import SseParser

STREAM = (
    b": comment\r\n"
    b"retry: 250\r\n"
    b"id: 1\r\n"
    b"data:\r\n\r\n"
    b"event: message\n"
    b'data: {"a":\n'
    b"data:1}\n\n"
    b"id: 2\r"
    b"event:endpoint\r"
    b"data:/messages?x=1\r\r"
    b"unknown: field\n"
    b"retry: soon\n"
    b"id: bad\x00id\n"
    b"data\n\n"
)


def parse(chunks):
    parser = SseParser(1 << 20)
    events = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    return [(e.event, e.data, e.id, e.retry) for e in events], parser


EXPECTED = [
    ("message", "", "1", 250),
    ("message", '{"a":\n1}', "1", None),
    ("endpoint", "/messages?x=1", "2", None),
    ("message", "", "2", None),
]


def test_a_whole_stream_parses():
    events, parser = parse([STREAM])
    assert events == EXPECTED
    assert parser.last_event_id == "2" and parser.retry_ms == 250


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=20))
def test_any_chunking_gives_the_same_events(cuts):
    points = sorted(set(cuts))
    chunks = [
        STREAM[a:b] for a, b in zip([0, *points], [*points, len(STREAM)], strict=True)
    ]
    assert parse(chunks)[0] == EXPECTED


def test_one_byte_at_a_time():
    assert parse([STREAM[i : i + 1] for i in range(len(STREAM))])[0] == EXPECTED


def test_an_event_over_the_limit_raises_whether_in_lines_or_in_one_long_line():
    with pytest.raises(MessageTooLarge):
        SseParser(100).feed(b"data: " + b"x" * 60 + b"\ndata: " + b"y" * 60 + b"\n")
    parser = SseParser(100)
    parser.feed(b"data: " + b"x" * 50)
    with pytest.raises(MessageTooLarge):
        parser.feed(b"x" * 60)
