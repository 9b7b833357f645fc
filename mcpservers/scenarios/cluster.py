"""A Kubernetes scenario's objects (`cluster.json`): served live to kubectl, and captured into the
scenario's `kubernetes.json` so the snapshot replays exactly what kubectl printed for them.

`cluster.json` holds `now` (the scenario's moment, ISO 8601), `namespace` (the one `capture`
reads), `objects` (API objects of any namespace; time fields written relative to `now`, e.g.
"-44m"), `logs` ("<namespace>/<pod>/<container>/current|previous" → text) and `commands`
(command lines captured after capture's own, for the keys an engineer asks beyond them).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpservers.kubernetes.capture import capture_namespace
from mcpservers.kubernetes.commands import UnsupportedLine, parse_command_line
from mcpservers.kubernetes.fakeapi import FakeKubeAPI
from mcpservers.kubernetes.live import LiveBackend, find_kubectl

if TYPE_CHECKING:
    from collections.abc import Iterator

    from mcpservers.kubernetes.commands import Command

CLUSTER_FILE = "cluster.json"
SNAPSHOT_FILE = "kubernetes.json"
CONTEXT = "scenario"


class ClusterError(Exception):
    """A `cluster.json` that cannot be served; the message names the file and what is wrong."""


@dataclass(frozen=True)
class Cluster:
    path: Path
    namespace: str
    commands: tuple[Command, ...]


def read_cluster(folder: Path) -> Cluster:
    """The object file of the scenario in `folder`, checked enough to be served.

    Raises:
        ClusterError: missing, not JSON, or a field missing or of the wrong type.
    """
    path = folder / CLUSTER_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ClusterError(f"{path}: cannot read it ({exc.strerror})") from None
    except ValueError as exc:
        raise ClusterError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ClusterError(f"{path}: must be a JSON object")
    for key, kind in (
        ("now", str),
        ("namespace", str),
        ("objects", list),
        ("logs", dict),
        ("commands", list),
    ):
        if not isinstance(data.get(key), kind):
            raise ClusterError(f"{path}: {key}: missing or not a {kind.__name__}")
    commands = []
    for line in data["commands"]:
        try:
            commands.append(parse_command_line(str(line)).command)
        except UnsupportedLine as exc:
            raise ClusterError(f"{path}: commands: {line!r}: {exc}") from None
    for obj in data["objects"]:
        if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
            raise ClusterError(f"{path}: objects: every object needs kind and metadata")
    return Cluster(path, data["namespace"], tuple(commands))


def scenarios_with_objects(root: Path) -> list[Path]:
    """The scenario folders under `root` that keep their objects, by name."""
    return sorted(p.parent for p in root.glob(f"*/{CLUSTER_FILE}"))


@contextlib.contextmanager
def served(folder: Path, workdir: Path) -> Iterator[tuple[FakeKubeAPI, Path]]:
    """The scenario's objects served on 127.0.0.1 and a kubeconfig (in `workdir`) pointing at them."""
    cluster = read_cluster(folder)
    try:
        api = FakeKubeAPI(cluster.path).start()
    except (KeyError, TypeError, ValueError) as exc:
        raise ClusterError(f"{cluster.path}: objects: {exc!r}") from None
    try:
        yield api, api.kubeconfig(workdir / "kubeconfig", context=CONTEXT)
    finally:
        api.stop()


def capture_served(folder: Path, kubeconfig: Path) -> tuple[dict[str, str], list[str]]:
    """What `capture` (plus the file's own commands) writes for the served scenario, and its failures."""
    cluster = read_cluster(folder)
    backend = LiveBackend(
        kubectl=find_kubectl(), kubeconfig=str(kubeconfig), context=CONTEXT
    )
    result = asyncio.run(
        capture_namespace(backend, cluster.namespace, also=cluster.commands)
    )
    return result.snapshot, result.failures


def regenerate(folder: Path) -> tuple[dict[str, str], list[str]]:
    """Serve the scenario's objects and capture them with the real kubectl: its kubernetes.json."""
    with tempfile.TemporaryDirectory(prefix="kube-") as tmp:
        work = Path(tmp)
        with (
            _kubectl_cache(work / "cache"),
            served(folder, work) as (_, kubeconfig),
        ):
            return capture_served(folder, kubeconfig)


def snapshot_text(snapshot: dict[str, Any]) -> str:
    """kubernetes.json's text as `capture` writes it."""
    return json.dumps(snapshot, indent=2, ensure_ascii=False) + "\n"


@contextlib.contextmanager
def _kubectl_cache(path: Path) -> Iterator[None]:
    # kubectl caches discovery per server under KUBECACHEDIR: keep it with the fake, out of $HOME.
    before = os.environ.get("KUBECACHEDIR")
    os.environ["KUBECACHEDIR"] = str(path)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("KUBECACHEDIR", None)
        else:
            os.environ["KUBECACHEDIR"] = before
