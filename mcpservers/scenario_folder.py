"""The one owner of "which bundled servers a scenario folder feeds" (stdlib only).

A scenario folder's files say which data servers it has data for:
logs ← logs.jsonl or backend.json "logs"; metrics ← metrics.json or backend.json "metrics";
runbooks ← runbooks/; kubernetes ← kubernetes.json; netcheck ← targets.json.
The app's registry (its demo environments, which add `actions`) and the scenario runner
(`mcpservers.scenarios`) both read the rule from here; neither states it again. Importing this
module pulls in neither the MCP SDK nor the scenarios' listeners.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

DATA_SERVERS = ("logs", "metrics", "runbooks", "kubernetes", "netcheck")


class FolderError(ValueError):
    """A scenario folder's backend.json cannot be read as a JSON object."""


def data_servers(folder: Path) -> tuple[str, ...]:
    """Which of logs, metrics, runbooks, kubernetes, netcheck `folder` has data for, in that order.

    Raises:
        FolderError: backend.json exists but is unreadable or not a JSON object.
    """
    backend = _backend(folder)
    present = {
        "logs": (folder / "logs.jsonl").is_file() or "logs" in backend,
        "metrics": (folder / "metrics.json").is_file() or "metrics" in backend,
        "runbooks": (folder / "runbooks").is_dir(),
        "kubernetes": (folder / "kubernetes.json").is_file(),
        "netcheck": (folder / "targets.json").is_file(),
    }
    return tuple(name for name in DATA_SERVERS if present[name])


def _backend(folder: Path) -> dict[str, Any]:
    path = folder / "backend.json"
    if not path.is_file():
        return {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise FolderError(f"{path}: unreadable: {exc}") from exc
    if not isinstance(loaded, dict):
        raise FolderError(f"{path}: not an object")
    return loaded
