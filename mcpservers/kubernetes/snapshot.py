"""The snapshot back end: `kubernetes.json`, kubectl command lines mapped to what they printed.

Lookup reduces the asked command and every key to `Command.line()`, so flag order and spelling,
`-n`/`--namespace`, kind aliases, `-o wide`, `--show-labels`, `-l` and trailing filters do not
matter. When the exact command was not captured, a narrower answer is cut from a broader one
(a row of a list, columns of a wide table, one object of a describe-all, one object's events, the
last N log lines). Failing that, the answer is what kubectl prints for a missing object, marked
`not_captured`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from mcpservers.kubernetes.answers import Answer, is_not_found_text, not_found_text
from mcpservers.kubernetes.commands import (
    ParsedLine,
    UnsupportedLine,
    parse_command_line,
    selector_matches,
)
from mcpservers.kubernetes.kinds import find_kind
from mcpservers.kubernetes.multikind import join_parts, split_parts
from mcpservers.kubernetes.tables import Table, parse_labels, parse_table, render_table

if TYPE_CHECKING:
    from pathlib import Path

    from mcpservers.kubernetes.commands import Command

EVENT_COLUMNS = ("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")
_DESCRIBE_NAME = re.compile(r"^Name:\s+(\S+)\s*$")


class SnapshotError(Exception):
    """A snapshot file that cannot be used; the message names the file and what is wrong."""


@dataclass(frozen=True)
class Entry:
    key: str  # as written in the file
    parsed: ParsedLine
    text: str

    @property
    def command(self) -> Command:
        return self.parsed.command


def load_snapshot(path: Path) -> tuple[list[Entry], list[tuple[str, str]]]:
    """The entries of a snapshot file, and the keys no tool can ask for (with the reason).

    Raises:
        SnapshotError: unreadable, not JSON, not an object of strings, or a key that is not kubectl.
    """
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot read it ({exc.strerror})") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise SnapshotError(f"{path}: not JSON ({exc})") from None
    if not isinstance(raw, dict):
        raise SnapshotError(
            f'{path}: must be a JSON object of kubectl command line → its output, e.g. {{"kubectl get pods -n shop": "NAME …"}}'
        )
    entries: list[Entry] = []
    unreachable: list[tuple[str, str]] = []
    for key, value in raw.items():
        if not isinstance(value, str):
            raise SnapshotError(
                f"{path}: key {key!r}: the value must be a string (the command's output)"
            )
        if not key.strip().startswith("kubectl"):
            raise SnapshotError(
                f"{path}: key {key!r}: keys are kubectl command lines, e.g. 'kubectl get pods -n shop -o wide'"
            )
        try:
            entries.append(Entry(key, parse_command_line(key.strip()), value))
        except UnsupportedLine as exc:
            unreachable.append((key, str(exc)))
        except ValueError as exc:  # a bad label selector
            unreachable.append((key, str(exc)))
    return entries, unreachable


class SnapshotBackend:
    """Answers from a snapshot's entries."""

    def __init__(self, entries: list[Entry], *, source: str) -> None:
        self.entries = entries
        self.description = f"snapshot {source}"
        self._by_line: dict[str, list[Entry]] = {}
        for entry in entries:
            self._by_line.setdefault(entry.command.line(), []).append(entry)

    async def run(self, command: Command) -> Answer:
        return self.answer(command)

    def answer(self, command: Command) -> Answer:
        """The captured, derived or not-captured answer to `command`."""
        if command.is_multi_kind:
            return self._multi_kind(command)
        answer = self._exact(command) or self._derived(command)
        if answer is None:
            answer = self._known_absent(command) or Answer(
                command,
                not_found_text(command),
                is_found=False,
                source="not_captured",
                notes=[
                    f"not captured: the snapshot has no answer to `{command.line()}` or to a broader command; "
                    "the text is what kubectl prints for a missing object"
                ],
            )
        if answer.is_found and command.verb != "logs":
            answer.objects = self._objects(command)
        return answer

    def _multi_kind(self, command: Command) -> Answer:
        """Several kinds: the captured answer when the snapshot holds this very command, else each
        kind answered alone (captured, derived or not) and joined as kubectl prints them."""
        exact = self._exact(command)
        if exact is None:
            return join_parts(
                command, [self.answer(command.one_kind(k)) for k in command.kinds]
            )
        exact.parts = split_parts(command, exact.text, None, source=exact.source)
        for part in exact.parts:
            if part.is_found:
                part.objects = self._objects(part.command)
        if all(p.objects is not None for p in exact.parts if p.is_found):
            exact.objects = [o for p in exact.parts for o in (p.objects or [])]
        return exact

    # --- exact ------------------------------------------------------------------------------

    def _exact(self, command: Command) -> Answer | None:
        candidates = self._by_line.get(command.line(), [])
        if not candidates:
            return None
        # Prefer what kubectl printed whole and unsorted, then sorted, then a tail of it.
        entry = min(
            candidates,
            key=lambda e: (not e.parsed.is_complete, bool(e.parsed.sort_by)),
        )
        notes = []
        if entry.parsed.sort_by:
            notes.append(f"captured with --sort-by={entry.parsed.sort_by}")
        if not entry.parsed.is_complete:
            notes.append(
                f"captured through `| {' | '.join(entry.parsed.pipes)}`: only part of the output"
            )
        return Answer(
            command,
            entry.text,
            is_found=not is_not_found_text(entry.text),
            source="captured",
            derived_from=entry.key if entry.key.strip() != command.line() else "",
            notes=notes,
        )

    # --- derived ----------------------------------------------------------------------------

    def _derived(self, command: Command) -> Answer | None:
        if command.verb == "get":
            if command.output == "yaml":
                return self._yaml_item(command)
            if command.output in ("", "wide"):
                return self._table_rows(command)
            return None
        if command.verb == "describe":
            return self._describe_one(command)
        if command.verb == "logs":
            return self._log_tail(command)
        return self._events(command)

    def _table_rows(self, command: Command) -> Answer | None:
        kind = command.kind
        assert kind is not None
        for entry in self._sources(command):
            source = entry.command
            table = parse_table(entry.text)
            if table is None:
                if (
                    is_not_found_text(entry.text)
                    and entry.parsed.is_complete
                    and source.selector in ("", command.selector)
                ):
                    # "No resources found": nothing narrower can be there either.
                    return self._derived_answer(
                        command, entry, not_found_text(command), is_found=False
                    )
                continue
            columns = _target_columns(
                table, command, wide_source=source.output == "wide"
            )
            if columns is None:
                continue
            rows = list(table.rows)
            if command.name:
                rows = [
                    row
                    for row in rows
                    if row[0] in (command.name, f"{kind.singular}/{command.name}")
                ]
            if command.selector and not source.selector:
                labels = table.column("LABELS")
                if labels is None:
                    continue
                rows = [
                    row
                    for row in rows
                    if selector_matches(command.selector, parse_labels(row[labels]))
                ]
            complete = entry.parsed.is_complete and not (
                command.name and source.selector
            )
            if not rows:
                if not complete:
                    continue
                return self._derived_answer(
                    command, entry, not_found_text(command), is_found=False
                )
            narrowed = Table(
                tuple(table.columns[i] for i in columns),
                tuple(tuple(row[i] for i in columns) for row in rows),
            )
            return self._derived_answer(command, entry, render_table(narrowed))
        return None

    def _sources(self, command: Command) -> list[Entry]:
        """Captured `get` answers of the same kind and namespace that hold the rows asked for, best first."""
        found = []
        for entry in self.entries:
            source = entry.command
            if (
                source.verb != "get"
                or source.kind != command.kind
                or source.namespace != command.namespace
                or source.name
                or source.output
                not in (
                    ("wide",)
                    if command.output == "wide"
                    and not (command.kind and command.kind.wide_is_plain)
                    else ("", "wide")
                )
                or (command.show_labels and not source.show_labels)
            ):
                continue
            if source.selector and not (
                command.name or source.selector == command.selector
            ):
                continue
            if not entry.parsed.is_complete and not command.name:
                continue
            found.append(entry)
        # Fewest changes first: complete before partial, same output, same labels, no selector.
        return sorted(
            found,
            key=lambda e: (
                not e.parsed.is_complete,
                e.command.output != command.output,
                e.command.show_labels != command.show_labels,
                bool(e.command.selector),
                bool(e.parsed.sort_by),
            ),
        )

    def _describe_one(self, command: Command) -> Answer | None:
        for entry in self.entries:
            source = entry.command
            if (
                source.verb != "describe"
                or source.kind != command.kind
                or source.namespace != command.namespace
                or source.name
            ):
                continue
            chunks = split_describe(entry.text)
            if command.name in chunks:
                return self._derived_answer(command, entry, chunks[command.name])
            if entry.parsed.is_complete and not source.selector:
                return self._derived_answer(
                    command, entry, not_found_text(command), is_found=False
                )
        return None

    def _yaml_item(self, command: Command) -> Answer | None:
        if not command.name:
            return None
        for entry in self.entries:
            source = entry.command
            if (
                source.verb == "get"
                and source.kind == command.kind
                and source.namespace == command.namespace
                and not source.name
                and source.output == "yaml"
                and entry.parsed.is_complete
            ):
                items = split_yaml_list(entry.text)
                if command.name in items:
                    return self._derived_answer(command, entry, items[command.name])
                if not source.selector:
                    return self._derived_answer(
                        command, entry, not_found_text(command), is_found=False
                    )
        return None

    def _log_tail(self, command: Command) -> Answer | None:
        candidates = [
            entry
            for entry in self.entries
            if entry.command.verb == "logs"
            and entry.command.namespace == command.namespace
            and entry.command.name == command.name
            and entry.command.is_previous == command.is_previous
            and entry.parsed.is_complete
            and (
                entry.command.tail is None
                or (command.tail is not None and entry.command.tail >= command.tail)
            )
        ]
        containers = {entry.command.container for entry in candidates}
        if command.container:
            candidates = [
                e for e in candidates if e.command.container == command.container
            ]
        elif len(containers) > 1:
            # Without -c kubectl picks the pod's default container; the snapshot cannot tell which.
            return None
        if not candidates:
            return None
        entry = min(candidates, key=lambda e: e.command.tail is not None)
        text = entry.text
        if is_not_found_text(text):
            return self._derived_answer(command, entry, text, is_found=False)
        if command.tail is not None:
            text = (
                "".join(text.splitlines(keepends=True)[-command.tail :])
                if command.tail
                else ""
            )
        return self._derived_answer(command, entry, text)

    def _events(self, command: Command) -> Answer | None:
        """One object's events from the namespace's, or the namespace's from `kubectl get events`."""
        for entry in self._event_sources(command):
            table = parse_table(entry.text)
            if table is None:
                if is_not_found_text(
                    entry.text
                ):  # "No events found" / "No resources found"
                    return self._derived_answer(
                        command, entry, not_found_text(command), is_found=False
                    )
                continue
            if any(column not in table.columns for column in EVENT_COLUMNS):
                continue
            indexes = [table.columns.index(column) for column in EVENT_COLUMNS]
            rows = [tuple(row[i] for i in indexes) for row in table.rows]
            if command.kind is not None:
                rows = [row for row in rows if _same_object(row[3], command)]
            if not rows:
                return self._derived_answer(
                    command, entry, not_found_text(command), is_found=False
                )
            answer = self._derived_answer(
                command, entry, render_table(Table(EVENT_COLUMNS, tuple(rows)))
            )
            if entry.command.verb == "get":
                answer.notes.append(
                    "from `kubectl get events`: rows in the API server's order, not sorted by time"
                )
            return answer
        return None

    def _event_sources(self, command: Command) -> list[Entry]:
        wide_events = replace(command, kind=None, name="")
        lines = [wide_events.line()] if command.kind is not None else []
        get_events = find_kind("events")
        for output in ("", "wide"):
            lines.append(
                replace(
                    command, verb="get", kind=get_events, name="", output=output
                ).line()
            )
        return [
            entry
            for line in lines
            for entry in self._by_line.get(line, [])
            if entry.parsed.is_complete
        ]

    def _known_absent(self, command: Command) -> Answer | None:
        """NotFound, derived: a complete captured list of the kind shows the object was not there."""
        if command.verb not in ("get", "describe", "logs") or not command.name:
            return None
        kind = find_kind("pods") if command.verb == "logs" else command.kind
        probe = replace(
            command,
            verb="get",
            kind=kind,
            output="",
            show_labels=False,
            selector="",
            container="",
            is_previous=False,
            tail=None,
        )
        for entry in self._sources(replace(probe, name="")):
            table = parse_table(entry.text)
            names = {row[0] for row in table.rows} if table else None
            if names is None and is_not_found_text(entry.text):
                names = set()
            if names is not None and command.name not in names:
                return self._derived_answer(
                    command, entry, not_found_text(command), is_found=False
                )
        return None

    def _derived_answer(
        self, command: Command, entry: Entry, text: str, *, is_found: bool = True
    ) -> Answer:
        notes = []
        if entry.parsed.sort_by and text:
            notes.append(
                f"cut from an answer captured with --sort-by={entry.parsed.sort_by}"
            )
        return Answer(
            command,
            text,
            is_found=is_found,
            source="derived",
            derived_from=entry.key,
            notes=notes,
        )

    # --- objects ----------------------------------------------------------------------------

    def _objects(self, command: Command) -> Any:
        """The same data as objects, when the snapshot holds `-o json` answers for it."""
        if command.verb == "events":
            line = replace(command, kind=None, name="", output="json").line()
            alt = replace(
                command, verb="get", kind=find_kind("events"), name="", output="json"
            ).line()
            for entry in self._by_line.get(line, []) + self._by_line.get(alt, []):
                items = _json_items(entry.text)
                if items is not None:
                    if command.kind is None:
                        return items
                    return [
                        item
                        for item in items
                        if item.get("involvedObject", {}).get("name") == command.name
                        and item.get("involvedObject", {}).get("kind")
                        == command.kind.kind
                    ]
            return None
        one = replace(command, verb="get", output="json", show_labels=False)
        for entry in self._by_line.get(one.line(), []) if command.name else []:
            try:
                return json.loads(entry.text)
            except ValueError:
                continue
        listing = replace(
            one, name="", selector="" if command.name else command.selector
        )
        for line in dict.fromkeys(
            (listing.line(), replace(listing, selector="").line())
        ):
            for entry in self._by_line.get(line, []):
                items = _json_items(entry.text)
                if items is None:
                    continue
                if command.name:
                    return next(
                        (
                            i
                            for i in items
                            if i.get("metadata", {}).get("name") == command.name
                        ),
                        None,
                    )
                if command.selector:
                    items = [
                        item
                        for item in items
                        if selector_matches(
                            command.selector,
                            item.get("metadata", {}).get("labels") or {},
                        )
                    ]
                return items
        return None


