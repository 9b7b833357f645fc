"""The fork server (issue 19 item 4): bundled stdio servers start as forks of a pre-imported process.

Real processes throughout: the worker-side handle (diagnosis.engine.forkserver) starts
`python -m mcpservers.forkserver`; mcpclient starts `python -m mcpservers.launch <name>` as the
session pool does; the servers answer real MCP requests.
"""

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import mcpclient
from diagnosis import registry
from diagnosis.engine.forkserver import ForkServer
from tests.livestack import wait_for

pytestmark = pytest.mark.slow

SCENARIO = "k8s-db-auth-crashloop"


def _entry(name: str) -> registry.ServerEntry:
    root = registry.bundled_scenarios_dir()
    assert root is not None
    for env in registry.demo_environments(root):
        if env.name == registry.demo_environment_name(SCENARIO):
            return next(e for e in env.servers if e.name == name)
    raise AssertionError(f"no demo environment for {SCENARIO}")


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            out.update(int(p) for p in (task / "children").read_text().split())
        except OSError:
            continue
    return out


def _alive(pid: int) -> bool:
    # The process can end between any two of these steps: reading /proc of a process that has just
    # gone raises ProcessLookupError (ESRCH) or FileNotFoundError, and both mean "not alive".
    try:
        os.kill(pid, 0)
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (ProcessLookupError, FileNotFoundError):
        return False
    return stat[0] != "Z"


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]


def _environ(pid: int) -> str:
    return Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")


async def _list(entry, environ, *, forkserver=None):
    """Start the entry through mcpclient, list its tools; (launcher pid, forked pid, tool names)."""
    spec = registry.client_server(entry, environ=environ)
    before = _children(forkserver.pid) if forkserver and forkserver.pid else set()
    async with mcpclient.connect(spec, timeout=60) as session:
        tools = await session.list_tools()
        launcher = session.transport.pid
        forked = None
        if forkserver is not None and forkserver.pid is not None:
            (forked,) = _children(forkserver.pid) - before
    return launcher, forked, sorted(t.name for t in tools)


def test_demo_servers_start_through_the_launcher():
    entry = _entry("logs")
    assert entry.command[1:4] == ("-m", "mcpservers.launch", "logs")
    assert registry.launched(entry)
    assert registry.FORKSERVER_ENV not in registry.child_env(entry, {"PATH": "/bin"})
    assert registry.child_env(entry, {registry.FORKSERVER_ENV: "/x/fork.sock"}) == {
        registry.FORKSERVER_ENV: "/x/fork.sock"
    }
    # Any other stdio server never sees the variable.
    other = registry.ServerEntry(
        name="other", transport="stdio", command=(sys.executable, "-m", "other")
    )
    assert not registry.launched(other)
    assert registry.child_env(other, {registry.FORKSERVER_ENV: "/x"}) == {}


def test_a_forked_server_answers_as_a_started_one_and_costs_a_fraction():
    async def scenario():
        forkserver = ForkServer()
        try:
            plain = await _list(_entry("runbooks"), os.environ)
            environ = await forkserver.environ(os.environ)
            assert forkserver.pid is not None
            forked = await _list(_entry("runbooks"), environ, forkserver=forkserver)
            return plain, forked, forkserver.pid
        finally:
            await forkserver.close()

    (plain_pid, _, plain_tools), (launcher, forked, tools), fs_pid = asyncio.run(
        scenario()
    )
    assert tools == plain_tools and tools
    # Without a fork server the launcher became the server itself (exec).
    assert plain_pid != launcher and forked is not None and forked != launcher
    assert not _alive(forked) and not _alive(launcher) and not _alive(fs_pid)


def test_the_fork_server_and_its_forks_carry_none_of_the_workers_secrets(monkeypatch):
    monkeypatch.setenv("AGENTOPS_TEST_SECRET", "s3cr3t-value")

    async def scenario():
        forkserver = ForkServer()
        try:
            environ = await forkserver.environ({**os.environ, "LANG": "C.UTF-8"})
            spec = registry.client_server(_entry("metrics"), environ=environ)
            before = _children(forkserver.pid)
            async with mcpclient.connect(spec, timeout=60) as session:
                await session.list_tools()
                (forked,) = _children(forkserver.pid) - before
                return _environ(forkserver.pid), _environ(forked), session.transport.pid
        finally:
            await forkserver.close()

    fs_env, forked_env, launcher = asyncio.run(scenario())
    assert "s3cr3t-value" not in fs_env and "s3cr3t-value" not in forked_env
    assert "AGENTOPS_TEST_SECRET" not in _environ_of_dead_safe(launcher)


def _environ_of_dead_safe(pid: int) -> str:
    try:
        return _environ(pid)
    except OSError:
        return ""


def test_a_killed_launcher_takes_its_forked_server_with_it_and_sigterm_is_passed_on():
    async def scenario():
        forkserver = ForkServer()
        try:
            environ = await forkserver.environ(os.environ)
            pids = []
            for sig in (signal.SIGKILL, signal.SIGTERM):
                spec = registry.client_server(_entry("runbooks"), environ=environ)
                before = _children(forkserver.pid)
                async with mcpclient.connect(spec, timeout=60) as session:
                    await session.list_tools()
                    (forked,) = _children(forkserver.pid) - before
                    launcher = session.transport.pid
                    os.kill(launcher, sig)
                    await asyncio.to_thread(
                        wait_for,
                        lambda f=forked: not _alive(f),
                        timeout=15,
                        what=f"the forked server to end after {sig.name} to its launcher",
                    )
                    pids.append((launcher, forked))
            # The fork server is still serving after both.
            again = await _list(_entry("runbooks"), environ, forkserver=forkserver)
            return pids, again
        finally:
            await forkserver.close()

    pids, (_, _, tools) = asyncio.run(scenario())
    assert len(pids) == 2 and tools


