"""The scenario generator of `evaluate --generated`: deterministic for a seed, every folder valid
per the scenario loader, per-fault-class figures, and a small run end to end (slow)."""

import contextlib
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from diagnosis import evaluation, evaluation_generated
from mcpservers import scenarios
from tests.livestack import redis_url_with_db


def test_generation_is_deterministic_for_a_seed():
    assert evaluation_generated.generate(30, 7) == evaluation_generated.generate(30, 7)
    assert evaluation_generated.generate(30, 7) != evaluation_generated.generate(30, 8)


def test_the_catalogue_is_covered():
    specs = evaluation_generated.generate(200, 1)
    assert {s["fault"] for s in specs} == set(evaluation_generated.FAULT_NAMES)
    assert {s["topology"] for s in specs} == {"chain", "fan-out"}
    herrings = {
        h
        for s in specs
        for h in json.loads(s["files"]["expected.json"])["generated"]["red_herrings"]
    }
    assert herrings == set(evaluation_generated.RED_HERRINGS)


def test_every_generated_scenario_loads(tmp_path):
    folders = evaluation_generated.write(evaluation_generated.generate(40, 3), tmp_path)
    loaded = evaluation.load_scenarios(tmp_path)
    assert [s.folder for s in loaded] == sorted(f.name for f in folders)
    for folder, scenario in zip(sorted(folders), loaded, strict=True):
        spec = scenarios.load(folder)
        assert spec.incident["service"]
        assert scenario.signal in (folder / "logs.jsonl").read_text()
        # the expected component is a service or host the data names
        assert any(
            c in (folder / "logs.jsonl").read_text() for c in scenario.components
        )


def test_summary_per_fault_class():
    rows = evaluation_generated.summary(
        [
            ("gen-0000~dns-failure", True, True),
            ("gen-0001~dns-failure", True, False),
            ("gen-0002~oomkill", False, True),
        ]
    )
    assert rows["dns-failure"] == {"runs": 2, "right": 2, "conclusive": 1, "counted": 1}
    assert rows["oomkill"] == {"runs": 1, "right": 0, "conclusive": 1, "counted": 0}
    assert rows["all"]["runs"] == 3 and list(rows)[-1] == "all"


def test_evaluate_refuses_a_non_positive_count():
    with pytest.raises(CommandError, match="--generated"):
        call_command("evaluate", "--generated", "0")


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_evaluate_generated_end_to_end(settings):
    settings.REDIS_URL = settings.CELERY_BROKER_URL = redis_url_with_db(8)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.suppress(CommandError):
        call_command(
            "evaluate",
            "--generated",
            "5",
            "--seed",
            "1",
            "--keep",
            "--min-counted",
            "0",
            stdout=out,
            stderr=err,
        )
    printed = out.getvalue()
    kept = Path(err.getvalue().split("generated scenarios in ", 1)[1].splitlines()[0])
    assert len(list(kept.iterdir())) == 5
    assert "all: " in printed and "counted (right and conclusive)" in printed, printed
