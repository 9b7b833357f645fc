"""A pre-imported parent that forks a bundled stdio server per start (issue 19 item 4).

A `python -m mcpservers.<name>` start spends most of its CPU importing the MCP SDK and the
server's modules (bench/server_start.py). This process imports all of them once and then, for
every start, forks a child that runs the server's `main()` on the caller's own stdin, stdout and
stderr. The caller is `python -m mcpservers.launch <name> ARGS...` (mcpservers/launch.py), a
small process an MCP host spawns as it would spawn the server itself; it hands its three file
descriptors over this socket, relays signals to the child and exits with the child's status.

    python -m mcpservers.forkserver --socket PATH

Prints ``ready PATH`` on stdout once it listens. It stops (its children killed, the socket
removed) on SIGTERM, SIGINT or when its stdin reaches end of file: the worker that started it
holds the other end, so a worker that dies takes its fork server with it.

The protocol, one SOCK_SEQPACKET connection per start:
1. the launcher sends one message: JSON ``{"server", "argv", "env", "cwd"}`` with its fds 0, 1, 2
   attached (SCM_RIGHTS);
2. this process answers ``{"pid": N}`` (or ``{"error": "..."}``) and forks;
3. when the child exits it sends ``{"exit": CODE}`` (negative: killed by that signal) and closes.
If the launcher's connection closes first (it was killed), the child's process group is killed.
Only a peer of the same uid is served (SO_PEERCRED), and the socket lives in a 0700 directory.

The children run with the environment the launcher passed, not this process's; this process is
itself started with a minimal environment, since a forked child inherits its initial
environment block (/proc/PID/environ).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import json
import os
import selectors
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpservers._common.cli import prepare_start

if TYPE_CHECKING:
    from collections.abc import Callable

#: The servers a fork server can start: `mcpservers.<name>.__main__` each has `main(argv)`.
SERVERS = ("actions", "kubernetes", "logs", "metrics", "netcheck", "runbooks")
MAX_REQUEST = 256 * 1024  # one start's JSON (argv and environment), bytes
KILL_GRACE = 2.0  # at shutdown: SIGTERM to the children, then SIGKILL after this long


class _Child:
    def __init__(self, pid: int, pidfd: int, conn: socket.socket) -> None:
        self.pid, self.pidfd, self.conn = pid, pidfd, conn
        self.reaped = False


class ForkServer:
    """The accept loop: one selector over the socket, stdin, each child's pidfd and connection."""

    def __init__(
        self, listener: socket.socket, mains: dict[str, Callable[..., Any]]
    ) -> None:
        self.listener, self.mains = listener, mains
        self.selector = selectors.DefaultSelector()
        self.children: dict[int, _Child] = {}  # by pid
        self.stopping = False

    def serve(self) -> None:
        self.selector.register(self.listener, selectors.EVENT_READ, ("accept", None))
        with contextlib.suppress(
            ValueError, OSError
        ):  # stdin closed or not a pipe: no watch
            self.selector.register(
                sys.stdin.fileno(), selectors.EVENT_READ, ("stdin", None)
            )
        while not self.stopping:
            for key, _ in self.selector.select(timeout=1.0):
                what, child = key.data
                if what == "accept":
                    self._accept()
                elif what == "stdin":
                    if not os.read(sys.stdin.fileno(), 4096):
                        self.stopping = True
                elif what == "exit":
                    self._reap(child)
                elif what == "conn":
                    self._launcher_gone(child)
        self.shutdown()

    def _accept(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        try:
            self._start(conn)
        except Exception as exc:  # a bad request never stops the server
            with contextlib.suppress(OSError):
                conn.send(json.dumps({"error": str(exc)}).encode())
            conn.close()

    def _start(self, conn: socket.socket) -> None:
        conn.settimeout(5.0)  # a launcher that connects and says nothing is dropped
        creds = conn.getsockopt(
            socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")
        )
        _, uid, _ = struct.unpack("3i", creds)
        if uid != os.getuid():
            raise PermissionError(f"uid {uid} may not start servers here")
        data, fds, _, _ = socket.recv_fds(conn, MAX_REQUEST, 3)
        try:
            if len(fds) != 3:
                raise ValueError(f"expected 3 file descriptors, got {len(fds)}")
            request = json.loads(data)
            server, argv, env, cwd = _validated(request)
            if server not in self.mains:
                raise ValueError(
                    f"unknown server {server!r} (known: {', '.join(self.mains)})"
                )
            pid = os.fork()
            if pid == 0:  # the child never returns from here
                _run_child(
                    self.mains[server], server, argv, env, cwd, fds, self._own_fds(conn)
                )
        finally:
            for fd in fds:
                os.close(fd)
        pidfd = os.pidfd_open(pid)
        child = self.children[pid] = _Child(pid, pidfd, conn)
        self.selector.register(
            pidfd, selectors.EVENT_READ, ("exit", child)
        )  # reaped either way
        self.selector.register(conn, selectors.EVENT_READ, ("conn", child))
        conn.settimeout(None)
        try:
            conn.send(json.dumps({"pid": pid}).encode())
        except OSError:  # the launcher is gone already: so is the server it asked for
            _kill_group(child, signal.SIGKILL)

    def _own_fds(self, conn: socket.socket) -> list[int]:
        """What a child closes: the listener, the selector and every connection and pidfd."""
        fds = [self.listener.fileno(), conn.fileno()]
        with contextlib.suppress(Exception):
            fds.append(self.selector.fileno())  # type: ignore[attr-defined]
        for child in self.children.values():
            fds += [child.pidfd, child.conn.fileno()]
        return fds

    def _reap(self, child: _Child) -> None:
        _, status = os.waitpid(child.pid, 0)
        child.reaped = True
        with contextlib.suppress(OSError):
            child.conn.send(
                json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode()
            )
        self._forget(child)

    def _launcher_gone(self, child: _Child) -> None:
        try:
            if child.conn.recv(64):
                return  # nothing is expected from a launcher after its request; ignore it
        except OSError:
            pass
        _kill_group(child, signal.SIGKILL)  # the launcher was killed: so is its server
        self.selector.unregister(child.conn)
        child.conn.close()

    def _forget(self, child: _Child) -> None:
        for fd_or_sock in (child.pidfd, child.conn):
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(fd_or_sock)
        os.close(child.pidfd)
        child.conn.close()
        del self.children[child.pid]

    def shutdown(self) -> None:
        for child in self.children.values():
            _kill_group(child, signal.SIGTERM)
        deadline = time.monotonic() + KILL_GRACE
        while self.children and time.monotonic() < deadline:
            for key, _ in self.selector.select(timeout=0.1):
                if key.data[0] == "exit":
                    self._reap(key.data[1])
        for child in list(self.children.values()):
            _kill_group(child, signal.SIGKILL)
            self._reap(child)


def _kill_group(child: _Child, sig: signal.Signals) -> None:
    if child.reaped:
        return  # its pid may belong to another process by now
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, sig)  # the child leads its own group: its own children too


