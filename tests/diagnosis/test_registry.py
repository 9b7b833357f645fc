"""The server registry: the bundled file really starts its servers, every bad entry is named,
tenants are enforced, demo names are neutral, stdio children never see the worker's secrets."""

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

import mcpclient
from diagnosis import registry
from diagnosis.engine.forkserver import ForkServer
from diagnosis.registry import (
    BUNDLED_FILE,
    EnvironmentForbidden,
    EnvironmentLookupError,
    MissingSecret,
    RegistryError,
    ServerEntry,
    UnknownEnvironment,
    client_server,
    connect_server,
    demo_environment_name,
    demo_servers,
    load_registry,
)

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "mcpservers" / "scenarios"
SCENARIO_SLUGS = sorted(
    p.name
    for p in SCENARIOS.iterdir()
    if p.name[0] not in "._" and (p / "incident.json").is_file()
)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "servers.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


MINIMAL = """
[environments.prod.servers.logs]
command = ["{python}", "-m", "mcpservers.logs"]
"""


# --- the bundled file ---------------------------------------------------------------------------


def test_bundled_file_loads_default_and_one_demo_per_scenario():
    reg = load_registry(BUNDLED_FILE)

    assert reg.default_environment == "default"
    default = reg.environments["default"]
    assert [s.name for s in default.servers] == [
        "logs",
        "metrics",
        "runbooks",
        "netcheck",
        "actions",
    ]
    assert default.server("actions").approval_required == {
        "restart_workload",
        "scale_workload",
    }
    demos = [env for env in reg.environments.values() if env.scenario is not None]
    assert sorted(env.scenario for env in demos) == SCENARIO_SLUGS
    assert len(SCENARIO_SLUGS) >= 5


def test_settings_default_to_the_bundled_file(settings):
    if "AGENTOPS_SERVERS" not in os.environ:
        assert Path(settings.AGENTOPS_SERVERS) == BUNDLED_FILE


@pytest.mark.anyio
@pytest.mark.slow
@pytest.mark.timeout(660)
async def test_every_bundled_server_starts_and_lists_its_allowed_tools():
    """Proves each command line is right: spawn it over stdio through mcpclient and list tools.

    Started as the worker starts them: a launched (bundled) entry through the fork server, which
    runs the command line's own arguments in a fork of a pre-imported parent (about a hundred
    plain starts would cost ~1 s of CPU each); test_forkserver proves the two starts alike."""
    reg = load_registry(BUNDLED_FILE)
    entries = [(env, s) for env in reg.environments.values() for s in env.servers]
    limit = asyncio.Semaphore(6)
    forkserver = ForkServer()
    environ = await forkserver.environ(os.environ)
    assert forkserver.pid is not None, "the fork server did not start"

    async def tools_of(entry: ServerEntry) -> set[str]:
        async with limit, connect_server(entry, environ=environ) as session:
            return {tool.name for tool in await session.list_tools()}

    # The bound only stops a hang: a 2-core machine under a full suite is slow.
    try:
        async with asyncio.timeout(600):
            listed = await asyncio.gather(*(tools_of(s) for _, s in entries))
    finally:
        await forkserver.close()

    for (env, entry), tools in zip(entries, listed, strict=True):
        assert tools, (env.name, entry.name)
        assert entry.approval_required <= tools, (env.name, entry.name)
        if entry.tools is not None:
            assert entry.tools <= tools, (env.name, entry.name, tools)


def test_demo_environment_reads_its_scenario_data_and_is_described_by_its_title():
    reg = load_registry(BUNDLED_FILE)
    for slug in SCENARIO_SLUGS:
        env = reg.environments[demo_environment_name(slug)]
        incident = json.loads((SCENARIOS / slug / "incident.json").read_text())
        assert env.description == incident["title"]
        assert env.scenario == slug
        assert reg.scenario_folder(env) == SCENARIOS / slug
        assert [s.name for s in env.servers] == list(demo_servers(SCENARIOS / slug))
        for entry in env.servers:
            command = entry.command
            assert command is not None
            # Through the launcher: the worker's fork server can fork it.
            assert command[1:4] == ("-m", "mcpservers.launch", entry.name)
            if entry.name in ("logs", "metrics", "runbooks", "kubernetes"):
                assert command[4:] == ("--scenario", str(SCENARIOS / slug))


