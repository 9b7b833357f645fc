"""Demo listener sets shared by the diagnoses of one worker process (issue 19 item 3).

The rule: one set of a scenario folder's listeners (`mcpservers.scenarios.run_in_thread`:
its own thread and event loop, so it outlives any one diagnosis's loop) per folder and
process, started by the first diagnosis that needs it and shared by every diagnosis of that
folder. It is counted: it stays up while any diagnosis holds it and for `idle_seconds` after
the last one gives it back, on the ports it got at start. A diagnosis re-queued within that
time (an approval, a crash recovery in the same process) therefore probes the ports it
probed before, and netcheck, whose allowlist comes from the set, allows them. A start that
fails is not kept: the next diagnosis starts the set again. `close()` stops every set; the
worker calls `close_process_sets` on shutdown (agentops/celery.py), and atexit does too.

Not shared across processes: another worker process (or host) has its own sets, on its own
ports. A folder is read when its set starts; an edit to it shows once the set has closed.

No Django here: the idle time comes from the caller (diagnosis.engine.live, from settings).
"""

import asyncio
import atexit
import concurrent.futures
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(eq=False)
class _Set:
    folder: Path
    # Held by whoever starts the set, so two first borrowers start it once.
    starting: threading.Lock = field(default_factory=threading.Lock)
    live: Any = None  # mcpservers.scenarios.LiveScenario once started
    context: contextlib.AbstractContextManager[Any] | None = None  # run_in_thread's
    users: int = 0
    idle_since: float | None = None


class ListenerSets:
    """The listener sets of one process, by scenario folder; thread-safe."""

    def __init__(self, *, idle_seconds: float, start_timeout_s: float = 30.0) -> None:
        self.idle_seconds = idle_seconds
        self._start_timeout_s = start_timeout_s
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._sets: dict[Path, _Set] = {}
        self._closed = False
        self._reaper: threading.Thread | None = None

    def acquire(self, folder: str | Path) -> Any:
        """The folder's running LiveScenario, started if no set runs; `release()` it when done.

        Blocks while the set starts (another borrower's start included).

        Raises:
            UnknownScenario, TargetsError, TimeoutError, RuntimeError: the set could not start
                (nothing is kept of it: the next call tries again).
            RuntimeError: the sets are closed.
        """
        from mcpservers import scenarios

        path = scenarios.load(folder).path
        with self._lock:
            if self._closed:
                raise RuntimeError("the demo listener sets are closed")
            entry = self._sets.setdefault(path, _Set(path))
            entry.users += 1
            entry.idle_since = None
        try:
            with entry.starting:
                if entry.live is None:
                    context = scenarios.run_in_thread(
                        path, timeout_s=self._start_timeout_s
                    )
                    entry.live = context.__enter__()
                    entry.context = context
            with self._lock:
                if self._closed:  # close() ran while this set started
                    raise RuntimeError("the demo listener sets are closed")
        except BaseException:
            self._give_back(entry)
            raise
        return entry.live

    def release(self, live: Any) -> None:
        """Give back a set `acquire()` returned; the last borrower starts its idle time."""
        with self._lock:
            entry = self._sets.get(live.scenario.path)
            if entry is not None:  # None: close() stopped it meanwhile
                self._give_back_locked(entry)

    @contextlib.contextmanager
    def borrow(self, folder: str | Path) -> Iterator[Any]:
        live = self.acquire(folder)
        try:
            yield live
        finally:
            self.release(live)

    @contextlib.asynccontextmanager
    async def borrow_async(self, folder: str | Path) -> AsyncIterator[Any]:
        """`borrow()` for a coroutine: the start waits in a thread, not on the caller's loop.

        Cancelled while the set starts, the borrow is given back once the start is over.
        """
        started: concurrent.futures.Future[Any] = concurrent.futures.Future()
        started.set_running_or_notify_cancel()  # so cancelling the await leaves it be

        def start() -> None:
            try:
                started.set_result(self.acquire(folder))
            except BaseException as exc:
                started.set_exception(exc)

        threading.Thread(target=start, name="demo-listeners-start", daemon=True).start()
        try:
            live = await asyncio.wrap_future(started)
        except asyncio.CancelledError:
            started.add_done_callback(
                lambda done: None if done.exception() else self.release(done.result())
            )
            raise
        try:
            yield live
        finally:
            self.release(live)

    def running(self) -> dict[Path, int]:
        """The folders whose sets run, each with its number of borrowers (0: idle)."""
        with self._lock:
            return {
                path: entry.users
                for path, entry in self._sets.items()
                if entry.live is not None
            }

    def close(self) -> None:
        """Stop every set, borrowed or not, and the idle reaper; later acquires raise."""
        with self._lock:
            self._closed = True
            entries = list(self._sets.values())
            self._sets.clear()
            reaper, self._reaper = self._reaper, None
            self._changed.notify_all()
        for entry in entries:
            _stop(entry)
        if reaper is not None and reaper is not threading.current_thread():
            reaper.join()

    # --- giving back and the idle reaper ---------------------------------------------------

    def _give_back(self, entry: _Set) -> None:
        with self._lock:
            self._give_back_locked(entry)

    def _give_back_locked(self, entry: _Set) -> None:
        entry.users -= 1
        if entry.users > 0:
            return
        if entry.live is None:  # a failed start: nothing to keep
            if self._sets.get(entry.folder) is entry:
                del self._sets[entry.folder]
            return
        entry.idle_since = time.monotonic()
        if self._reaper is None and not self._closed:
            self._reaper = threading.Thread(
                target=self._reap, name="demo-listeners-reaper", daemon=True
            )
            self._reaper.start()
        self._changed.notify_all()

    def _reap(self) -> None:
        # Stops sets idle for idle_seconds; ends when no set is left (the next idle set
        # starts another reaper).
        while True:
            with self._lock:
                if self._closed or self._reaper is not threading.current_thread():
                    return
                now = time.monotonic()
                expired = [
                    e
                    for e in self._sets.values()
                    if e.idle_since is not None
                    and now - e.idle_since >= self.idle_seconds
                ]
                for entry in expired:
                    del self._sets[entry.folder]
                if not expired:
                    if not self._sets:
                        self._reaper = None
                        return
                    waits = [
                        e.idle_since + self.idle_seconds - now
                        for e in self._sets.values()
                        if e.idle_since is not None
                    ]
                    self._changed.wait(min(waits) if waits else None)
                    continue
            for entry in expired:
                _stop(entry)


