"""Over real HTTP against Daphne: create with a token → 201, snapshot, cancel → 202, ends cancelled,
and the task's events are seq 1..n without a gap (read back over the SSE stream)."""

import time

import httpx
import pytest
from django.conf import settings

from diagnosis.models import Incident, TaskEvent
from tests import factories
from tests.diagnosis import daphneproc
from tests.livestack import child_database_url

# Transactional: the rows a test writes must be visible to Daphne's own connections.
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def daphne(django_db_setup, django_db_blocker):
    """One Daphne for the module: it keeps no state of its own between requests (the tests'
    rows are in the test database, emptied after each test)."""
    env = {"DATABASE_URL": child_database_url()}
    if settings.REDIS_URL.startswith("redis://"):
        # A broker database no worker reads: the queued row is all this test needs.
        env["CELERY_BROKER_URL"] = settings.REDIS_URL.rsplit("/", 1)[0] + "/15"
    with daphneproc.daphne(env) as (base, _port):
        yield base


def _sse_ids_and_types(base, task_id, headers):
    """Read the stream until the server closes it (it does after the terminal event)."""
    ids, types = [], []
    started = time.monotonic()
    with httpx.stream(
        "GET", f"{base}/api/tasks/{task_id}/events", headers=headers, timeout=10
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("id:"):
                ids.append(int(line[3:].strip()))
            elif line.startswith("event:"):
                types.append(line[6:].strip())
            assert time.monotonic() - started < 15, "the stream did not close"
    return ids, types


def test_create_snapshot_cancel_over_daphne_ends_cancelled_with_gap_free_events(
    daphne, tenant
):
    token = factories.make_token(factories.make_member(tenant, role="responder"))
    headers = {"Authorization": f"Bearer {token}"}

    with httpx.Client(base_url=daphne, headers=headers, timeout=10) as http:
        created = http.post(
            "/api/incidents",
            json={
                "title": "checkout 502s",
                "service": "checkout",
                "severity": "sev2",
                "plan": "timed",
                "plan_args": {"steps": [30]},
            },
        )
        assert created.status_code == 201, created.text
        task_id = created.json()["task"]["id"]

        snapshot = http.get(f"/api/tasks/{task_id}")
        assert snapshot.status_code == 200
        # Queued, or running if a worker on this broker and database picked it up.
        assert snapshot.json()["state"] in {"queued", "running"}

        cancel = http.post(f"/api/tasks/{task_id}/cancel")
        assert cancel.status_code == 202
        assert cancel.json()["task_id"] == task_id
        assert cancel.json()["status"] in {"cancelled", "cancelling"}

        deadline = time.monotonic() + 20
        while (
            state := http.get(f"/api/tasks/{task_id}").json()["state"]
        ) != "cancelled":
            assert state == "cancelling" and time.monotonic() < deadline, state
            time.sleep(0.1)
        final = http.get(f"/api/tasks/{task_id}").json()

    ids, types = _sse_ids_and_types(daphne, task_id, headers)
    assert ids == list(range(1, final["last_seq"] + 1))
    assert types[0] == "task_created"
    assert types[-1] == "task_cancelled"
    seqs = list(
        TaskEvent.objects.filter(task_id=task_id)
        .order_by("seq")
        .values_list("seq", flat=True)
    )
    assert seqs == ids


# curl -F's body and two malformed ones: Twisted parsed them in front of Daphne and answered a
# bare 400 of its own before agentops.daphne_forms turned its form parsing off.
CURL_FORM_TYPE = (
    "multipart/form-data; boundary=------------------------d74496d66958873e"
)
CURL_FORM = (
    b"--------------------------d74496d66958873e\r\n"
    b'Content-Disposition: form-data; name="title"\r\n\r\n'
    b"x\r\n"
    b"--------------------------d74496d66958873e--\r\n"
)


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        (CURL_FORM_TYPE, CURL_FORM),
        ("multipart/form-data", b"--x\r\n"),
        ("multipart/form-data; boundary=zz", b"junk"),
        ("application/x-www-form-urlencoded", b"title=x&service=y&severity=sev2"),
    ],
)
def test_form_post_over_daphne_gets_the_json_refusal(
    daphne, tenant, content_type, body
):
    token = factories.make_token(factories.make_member(tenant))

    response = httpx.post(
        f"{daphne}/api/incidents",
        content=body,
        headers={"Authorization": f"Bearer {token}", "Content-Type": content_type},
        timeout=10,
    )

    assert response.status_code == 400, response.content
    assert response.headers["content-type"] == "application/json"
    assert response.json()["fields"] == {
        "Content-Type": f"must be application/json, not {content_type.split(';')[0]}"
    }
    assert Incident.objects.count() == 0