def test_the_five_first_scenarios_have_no_kubernetes_server():
    reg = load_registry(BUNDLED_FILE)
    for slug in (
        "dns-nxdomain",
        "log-backend-timeout",
        "pool-exhaustion",
        "proxy-idle-timeout",
        "tls-expired",
    ):
        env = reg.environments[demo_environment_name(slug)]
        assert [s.name for s in env.servers] == [
            "logs",
            "metrics",
            "runbooks",
            "netcheck",
            "actions",
        ]


@pytest.mark.parametrize("slug", SCENARIO_SLUGS)
def test_demo_environment_name_does_not_give_the_answer_away(slug):
    expected = json.loads((SCENARIOS / slug / "expected.json").read_text())
    giveaways = {
        *slug.split("-"),
        slug,
        expected.get("root_cause_layer", ""),
        *(expected.get("root_cause_probe") or "").split("-"),
        *expected.get("netcheck", {}),
        *(
            v["reason"]
            for v in expected.get("netcheck", {}).values()
            if v.get("reason")
        ),
    }
    giveaways = {word.lower() for word in giveaways if len(word) >= 3}
    name = demo_environment_name(slug)
    assert name.startswith("demo-")
    for word in giveaways:
        assert word not in name, (name, word)
    assert repr(slug) not in repr(load_registry(BUNDLED_FILE).environments[name])


def test_demo_order_is_by_neutral_name_not_by_scenario():
    reg = load_registry(BUNDLED_FILE)
    names = [env.name for env in reg.environments.values() if env.scenario]
    assert names == sorted(names)


def test_bind_live_replaces_the_args_of_named_servers_only():
    reg = load_registry(BUNDLED_FILE)
    env = reg.environments[demo_environment_name("tls-expired")]
    live = env.bind_live(
        {
            "netcheck": ["--allow", "https://127.0.0.1:4443"],
            "logs": ["--scenario", "x"],
        }
    )

    assert live.server("netcheck").command == (
        sys.executable,
        "-m",
        "mcpservers.launch",
        "netcheck",
        "--allow",
        "https://127.0.0.1:4443",
    )
    assert live.server("logs").command[-2:] == ("--scenario", "x")
    assert live.server("metrics") == env.server("metrics")
    with pytest.raises(ValueError, match="not a demo environment"):
        reg.environments["default"].bind_live({})


def test_demo_environments_from_a_custom_scenarios_dir(tmp_path):
    root = tmp_path / "scenarios"
    for slug, title in (("one", "First"), ("two", "Second")):
        (root / slug).mkdir(parents=True)
        (root / slug / "incident.json").write_text(json.dumps({"title": title}))
    (root / "_private").mkdir()
    (root / "no-incident").mkdir()
    path = write(
        tmp_path,
        """
        [demo]
        scenarios_dir = "{here}/scenarios"
        tenants = ["acme"]
        """,
    )

    reg = load_registry(path)

    assert {env.description for env in reg.environments.values()} == {
        "First",
        "Second",
    }
    assert all(env.tenants == {"acme"} for env in reg.environments.values())
    (root / "two" / "incident.json").write_text("{}")
    with pytest.raises(RegistryError, match=r"\[demo\], field 'scenarios_dir'"):
        load_registry(path)


# --- validation -------------------------------------------------------------------------------

SERVER = "environment 'prod', server 'logs'"

