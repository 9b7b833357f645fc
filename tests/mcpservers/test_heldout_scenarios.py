"""The held-out scenarios of bench/heldout (issue 21 item 7): the folders are what their builder
writes, and each loads as a scenario with an expected answer the evaluation can use."""

import filecmp
import importlib
import json
from pathlib import Path

import pytest

from mcpservers import scenarios
from mcpservers.kubernetes.commands import parse_command_line

HELDOUT = Path(__file__).resolve().parents[2] / "bench" / "heldout"
build = importlib.import_module("bench.heldout._build")
SLUGS = sorted(build.SCENARIOS)


def test_at_least_fifteen_held_out_scenarios_on_disk():
    on_disk = sorted(p.parent.name for p in HELDOUT.glob("*/incident.json"))
    assert on_disk == SLUGS
    assert len(SLUGS) >= 15


def test_the_folders_are_what_the_builder_writes(tmp_path):
    build.main(tmp_path)
    for slug in SLUGS:
        compared = filecmp.dircmp(tmp_path / slug, HELDOUT / slug)
        assert not compared.left_only and not compared.right_only, slug
        _, mismatch, errors = filecmp.cmpfiles(
            tmp_path / slug,
            HELDOUT / slug,
            [p.name for p in (tmp_path / slug).iterdir() if p.is_file()],
            shallow=False,
        )
        assert not mismatch and not errors, (slug, mismatch, errors)


@pytest.mark.parametrize("slug", SLUGS)
def test_each_loads_with_a_usable_expected_answer(slug):
    folder = HELDOUT / slug
    scenario = scenarios.load(folder)
    expected = json.loads((folder / "expected.json").read_text())
    incident = json.loads((folder / "incident.json").read_text())
    assert expected["slug"] == slug and expected["service"] == incident["service"]
    assert expected["root_cause_component"] and expected["root_cause_signal"]
    assert {"logs", "metrics", "runbooks"} <= set(scenario.servers)
    window = incident["window"]
    assert window["start_offset_s"] < incident["started_offset_s"] < 0
    if (folder / "kubernetes.json").is_file():
        for line in json.loads((folder / "kubernetes.json").read_text()):
            assert parse_command_line(line).command.line() == line
    if expected["netcheck"]:
        assert set(expected["netcheck"]) <= {t.name for t in scenario.targets}
