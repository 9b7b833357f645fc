"""The intake fixtures: bodies as Alertmanager and PagerDuty send them (tests/diagnosis/test_alerts.py
replays them over HTTP in order)."""

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text())
