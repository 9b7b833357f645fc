"""docs/architecture.md still matches the code it describes."""

from pathlib import Path

from diagnosis.events import EventKind
from diagnosis.statediagram import mermaid

DOC = (Path(__file__).resolve().parents[2] / "docs" / "architecture.md").read_text()


def test_state_diagram_in_docs_matches_the_state_table():
    assert mermaid() in DOC


def test_every_event_kind_is_documented():
    for kind in EventKind:
        assert f"`{kind.value}`" in DOC
