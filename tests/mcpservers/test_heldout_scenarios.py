"""The held-out sets bench/heldout … bench/heldout31 (issue 21 item 7): the folders are what their
builder writes, and each loads as a scenario with an expected answer the evaluation can use."""

import filecmp
import inspect
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from mcpservers import scenarios
from mcpservers.kubernetes.commands import parse_command_line
from tests.pytest_internals import parameters

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
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
CASES = [
    (name, folder.parent.name)
    for name in SETS
    for folder in sorted((BENCH / name).glob("*/incident.json"))
]
# The builders are large (about 100,000 lines in all) and each loads its predecessors again from
# source, so this process never imports them: a module fixture runs each set's builder into a
# temporary folder of its own in a child process, as many at once as there are cores, while the
# loading tests run here; the children share one bytecode cache (a builder is compiled once, not
# once per set that loads it). Each test waits for its own set.
# A child builds one set: `python -c BUILD <set> <folder>`; its last line of output is the sorted
# names of the scenarios its builder registers.
BUILD = """\
import importlib, json, sys
from pathlib import Path
builder = importlib.import_module(f"bench.{sys.argv[1]}._build")
builder.main(Path(sys.argv[2]))
print(json.dumps(sorted(builder.SCENARIOS)))
"""


class Built:
    def __init__(self, folder: Path, slugs: list[str]) -> None:
        self.folder = folder
        self.slugs = slugs


def _build(name: str, folder: Path, env: dict[str, str]) -> Built:
    done = subprocess.run(
        [sys.executable, "-c", BUILD, name, str(folder)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"bench/{name}/_build.py failed:\n{done.stderr[-4000:]}")
    return Built(folder, json.loads(done.stdout.splitlines()[-1]))


@pytest.fixture(scope="module", autouse=True)
def builds(request, tmp_path_factory) -> Iterator[dict[str, Future[Built]]]:
    """Autouse, so the builds start with the module's first test; only the sets a selected test
    compares (one that asks for this fixture) are built."""
    wanted = {
        parameters(item)["name"]
        for item in request.session.items
        if isinstance(item, pytest.Function)
        and item.module is request.module
        and "builds" in inspect.signature(item.function).parameters
    }
    env = dict(os.environ)
    if "PYTHONPYCACHEPREFIX" not in env:  # ./test sets one for the whole run
        env["PYTHONPYCACHEPREFIX"] = str(tmp_path_factory.mktemp("pyc"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with ThreadPoolExecutor(max_workers=len(os.sched_getaffinity(0))) as pool:
        yield {
            name: pool.submit(_build, name, tmp_path_factory.mktemp(name), env)
            for name in SETS
            if name in wanted
        }
        pool.shutdown(cancel_futures=True)


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


@pytest.mark.parametrize("name", SETS)
def test_at_least_fifteen_held_out_scenarios_on_disk(builds, name):
    on_disk = sorted(p.parent.name for p in (BENCH / name).glob("*/incident.json"))
    assert on_disk == builds[name].result().slugs
    assert len(on_disk) >= 15


@pytest.mark.parametrize("name", SETS)
def test_the_folders_are_what_the_builder_writes(builds, name):
    built = builds[name].result()
    for slug in built.slugs:
        compared = filecmp.dircmp(built.folder / slug, BENCH / name / slug)
        assert not compared.left_only and not compared.right_only, slug
        _, mismatch, errors = filecmp.cmpfiles(
            built.folder / slug,
            BENCH / name / slug,
            [p.name for p in (built.folder / slug).iterdir() if p.is_file()],
            shallow=False,
        )
        assert not mismatch and not errors, (slug, mismatch, errors)