def _stop(entry: _Set) -> None:
    # Waits for a start in progress, so close() leaves no set running behind it.
    with entry.starting:
        context, entry.context = entry.context, None
        if context is not None:
            context.__exit__(None, None, None)


# --- the process's sets ---------------------------------------------------------------------

_process_lock = threading.Lock()
_process_sets: ListenerSets | None = None


def process_sets(*, idle_seconds: float) -> ListenerSets:
    """This process's sets, made on first use (`idle_seconds` counts then only)."""
    global _process_sets
    with _process_lock:
        if _process_sets is None:
            _process_sets = ListenerSets(idle_seconds=idle_seconds)
            atexit.register(close_process_sets)
        return _process_sets


def close_process_sets(**_: Any) -> None:
    """Stop this process's sets (the worker's shutdown signals, atexit, tests); idempotent."""
    global _process_sets
    with _process_lock:
        sets, _process_sets = _process_sets, None
    if sets is not None:
        atexit.unregister(close_process_sets)
        sets.close()


def install() -> None:
    """Close the sets when a Celery worker shuts down (idempotent: keyed by dispatch_uid).

    worker_shutdown fires in the worker's main process (the threads and solo pools run
    diagnoses there); worker_process_shutdown in each prefork child.
    """
    from celery import signals

    signals.worker_shutdown.connect(
        close_process_sets, dispatch_uid="agentops.demo_listeners", weak=False
    )
    signals.worker_process_shutdown.connect(
        close_process_sets, dispatch_uid="agentops.demo_listeners", weak=False
    )