BAD = [
    ("unknown top-level key", "color = 1\n" + MINIMAL, "", "color", "unknown key"),
    (
        "unknown server key",
        MINIMAL + "timeout = 3\n",
        SERVER,
        "timeout",
        "unknown key",
    ),
    (
        "unknown environment key",
        "[environments.prod]\nowner = 'x'\n" + MINIMAL,
        "environment 'prod'",
        "owner",
        "unknown key",
    ),
    (
        "wrong type",
        MINIMAL + 'call_timeout = "30"\n',
        SERVER,
        "call_timeout",
        "must be a number of seconds",
    ),
    (
        "negative timeout",
        MINIMAL + "connect_timeout = -1\n",
        SERVER,
        "connect_timeout",
        "> 0",
    ),
    (
        "boolean concurrency",
        MINIMAL + "max_concurrency = true\n",
        SERVER,
        "max_concurrency",
        "integer from 1",
    ),
    (
        "zero concurrency",
        MINIMAL + "max_concurrency = 0\n",
        SERVER,
        "max_concurrency",
        "integer from 1",
    ),
    (
        "unknown protocol version",
        MINIMAL + 'protocol_version = "2023-01-01"\n',
        SERVER,
        "protocol_version",
        "not a known version",
    ),
    (
        "command as a shell string",
        '[environments.prod.servers.logs]\ncommand = "python -m mcpservers.logs; rm -rf /"\n',
        SERVER,
        "command",
        "non-empty list of strings",
    ),
    (
        "empty command",
        "[environments.prod.servers.logs]\ncommand = []\n",
        SERVER,
        "command",
        "non-empty list of strings",
    ),
    (
        "command with a number",
        '[environments.prod.servers.logs]\ncommand = ["python", 3]\n',
        SERVER,
        "command",
        "non-empty list of strings",
    ),
    (
        "empty program",
        '[environments.prod.servers.logs]\ncommand = ["", "-m", "x"]\n',
        SERVER,
        "command",
        "program (first element) is empty",
    ),
    (
        "relative program path",
        '[environments.prod.servers.logs]\ncommand = ["./bin/logs"]\n',
        SERVER,
        "command",
        "bare name (found on PATH) or an absolute path",
    ),
    (
        "unknown placeholder",
        '[environments.prod.servers.logs]\ncommand = ["{pyhton}", "-m", "x"]\n',
        SERVER,
        "command",
        "unknown placeholder {pyhton}",
    ),
    (
        "stdio without command",
        '[environments.prod.servers.logs]\ntransport = "stdio"\n',
        SERVER,
        "command",
        "required for transport 'stdio'",
    ),
    (
        "bad transport",
        '[environments.prod.servers.logs]\ntransport = "ssh"\ncommand = ["x"]\n',
        SERVER,
        "transport",
        'must be "stdio" or "http"',
    ),
    (
        "url scheme file",
        '[environments.prod.servers.logs]\nurl = "file:///etc/passwd"\n',
        SERVER,
        "url",
        "scheme must be http or https, got 'file'",
    ),
    (
        "url scheme ftp",
        '[environments.prod.servers.logs]\nurl = "ftp://logs.internal/mcp"\n',
        SERVER,
        "url",
        "scheme must be http or https",
    ),
    (
        "url with credentials",
        '[environments.prod.servers.logs]\nurl = "https://u:p@logs.internal/mcp"\n',
        SERVER,
        "url",
        "must not carry credentials",
    ),
    (
        "url without host",
        '[environments.prod.servers.logs]\nurl = "https:///mcp"\n',
        SERVER,
        "url",
        "no host",
    ),
    (
        "http without url",
        '[environments.prod.servers.logs]\ntransport = "http"\n',
        SERVER,
        "url",
        "required for transport 'http'",
    ),
    (
        "auth_env on stdio",
        MINIMAL + 'auth_env = "TOKEN"\n',
        SERVER,
        "auth_env",
        "does not apply to transport 'stdio'",
    ),
    (
        "command on http",
        '[environments.prod.servers.logs]\nurl = "https://l/mcp"\ncommand = ["x"]\n',
        SERVER,
        "command",
        "does not apply to transport 'http'",
    ),
    (
        "auth_env not a name",
        '[environments.prod.servers.logs]\nurl = "https://l/mcp"\nauth_env = "A B"\n',
        SERVER,
        "auth_env",
        "must be a variable name",
    ),
    (
        "env passes the app's secret",
        MINIMAL + 'env = ["LOKI_TOKEN", "SECRET_KEY"]\n',
        SERVER,
        "env",
        "SECRET_KEY is the app's own secret",
    ),
    (
        "env passes DATABASE_URL",
        MINIMAL + 'env = ["DATABASE_URL"]\n',
        SERVER,
        "env",
        "DATABASE_URL is the app's own secret",
    ),
    (
        "env not a name",
        MINIMAL + 'env = ["X=1"]\n',
        SERVER,
        "env",
        "not a variable name",
    ),
    (
        "tenants not a list",
        MINIMAL + 'tenants = "acme"\n',
        SERVER,
        "tenants",
        "must be a list of tenant slugs",
    ),
    (
        "tenants with a number",
        MINIMAL + "tenants = ['acme', 7]\n",
        SERVER,
        "tenants",
        "must be a list of tenant slugs",
    ),
    (
        "empty tenants",
        MINIMAL + "tenants = []\n",
        SERVER,
        "tenants",
        "admits no tenant",
    ),
    (
        "server tenant outside the environment's",
        "[environments.prod]\ntenants = ['acme']\n"
        + MINIMAL
        + "tenants = ['globex']\n",
        SERVER,
        "tenants",
        "globex may not use the environment",
    ),
    (
        "tools not strings",
        MINIMAL + "tools = [1]\n",
        SERVER,
        "tools",
        "list of tool names",
    ),
    (
        "approval outside the allowlist",
        MINIMAL + "tools = ['search_logs']\napproval_required = ['restart']\n",
        SERVER,
        "approval_required",
        "outside the allowlist: restart",
    ),
    (
        "bad environment name",
        '[environments."Prod Env".servers.logs]\ncommand = ["x"]\n',
        "environment 'Prod Env'",
        "",
        "lowercase letters",
    ),
    (
        "environment without servers",
        "[environments.prod]\ndescription = 'x'\n",
        "environment 'prod'",
        "servers",
        "at least one server",
    ),
    (
        "default_environment unknown",
        'default_environment = "staging"\n' + MINIMAL,
        "",
        "default_environment",
        "must name a defined environment",
    ),
    (
        "bad default timeout",
        "[defaults]\ncall_timeout = 0\n" + MINIMAL,
        "[defaults]",
        "call_timeout",
        "> 0",
    ),
    (
        "tenant default closed to the tenant",
        "tenant_defaults = { globex = 'prod' }\n[environments.prod]\ntenants = ['acme']\n"
        + MINIMAL,
        "tenant_defaults.globex",
        "globex",
        "closed to this tenant",
    ),
    ("no environments", "[defaults]\n", "", "environments", "no environment"),
]


