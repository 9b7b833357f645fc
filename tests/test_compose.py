"""docker-compose.yml and the Dockerfile describe the stack the run command starts: checked with
`docker compose config` (or docker-compose v1) when present, else by parsing the YAML and taking
every ${NAME:-default}; either way the file is validated against the Compose Specification's own
JSON schema (tests/compose-spec.json, from github.com/compose-spec/compose-spec, schema/
compose-spec.json at 170098ba07d9f53c383a41bfd4c5166b0a4529a6, Apache-2.0). No Docker engine runs
here, so no container is started; what the containers would run is run here instead: the MCP
services' commands (on 127.0.0.1), the registry through them, promtool on the Prometheus config.
The nginx config runs in tests/test_nginx_sse.py."""

import asyncio
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent
COMPOSE_FILE = BASE_DIR / "docker-compose.yml"
SCHEMA_FILE = Path(__file__).resolve().parent / "compose-spec.json"
NGINX_CONF = BASE_DIR / "deploy" / "nginx.conf"
PROMETHEUS_CONF = BASE_DIR / "deploy" / "prometheus.yml"
WEB_SERVICES = ("web-1", "web-2")
APP_SERVICES = ("migrate", *WEB_SERVICES, "worker", "beat")
MCP_SERVICES = (
    "mcp-logs",
    "mcp-metrics",
    "mcp-runbooks",
    "mcp-netcheck",
    "mcp-actions",
)
# Compose's ${NAME}, ${NAME:-default} and ${NAME-default}; $$ is a literal dollar.
VARIABLE = re.compile(r"\$\$|\$\{(?P<name>\w+)(?:(?P<op>:?-)(?P<default>[^}]*))?\}")


def _clean_env() -> dict[str, str]:
    # Interpolation must see the file's defaults, not this machine's settings.
    return {key: os.environ[key] for key in ("PATH", "HOME") if key in os.environ}


def _compose_cli() -> tuple[list[str], bool] | None:
    """(argv, speaks --format json) of a compose CLI, or None."""
    if shutil.which("docker"):
        probe = subprocess.run(
            ["docker", "compose", "version"],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.returncode == 0:
            return ["docker", "compose"], True
    if shutil.which("docker-compose"):
        return ["docker-compose"], False
    return None


def _load_yaml(text: str) -> dict:
    try:
        import yaml
    except ImportError:
        pass
    else:
        return yaml.safe_load(text)
    # PyYAML is not a dependency of ours; a system python3 often has it.
    for python in ("/usr/bin/python3", shutil.which("python3")):
        if not python or Path(python).resolve() == Path(sys.executable).resolve():
            continue
        result = subprocess.run(
            [
                python,
                "-c",
                "import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)",
            ],
            input=text,
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode == 0:
            return json.loads(result.stdout)
    pytest.skip(
        "no YAML parser: PyYAML is in neither .venv nor a system python3, and no compose CLI"
    )


def _interpolate(value):
    if isinstance(value, dict):
        return {key: _interpolate(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_interpolate(item) for item in value]
    if isinstance(value, str):
        return VARIABLE.sub(
            lambda m: "$" if m.group(0) == "$$" else m.group("default") or "", value
        )
    return value


def test_interpolation_without_a_compose_cli_takes_the_defaults():
    assert _interpolate({"a": ["${X:-0}", "${Y-b}", "${Z}", "$$HOME", 1]}) == {
        "a": ["0", "b", "", "$HOME", 1]
    }


@pytest.fixture(scope="module")
def compose() -> dict:
    cli = _compose_cli()
    if cli is None:
        # What `config` would print with no variables set: every ${NAME…} takes its default.
        return _interpolate(_load_yaml(COMPOSE_FILE.read_text()))
    argv, json_output = cli
    command = [*argv, "-f", str(COMPOSE_FILE), "config"]
    if json_output:
        command += ["--format", "json"]
    result = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=_clean_env(),
        check=False,
        cwd=BASE_DIR,
    )
    # `config` validates the file against the compose schema and resolves anchors and defaults.
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout) if json_output else _load_yaml(result.stdout)


def _healthcheck(service: dict) -> str:
    test = service["healthcheck"]["test"]
    return " ".join(test) if isinstance(test, list) else test


def _command(service: dict) -> list[str]:
    command = service["command"]
    return command if isinstance(command, list) else command.split()


def _env(service: dict) -> dict[str, str]:
    env = service["environment"]
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {key: "" if value is None else str(value) for key, value in env.items()}


def test_compose_file_is_valid_under_the_compose_specification_schema():
    import jsonschema

    schema = json.loads(SCHEMA_FILE.read_text())
    document = _interpolate(_load_yaml(COMPOSE_FILE.read_text()))
    validator = jsonschema.Draft7Validator(schema)
    errors = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator.iter_errors(document)
    ]
    assert errors == []
    # The schema does catch a mistake (an unknown key of a service).
    document["services"]["nginx"]["restart_policy"] = "always"
    assert not validator.is_valid(document)