def test_without_a_listening_fork_server_the_launcher_runs_the_server_itself(tmp_path):
    entry = _entry("runbooks")
    environ = {**os.environ, registry.FORKSERVER_ENV: str(tmp_path / "nobody.sock")}

    async def scenario():
        spec = registry.client_server(entry, environ=environ)
        async with mcpclient.connect(spec, timeout=60) as session:
            tools = await session.list_tools()
            return _cmdline(session.transport.pid), tools

    cmdline, tools = asyncio.run(scenario())
    assert tools
    assert cmdline[1:3] == [
        "-m",
        "mcpservers.runbooks",
    ]  # exec'd: the same pid, the server


def _start_forkserver(folder: Path) -> tuple[subprocess.Popen, Path]:
    path = folder / "fork.sock"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcpservers.forkserver", "--socket", str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={"PATH": os.environ["PATH"]},
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().decode().startswith("ready ")
    return proc, path


def _request(path: Path, payload: bytes, fds: list[int]) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as sock:
        sock.settimeout(30)
        sock.connect(str(path))
        socket.send_fds(sock, [payload], fds)
        return json.loads(sock.recv(4096))


def test_bad_requests_are_refused_and_the_fork_server_keeps_serving():
    folder = Path(tempfile.mkdtemp())
    proc, path = _start_forkserver(folder)
    try:
        null = os.open(os.devnull, os.O_RDWR)
        try:
            three = [null, null, null]
            cases = [
                (b"not json", three, "Expecting value"),
                (
                    json.dumps(
                        {"server": "nope", "argv": [], "env": {}, "cwd": "/"}
                    ).encode(),
                    three,
                    "unknown server",
                ),
                (
                    json.dumps(
                        {"server": "logs", "argv": "x", "env": {}, "cwd": "/"}
                    ).encode(),
                    three,
                    "argv",
                ),
                (
                    json.dumps(
                        {"server": "logs", "argv": [], "env": {"A": 1}, "cwd": "/"}
                    ).encode(),
                    three,
                    "env",
                ),
                (
                    json.dumps(
                        {"server": "logs", "argv": [], "env": {}, "cwd": "/"}
                    ).encode(),
                    [null],
                    "3 file descriptors",
                ),
            ]
            for payload, fds, reason in cases:
                reply = _request(path, payload, fds)
                assert "pid" not in reply and reason in reply["error"], (payload, reply)
            # A start that fails in the server itself (a bad flag) exits 2, reported as such.
            with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as sock:
                sock.settimeout(30)
                sock.connect(str(path))
                request = {"server": "logs", "argv": ["--bogus"], "env": {}, "cwd": "/"}
                socket.send_fds(sock, [json.dumps(request).encode()], three)
                assert "pid" in json.loads(sock.recv(4096))
                assert json.loads(sock.recv(4096)) == {"exit": 2}
        finally:
            os.close(null)
        assert proc.poll() is None
    finally:
        proc.stdin.close()  # the worker's end: its end of file stops the fork server
        assert proc.wait(timeout=15) == 0
    assert not path.exists()


def test_the_fork_server_refuses_a_socket_folder_others_can_open(tmp_path):
    folder = tmp_path / "open"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    result = subprocess.run(
        [sys.executable, "-m", "mcpservers.forkserver", "--socket", str(folder / "s")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "only its owner" in result.stderr


def test_closing_the_handle_ends_the_fork_server_and_every_fork():
    async def scenario():
        forkserver = ForkServer()
        environ = await forkserver.environ(os.environ)
        fs_pid = forkserver.pid
        spec = registry.client_server(_entry("runbooks"), environ=environ)
        stack = mcpclient.connect(spec, timeout=60)
        session = await stack.__aenter__()
        await session.list_tools()
        (forked,) = _children(fs_pid)
        began = time.monotonic()
        await forkserver.close()  # with a session still open: its server is killed too
        closed_in = time.monotonic() - began
        alive = _alive(forked), _alive(fs_pid)
        await stack.__aexit__(None, None, None)
        return alive, closed_in, forkserver.pid

    (forked_alive, fs_alive), closed_in, pid_after = asyncio.run(scenario())
    assert not forked_alive and not fs_alive and pid_after is None
    assert closed_in < 10


def test_the_session_pool_forks_bundled_servers_and_stops_its_fork_server_when_it_closes():
    from diagnosis.engine.server_pool import ServerPool, pool_key

    env_name = registry.demo_environment_name(SCENARIO)
    pool = ServerPool(idle_seconds=60)
    try:

        async def borrow_all():
            lent = []
            for name in ("logs", "metrics", "runbooks"):
                key = pool_key(env_name, _entry(name), tenant="t")
                lent.append(await pool.lend(key))
                pool.give_back(key)
            return lent

        lent = asyncio.run(borrow_all())
        fs_pid = pool.forkserver.pid
        assert fs_pid is not None and pool.forkserver.starts == 1
        forked = _children(fs_pid)
        assert len(forked) == 3  # each bundled server is a fork of the one fork server
        assert all(
            x.tools and x.pid not in forked for x in lent
        )  # the launchers stand in
    finally:
        pool.close(drain_seconds=5)
    assert not _alive(fs_pid) and not any(_alive(p) for p in forked)
    assert not any(_alive(x.pid) for x in lent)
