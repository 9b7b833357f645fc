"""Draining on SIGTERM under Daphne: a Twisted before-shutdown trigger.

Plain SIGTERM makes Daphne cancel every application and drop the sockets within ~50 ms, so clients
see a cut, not an end. Registered at import of the ASGI module (before Daphne registers its own
`kill_all_applications`), this trigger runs first: it flags every hub as draining and wakes each
stream, and the cancellation that follows is turned by the stream into `server_draining` (with
`retry:` advice) and a clean end of the body. Shutdown waits until the streams have ended and their
bytes left the socket buffers, at most SSE_DRAIN_SECONDS.
"""

import asyncio
import logging
import sys

from diagnosis.streaming import twisted_compat
from diagnosis.streaming.hub import all_hubs, setting

logger = logging.getLogger(__name__)

_installed = False


def install_shutdown_trigger() -> bool:
    """Register the trigger when running under Daphne's reactor; a no-op elsewhere."""
    global _installed
    reactor = sys.modules.get("twisted.internet.reactor")
    if _installed or reactor is None or "daphne.server" not in sys.modules:
        return _installed
    reactor.addSystemEventTrigger("before", "shutdown", _before_shutdown)
    _installed = True
    return True


def _before_shutdown() -> object:
    from twisted.internet import defer

    hubs = all_hubs()
    streams = sum(len(hub.streams) for hub in hubs)
    logger.info("sse: draining %d streams", streams)
    for hub in hubs:
        hub.drain()
    future = asyncio.ensure_future(wait_drained(setting("SSE_DRAIN_SECONDS", 3.0)))
    return defer.Deferred.fromFuture(future)


async def wait_drained(timeout: float) -> None:
    """Until every hub has no stream left and written bytes are flushed, or `timeout`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    try:
        async with asyncio.timeout(timeout):
            for hub in all_hubs():
                await hub.drained.wait()
            # The streams have ended; give the reactor a moment to flush the final chunks.
            from twisted.internet import reactor

            while loop.time() < deadline and twisted_compat.any_unflushed(
                _open_transports(reactor)
            ):
                await asyncio.sleep(0.02)
    except TimeoutError:
        logger.warning("sse: drain did not finish within %.1f s", timeout)


def _open_transports(reactor: object) -> list[object]:
    get_writers = getattr(reactor, "getWriters", None)
    return list(get_writers()) if get_writers else []