def _validated(request: Any) -> tuple[str, list[str], dict[str, str], str]:
    if not isinstance(request, dict):
        raise ValueError("the request must be a JSON object")
    server, argv, env, cwd = (request.get(k) for k in ("server", "argv", "env", "cwd"))
    if not isinstance(server, str):
        raise ValueError("server must be a string")
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        raise ValueError("argv must be a list of strings")
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in env.items()
    ):
        raise ValueError("env must map strings to strings")
    if not isinstance(cwd, str):
        raise ValueError("cwd must be a string")
    return server, argv, env, cwd


def _run_child(
    main: Callable[..., Any],
    server: str,
    argv: list[str],
    env: dict[str, str],
    cwd: str,
    fds: list[int],
    inherited: list[int],
) -> None:
    """In the forked child: become the server on the launcher's fds; never returns."""
    code = 1
    try:
        os.setsid()  # its own group, so killing it reaches what it starts
        for sig in (signal.SIGTERM, signal.SIGCHLD, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in (*fds, *inherited):
            with contextlib.suppress(OSError):
                os.close(fd)
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        # The interpreter's own streams were built on this process's fds 0-2: rebuild them.
        sys.stdin = os.fdopen(0, "r", closefd=False)
        sys.stdout = os.fdopen(1, "w", closefd=False)
        sys.stderr = os.fdopen(2, "w", closefd=False, buffering=1)
        sys.argv = [f"mcpservers.{server}", *argv]
        main(argv)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if isinstance(exc.code, str):
            with contextlib.suppress(Exception):
                sys.stderr.write(exc.code + "\n")
    except KeyboardInterrupt:
        code = 130
    except BaseException:
        with contextlib.suppress(Exception):
            traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)  # never the parent's atexit handlers or its finally blocks


def load_mains() -> dict[str, Callable[..., Any]]:
    """Import every bundled server (the cost a start saves) and return their `main`s."""
    prepare_start()
    mains = {
        name: importlib.import_module(f"mcpservers.{name}.__main__").main
        for name in SERVERS
    }
    # Objects built by the imports are never garbage: keep the collector off them, so a child's
    # collections neither walk them nor write to (and so copy) the pages they share.
    gc.freeze()
    return mains


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="mcpservers.forkserver", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--socket", required=True, type=Path, help="the socket path to listen on"
    )
    args = parser.parse_args(argv)
    path: Path = args.socket
    if not path.parent.is_dir() or (path.parent.stat().st_mode & 0o077):
        parser.error(
            f"{path.parent} must be an existing directory only its owner can open"
        )
    mains = load_mains()
    if threading.active_count() != 1:  # fork() copies one thread: none may hold a lock
        parser.error("the server imports started a thread; forking would be unsafe")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    listener.bind(str(path))
    listener.listen(64)
    server = ForkServer(listener, mains)

    def stop(*_: Any) -> None:
        server.stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    sys.stdout.write(f"ready {path}\n")  # the handle waits for this line
    sys.stdout.flush()
    try:
        server.serve()
    finally:
        with contextlib.suppress(OSError):
            path.unlink()


if __name__ == "__main__":
    main()
