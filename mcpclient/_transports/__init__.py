"""Transports: stdio subprocess, Streamable HTTP, legacy HTTP+SSE and an in-memory pair for tests."""

from .base import Transport
from .legacy_sse import LegacySseTransport
from .memory import MemoryServerEnd, MemoryTransport, memory_pair
from .stdio import StdioTransport
from .streamable_http import StreamableHttpTransport, map_httpx_errors

__all__ = [
    "LegacySseTransport",
    "MemoryServerEnd",
    "MemoryTransport",
    "StdioTransport",
    "StreamableHttpTransport",
    "Transport",
    "map_httpx_errors",
    "memory_pair",
]
