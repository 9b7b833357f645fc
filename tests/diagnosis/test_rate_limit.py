"""Incident creation per tenant: INCIDENT_RATE_LIMIT incidents in any INCIDENT_RATE_WINDOW_SECONDS."""

import json
import threading
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.urls import reverse

from diagnosis import services
from diagnosis.exceptions import RateLimited
from diagnosis.models import DiagnosisTask, Incident
from tests import factories

BODY = {"title": "latency", "service": "search", "severity": "sev3"}
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _limit(settings):
    settings.INCIDENT_RATE_LIMIT = 2
    settings.INCIDENT_RATE_WINDOW_SECONDS = 60


def _post(client, token, key=None):
    headers = {"Authorization": f"Bearer {token}"}
    if key:
        headers["Idempotency-Key"] = key
    return client.post(
        "/api/incidents",
        data=json.dumps(BODY),
        content_type="application/json",
        headers=headers,
    )


@pytest.mark.fault("Incident creation over the per-tenant rate limit", kind="limit")
def test_over_the_limit_answers_429_with_retry_after_and_creates_nothing(
    client, token, reliability_record
):
    with time_machine.travel(T0, tick=False) as clock:
        assert _post(client, token).status_code == 201
        clock.shift(10)
        assert _post(client, token).status_code == 201
        clock.shift(10)
        before = (Incident.objects.count(), DiagnosisTask.objects.count())

        response = _post(client, token)

    assert response.status_code == 429
    # The first incident leaves the window 60 s after it was opened: 40 s from now.
    assert response["Retry-After"] == "40"
    assert response.json() == {
        "error": "too many incidents opened; retry in 40 s",
        "code": "rate_limited",
        "retry_after": 40,
    }
    assert (Incident.objects.count(), DiagnosisTask.objects.count()) == before
    reliability_record(
        observed="the third create in the window got 429 rate_limited with Retry-After "
        "(seconds until the oldest incident leaves the window); nothing created",
        figures={"limit": 2, "window_s": 60, "status": 429, "retry_after_s": 40},
    )


def test_a_slot_frees_when_the_oldest_incident_leaves_the_window(client, token):
    with time_machine.travel(T0, tick=False) as clock:
        _post(client, token)
        clock.shift(10)
        _post(client, token)
        clock.shift(49)
        assert _post(client, token).status_code == 429  # the first is 59 s old
        clock.shift(1)
        assert _post(client, token).status_code == 201  # and now out of the window
        assert _post(client, token).status_code == 429


def test_an_idempotency_key_replay_is_not_counted(client, token):
    first = _post(client, token, key="k-1")
    replays = [_post(client, token, key="k-1") for _ in range(3)]
    second = _post(client, token, key="k-2")

    assert first.status_code == 201
    assert [r.status_code for r in replays] == [201, 201, 201]
    assert all(r["Idempotent-Replayed"] == "true" for r in replays)
    assert second.status_code == 201
    # Now at the limit, a replay still answers its saved 201, and a new key is refused.
    assert _post(client, token, key="k-1").status_code == 201
    assert _post(client, token, key="k-3").status_code == 429


def test_a_refused_key_can_be_used_again_once_a_slot_frees(client, token):
    with time_machine.travel(T0, tick=False) as clock:
        _post(client, token)
        _post(client, token)
        assert _post(client, token, key="later").status_code == 429
        clock.shift(61)
        assert _post(client, token, key="later").status_code == 201


def test_the_limit_is_per_tenant(client, token, other_tenant):
    other = factories.make_token(factories.make_member(other_tenant))
    _post(client, token)
    _post(client, token)

    assert _post(client, token).status_code == 429
    assert _post(client, other).status_code == 201


def test_a_limit_of_zero_turns_it_off(client, token, settings):
    settings.INCIDENT_RATE_LIMIT = 0

    assert [_post(client, token).status_code for _ in range(4)] == [201] * 4


def test_the_page_form_is_limited_too(client, member):
    client.force_login(member.user)
    form = {
        "title": "db slow",
        "service": "orders",
        "severity": "sev2",
        "plan": "timed",
    }
    url = reverse("diagnosis:incident-list")
    for _ in range(2):
        client.post(url, form, headers={"HX-Request": "true"})

    response = client.post(url, form, headers={"HX-Request": "true"})

    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    assert "too many incidents opened" in response.content.decode()
    assert Incident.objects.count() == 2


@pytest.mark.fault("4 racing creates for the last rate-limit slot", kind="limit")
@pytest.mark.django_db(transaction=True)
def test_racing_creates_cannot_both_take_the_last_slot(settings, reliability_record):
    settings.INCIDENT_RATE_LIMIT = 1
    tenant = factories.make_tenant("race")
    barrier = threading.Barrier(4)
    outcomes: list[str] = []

    def create() -> None:
        try:
            barrier.wait(timeout=5)
            services.incident_create(
                tenant=tenant, user=None, title="t", service="s", severity="sev3"
            )
            outcomes.append("created")
        except RateLimited:
            outcomes.append("limited")
        finally:
            connection.close()

    threads = [threading.Thread(target=create) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)

    assert sorted(outcomes) == ["created", "limited", "limited", "limited"]
    assert Incident.objects.filter(tenant=tenant).count() == 1
    reliability_record(
        observed="the tenant lock let exactly one create through",
        figures={"racers": 4, "created": 1, "limited": 3},
    )


def test_selector_answers_none_under_the_limit(tenant):
    from diagnosis import selectors

    now = datetime.now(UTC)
    factories.make_incident(tenant)

    assert selectors.incident_create_retry_after(tenant=tenant, now=now) is None
    assert (
        selectors.incident_create_retry_after(
            tenant=tenant, now=now + timedelta(seconds=120)
        )
        is None
    )