@pytest.mark.parametrize(
    ("text", "entry", "field", "reason"),
    [case[1:] for case in BAD],
    ids=[case[0] for case in BAD],
)
def test_bad_entry_names_file_entry_field_and_reason(
    tmp_path, text, entry, field, reason
):
    path = write(tmp_path, text)

    with pytest.raises(RegistryError) as caught:
        load_registry(path)

    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert entry in message
    if field:
        assert f"field {field!r}" in message
    assert reason in message
    assert caught.value.entry == entry
    assert caught.value.field == field


def test_duplicate_environment_name_is_a_start_up_error_with_its_line(tmp_path):
    path = write(
        tmp_path,
        """
        [environments.prod.servers.logs]
        command = ["x"]
        [environments.prod.servers.logs]
        command = ["y"]
        """,
    )
    with pytest.raises(RegistryError, match=r"not valid TOML: .*line 4") as caught:
        load_registry(path)
    assert str(caught.value).startswith(str(path))


def test_name_taken_by_a_demo_environment_is_an_error(tmp_path):
    taken = demo_environment_name("tls-expired")
    path = write(
        tmp_path,
        f"""
        [demo]
        [environments.{taken}.servers.logs]
        command = ["x"]
        """,
    )
    with pytest.raises(RegistryError, match=f"environment '{taken}'.*taken by a demo"):
        load_registry(path)


def test_unreadable_file_is_named(tmp_path):
    with pytest.raises(RegistryError, match=r"missing\.toml: cannot read"):
        load_registry(tmp_path / "missing.toml")


