"""Demo environments built from scenario folders: a server only where its data is, live listeners
from the folder's targets.json (any `[demo] scenarios_dir`, not only the bundled one)."""

import json
import sys
import textwrap

import pytest

from diagnosis.engine.live import environment_live
from diagnosis.registry import demo_environment_name, demo_servers, load_registry


def scenario(root, slug, **files):
    folder = root / slug
    folder.mkdir(parents=True)
    (folder / "incident.json").write_text(json.dumps({"title": f"Incident {slug}"}))
    for name, body in files.items():
        path = folder / name
        if name.endswith("/"):
            path.mkdir()
        else:
            path.write_text(body if isinstance(body, str) else json.dumps(body))
    return folder


def registry(tmp_path, root):
    path = tmp_path / "servers.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [demo]
            scenarios_dir = {json.dumps(str(root))}
            """
        )
    )
    return load_registry(path)


TARGETS = {
    "targets": [
        {
            "name": "cart",
            "url": "http://cart.shop.internal/healthz",
            "fault": {"kind": "connect_refused"},
        }
    ]
}


def test_a_kubernetes_and_logs_folder_gets_only_those_servers_and_actions(tmp_path):
    root = tmp_path / "scenarios"
    folder = scenario(root, "k8s", **{"kubernetes.json": {}, "logs.jsonl": ""})

    reg = registry(tmp_path, root)
    env = reg.environments[demo_environment_name("k8s")]

    assert [s.name for s in env.servers] == ["logs", "kubernetes", "actions"]
    assert env.server("kubernetes").command == (
        sys.executable,
        "-m",
        "mcpservers.launch",  # the fork server can fork it
        "kubernetes",
        "--scenario",
        str(folder),
    )
    assert env.server("actions").approval_required == {
        "restart_workload",
        "scale_workload",
    }
    assert reg.scenario_folder(env) == folder


def test_each_file_brings_its_server(tmp_path):
    folder = scenario(
        tmp_path,
        "all",
        **{
            "logs.jsonl": "",
            "metrics.json": {},
            "runbooks/": None,
            "kubernetes.json": {},
            "targets.json": TARGETS,
        },
    )

    assert demo_servers(folder) == (
        "logs",
        "metrics",
        "runbooks",
        "kubernetes",
        "netcheck",
        "actions",
    )
    assert demo_servers(scenario(tmp_path, "bare")) == ("actions",)
    backend_only = scenario(
        tmp_path,
        "backend",
        **{"backend.json": {"logs": {"loki_target": "cart"}}, "targets.json": TARGETS},
    )
    assert demo_servers(backend_only) == ("logs", "netcheck", "actions")


def test_a_broken_backend_json_is_refused_at_load(tmp_path):
    root = tmp_path / "scenarios"
    scenario(root, "bad", **{"backend.json": "{"})

    with pytest.raises(Exception, match=r"backend\.json: unreadable"):
        registry(tmp_path, root)


@pytest.mark.anyio
async def test_environment_live_starts_a_custom_folders_listeners(tmp_path):
    root = tmp_path / "elsewhere"
    scenario(root, "refused-cart", **{"targets.json": TARGETS, "logs.jsonl": ""})
    env = registry(tmp_path, root).environments[demo_environment_name("refused-cart")]

    async with environment_live(env) as bound:
        netcheck = bound.server("netcheck").command
        logs = bound.server("logs").command

    assert netcheck is not None and logs is not None
    allowed = [netcheck[i + 1] for i, a in enumerate(netcheck) if a == "--allow"]
    assert len(allowed) == 1
    assert allowed[0].startswith("http://cart.shop.internal:")
    assert "--resolve" in netcheck
    assert logs[-2:] == ("--scenario", str((root / "refused-cart").resolve()))
    assert [s.name for s in bound.servers] == ["logs", "netcheck", "actions"]
