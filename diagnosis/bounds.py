"""Bounds on values callers hand us, checked before anything is written: datetimes and JSON trees.

Datetimes: a UTC offset PostgreSQL takes (at most ±15:59) and an instant within DATETIME_PAST
before and DATETIME_FUTURE after now; accepted values are stored in UTC. JSON trees: at most
MAX_JSON_DEPTH levels, valid Unicode (no lone surrogates, which UTF-8 cannot encode), no U+0000
(which PostgreSQL text and jsonb cannot store) and finite numbers only.
"""

import math
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from django.utils import timezone

DATETIME_PAST = timedelta(days=3653)  # ten years
DATETIME_FUTURE = timedelta(days=366)  # one year
MAX_UTC_OFFSET = timedelta(hours=15, minutes=59)
MAX_JSON_DEPTH = 32


class OutOfRangeNumber:
    """What the JSON parser makes of a number no double holds (`1e400`), for the check to name."""

    def __init__(self, text: str) -> None:
        self.text = text


def datetime_error(value: datetime, *, now: datetime | None = None) -> str | None:
    """Why `value` is not an acceptable caller-supplied datetime, or None if it is."""
    offset = value.utcoffset()
    if offset is None:
        return "must carry a UTC offset (e.g. Z or +00:00)"
    if abs(offset) > MAX_UTC_OFFSET:
        return "UTC offset must be within ±15:59"
    now = now or timezone.now()
    earliest, latest = now - DATETIME_PAST, now + DATETIME_FUTURE
    try:
        utc = value.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:59:59-14:00 is in year 10000 once in UTC
        utc = None
    if utc is None or not earliest <= utc <= latest:
        return (
            f"must be between {earliest.date().isoformat()} and "
            f"{latest.date().isoformat()} (10 years before to 1 year after now)"
        )
    return None


def _string_error(text: str) -> str | None:
    if "\x00" in text:
        return "must not contain NUL characters"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "must be valid Unicode (no lone surrogates such as \\ud800)"
    return None


def json_error(value: Any, *, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    """Why a JSON value (keys included) cannot be stored, or None. Iterative: depth is no risk."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            reason = _string_error(node)
        elif isinstance(node, OutOfRangeNumber):
            reason = f"number {node.text[:40]} is out of range"
        elif isinstance(node, float) and not math.isfinite(node):
            reason = "numbers must be finite"
        elif isinstance(node, Mapping | list | tuple):
            if depth > max_depth:
                return f"nested deeper than {max_depth} levels"
            children = (
                [*node.keys(), *node.values()]
                if isinstance(node, Mapping)
                else list(node)
            )
            stack.extend((child, depth + 1) for child in children)
            continue
        else:
            continue
        if reason is not None:
            return reason
    return None


def window_errors(
    start: datetime | None, end: datetime | None
) -> tuple[dict[str, str], datetime | None, datetime | None]:
    """The incident window's field errors, and its ends in UTC (None where absent or refused)."""
    errors: dict[str, str] = {}
    ends: list[datetime | None] = []
    for name, value in (("window_start", start), ("window_end", end)):
        reason = None if value is None else datetime_error(value)
        if reason is not None:
            errors[name] = reason
        ends.append(None if value is None or reason else value.astimezone(UTC))
    start_utc, end_utc = ends
    if start_utc and end_utc and end_utc < start_utc:
        errors["window_end"] = "must not be before window_start"
    return errors, start_utc, end_utc