def test_http_entry_and_defaults(tmp_path):
    path = write(
        tmp_path,
        """
        [defaults]
        call_timeout = 12.5
        protocol_version = "2025-06-18"

        [environments.prod.servers.metrics]
        url = "https://metrics-mcp.internal/mcp"
        auth_env = "METRICS_TOKEN"
        max_concurrency = 2
        """,
    )
    entry = load_registry(path).environments["prod"].server("metrics")
    assert entry == ServerEntry(
        name="metrics",
        transport="http",
        url="https://metrics-mcp.internal/mcp",
        auth_env="METRICS_TOKEN",
        protocol_version="2025-06-18",
        call_timeout=12.5,
        max_concurrency=2,
    )
    assert entry.protocol_version in mcpclient.KNOWN_VERSIONS


# --- tenants ----------------------------------------------------------------------------------

TENANTED = """
default_environment = "shared"
tenant_defaults = { acme = "acme-prod" }

[environments.shared]
description = "For everyone"
[environments.shared.servers.logs]
command = ["x"]
[environments.shared.servers.billing]
command = ["y"]
tenants = ["acme"]

[environments.acme-prod]
tenants = ["acme"]
[environments.acme-prod.servers.logs]
command = ["x"]
"""


def test_tenant_sees_only_environments_and_servers_it_may_use(tmp_path):
    reg = load_registry(write(tmp_path, TENANTED))

    assert [e.name for e in reg.for_tenant("acme")] == ["shared", "acme-prod"]
    globex = reg.for_tenant("globex")
    assert [e.name for e in globex] == ["shared"]
    assert [s.name for s in globex[0].servers] == ["logs"]
    assert [s.name for s in reg.get("shared", tenant="acme").servers] == [
        "logs",
        "billing",
    ]


def test_get_unknown_and_forbidden_are_typed(tmp_path):
    reg = load_registry(write(tmp_path, TENANTED))

    with pytest.raises(UnknownEnvironment, match="no environment named 'nope'"):
        reg.get("nope", tenant="acme")
    with pytest.raises(EnvironmentForbidden) as caught:
        reg.get("acme-prod", tenant="globex")
    assert isinstance(caught.value, EnvironmentLookupError)
    assert (caught.value.name, caught.value.tenant) == ("acme-prod", "globex")


def test_default_environment_per_tenant(tmp_path):
    reg = load_registry(write(tmp_path, TENANTED))

    assert reg.default_for("acme").name == "acme-prod"
    assert reg.default_for("globex").name == "shared"


# --- to mcpclient -----------------------------------------------------------------------------


WORKER_ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/worker",
    "LANG": "C.UTF-8",
    "SECRET_KEY": "django-insecure-do-not-leak",
    "DATABASE_URL": "postgresql://app:hunter2@db/agentops",
    "GITHUB_TOKEN": "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
    "LOKI_TOKEN": "loki-secret",
    "METRICS_TOKEN": " bearer-value \n",
}


def test_stdio_spec_passes_path_home_lang_and_declared_names_only():
    entry = ServerEntry(
        name="logs", transport="stdio", command=("x",), env=("LOKI_TOKEN", "UNSET")
    )
    spec = client_server(entry, environ=WORKER_ENV)

    assert isinstance(spec, mcpclient.StdioServer)
    assert spec.inherit_env is False
    assert spec.env == {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/worker",
        "LANG": "C.UTF-8",
        "LOKI_TOKEN": "loki-secret",
    }
    assert spec.name == "logs"


def test_http_spec_reads_the_bearer_token_at_connect_time():
    entry = ServerEntry(
        name="metrics", transport="http", url="https://m/mcp", auth_env="METRICS_TOKEN"
    )
    client = httpx.AsyncClient()
    spec = client_server(entry, environ=WORKER_ENV, http_client=client)

    assert isinstance(spec, mcpclient.HttpServer)
    assert spec.headers == {"Authorization": "Bearer bearer-value"}
    assert spec.http_client is client
    with pytest.raises(MissingSecret, match=r"METRICS_TOKEN .*unset or empty"):
        client_server(entry, environ={"METRICS_TOKEN": "  "})
    assert client_server(replace(entry, auth_env=None), environ={}).headers is None


