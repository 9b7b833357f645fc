"""A real Alertmanager (Debian's prometheus-alertmanager) notifies Daphne over HTTP on 127.0.0.1:
its webhook, bearer token and all, opens one incident for a group, repeats into it, resolves it,
and a new firing opens a second incident (issue 12 item 1).

Alerts are pushed to Alertmanager's own API (/api/v2/alerts) as Prometheus would; Alertmanager
groups them (group_wait / group_interval of 1 s) and sends the webhook itself, so the payloads
here are the ones it writes, not fixtures. Each wait is for the effect in the database, bounded.
"""

import json
import shutil
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from diagnosis.models import AlertGroup, Incident, Role, TaskEvent
from tests import factories
from tests.diagnosis.test_streaming_support import Process, free_port, start_daphne
from tests.livestack import redis_url_with_db

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

ALERTMANAGER = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
WAIT = 30.0  # seconds for one notification to arrive (group_interval is 1 s)


def _config(url: str, token: str) -> str:
    return json.dumps(  # JSON is YAML
        {
            "route": {
                "receiver": "agentops",
                "group_by": ["alertname", "service"],
                "group_wait": "1s",
                "group_interval": "1s",
                "repeat_interval": "1h",
            },
            "receivers": [
                {
                    "name": "agentops",
                    "webhook_configs": [
                        {
                            "url": url,
                            "send_resolved": True,
                            "http_config": {
                                "authorization": {
                                    "type": "Bearer",
                                    "credentials": token,
                                }
                            },
                        }
                    ],
                }
            ],
        }
    )


def _until(predicate, what: str):
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if value := predicate():
            return value
        time.sleep(
            0.05
        )  # the notification is Alertmanager's to send: look again shortly
    raise AssertionError(f"not within {WAIT:g} s: {what}")


def _alert(instance: str, *, ends: datetime | None = None) -> dict:
    alert = {
        "labels": {
            "alertname": "CheckoutHighErrorRate",
            "service": "checkout",
            "severity": "critical",
            "instance": instance,
        },
        "annotations": {
            "summary": "checkout answers 502 to a share of requests",
            "description": f"{instance} answers 5xx",
        },
        "generatorURL": "http://prometheus:9090/graph?g0.expr=up",
    }
    if ends is not None:
        alert["endsAt"] = ends.isoformat()
    return alert


@pytest.fixture
def stack(live_db_env, tenant, tmp_path):
    if ALERTMANAGER is None:
        pytest.skip("prometheus-alertmanager is not installed (scripts/setup.d)")
    token = factories.make_token(
        factories.make_member(tenant, role=Role.ADMIN), scopes=("alerts:write",)
    )
    daphne, base = start_daphne(CELERY_BROKER_URL=redis_url_with_db(15))
    config = tmp_path / "alertmanager.yml"
    config.write_text(_config(f"{base}/api/alerts/alertmanager", token))
    port = free_port()
    manager = Process(
        [
            ALERTMANAGER,
            f"--config.file={config}",
            f"--storage.path={tmp_path / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--cluster.listen-address=",  # one instance: no gossip port
        ]
    )
    try:
        manager.wait_for_line("Listening")
        yield f"http://127.0.0.1:{port}"
    finally:
        manager.stop()
        daphne.stop()


def test_a_real_alertmanager_group_fires_repeats_resolves_and_fires_again(stack):
    def push(*alerts):
        httpx.post(
            f"{stack}/api/v2/alerts", json=list(alerts), timeout=5
        ).raise_for_status()

    push(_alert("checkout-a:8080"))
    group = _until(lambda: AlertGroup.objects.first(), "the group's first notification")
    incident = group.incident
    assert (incident.service, incident.severity) == ("checkout", "sev1")
    assert incident.title == (
        "CheckoutHighErrorRate: checkout answers 502 to a share of requests"
    )
    assert group.key.endswith('{alertname="CheckoutHighErrorRate", service="checkout"}')

    push(_alert("checkout-a:8080"), _alert("checkout-b:8080"))
    _until(
        lambda: len(AlertGroup.objects.get(pk=group.pk).alerts) == 2,
        "the repeat with the second alert",
    )
    assert Incident.objects.count() == 1
    assert TaskEvent.objects.filter(type="alert_received").count() == 1

    ended = datetime.now(UTC) - timedelta(seconds=1)
    push(_alert("checkout-a:8080", ends=ended), _alert("checkout-b:8080", ends=ended))
    resolved = _until(
        lambda: AlertGroup.objects.filter(pk=group.pk, status="resolved").first(),
        "the resolved notification",
    )
    assert {a["status"] for a in resolved.alerts.values()} == {"resolved"}

    push(_alert("checkout-a:8080"))
    second = _until(
        lambda: AlertGroup.objects.exclude(pk=group.pk).first(),
        "the group firing again",
    )
    assert second.incident_id != incident.id
    assert second.status == "firing" and second.key == group.key
    assert Incident.objects.count() == 2
