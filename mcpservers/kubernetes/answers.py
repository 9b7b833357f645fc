"""One kubectl answer, as every back end returns it, and the messages kubectl prints when there is nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from mcpservers.kubernetes.commands import Command

# live: kubectl ran; captured: the snapshot holds this command; derived: cut from a broader captured
# answer; not_captured: the snapshot cannot say, the text is what kubectl prints for a missing object.
Source = Literal["live", "captured", "derived", "not_captured"]


@dataclass
class Answer:
    command: Command
    text: (
        str  # what kubectl shows the engineer (stdout, or its one-line stderr message)
    )
    is_found: bool = (
        True  # False: NotFound, "No resources found", a BadRequest about logs
    )
    source: Source = "live"
    derived_from: str = ""  # the captured command line this answer was cut from
    objects: Any = (
        None  # the same data as Kubernetes objects: one object (dict) or a list
    )
    notes: list[str] = field(default_factory=list)
    # A multi-kind get: one answer per kind asked, in the order asked (each its own source).
    parts: list[Answer] = field(default_factory=list)


class BackendError(Exception):
    """The back end could not answer (kubectl failed, the API server refused); the message says what to change."""


class Backend(Protocol):
    description: str

    async def run(self, command: Command) -> Answer: ...


def not_found_text(command: Command) -> str:
    """kubectl's message for a named object that does not exist (or, for a list, that there is none)."""
    if command.verb == "events":
        return f"No events found in {command.namespace} namespace.\n"
    if command.verb == "logs":
        return f'Error from server (NotFound): pods "{command.name}" not found\n'
    if command.is_multi_kind:
        return f"No resources found in {command.namespace} namespace.\n"
    assert command.kind is not None
    if command.name:
        return f'Error from server (NotFound): {command.kind.qualified} "{command.name}" not found\n'
    if command.is_cluster_scoped:
        return "No resources found\n"
    return f"No resources found in {command.namespace} namespace.\n"


def is_not_found_text(text: str) -> bool:
    """True when kubectl's output says the object (or any object) is not there."""
    head = text.lstrip()[:200]
    return head.startswith(
        (
            "Error from server (NotFound)",
            "Error from server (BadRequest)",
            "No resources found",
            "No events found",
        )
    )