def test_tool_predicates():
    entry = ServerEntry(
        name="a",
        transport="stdio",
        command=("x",),
        tools=frozenset({"restart", "status"}),
        approval_required=frozenset({"restart"}),
    )
    assert entry.is_tool_allowed("status")
    assert not entry.is_tool_allowed("delete")
    assert entry.is_approval_required("restart")
    assert not entry.is_approval_required("status")
    assert replace(entry, tools=None).is_tool_allowed("anything")


ENV_SERVER = """
import os
from mcp.server.mcpserver import MCPServer

server = MCPServer("environ")


@server.tool()
def environ() -> dict[str, str]:
    return dict(os.environ)


server.run("stdio")
"""


@pytest.mark.anyio
async def test_stdio_child_never_sees_the_workers_secrets(tmp_path, monkeypatch):
    """Spawn a real MCP server through the registry and ask it for its environment."""
    (tmp_path / "environ_server.py").write_text(ENV_SERVER)
    path = write(
        tmp_path,
        """
        [environments.prod.servers.environ]
        command = ["{python}", "{here}/environ_server.py"]
        env = ["LOKI_TOKEN"]
        """,
    )
    for name, value in WORKER_ENV.items():
        if name != "PATH":
            monkeypatch.setenv(name, value)
    entry = load_registry(path).environments["prod"].server("environ")

    async with asyncio.timeout(60), connect_server(entry) as session:
        result = await session.call_tool("environ", {}, timeout=30)
    child = result.raise_for_error().structured_content
    child = child.get("result", child)

    assert "SECRET_KEY" not in child
    assert "DATABASE_URL" not in child
    assert "GITHUB_TOKEN" not in child
    assert "METRICS_TOKEN" not in child
    assert child["LOKI_TOKEN"] == "loki-secret"
    assert child["LANG"] == "C.UTF-8"
    assert child["HOME"] == "/home/worker"
    assert child["PATH"] == os.environ["PATH"]
    # Only PATH, HOME, LANG, the declared name and mcpclient's harmless default names.
    allowed = {"PATH", "HOME", "LANG", "LOKI_TOKEN", *mcpclient.DEFAULT_INHERITED_ENV}
    # The interpreter itself may add a few (e.g. LC_CTYPE on some platforms).
    assert set(child) - allowed <= {"LC_CTYPE"}, set(child) - allowed


