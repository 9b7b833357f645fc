"""`auth = {type = "oauth", ...}` on a registry server entry: parsed, every bad field named, the
client-credentials grant built from variables named (never valued) in the file."""

import textwrap
from pathlib import Path

import pytest

import mcpclient
from diagnosis.registry import (
    MissingGrant,
    MissingSecret,
    OAuthConfig,
    RegistryError,
    client_server,
    load_registry,
)

ENTRY = "environment 'prod', server 'metrics'"


def write(tmp_path: Path, auth: str, extra: str = "") -> Path:
    path = tmp_path / "servers.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [environments.prod.servers.metrics]
            url = "https://metrics.example/mcp"
            auth = {auth}
            {extra}
            """
        ),
        encoding="utf-8",
    )
    return path


def metrics(path: Path):
    return load_registry(path).get("prod", tenant="default").server("metrics")


def test_client_credentials_by_variable_names(tmp_path):
    entry = metrics(
        write(
            tmp_path,
            '{type = "oauth", client_id_env = "SVC_ID", client_secret_env = "SVC_SECRET",'
            ' scope = "read"}',
        )
    )

    assert entry.oauth == OAuthConfig(
        grant="client_credentials",
        client_id_env="SVC_ID",
        client_secret_env="SVC_SECRET",
        scope="read",
    )
    spec = client_server(entry, environ={"SVC_ID": "svc", "SVC_SECRET": "s3cr3t"})
    assert isinstance(spec, mcpclient.HttpServer)
    assert isinstance(spec.auth, mcpclient.ClientCredentials)
    assert spec.auth.client.client_id == "svc"
    assert "s3cr3t" not in repr(spec.auth)
    assert not spec.headers


def test_private_key_jwt_reads_the_key_from_the_named_path(tmp_path):
    key = tmp_path / "key.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n")
    entry = metrics(
        write(
            tmp_path,
            '{type = "oauth", client_id_env = "SVC_ID", private_key_env = "SVC_KEY"}',
        )
    )

    spec = client_server(entry, environ={"SVC_ID": "svc", "SVC_KEY": str(key)})

    assert isinstance(spec.auth, mcpclient.ClientCredentials)
    assert spec.auth.client.private_key == key.read_text()
    with pytest.raises(MissingSecret):
        client_server(entry, environ={"SVC_ID": "svc", "SVC_KEY": str(tmp_path / "no")})


def test_unset_client_secret_is_missing_secret(tmp_path):
    entry = metrics(
        write(
            tmp_path,
            '{type = "oauth", client_id_env = "SVC_ID", client_secret_env = "SVC_SECRET"}',
        )
    )

    with pytest.raises(MissingSecret) as caught:
        client_server(entry, environ={"SVC_ID": "svc"})
    assert caught.value.env_name == "SVC_SECRET"


def test_connected_grant_needs_the_stored_grant(tmp_path):
    entry = metrics(write(tmp_path, '{type = "oauth", grant = "connected"}'))

    assert entry.oauth == OAuthConfig(grant="connected")
    with pytest.raises(MissingGrant):
        client_server(entry, environ={})


BAD = [
    ("not a table", '"oauth"', "", "auth", "must be a table"),
    ("wrong type", '{type = "basic"}', "", "auth.type", 'must be "oauth"'),
    ("no type", '{grant = "connected"}', "", "auth.type", 'must be "oauth"'),
    (
        "unknown grant",
        '{type = "oauth", grant = "password"}',
        "",
        "auth.grant",
        "must be",
    ),
    (
        "unknown key",
        '{type = "oauth", grant = "connected", client_secret = "x"}',
        "",
        "auth.client_secret",
        "unknown key",
    ),
    (
        "value instead of a name",
        '{type = "oauth", client_id_env = "svc id!", client_secret_env = "S"}',
        "",
        "auth.client_id_env",
        "must be a variable name",
    ),
    (
        "no client id",
        '{type = "oauth", client_secret_env = "S"}',
        "",
        "auth.client_id_env",
        "required",
    ),
    (
        "neither secret nor key",
        '{type = "oauth", client_id_env = "I"}',
        "",
        "auth.client_secret_env",
        "exactly one",
    ),
    (
        "both secret and key",
        '{type = "oauth", client_id_env = "I", client_secret_env = "S", private_key_env = "K"}',
        "",
        "auth.client_secret_env",
        "exactly one",
    ),
    (
        "the app's own secret",
        '{type = "oauth", client_id_env = "I", client_secret_env = "SECRET_KEY"}',
        "",
        "auth.client_secret_env",
        "app's own secret",
    ),
    (
        "empty scope",
        '{type = "oauth", grant = "connected", scope = " "}',
        "",
        "auth.scope",
        "non-empty",
    ),
    (
        "with auth_env",
        '{type = "oauth", grant = "connected"}',
        'auth_env = "TOKEN"',
        "auth",
        "not both",
    ),
]


@pytest.mark.parametrize(
    ("auth", "extra", "field", "reason"),
    [case[1:] for case in BAD],
    ids=[case[0] for case in BAD],
)
def test_bad_oauth_config_names_the_field(tmp_path, auth, extra, field, reason):
    path = write(tmp_path, auth, extra)

    with pytest.raises(RegistryError) as caught:
        load_registry(path)

    assert caught.value.entry == ENTRY
    assert caught.value.field == field
    assert reason in caught.value.reason


def test_auth_does_not_apply_to_stdio(tmp_path):
    path = tmp_path / "servers.toml"
    path.write_text(
        textwrap.dedent(
            """
            [environments.prod.servers.logs]
            command = ["{python}", "-m", "mcpservers.logs"]
            auth = {type = "oauth", grant = "connected"}
            """
        )
    )

    with pytest.raises(RegistryError) as caught:
        load_registry(path)
    assert caught.value.field == "auth"