def _json_items(text: str) -> list[dict[str, Any]] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    items = value.get("items") if isinstance(value, dict) else None
    return (
        [i for i in items if isinstance(i, dict)] if isinstance(items, list) else None
    )


def _target_columns(
    table: Table, command: Command, *, wide_source: bool
) -> list[int] | None:
    """Indexes of the columns kubectl prints for `command`, taken from a (maybe wider) table."""
    kind = command.kind
    assert kind is not None
    labels = table.column("LABELS")
    if command.show_labels and labels is None:
        return None
    base = [i for i in range(len(table.columns)) if i != labels]
    if wide_source and command.output != "wide":
        plain = kind.plain_columns
        if not plain or table.columns[: len(plain)] != plain:
            return (
                None  # the wide columns are not simply appended: cannot cut them away
            )
        base = list(range(len(plain)))
    return base + ([labels] if command.show_labels and labels is not None else [])


def _same_object(cell: str, command: Command) -> bool:
    kind_text, _, name = cell.partition("/")
    return name == command.name and find_kind(kind_text) == command.kind


def split_describe(text: str) -> dict[str, str]:
    """`kubectl describe` of several objects split into one text per object name."""
    chunks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines(keepends=True):
        match = _DESCRIBE_NAME.match(line)
        if match:
            current = chunks.setdefault(match.group(1), [])
        if current is not None:
            current.append(line)
    return {name: "".join(lines).rstrip("\n") + "\n" for name, lines in chunks.items()}


def split_yaml_list(text: str) -> dict[str, str]:
    """`kubectl get … -o yaml` of a List split into one top-level YAML document per object name."""
    items: list[list[str]] = []
    inside = False
    for line in text.splitlines(keepends=True):
        if line.startswith("items:"):
            inside = True
            continue
        if not inside:
            continue
        if line.startswith("- "):
            items.append(["  " + line[2:]])
        elif line.startswith("  ") and items:
            items[-1].append(line)
        elif line.strip():
            inside = False  # `kind: List`, `metadata:` after the items
    documents = {}
    for lines in items:
        body = "".join(line[2:] if line.startswith("  ") else line for line in lines)
        name = _yaml_name(body)
        if name:
            documents[name] = body
    return documents


def _yaml_name(document: str) -> str:
    in_metadata = False
    for line in document.splitlines():
        if line.startswith("metadata:"):
            in_metadata = True
        elif in_metadata and not line.startswith(" "):
            in_metadata = False
        elif in_metadata and line.startswith("  name: "):
            return line.removeprefix("  name: ").strip().strip("'\"")
    return ""