# --- start-up check ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [["manage.py", "check"], ["-m", "agentops.launcher", "prepare"]],
    ids=["manage.py check", "launcher prepare (./run)"],
)
def test_start_up_fails_on_a_bad_registry_file(tmp_path, command):
    path = write(tmp_path, MINIMAL + "connect_timeout = -5\n")
    env = {**os.environ, "AGENTOPS_SERVERS": str(path)}

    proc = subprocess.run(
        [sys.executable, *command],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert proc.returncode != 0
    assert "diagnosis.E001" in proc.stderr
    assert f"{path}: {SERVER}, field 'connect_timeout'" in proc.stderr


def test_check_passes_on_the_bundled_file(settings):
    from diagnosis.checks import check_server_registry

    settings.AGENTOPS_SERVERS = str(BUNDLED_FILE)
    assert check_server_registry(app_configs=None, databases=None) == []
    settings.AGENTOPS_SERVERS = str(BUNDLED_FILE.with_name("nope.toml"))
    [error] = check_server_registry(app_configs=None, databases=None)
    assert error.id == "diagnosis.E001"
    assert "nope.toml: cannot read" in error.msg


def test_registry_module_does_not_import_django():
    code = "import sys, diagnosis.registry; print('django' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert out.stdout.strip() == "False"
    assert registry.__all__  # keeps the import used


# --- [alerts]: how alerts become incidents (diagnosis.intake) ----------------------------------


def test_without_an_alerts_table_the_documented_defaults_apply(tmp_path):
    rules = load_registry(write(tmp_path, MINIMAL)).alerts

    assert rules == registry.AlertRules()
    assert rules.service_labels == ("service", "job")
    assert (rules.severity_label, rules.default_severity) == ("severity", "sev3")
    assert rules.symptom_annotations == ("summary", "description")
    assert dict(rules.severity_map) == {
        "critical": "sev1",
        "error": "sev2",
        "warning": "sev3",
        "info": "sev4",
    }
    assert (dict(rules.receivers), dict(rules.pagerduty_groups)) == ({}, {})
    assert load_registry(BUNDLED_FILE).alerts == rules


def test_an_alerts_table_sets_every_rule(tmp_path):
    rules = load_registry(
        write(
            tmp_path,
            MINIMAL
            + """
            [alerts]
            service_labels = ["app"]
            default_service = "platform"
            severity_label = "priority"
            default_severity = "sev4"
            symptom_annotations = ["message"]
            severity_map = { P1 = "sev1", p2 = "sev2" }
            receivers = { payments-pager = "prod" }
            pagerduty_groups = { prod-payments = "prod" }
            """,
        )
    ).alerts

    assert rules.service_labels == ("app",)
    assert (rules.default_service, rules.severity_label) == ("platform", "priority")
    assert rules.symptom_annotations == ("message",)
    # Keys compare without case; a severity is always itself; unknown values map to nothing.
    assert [rules.severity(v) for v in ("p1", "P2", "SEV3", "critical", "", None)] == [
        "sev1",
        "sev2",
        "sev3",
        None,
        None,
        None,
    ]
    assert dict(rules.receivers) == {"payments-pager": "prod"}
    assert dict(rules.pagerduty_groups) == {"prod-payments": "prod"}


ALERTS_BAD = [
    ("not a table", "alerts = 3\n", "", "alerts", "must be a table"),
    (
        "unknown key",
        "[alerts]\nseverity = 'x'\n",
        "[alerts]",
        "severity",
        "unknown key",
    ),
    (
        "blank default service",
        "[alerts]\ndefault_service = ' '\n",
        "[alerts]",
        "default_service",
        "non-empty string",
    ),
    (
        "severity label not a label",
        "[alerts]\nseverity_label = '1st'\n",
        "[alerts]",
        "severity_label",
        "not a label name",
    ),
    (
        "default severity unknown",
        "[alerts]\ndefault_severity = 'p1'\n",
        "[alerts]",
        "default_severity",
        "one of sev1, sev2, sev3, sev4",
    ),
    (
        "severity map to an unknown severity",
        "[alerts]\nseverity_map = { high = 'urgent' }\n",
        "[alerts] severity_map.high",
        "",
        "one of sev1",
    ),
    (
        "empty service labels",
        "[alerts]\nservice_labels = []\n",
        "[alerts]",
        "service_labels",
        "non-empty list",
    ),
    (
        "service labels as a string",
        "[alerts]\nservice_labels = 'service'\n",
        "[alerts]",
        "service_labels",
        "non-empty list",
    ),
    (
        "an annotation twice",
        "[alerts]\nsymptom_annotations = ['summary', 'summary']\n",
        "[alerts]",
        "symptom_annotations",
        "names one twice",
    ),
    (
        "receiver to an unknown environment",
        "[alerts]\nreceivers = { pager = 'staging' }\n",
        "[alerts] receivers.pager",
        "",
        "must name a defined environment, got 'staging'",
    ),
    (
        "pagerduty group to a non-string",
        "[alerts]\npagerduty_groups = { payments = 1 }\n",
        "[alerts] pagerduty_groups.payments",
        "",
        "must name a defined environment",
    ),
]


@pytest.mark.parametrize(
    ("text", "entry", "field", "reason"),
    [case[1:] for case in ALERTS_BAD],
    ids=[case[0] for case in ALERTS_BAD],
)
def test_a_bad_alerts_rule_names_file_entry_field_and_reason(
    tmp_path, text, entry, field, reason
):
    # A top-level key goes before the tables: after them it would belong to the last one.
    path = write(tmp_path, MINIMAL + text if text.startswith("[") else text + MINIMAL)

    with pytest.raises(RegistryError) as caught:
        load_registry(path)

    assert str(caught.value).startswith(f"{path}: ")
    assert (caught.value.entry, caught.value.field) == (entry, field)
    assert reason in caught.value.reason


def test_the_registry_knows_the_models_severities():
    from diagnosis.models import Severity

    assert tuple(Severity.values) == registry.SEVERITIES
