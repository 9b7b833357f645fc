"""The incident's coordination status and its allowed moves (the task's own are in states.py).

    triggered ──▶ acknowledged ──▶ mitigated ──▶ resolved
        │   └─────────────────────────▲──────────▲
        └─────────────────────────────┴──────────┘   (a step may be skipped)
    resolved ──▶ triggered (reopened); mitigated ──▶ acknowledged (it came back)

Pure Python: no queries, so a test checks the table exhaustively.
"""

from diagnosis.models import IncidentStatus

ALLOWED_STATUS_MOVES: dict[str, frozenset[str]] = {
    IncidentStatus.TRIGGERED: frozenset(
        {IncidentStatus.ACKNOWLEDGED, IncidentStatus.MITIGATED, IncidentStatus.RESOLVED}
    ),
    IncidentStatus.ACKNOWLEDGED: frozenset(
        {IncidentStatus.MITIGATED, IncidentStatus.RESOLVED}
    ),
    IncidentStatus.MITIGATED: frozenset(
        {IncidentStatus.RESOLVED, IncidentStatus.ACKNOWLEDGED}
    ),
    IncidentStatus.RESOLVED: frozenset({IncidentStatus.TRIGGERED}),
}


def status_move_error(src: str, dst: str) -> str | None:
    """Why `src` → `dst` is refused (a sentence naming the allowed moves), or None when allowed."""
    if dst not in IncidentStatus.values:
        return "must be one of " + ", ".join(IncidentStatus.values)
    if src == dst:
        return f"the incident is already {dst}"
    allowed = ALLOWED_STATUS_MOVES.get(src, frozenset())
    if dst not in allowed:
        named = ", ".join(s for s in IncidentStatus.values if s in allowed)
        return f"cannot move from {src} to {dst}; from {src}: {named or 'none'}"
    return None


def status_moves(src: str) -> list[str]:
    """The statuses `src` may move to, in IncidentStatus order (the page's buttons)."""
    allowed = ALLOWED_STATUS_MOVES.get(src, frozenset())
    return [s for s in IncidentStatus.values if s in allowed]
