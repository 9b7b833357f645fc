"""Demo listener sets shared by a process's diagnoses: one per folder, counted, kept idle for a while."""

import asyncio
import shutil
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from diagnosis.engine import shared_listeners
from diagnosis.engine.shared_listeners import ListenerSets
from mcpservers import scenarios
from mcpservers.scenarios import TargetsError

SLUG = "pool-exhaustion"  # two HTTP targets on one listener
FOLDER = scenarios.ROOT / SLUG


def _scenario_threads():
    return [t for t in threading.enumerate() if t.name.startswith("scenario-")]


def _ports(live):
    return sorted({urlsplit(p.url).port for p in live.probes.values()})


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError:
        return False
    return True


def _wait_until(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.fixture
def no_stray_sets():
    before = set(_scenario_threads())
    yield
    assert set(_scenario_threads()) <= before


@pytest.fixture
def sets(no_stray_sets):
    pool = ListenerSets(idle_seconds=60)
    yield pool
    pool.close()


def test_two_borrowers_of_a_folder_share_one_set_on_the_same_ports(sets):
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda _: sets.acquire(SLUG), range(2))
    try:
        assert first is second
        assert sets.running() == {FOLDER: 2}
        assert len(_scenario_threads()) == 1
        assert all(_answers(port) for port in _ports(first))
        # netcheck is given exactly this set's listeners.
        assert set(first.allow) <= set(first.server_args()["netcheck"])
    finally:
        sets.release(first)
        sets.release(second)
    assert sets.running() == {FOLDER: 0}  # idle, not stopped


def test_a_set_given_back_is_lent_again_on_its_ports_within_the_idle_time(sets):
    with sets.borrow(SLUG) as live:
        ports = _ports(live)
    assert sets.running() == {FOLDER: 0}
    with sets.borrow(str(FOLDER)) as again:  # the folder's path is the same folder
        assert again is live
        assert _ports(again) == ports
        assert all(_answers(port) for port in ports)


def test_a_set_idle_past_its_time_is_stopped_and_its_ports_closed(no_stray_sets):
    sets = ListenerSets(idle_seconds=0.2)
    try:
        with sets.borrow(SLUG) as live:
            ports = _ports(live)
        _wait_until(lambda: sets.running() == {})
        _wait_until(lambda: _scenario_threads() == [])
        assert not any(_answers(port) for port in ports)
        with sets.borrow(SLUG) as fresh:  # a new set after that
            assert fresh is not live
            assert all(_answers(port) for port in _ports(fresh))
    finally:
        sets.close()


def test_a_set_borrowed_again_before_its_time_is_not_stopped(no_stray_sets):
    sets = ListenerSets(idle_seconds=0.3)
    try:
        with sets.borrow(SLUG) as live:
            pass
        with sets.borrow(SLUG) as again:
            time.sleep(0.6)  # past the idle time of the first give-back
            assert again is live and sets.running() == {FOLDER: 1}
            assert all(_answers(port) for port in _ports(live))
    finally:
        sets.close()


def test_a_failed_start_is_not_kept_and_the_next_borrower_starts_it(sets, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(FOLDER, folder)
    good = (folder / "targets.json").read_text()
    (folder / "targets.json").write_text('{"targets": [{"name": "x"}]}')
    with pytest.raises(TargetsError):
        sets.acquire(folder)
    assert sets.running() == {}
    (folder / "targets.json").write_text(good)
    with sets.borrow(folder) as live:
        assert sets.running() == {folder.resolve(): 1}
        assert all(_answers(port) for port in _ports(live))
    with sets.borrow(SLUG) as other:  # and other folders were never in the way
        assert other is not live


def test_a_set_outlives_the_event_loop_of_the_diagnosis_that_started_it(sets):
    async def diagnosis():
        async with sets.borrow_async(SLUG) as live:
            port = _ports(live)[0]
            _, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port), 5
            )
            writer.close()
            await writer.wait_closed()
            return live

    first = asyncio.run(diagnosis())
    second = asyncio.run(diagnosis())  # a re-queued attempt: a new loop, the same set
    assert second is first
    assert sets.running() == {FOLDER: 0}


def test_a_diagnosis_cancelled_while_the_set_starts_gives_it_back(sets):
    async def cancelled():
        task = asyncio.create_task(_hold(sets))
        await asyncio.sleep(0)  # the start is under way in its thread
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancelled())
    _wait_until(lambda: sets.running() == {FOLDER: 0})


async def _hold(sets):
    async with sets.borrow_async(SLUG):
        await asyncio.Event().wait()


def test_close_stops_borrowed_and_idle_sets_and_later_borrows_raise(no_stray_sets):
    sets = ListenerSets(idle_seconds=60)
    held = sets.acquire(SLUG)
    with sets.borrow("tls-expired"):
        pass
    assert len(_scenario_threads()) == 2
    sets.close()
    assert _scenario_threads() == []
    assert not any(_answers(port) for port in _ports(held))
    # A borrower that ends after the close: nothing is left to give back.
    sets.release(held)
    with pytest.raises(RuntimeError, match="closed"):
        sets.acquire(SLUG)


def test_the_process_sets_are_made_once_and_closed_on_worker_shutdown(no_stray_sets):
    from celery import signals

    shared_listeners.close_process_sets()
    sets = shared_listeners.process_sets(idle_seconds=60)
    assert shared_listeners.process_sets(idle_seconds=1) is sets
    with sets.borrow(SLUG):
        pass
    shared_listeners.install()
    signals.worker_shutdown.send(sender=None)
    assert _scenario_threads() == []
    with pytest.raises(RuntimeError, match="closed"):
        sets.acquire(SLUG)
    assert shared_listeners.process_sets(idle_seconds=60) is not sets
    shared_listeners.close_process_sets()
