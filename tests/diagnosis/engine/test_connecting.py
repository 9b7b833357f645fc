"""The connecting phase runs beside the run, never in front of it (issue 19 items 2 and 5): a
server that takes its time to start holds back no call to the others, and its announcements
stop with the run."""

import asyncio

from diagnosis.engine.connecting import announced
from diagnosis.engine.sessions import ServerUnavailable
from diagnosis.registry import Environment, ServerEntry


class _Connected:
    tools = {"t": object()}


class _Pool:
    """`get` answers at once, except for `slow` (never) and `broken` (fails)."""

    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def get(self, server: str) -> _Connected:
        if server == "slow":
            await self.release.wait()
        if server == "broken":
            raise ServerUnavailable(server, ConnectionRefusedError("refused"))
        return _Connected()


def _environment(*names: str) -> Environment:
    return Environment(
        name="env",
        description="",
        servers=tuple(
            ServerEntry(name=n, transport="stdio", command=("x",)) for n in names
        ),
    )


def test_a_slow_server_holds_back_neither_the_block_nor_the_others_announcements():
    emitted: list[tuple[str, str]] = []

    async def emit(kind, data) -> None:
        emitted.append((data["server"], data["state"]))

    async def main() -> list[tuple[str, str]]:
        pool = _Pool()
        async with announced(_environment("logs", "slow", "broken"), pool, emit):
            for _ in range(50):  # the fast ones finish while the slow one waits
                if ("logs", "ready") in emitted and ("broken", "failed") in emitted:
                    break
                await asyncio.sleep(0.01)
            inside = list(emitted)
        # The block ended while "slow" still connected: its announcement was stopped.
        await asyncio.sleep(0.05)
        return inside

    inside = asyncio.run(main())

    assert ("logs", "ready") in inside and ("broken", "failed") in inside
    assert ("slow", "connecting") in inside
    assert ("slow", "ready") not in emitted


def test_an_announcement_that_cannot_be_written_does_not_end_the_run(caplog):
    async def emit(kind, data) -> None:
        raise OSError("database away")

    async def main() -> str:
        async with announced(_environment("logs"), _Pool(), emit):
            await asyncio.sleep(0.02)
        return "run went on"

    assert asyncio.run(main()) == "run went on"
    assert "announcing the servers' states failed" in caplog.text
