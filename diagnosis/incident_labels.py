"""An incident's labels: the alert's {name: value} strings (alertname, namespace, service, app,
job …) that the reasoning resolves the service with. One rule, `label_errors`, checks them
wherever they come from (the API, a scenario's incident.json); the alert intake bounds an alert's
labels with the same limits (diagnosis.intake.model). Pure: no Django.
"""

from collections.abc import Mapping
from typing import Any

LABELS_MAX = 64  # pairs
LABEL_NAME_MAX = 128  # characters of a name (at least one)
LABEL_VALUE_MAX = 1000  # characters of a value
NAMED_ERRORS = 3  # bad labels named one by one; the others are not listed


def label_errors(value: Any, where: str = "labels") -> dict[str, str]:
    """{where or `where.name`: reason} for labels that are not an object of at most LABELS_MAX
    string → string pairs, names of 1 to LABEL_NAME_MAX characters, values of at most
    LABEL_VALUE_MAX, no NUL; {} for good labels."""
    if not isinstance(value, Mapping):
        return {where: "must be an object of strings"}
    if len(value) > LABELS_MAX:
        return {where: f"at most {LABELS_MAX} labels (got {len(value)})"}
    errors: dict[str, str] = {}
    for key, item in value.items():
        reason = _label_error(key, item)
        if reason is not None:
            errors[f"{where}.{str(key)[:64]}"] = reason
            if len(errors) == NAMED_ERRORS:
                break
    return errors


def _label_error(key: Any, item: Any) -> str | None:
    """Why one label is refused, or None."""
    if (
        not isinstance(key, str)
        or not key
        or len(key) > LABEL_NAME_MAX
        or "\x00" in key
    ):
        return f"a label's name is 1 to {LABEL_NAME_MAX} characters, no NUL"
    if not isinstance(item, str):
        return "must be a string"
    if "\x00" in item:
        return "must not contain NUL characters"
    if len(item) > LABEL_VALUE_MAX:
        return f"at most {LABEL_VALUE_MAX} characters (got {len(item)})"
    return None


def labels_problem(value: Any, where: str = "labels") -> str | None:
    """label_errors as one sentence for a file's error message (`labels.team: must be a
    string`), None for good labels."""
    errors = label_errors(value, where)
    return "; ".join(f"{name}: {reason}" for name, reason in errors.items()) or None
