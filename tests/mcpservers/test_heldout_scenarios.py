"""The held-out sets bench/heldout … bench/heldout31 (issue 21 item 7): the folders are what their
builder writes, and each loads as a scenario with an expected answer the evaluation can use."""

import filecmp
import importlib
import json
from pathlib import Path

import pytest

from mcpservers import scenarios
from mcpservers.kubernetes.commands import parse_command_line

BENCH = Path(__file__).resolve().parents[2] / "bench"
SETS = (
    "heldout",
    "heldout2",
    "heldout3",
    "heldout4",
    "heldout5",
    "heldout6",
    "heldout7",
    "heldout8",
    "heldout9",
    "heldout10",
    "heldout11",
    "heldout12",
    "heldout13",
    "heldout14",
    "heldout15",
    "heldout16",
    "heldout17",
    "heldout18",
    "heldout19",
    "heldout20",
    "heldout21",
    "heldout22",
    "heldout23",
    "heldout24",
    "heldout25",
    "heldout26",
    "heldout27",
    "heldout28",
    "heldout29",
    "heldout30",
    "heldout31",
)
BUILDERS = {name: importlib.import_module(f"bench.{name}._build") for name in SETS}
CASES = [(name, slug) for name in SETS for slug in sorted(BUILDERS[name].SCENARIOS)]


@pytest.mark.parametrize("name", SETS)
def test_at_least_fifteen_held_out_scenarios_on_disk(name):
    on_disk = sorted(p.parent.name for p in (BENCH / name).glob("*/incident.json"))
    assert on_disk == sorted(BUILDERS[name].SCENARIOS)
    assert len(on_disk) >= 15


@pytest.mark.parametrize("name", SETS)
def test_the_folders_are_what_the_builder_writes(tmp_path, name):
    BUILDERS[name].main(tmp_path)
    for slug in sorted(BUILDERS[name].SCENARIOS):
        compared = filecmp.dircmp(tmp_path / slug, BENCH / name / slug)
        assert not compared.left_only and not compared.right_only, slug
        _, mismatch, errors = filecmp.cmpfiles(
            tmp_path / slug,
            BENCH / name / slug,
            [p.name for p in (tmp_path / slug).iterdir() if p.is_file()],
            shallow=False,
        )
        assert not mismatch and not errors, (slug, mismatch, errors)


@pytest.mark.parametrize(("name", "slug"), CASES)
def test_each_loads_with_a_usable_expected_answer(name, slug):
    folder = BENCH / name / slug
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
