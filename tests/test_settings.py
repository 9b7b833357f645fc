"""Settings from the environment: production values pass `check --deploy`; DATABASE_URL parsing."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from agentops.settings import database_from_url, site_url_from_env

BASE_DIR = Path(__file__).resolve().parent.parent
SETTINGS_ENV = (
    "SECRET_KEY",
    "DEBUG",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "REQUIRE_SECRET_KEY",
    "BEHIND_TLS_PROXY",
    "SITE_URL",
)
PRODUCTION = {
    "SECRET_KEY": secrets.token_urlsafe(50),
    "DEBUG": "0",
    "ALLOWED_HOSTS": "agentops.example.com",
    "CSRF_TRUSTED_ORIGINS": "https://agentops.example.com",
    "SECURE_SSL_REDIRECT": "1",
    "SECURE_HSTS_SECONDS": "31536000",
    # Checks need no connection; the URLs only have to parse.
    "DATABASE_URL": "postgresql://agentops:pw@db.example.com:5432/agentops",
    "REDIS_URL": "redis://redis.example.com:6379/0",
}


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {key: value for key, value in os.environ.items() if key not in SETTINGS_ENV}
    base.pop("DJANGO_SETTINGS_MODULE", None)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_production_settings_pass_check_deploy():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_fails_on_the_development_secret_key():
    env = {key: value for key, value in PRODUCTION.items() if key != "SECRET_KEY"}
    result = _manage("check", "--deploy", "--fail-level", "WARNING", **env)
    assert result.returncode != 0
    assert "security.W009" in result.stderr


def test_check_deploy_fails_without_hsts_and_ssl_redirect():
    env = dict(PRODUCTION, SECURE_SSL_REDIRECT="0", SECURE_HSTS_SECONDS="0")
    result = _manage("check", "--deploy", "--fail-level", "WARNING", **env)
    assert result.returncode != 0
    assert "security.W004" in result.stderr
    assert "security.W008" in result.stderr


def test_a_missing_secret_key_is_fatal_when_required():
    env = {key: value for key, value in PRODUCTION.items() if key != "SECRET_KEY"}
    result = _manage("check", REQUIRE_SECRET_KEY="1", **env)
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_database_url_with_host_and_port():
    db = database_from_url("postgresql://agentops:secret@db.internal:6543/incidents")
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["HOST"], db["PORT"], db["NAME"]) == ("db.internal", "6543", "incidents")
    assert (db["USER"], db["PASSWORD"]) == ("agentops", "secret")
    assert db["OPTIONS"] == {}


def test_database_url_with_a_socket_directory_in_the_query():
    # The form embedded PostgreSQL hands out: no host, the socket directory in ?host=.
    db = database_from_url("postgresql://postgres:@/agentops?host=/work/var/postgres")
    assert db["HOST"] == "/work/var/postgres"
    assert db["PORT"] == ""
    assert (db["USER"], db["PASSWORD"], db["NAME"]) == ("postgres", "", "agentops")
    assert "host" not in db["OPTIONS"]


def test_database_url_password_and_names_are_unescaped():
    db = database_from_url("postgres://app%40ops:p%40ss%3Aw%2Frd%25@db:5432/my%20db")
    assert db["USER"] == "app@ops"
    assert db["PASSWORD"] == "p@ss:w/rd%"
    assert db["NAME"] == "my db"


def test_database_url_query_options_reach_the_driver():
    db = database_from_url(
        "postgresql://u@db/agentops?sslmode=require&connect_timeout=5"
    )
    assert db["OPTIONS"] == {"sslmode": "require", "connect_timeout": "5"}


def test_database_url_without_a_name_uses_postgres():
    assert database_from_url("postgresql://u@db:5432")["NAME"] == "postgres"


@pytest.mark.parametrize(
    "url", ["mysql://u:p@db/agentops", "sqlite:///var/db.sqlite3", "redis://db:6379/0"]
)
def test_a_non_postgres_database_url_is_a_clear_error(url):
    scheme = url.split(":", 1)[0]
    with pytest.raises(
        ValueError, match=rf"DATABASE_URL must be a postgresql:// URL, not '{scheme}'"
    ):
        database_from_url(url)


def test_manage_py_names_a_non_postgres_database_url():
    result = _manage(
        "check", **dict(PRODUCTION, DATABASE_URL="mysql://u:p@db/agentops")
    )
    assert result.returncode != 0
    assert "DATABASE_URL must be a postgresql:// URL, not 'mysql'" in result.stderr


@pytest.mark.parametrize(
    ("value", "origin"),
    [
        ("", ""),
        ("  ", ""),
        ("https://agentops.example.com", "https://agentops.example.com"),
        ("https://agentops.example.com/", "https://agentops.example.com"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
    ],
)
def test_site_url_is_an_origin_or_unset(value, origin):
    assert site_url_from_env(value) == origin


@pytest.mark.parametrize(
    "value",
    [
        "agentops.example.com",
        "ftp://agentops.example.com",
        "javascript:alert(1)",
        "https://",
        "https://agentops.example.com/agentops",
        "https://agentops.example.com?x=1",
        "https://agentops.example.com#x",
        "https://user:pw@agentops.example.com",
        "https://agentops.example.com:99999",
        "https://agentops.example.com>x",
    ],
)
def test_a_site_url_that_is_not_an_http_origin_is_a_clear_error(value):
    with pytest.raises(ValueError, match="SITE_URL must be an absolute http"):
        site_url_from_env(value)


def test_manage_py_names_a_bad_site_url():
    result = _manage("check", **dict(PRODUCTION, SITE_URL="agentops.example.com"))
    assert result.returncode != 0
    assert "SITE_URL must be an absolute http(s) URL" in result.stderr
