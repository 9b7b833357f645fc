"""PostgreSQL stops under a running Daphne: every HTTP surface answers the outage as one (503 +
Retry-After: the API's JSON error, a page for pages; the SSE stream its empty retry stream),
never a 500, and answers 200 again once the database is back."""

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.livestack import free_port, log_tail, start_logged, stop, wait_for
from tests.pgproc import PostgresProcess
from tests.redisproc import RedisProcess

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _assert_unavailable_json(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text[:500]
    assert int(response.headers["retry-after"]) >= 1
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["code"] == "database_unavailable"
    assert body["retry_after"] == int(response.headers["retry-after"])


@pytest.mark.fault(
    "PostgreSQL stopped under a running Daphne (API list and create, SSE open, a page), "
    "then started again"
)
def test_database_outage_answers_503_with_retry_after_on_every_surface(
    tmp_path, reliability_record
):
    with (
        PostgresProcess(tmp_path / "pg") as pg,
        RedisProcess(tmp_path / "redis") as redis,
    ):
        env = {
            **os.environ,
            "DATABASE_URL": pg.create_database("outage"),
            "REDIS_URL": redis.url,
            # A broker no worker reads: the queued row is all this test needs.
            "CELERY_BROKER_URL": redis.url,
            "DJANGO_SETTINGS_MODULE": "agentops.settings",
            "PYTHONUNBUFFERED": "1",
        }
        _manage(env, "migrate", "--noinput", "-v", "0")
        secret = _manage(
            env, "create_api_token", "--tenant", "outage", "--user", "olga"
        ).splitlines()[-1]
        auth = {"Authorization": f"Bearer {secret}"}
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        log = tmp_path / "daphne.log"
        web = start_logged(
            ["daphne", "-b", "127.0.0.1", "-p", str(port), "agentops.asgi:application"],
            env,
            log,
        )
        try:

            def up() -> bool:
                try:
                    return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
                except httpx.TransportError:
                    return False

            wait_for(up, timeout=30, what="daphne to answer /healthz")
            with httpx.Client(base_url=base, timeout=20) as http:
                incident = {
                    "title": "checkout 502s",
                    "service": "checkout",
                    "severity": "sev2",
                }
                created = http.post("/api/incidents", headers=auth, json=incident)
                assert created.status_code == 201, created.text
                task_id = created.json()["task"]["id"]

                pg.stop()
                listed = http.get("/api/incidents", headers=auth)
                _assert_unavailable_json(listed)
                posted = http.post("/api/incidents", headers=auth, json=incident)
                _assert_unavailable_json(posted)
                snapshot = http.get(f"/api/tasks/{task_id}", headers=auth)
                _assert_unavailable_json(snapshot)
                # A session cookie makes the page look its session up in the database.
                page = http.get("/", headers={"Cookie": "sessionid=x" * 4})
                assert page.status_code == 503, page.text[:500]
                assert int(page.headers["retry-after"]) >= 1
                assert page.headers["content-type"].startswith("text/html")
                assert "unavailable" in page.text
                # A 503 would stop EventSource for good: an empty stream asking for a retry.
                stream = http.get(f"/api/tasks/{task_id}/events", headers=auth)
                assert stream.status_code == 200, stream.text[:500]
                assert stream.headers["content-type"] == "text/event-stream"
                assert stream.text.startswith("retry:")
                assert "data:" not in stream.text

                pg.start()
                again = http.get("/api/incidents", headers=auth)
                assert again.status_code == 200, again.text[:500]
                assert again.json()["results"][0]["id"] == created.json()["id"]
                # The create refused in the outage changed nothing.
                assert len(again.json()["results"]) == 1
            assert web.poll() is None, log_tail(log)
        finally:
            stop(web)
    reliability_record(
        observed="while PostgreSQL was stopped: API list, create and snapshot 503 "
        "database_unavailable + Retry-After (JSON), a page 503 + Retry-After (HTML), the SSE "
        "open an empty 200 stream with retry:; 200 again once it was started",
        figures={
            "retry_after_s": int(listed.headers["retry-after"]),
            "statuses_during_outage": [
                listed.status_code,
                posted.status_code,
                snapshot.status_code,
                page.status_code,
                stream.status_code,
            ],
        },
    )
