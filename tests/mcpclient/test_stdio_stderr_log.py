"""The stdio transport's stderr log, fed in chunks the way pipes deliver them."""

import mcpclient
from mcpclient._transports.stdio import _STDERR_LINE_LIMIT, StdioTransport


def test_a_long_line_split_across_chunks_keeps_its_head():
    transport = StdioTransport(mcpclient.StdioServer(command=["unused"]))
    line = b"line 49 " + b"x" * 9000
    for start in range(0, len(line), 1000):  # no chunk holds the whole line
        transport._on_stderr(line[start : start + 1000])
    transport._on_stderr(b"\nnext\n")
    assert list(transport.stderr) == [
        line[:_STDERR_LINE_LIMIT].decode(),
        "next",
    ]
