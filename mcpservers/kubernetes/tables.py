"""kubectl's tables read into cells and written back exactly as kubectl writes them.

kubectl prints tables through Go's text/tabwriter (min width 6, padding 3, no trailing padding), so
a column is as wide as its longest cell plus three. Re-rendering the rows kept from a broader answer
gives, byte for byte, what kubectl prints for the narrower question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MIN_WIDTH = 6
_PADDING = 3
_GAP = re.compile(r"\s{2,}")


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def column(self, name: str) -> int | None:
        return self.columns.index(name) if name in self.columns else None

    def records(self) -> list[dict[str, str]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]

    def with_rows(self, rows: list[tuple[str, ...]]) -> Table:
        return Table(self.columns, tuple(rows))

    def first_columns(self, count: int) -> Table:
        return Table(self.columns[:count], tuple(row[:count] for row in self.rows))


def parse_table(text: str) -> Table | None:
    """The table in `text` (header line, then one line per row), or None when it is not one."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    header = lines[0].rstrip()
    names = _GAP.split(header.strip())
    if not names or not all(
        re.fullmatch(r"[A-Z][A-Z0-9()\-_ ./]*", name) for name in names
    ):
        return None
    starts = []
    position = 0
    for name in names:
        position = header.index(name, position)
        starts.append(position)
        position += len(name)
    rows = []
    for line in lines[1:]:
        row = _cells(line.rstrip(), starts)
        if row is None:
            return None
        rows.append(row)
    return Table(tuple(names), tuple(rows))


def _cells(line: str, starts: list[int]) -> tuple[str, ...] | None:
    # kubectl's own output: every cell begins where its header begins, after a space.
    if all(
        start == 0 or len(line) <= start or line[start - 1] == " " for start in starts
    ):
        ends = [*starts[1:], None]
        return tuple(
            line[start:end].strip() for start, end in zip(starts, ends, strict=True)
        )
    # A hand-written table with uneven padding: split on runs of two or more spaces.
    parts = _GAP.split(line.strip())
    return tuple(parts) if len(parts) == len(starts) else None


def render_table(table: Table) -> str:
    """The table as kubectl prints it, with a trailing newline."""
    widths = [max(_MIN_WIDTH, len(name) + _PADDING) for name in table.columns]
    for row in table.rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(cell) + _PADDING)
    lines = []
    for row in (table.columns, *table.rows):
        cells = [cell.ljust(widths[index]) for index, cell in enumerate(row[:-1])]
        lines.append("".join(cells) + row[-1])
    return "\n".join(lines) + "\n"


def parse_labels(cell: str) -> dict[str, str]:
    """A LABELS cell (`app=cart,pod-template-hash=7f9`, or `<none>`) as a dict."""
    if cell in ("", "<none>"):
        return {}
    labels = {}
    for part in cell.split(","):
        key, _, value = part.partition("=")
        labels[key] = value
    return labels


def table_blocks(text: str) -> list[str]:
    """The tables of a multi-kind `kubectl get`, which prints one per kind, a blank line between."""
    blocks: list[str] = []
    current: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.strip():
            current.append(line)
        elif current:
            blocks.append("".join(current))
            current = []
    if current:
        blocks.append("".join(current))
    return blocks


def with_name_prefix(table: Table, prefix: str) -> Table:
    """The rows named as a multi-kind get names them: `deployment.apps/cart` for prefix `deployment.apps/`."""
    index = table.column("NAME")
    if index is None:
        return table
    return table.with_rows(
        [(*row[:index], prefix + row[index], *row[index + 1 :]) for row in table.rows]
    )


def without_name_prefix(table: Table) -> Table:
    """The rows named as a one-kind get names them: `cart`, not `deployment.apps/cart`."""
    index = table.column("NAME")
    if index is None:
        return table
    return table.with_rows(
        [
            (*row[:index], row[index].rpartition("/")[2], *row[index + 1 :])
            for row in table.rows
        ]
    )
