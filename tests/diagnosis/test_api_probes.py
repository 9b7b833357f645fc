"""GET /healthz and /readyz: no authentication; readiness names the dependency that failed."""

import socket
import time

import pytest
from django.db import connection


@pytest.fixture
def closed_port():
    """A loopback port with nothing listening."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_healthz_answers_ok_without_credentials(client):
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_is_200_when_database_and_redis_answer(client, db):
    response = client.get("/readyz")

    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "checks": {"database": "ok", "redis": "ok"},
    }


def test_readyz_is_503_naming_redis_when_it_is_unreachable(
    client, db, settings, closed_port
):
    settings.REDIS_URL = f"redis://127.0.0.1:{closed_port}/0"

    started = time.monotonic()
    response = client.get("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["redis"].startswith("error")
    assert time.monotonic() - started < 5


def test_readyz_is_503_naming_the_database_when_it_is_unreachable(
    client, db, monkeypatch, closed_port
):
    monkeypatch.setitem(connection.settings_dict, "HOST", "127.0.0.1")
    monkeypatch.setitem(connection.settings_dict, "PORT", str(closed_port))

    response = client.get("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["database"].startswith("error")
    assert body["checks"]["redis"] == "ok"


def test_readyz_gives_up_on_a_silent_redis_within_about_a_second(client, db, settings):
    # A listener that accepts nothing and answers nothing: connect may succeed (backlog),
    # PING never gets a reply; the socket timeout must end the probe.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        settings.REDIS_URL = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"

        started = time.monotonic()
        response = client.get("/readyz")
        elapsed = time.monotonic() - started

    assert response.status_code == 503
    assert response.json()["checks"]["redis"].startswith("error")
    assert elapsed < 4