def test_compose_has_the_stack_services(compose):
    assert set(compose["services"]) == {
        "postgres",
        "redis",
        "nginx",
        "prometheus",
        *APP_SERVICES,
        *MCP_SERVICES,
    }


def test_postgres_and_redis_have_health_checks(compose):
    services = compose["services"]
    assert "pg_isready" in _healthcheck(services["postgres"])
    assert "redis-cli ping" in _healthcheck(services["redis"])
    assert services["postgres"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")


def test_web_replicas_run_daphne_on_the_asgi_app_with_a_healthz_check(compose):
    for name in WEB_SERVICES:
        web = compose["services"][name]
        command = _command(web)
        assert command[0] == "daphne", name
        assert command[-1] == "agentops.asgi:application", name
        assert command[command.index("-b") + 1] == "0.0.0.0", name
        assert command[command.index("-p") + 1] == "8000", name
        assert "/healthz" in _healthcheck(web), name
        # Reached through nginx only.
        assert not web.get("ports"), name
        # Django checks the Host header: Prometheus scrapes each replica by its name.
        assert name in _env(web)["ALLOWED_HOSTS"].split(","), name
    # The app object the command names exists.
    assert callable(importlib.import_module("agentops.asgi").application)


def _published(service: dict) -> set[tuple[str, str, str]]:
    """{(host address, host port, container port)} of a service, short or long syntax."""
    out = set()
    for port in service.get("ports", []):
        if isinstance(port, dict):
            address, host = port.get("host_ip", ""), str(port.get("published", ""))
            out.add((address, host, str(port["target"])))
        else:
            *address, host, target = str(port).split(":")
            out.add((":".join(address), host, target))
    return out


def _config_file(compose: dict, service: dict, target: str) -> Path:
    """The host file a service's config mounted at `target` comes from."""
    (source,) = [c["source"] for c in service["configs"] if c["target"] == target]
    path = Path(compose["configs"][source]["file"])
    return path if path.is_absolute() else BASE_DIR / path


def _nginx_stream_location(text: str) -> str:
    match = re.search(
        r"location ~ \^/api/tasks/\[\^/\]\+/events\$ \{(.*?)\}", text, re.S
    )
    assert match, "deploy/nginx.conf has no location for /api/tasks/<id>/events"
    return match.group(1)


def test_nginx_fronts_both_replicas_on_the_one_published_port(compose):
    services = compose["services"]
    nginx = services["nginx"]
    assert {port[1:] for port in _published(nginx)} == {("8000", "8000")}
    published = [name for name, s in services.items() if _published(s)]
    # Prometheus' UI (no login) on the host's loopback is the only other one.
    assert sorted(published) == ["nginx", "prometheus"]
    assert _published(services["prometheus"]) == {("127.0.0.1", "9090", "9090")}
    assert _config_file(compose, nginx, "/etc/nginx/nginx.conf") == NGINX_CONF
    for name in WEB_SERVICES:
        assert nginx["depends_on"][name]["condition"] == "service_healthy"
    text = NGINX_CONF.read_text()
    upstream = re.search(r"upstream agentops_web \{(.*?)\}", text, re.S)
    assert upstream
    assert re.findall(r"server ([\w-]+):8000 ", upstream.group(1)) == list(WEB_SERVICES)
    assert re.search(r"^\s*listen 8000;", text, re.M)
    # `resolve` in an upstream needs nginx 1.27.3 or later.
    image, _, tag = nginx["image"].partition(":")
    assert image == "nginx"
    version = tuple(int(part) for part in re.match(r"[\d.]+", tag).group(0).split("."))
    assert version >= (1, 28) or version >= (1, 27, 3), tag


def test_nginx_stream_settings_are_sse_safe(compose):
    from django.conf import settings

    location = _nginx_stream_location(NGINX_CONF.read_text())
    assert "proxy_buffering off;" in location
    assert "proxy_pass http://agentops_web;" in location
    read_timeout = int(re.search(r"proxy_read_timeout (\d+)s;", location).group(1))
    heartbeats = {
        float(
            _env(compose["services"][name]).get("SSE_HEARTBEAT_SECONDS")
            or settings.SSE_HEARTBEAT_SECONDS
        )
        for name in WEB_SERVICES
    }
    # DESIGN §6: the heartbeat at most half the proxy's idle timeout.
    assert all(2 * heartbeat <= read_timeout for heartbeat in heartbeats), (
        heartbeats,
        read_timeout,
    )
    # Compressing the stream would buffer it; the app's X-Accel-Buffering: no is honoured.
    assert not re.search(r"^\s*gzip on;", NGINX_CONF.read_text(), re.M)
    assert "proxy_ignore_headers" not in NGINX_CONF.read_text()


def _registry(compose: dict):
    from diagnosis.registry import load_registry

    worker = compose["services"]["worker"]
    target = _env(worker)["AGENTOPS_SERVERS"]
    for name in APP_SERVICES:
        assert _env(compose["services"][name])["AGENTOPS_SERVERS"] == target, name
        assert (
            _config_file(compose, compose["services"][name], target)
            == BASE_DIR / "deploy" / "servers.toml"
        ), name
    return load_registry(BASE_DIR / "deploy" / "servers.toml")


def _flag(command: list[str], flag: str) -> str:
    return command[command.index(flag) + 1]


def test_registry_names_each_mcp_service_with_its_token(compose):
    registry = _registry(compose)
    services = compose["services"]
    environment = registry.environments[registry.default_environment]
    worker_env = _env(services["worker"])
    by_host = {}
    for entry in environment.servers:
        assert entry.transport == "http", entry.name
        url = urlsplit(entry.url)
        by_host[url.hostname] = entry
        service = services[url.hostname]
        command = _command(service)
        assert command[:3] == ["python", "-m", f"mcpservers.{entry.name}"], entry.name
        assert _flag(command, "--http") == f"0.0.0.0:{url.port}", entry.name
        assert url.path == "/mcp", entry.name
        # The server requires the token that the worker sends: the same variable, same value.
        assert _flag(command, "--token-env") == entry.auth_env, entry.name
        assert _env(service)[entry.auth_env], entry.name
        assert worker_env[entry.auth_env] == _env(service)[entry.auth_env], entry.name
        assert services["worker"]["depends_on"][url.hostname]
    assert sorted(by_host) == sorted(MCP_SERVICES)
    # Web and beat never call a tool: they do not hold the MCP tokens.
    for name in ("migrate", *WEB_SERVICES, "beat"):
        assert not [k for k in _env(services[name]) if k.startswith("MCP_")], name


def _local_argv(command: list[str]) -> list[str]:
    """A service's command as it runs here: this interpreter, this checkout, 127.0.0.1:0."""
    argv = [sys.executable if command[0] == "python" else command[0]]
    for arg in command[1:]:
        arg = arg.replace("/app/", f"{BASE_DIR}/")
        argv.append("127.0.0.1:0" if arg.startswith("0.0.0.0:") else arg)
    return argv


def test_mcp_services_commands_serve_the_registry_tools(compose, tmp_path):
    """Each MCP service's command, run here on 127.0.0.1, serves Streamable HTTP behind its
    token, and the registry entry (its URL pointed here) connects and finds its tools."""
    import dataclasses

    from diagnosis.registry import connect_server

    registry = _registry(compose)
    environment = registry.environments[registry.default_environment]
    services = compose["services"]
    procs = []
    try:
        # All started before any is waited for: each spends seconds importing the MCP SDK.
        for entry in environment.servers:
            service = services[urlsplit(entry.url).hostname]
            argv = _local_argv(_command(service))
            if "--ledger" in argv:  # the volume's file, here in a temporary folder
                argv[argv.index("--ledger") + 1] = str(tmp_path / "ledger.jsonl")
            proc = subprocess.Popen(
                argv,
                cwd=BASE_DIR,
                env={**_clean_env(), **_env(service)},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            procs.append((entry, proc))
        entries = []
        for entry, proc in procs:
            line = proc.stderr.readline()  # bounded by the module's pytest timeout
            match = re.search(
                r"serving Streamable HTTP on (http://127\.0\.0\.1:\d+/mcp)", line
            )
            assert match, f"{entry.name}: {line}"
            entries.append(dataclasses.replace(entry, url=match.group(1)))

        async def tools_of_each() -> dict[str, set[str]]:
            found = {}
            for entry in entries:
                async with connect_server(
                    entry, environ=_env(services["worker"])
                ) as session:
                    found[entry.name] = {
                        tool.name for tool in await session.list_tools()
                    }
            return found

        found = asyncio.run(tools_of_each())
    finally:
        for _, proc in procs:
            proc.terminate()
            proc.wait(10)
            proc.stderr.close()
    for entry in entries:
        assert entry.tools, entry.name
        assert set(entry.tools) <= found[entry.name], entry.name
        assert set(entry.approval_required) <= set(entry.tools), entry.name


def test_mcp_services_refuse_a_call_without_their_token(compose, tmp_path):
    import httpx

    service = compose["services"]["mcp-runbooks"]
    proc = subprocess.Popen(
        _local_argv(_command(service)),
        cwd=BASE_DIR,
        env={**_clean_env(), **_env(service)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stderr.readline()
        url = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line).group(1)
        response = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stderr.close()
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")


def test_prometheus_config_is_valid_and_sends_the_metrics_token(compose, tmp_path):
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip(
            "promtool not installed (scripts/setup.d/20-prometheus.sh installs it)"
        )
    prometheus = compose["services"]["prometheus"]
    assert (
        _config_file(compose, prometheus, "/etc/prometheus/prometheus.yml")
        == PROMETHEUS_CONF
    )
    (token_source,) = [
        c["source"]
        for c in prometheus["configs"]
        if c["target"] == "/etc/prometheus/metrics_token"
    ]
    # The file Prometheus reads holds the token the app checks.
    token = compose["configs"][token_source]["content"]
    for name in (*WEB_SERVICES, "worker"):
        assert _env(compose["services"][name])["METRICS_TOKEN"] == token, name
    text = PROMETHEUS_CONF.read_text()
    assert text.count("credentials_file: /etc/prometheus/metrics_token") == 2
    # Both replicas by name, the workers on their exporter's port.
    assert '["web-1:8000", "web-2:8000"]' in text
    worker_env = _env(compose["services"]["worker"])
    assert f"port: {worker_env['METRICS_WORKER_PORT']}" in text
    assert worker_env["METRICS_WORKER_ADDRESS"] == "0.0.0.0"
    local = tmp_path / "prometheus.yml"
    (tmp_path / "metrics_token").write_text(token)
    local.write_text(
        text.replace("/etc/prometheus/metrics_token", str(tmp_path / "metrics_token"))
    )
    result = subprocess.run(
        [promtool, "check", "config", str(local)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # promtool does look at the token file: without it the check fails.
    (tmp_path / "metrics_token").unlink()
    result = subprocess.run(
        [promtool, "check", "config", str(local)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0


def test_worker_and_beat_run_celery_on_our_app(compose):
    services = compose["services"]
    assert _command(services["worker"])[:4] == ["celery", "-A", "agentops", "worker"]
    assert _command(services["beat"])[:4] == ["celery", "-A", "agentops", "beat"]
    from agentops.celery import app

    assert app.main == "agentops"


def test_worker_can_be_scaled(compose):
    worker = compose["services"]["worker"]
    # A fixed name or a published port would make `--scale worker=N` fail.
    assert "container_name" not in worker
    assert not worker.get("ports")


def test_migrate_runs_a_real_launcher_command(compose):
    command = _command(compose["services"]["migrate"])
    assert command[:4] == ["python", "-m", "agentops.launcher", "prepare"]
    result = subprocess.run(
        [sys.executable, "-m", "agentops.launcher", *command[3:], "--help"],
        capture_output=True,
        text=True,
        cwd=BASE_DIR,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_app_services_wait_for_healthy_backends_and_migrations(compose):
    services = compose["services"]
    for name in APP_SERVICES:
        depends = services[name]["depends_on"]
        assert depends["postgres"]["condition"] == "service_healthy", name
        assert depends["redis"]["condition"] == "service_healthy", name
        if name != "migrate":
            assert (
                depends["migrate"]["condition"] == "service_completed_successfully"
            ), name


def test_app_services_share_one_image_and_point_at_the_containers(compose):
    from agentops.settings import database_from_url

    services = compose["services"]
    assert len({services[name]["image"] for name in APP_SERVICES}) == 1
    for name in APP_SERVICES:
        env = _env(services[name])
        database = database_from_url(env["DATABASE_URL"])
        assert database["HOST"] == "postgres", name
        assert database["NAME"] == "agentops", name
        assert urlsplit(env["REDIS_URL"]).hostname == "redis", name
        assert env["SECRET_KEY"], name
        assert env["DEBUG"] == "0", name


def test_dockerfile_builds_a_slim_non_root_image():
    lines = [
        line.strip()
        for line in (BASE_DIR / "Dockerfile").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert lines[0] == "FROM python:3.11-slim"
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users
    assert users[-1] not in {"root", "0"}
    assert any("pip install" in line for line in lines)
    ignored = (BASE_DIR / ".dockerignore").read_text().split()
    assert {".venv", "var", ".git"} <= set(ignored)
