"""`python -m mcpservers.launch <name> ARGS...`: start a bundled stdio server, forked when it can be.

When the environment names a fork server (``AGENTOPS_FORKSERVER``, its socket path; see
mcpservers/forkserver.py), this hands its stdin, stdout and stderr to it, which forks an already
imported `mcpservers.<name>` onto them; this process then stays as the server's stand-in for the
MCP host that spawned it: SIGTERM, SIGINT and SIGHUP are passed on to the server, and it exits
with the server's status. Without a fork server (none named, or none listening) it becomes
`python -m mcpservers.<name> ARGS...` itself (exec), so a start never depends on one.

It imports only the standard library, so it starts in a few milliseconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import sys

ENV = "AGENTOPS_FORKSERVER"
SERVERS = ("actions", "kubernetes", "logs", "metrics", "netcheck", "runbooks")


def _exec_server(name: str, args: list[str]) -> None:
    os.execv(sys.executable, [sys.executable, "-m", f"mcpservers.{name}", *args])


def _connect(path: str) -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        return None
    return sock


def _become_stand_in() -> None:
    """Let go of the pipes to the host: the server's copies alone decide when they close."""
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)


def _relay(sock: socket.socket, pid: int) -> int:
    """Pass signals on to the server until it exits; its exit code (negative: killed by a signal)."""
    pidfd = os.pidfd_open(pid)

    def forward(sig: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(pidfd, sig)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    waiting_on = [sock, pidfd]
    while True:
        # After the server is gone the fork server reports its status at once; wait briefly.
        ready, _, _ = select.select(
            waiting_on, [], [], None if pidfd in waiting_on else 2.0
        )
        if not ready:
            return 1
        if sock in ready:
            message = sock.recv(4096)
            if not message:
                return 1  # the fork server went away: the status is unknown
            reply = json.loads(message)
            if "exit" in reply:
                return int(reply["exit"])
        if pidfd in ready:
            waiting_on = [sock]


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in SERVERS:
        sys.stderr.write(
            f"usage: python -m mcpservers.launch {{{','.join(SERVERS)}}} ARGS...\n"
        )
        return 2
    name, args = argv[0], argv[1:]
    path = os.environ.get(ENV)
    sock = _connect(path) if path else None
    if sock is None:
        _exec_server(name, args)
    assert sock is not None
    env = {k: v for k, v in os.environ.items() if k != ENV}
    cwd = os.getcwd()  # noqa: PTH109 (no pathlib here: the launcher's start stays light)
    request = json.dumps({"server": name, "argv": args, "env": env, "cwd": cwd})
    # From here the server may be running on our fds: never exec a second one onto them.
    socket.send_fds(sock, [request.encode()], [0, 1, 2])
    reply = json.loads(sock.recv(4096) or b"{}")
    if "pid" not in reply:
        sys.stderr.write(
            f"mcpservers.launch: the fork server refused: {reply.get('error')}\n"
        )
        return 1
    _become_stand_in()
    code = _relay(sock, int(reply["pid"]))
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
