"""Render the state table as a Mermaid diagram (docs/architecture.md embeds it; a test keeps it true)."""

from diagnosis.states import ALLOWED_TRANSITIONS, TERMINAL


def mermaid() -> str:
    lines = ["stateDiagram-v2", "    [*] --> queued"]
    for src, targets in ALLOWED_TRANSITIONS.items():
        lines.extend(
            f"    {src.value} --> {dst.value}"
            for dst in sorted(targets, key=lambda s: s.value)
        )
    lines.extend(
        f"    {state.value} --> [*]"
        for state in sorted(TERMINAL, key=lambda s: s.value)
    )
    return "\n".join(lines)
