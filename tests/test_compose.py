"""docker-compose.yml and the Dockerfile describe the stack the run command starts: checked with
`docker compose config` (or docker-compose v1) when present, else by parsing the YAML. No Docker
engine runs here, so nothing is started."""

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
APP_SERVICES = ("migrate", "web", "worker", "beat")
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


def test_compose_has_the_stack_services(compose):
    assert set(compose["services"]) == {"postgres", "redis", *APP_SERVICES}


def test_postgres_and_redis_have_health_checks(compose):
    services = compose["services"]
    assert "pg_isready" in _healthcheck(services["postgres"])
    assert "redis-cli ping" in _healthcheck(services["redis"])
    assert services["postgres"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")


def test_web_runs_daphne_on_the_asgi_app_with_a_healthz_check(compose):
    web = compose["services"]["web"]
    command = _command(web)
    assert command[0] == "daphne"
    assert command[-1] == "agentops.asgi:application"
    assert command[command.index("-b") + 1] == "0.0.0.0"
    assert command[command.index("-p") + 1] == "8000"
    assert "/healthz" in _healthcheck(web)
    published = json.dumps(web["ports"])
    assert "8000" in published
    # The app object the command names exists.
    assert callable(importlib.import_module("agentops.asgi").application)


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
