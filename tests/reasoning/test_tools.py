"""reasoning.tools, the one tool table: agents, domains, readers, and names two servers offer."""

import ast
from pathlib import Path

import pytest

from reasoning import tools
from reasoning.layered.facts import READERS
from reasoning.tools import TOOLS, AmbiguousTool, ToolSpec, ToolTable, agent_for, domain
from scripts import pysource

ROOT = Path(__file__).resolve().parents[2]
# What each bundled server offers: server folder → the tools it registers.
BUNDLED = {
    "metrics": {"query_metric", "service_health"},
    "logs": {"search_logs", "top_errors"},
    "netcheck": {"list_targets", "probe_url"},
    "runbooks": {"search_runbooks"},
    "actions": {"get_action_status", "restart_workload", "scale_workload"},
    "kubernetes": {"describe", "events", "get_resources", "get_yaml", "pod_logs"},
}


def _registered_tools(server: str) -> set[str]:
    """The functions decorated with `@server.tool(...)` in mcpservers/<server>/server.py."""
    tree = pysource.parse((ROOT / "mcpservers" / server / "server.py").read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for deco in node.decorator_list:
                target = deco.func if isinstance(deco, ast.Call) else deco
                if isinstance(target, ast.Attribute) and target.attr == "tool":
                    names.add(node.name)
    return names


@pytest.mark.parametrize("server", sorted(BUNDLED))
def test_the_table_knows_every_tool_the_bundled_servers_offer(server):
    assert _registered_tools(server) == BUNDLED[server]
    assert BUNDLED[server] <= TOOLS.names()


def test_agents_and_domains_of_the_bundled_tools():
    by_agent = {}
    for spec in TOOLS.values():
        by_agent.setdefault(spec.agent, set()).add(spec.name)

    assert by_agent == {
        "metrics": {"service_health", "query_metric"},
        "logs": {"top_errors", "search_logs"},
        "network": {"list_targets", "probe_url"},
        "runbook": {"search_runbooks"},
        "action": {"restart_workload", "scale_workload", "get_action_status"},
        "kubernetes": {"get_resources", "describe", "pod_logs", "events", "get_yaml"},
    }
    assert domain("logs", "top_errors") == ("log",)
    assert domain("metrics", "query_metric") == ("metric", "dashboard")
    assert domain("netcheck", "probe_url") == ()
    assert domain("anything", "not_a_known_tool") == ()
    assert by_agent["kubernetes"] == tools.KUBERNETES_TOOLS
    assert by_agent["action"] == tools.WRITES


def test_a_known_tool_keeps_its_agent_whatever_the_server_is_called():
    # The LLM planner used to guess from the names: pod_logs on "kubernetes" was "logs".
    assert agent_for("kubernetes", "pod_logs") == "kubernetes"
    assert agent_for("observability", "top_errors") == "logs"
    assert agent_for("actions", "get_action_status") == "action"


@pytest.mark.parametrize(
    ("server", "tool", "agent"),
    [
        ("loki", "find_lines", "metrics"),
        ("app-logs", "find_lines", "logs"),
        ("x", "kube_top", "kubernetes"),
        ("net.check", "probe url", "network"),
        ("docs", "runbook_lookup", "runbook"),
        ("unknown", "whatever", "metrics"),
    ],
)
def test_an_unknown_tool_gets_its_agent_from_the_names(server, tool, agent):
    assert agent_for(server, tool) == agent


def test_every_reader_reads_a_tool_of_the_table():
    assert set(READERS) <= TOOLS.names()
    assert not set(READERS) & (tools.WRITES | tools.KUBERNETES_TOOLS)


def test_a_name_two_servers_offer_is_keyed_by_server_and_never_guessed():
    table = ToolTable(
        [
            ToolSpec("search", "logs", domain=("log",), server="logs"),
            ToolSpec("search", "runbook", server="runbooks"),
            ToolSpec("probe_url", "network"),
        ]
    )

    assert table[("logs", "search")].agent == "logs"
    assert table.resolve("search", "runbooks").agent == "runbook"
    assert table.resolve("probe_url", "any server").agent == "network"
    assert table.resolve("search", "third") is None
    assert agent_for("third", "search", table) == "metrics"
    assert domain("logs", "search", table) == ("log",)
    with pytest.raises(AmbiguousTool) as refused:
        table.resolve("search")
    assert refused.value.servers == ("logs", "runbooks")
    assert "name the server" in str(refused.value)
    with pytest.raises(AmbiguousTool):
        table["search"]
    assert table["probe_url"].agent == "network"
    assert len(table) == 3
    assert set(table) == {("logs", "search"), ("runbooks", "search"), "probe_url"}


@pytest.mark.parametrize(
    "specs",
    [
        [ToolSpec("search", "logs"), ToolSpec("search", "runbook")],
        [ToolSpec("search", "logs"), ToolSpec("search", "runbook", server="runbooks")],
        [
            ToolSpec("search", "logs", server="a"),
            ToolSpec("search", "logs", server="a"),
        ],
    ],
)
def test_a_table_that_would_have_to_guess_is_refused(specs):
    with pytest.raises(ValueError, match="keyed by \\(server, tool\\)"):
        ToolTable(specs)


def test_unknown_names():
    assert TOOLS.resolve("not_a_tool") is None
    with pytest.raises(KeyError):
        TOOLS["not_a_tool"]
