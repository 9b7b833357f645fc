"""The scenario-folder rule (mcpservers.scenario_folder): which data servers a folder feeds."""

import json
import subprocess
import sys

import pytest

from diagnosis.registry import demo_servers
from mcpservers import scenarios
from mcpservers.scenario_folder import FolderError, data_servers


def test_an_empty_folder_feeds_no_data_server_and_its_demo_only_actions(tmp_path):
    assert data_servers(tmp_path) == ()
    assert demo_servers(tmp_path) == ("actions",)


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"logs.jsonl": ""}, ("logs",)),
        ({"metrics.json": "{}"}, ("metrics",)),
        ({"kubernetes.json": "{}"}, ("kubernetes",)),
        ({"targets.json": "[]"}, ("netcheck",)),
        (
            {"backend.json": json.dumps({"logs": {}, "metrics": {}})},
            ("logs", "metrics"),
        ),
        ({"targets.json": "[]", "logs.jsonl": ""}, ("logs", "netcheck")),
    ],
)
def test_each_file_feeds_its_server_in_one_order(tmp_path, files, expected):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert data_servers(tmp_path) == expected
    assert demo_servers(tmp_path) == (*expected, "actions")


def test_a_runbooks_folder_feeds_runbooks_but_a_runbooks_file_does_not(tmp_path):
    (tmp_path / "runbooks").write_text("not a folder")
    assert data_servers(tmp_path) == ()
    (tmp_path / "runbooks").unlink()
    (tmp_path / "runbooks").mkdir()
    assert data_servers(tmp_path) == ("runbooks",)


@pytest.mark.parametrize("text", ["{not json", "[1, 2]"])
def test_a_bad_backend_json_is_named_by_both_readers(tmp_path, text):
    (tmp_path / "backend.json").write_text(text)
    with pytest.raises(FolderError, match=r"backend\.json: (unreadable|not an object)"):
        data_servers(tmp_path)
    with pytest.raises(ValueError, match=r"backend\.json"):
        demo_servers(tmp_path)


def test_the_bundled_scenarios_read_the_same_rule():
    for slug in scenarios.SLUGS:
        scenario = scenarios.load(slug)
        assert scenario.servers == data_servers(scenario.path)
        assert demo_servers(scenario.path) == (*scenario.servers, "actions")


def test_the_rule_imports_neither_the_sdk_nor_the_listeners():
    code = (
        "import sys, mcpservers.scenario_folder; "
        "print(sorted(m for m in sys.modules if m.startswith(('mcp.', 'mcpservers.scenarios'))"
        " or m == 'mcp'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
