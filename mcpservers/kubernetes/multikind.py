"""A multi-kind `kubectl get k1,k2 …`: its text split into one answer per kind, and joined back.

kubectl prints one table per kind that has objects, in the order asked, a blank line between,
each row named `kind.group/name`; a kind with no object prints nothing, and when no kind has one
kubectl says "No resources found". The live back end splits what kubectl printed; the snapshot
back end answers each kind on its own and joins them into the same text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpservers.kubernetes.answers import Answer, not_found_text
from mcpservers.kubernetes.kinds import find_kind
from mcpservers.kubernetes.tables import (
    parse_table,
    render_table,
    table_blocks,
    with_name_prefix,
    without_name_prefix,
)

if TYPE_CHECKING:
    from mcpservers.kubernetes.answers import Source
    from mcpservers.kubernetes.commands import Command
    from mcpservers.kubernetes.kinds import Kind


def split_parts(
    command: Command, text: str, objects: Any, *, source: Source
) -> list[Answer]:
    """One answer per kind asked, read from a multi-kind get's text (and its objects, by `kind`)."""
    tables: dict[str, str] = {}
    for block in table_blocks(text):
        table = parse_table(block)
        names = table.column("NAME") if table is not None else None
        if table is None or names is None or not table.rows:
            continue
        kind = _row_kind(table.rows[0][names])
        if kind is not None and kind.resource not in tables:
            tables[kind.resource] = render_table(without_name_prefix(table))
    parts = []
    for kind in command.kinds:
        one = command.one_kind(kind)
        found = kind.resource in tables
        part = Answer(
            one,
            tables[kind.resource] if found else not_found_text(one),
            is_found=found,
            source=source,
        )
        if found and isinstance(objects, list):
            part.objects = [
                o for o in objects if isinstance(o, dict) and o.get("kind") == kind.kind
            ]
        parts.append(part)
    return parts


def join_parts(command: Command, parts: list[Answer]) -> Answer:
    """The multi-kind answer kubectl would print, from one answer per kind (a snapshot's)."""
    blocks = []
    for part in parts:
        table = parse_table(part.text) if part.is_found else None
        if table is not None and table.rows and part.command.kind is not None:
            blocks.append(
                render_table(with_name_prefix(table, part.command.kind.row_prefix))
            )
    missing = [p for p in parts if p.source == "not_captured"]
    notes = [
        f"not captured: {', '.join(p.command.kind.resource for p in missing if p.command.kind)} "
        "(the snapshot has no answer to them alone either; their tables are left out)"
    ] * bool(missing)
    for part in parts:
        notes += [n for n in part.notes if not n.startswith("not captured")]
    objects: list[Any] | None = None
    if all(p.objects is not None for p in parts if p.is_found) and any(
        p.is_found for p in parts
    ):
        objects = [o for p in parts if p.is_found for o in (p.objects or [])]
    answered = [p for p in parts if p.source != "not_captured"]
    return Answer(
        command,
        "\n".join(blocks) if blocks else not_found_text(command),
        is_found=bool(blocks),
        source="derived" if answered else "not_captured",
        derived_from="; ".join(
            dict.fromkeys(p.derived_from or p.command.line() for p in answered)
        ),
        objects=objects,
        notes=notes,
        parts=parts,
    )


def _row_kind(name: str) -> Kind | None:
    prefix, slash, _ = name.partition("/")
    return find_kind(prefix) if slash else None
