"""Alert intake (issue 12 item 1): Alertmanager webhooks and PagerDuty events open one incident
per alert group, over the real API and PostgreSQL.

The Alertmanager fixtures are version 4 webhook bodies as Alertmanager writes them
(notify/webhook Message: template.Data plus version, groupKey, truncatedAlerts; a firing alert's
endsAt is Go's zero time), replayed in order: a group fires, repeats with a new alert, repeats
unchanged, resolves and fires again. The PagerDuty fixtures are Events API v2 bodies as its
documentation shows them (trigger with images, links and client; acknowledge; resolve).
"""

import json
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine

from diagnosis import lifecycle, selectors, services
from diagnosis.api.validation import ALERT_MAX_BODY_BYTES, MAX_BODY_BYTES
from diagnosis.intake import model, receive
from diagnosis.models import (
    AlertGroup,
    AlertIntakeWindow,
    DiagnosisTask,
    Incident,
    Role,
    TaskEvent,
)
from diagnosis.registry import BUNDLED_FILE
from tests import factories

FIXTURES = Path(__file__).resolve().parent / "intake" / "fixtures"
AM = "/api/alerts/alertmanager"
PD = "/api/alerts/pagerduty"
T0 = datetime(2026, 11, 30, 10, 8, tzinfo=UTC)


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text())


@pytest.fixture(autouse=True)
def _setup(settings, monkeypatch):
    settings.ALERT_RATE_LIMIT = 600
    settings.INCIDENT_RATE_LIMIT = 120
    monkeypatch.setattr("diagnosis.dispatch.diagnosis_run_enqueue", lambda *a: None)


@pytest.fixture
def clock():
    with time_machine.travel(T0, tick=False) as traveller:
        yield traveller


@pytest.fixture
def admin(tenant):
    return factories.make_member(tenant, role=Role.ADMIN, username="monitoring")


@pytest.fixture
def alert_token(admin) -> str:
    """A token minted for alerts alone, as a monitoring system would hold."""
    return factories.make_token(admin, scopes=("alerts:write",))


def post(client, path, body, token=None, *, raw=None, content_type="application/json"):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.post(
        path,
        data=raw if raw is not None else json.dumps(body),
        content_type=content_type,
        headers=headers,
    )


def counts():
    return (
        Incident.objects.count(),
        DiagnosisTask.objects.count(),
        AlertGroup.objects.count(),
        TaskEvent.objects.count(),
    )


# --- Alertmanager: a group's life ------------------------------------------------------------


def test_a_group_fires_repeats_resolves_and_fires_again(
    client, alert_token, tenant, clock, django_capture_on_commit_callbacks, monkeypatch
):
    enqueued = []
    monkeypatch.setattr("diagnosis.dispatch.diagnosis_run_enqueue", enqueued.append)

    with django_capture_on_commit_callbacks(execute=True):
        fired = post(client, AM, fixture("alertmanager-1-firing"), alert_token)

    assert fired.status_code == 201, fired.content
    body = fired.json()
    assert body["result"] == "created" and body["source"] == "alertmanager"
    incident = Incident.objects.get(pk=body["incident_id"])
    task = DiagnosisTask.objects.get(incident=incident)
    assert body["task_id"] == str(task.id)
    assert enqueued == [
        str(task.id)
    ]  # the diagnosis starts once the incident is committed
    assert incident.tenant == tenant
    assert incident.title == (
        "CheckoutHighErrorRate: checkout answers 502 to a share of requests"
    )
    assert (incident.service, incident.severity) == ("checkout", "sev1")
    assert incident.symptoms.splitlines() == [
        "checkout answers 502 to a share of requests",
        "5.2% of checkout requests answered 5xx over the last 5 minutes.",
        "6.8% of checkout requests answered 5xx over the last 5 minutes.",
        "2 of 2 alerts firing",
    ]
    assert incident.window_start == datetime(
        2026, 11, 30, 10, 2, 13, 614000, tzinfo=UTC
    )
    assert incident.window_end is None  # Go's zero endsAt: still firing
    assert incident.environment == "default"  # the receiver is not mapped
    group = AlertGroup.objects.get()
    assert group.key == fixture("alertmanager-1-firing")["groupKey"]
    assert sorted(group.alerts) == ["4f1b8a3c0d9e2a71", "b27c9e04a6f13d58"]
    assert body["group"]["status"] == "firing"
    assert [a["fingerprint"] for a in body["group"]["alerts"]] == [
        "4f1b8a3c0d9e2a71",
        "b27c9e04a6f13d58",
    ]
    assert task.events.count() == 1  # task_created only

    clock.shift(300)  # group_interval: a third pod joins the group
    with django_capture_on_commit_callbacks(execute=True):
        repeat = post(client, AM, fixture("alertmanager-2-repeat"), alert_token)

    assert repeat.status_code == 200, repeat.content
    assert repeat.json()["result"] == "updated"
    assert repeat.json()["incident_id"] == str(incident.id)
    assert repeat.json()["task_id"] == str(task.id)
    assert Incident.objects.count() == 1
    assert enqueued == [str(task.id)]  # no second diagnosis
    group.refresh_from_db()
    assert len(group.alerts) == 3 and group.payloads == 2
    event = task.events.get(type="alert_received")
    assert event.data == {
        "task_id": str(task.id),
        "incident_id": str(incident.id),
        "source": "alertmanager",
        "group_id": str(group.id),
        "status": "firing",
        "new_alerts": 1,
        "resolved_alerts": 0,
        "alerts": [
            {
                "fingerprint": "e03a5d7f91c24b6e",
                "status": "firing",
                "name": "CheckoutHighErrorRate",
                "summary": "checkout answers 502 to a share of requests",
            }
        ],
        "truncated": 0,
    }

    clock.shift(3600)  # repeat_interval: the same group, nothing new
    same = post(client, AM, fixture("alertmanager-3-same"), alert_token)

    assert same.json()["result"] == "unchanged"
    assert task.events.filter(type="alert_received").count() == 1
    group.refresh_from_db()
    assert group.payloads == 3
    # Each alert says when it was first and last received, and how often (the alerts panel).
    first, joined = group.alerts["4f1b8a3c0d9e2a71"], group.alerts["e03a5d7f91c24b6e"]
    assert (first["first_seen"], first["last_seen"], first["receipts"]) == (
        T0.isoformat(),
        (T0 + timedelta(seconds=3900)).isoformat(),
        3,
    )
    assert (joined["first_seen"], joined["receipts"]) == (
        (T0 + timedelta(seconds=300)).isoformat(),
        2,
    )

    clock.shift(60)
    resolved = post(client, AM, fixture("alertmanager-4-resolved"), alert_token)

    assert resolved.status_code == 200
    assert resolved.json()["result"] == "resolved"
    group.refresh_from_db()
    assert group.status == "resolved" and group.resolved_at == T0 + timedelta(
        seconds=3960
    )
    assert {a["status"] for a in group.alerts.values()} == {"resolved"}
    said = task.events.filter(type="alert_received").order_by("seq").last()
    assert (said.data["status"], said.data["resolved_alerts"]) == ("resolved", 3)
    task.refresh_from_db()
    assert (
        task.state == "queued"
    )  # the diagnosis runs on; resolved is said, not acted on
    detail = client.get(
        f"/api/incidents/{incident.id}",
        headers={"Authorization": f"Bearer {_reader(tenant)}"},
    ).json()
    assert [(g["status"], g["resolved_at"]) for g in detail["alert_groups"]] == [
        ("resolved", group.resolved_at.isoformat())
    ]

    clock.shift(4000)
    with django_capture_on_commit_callbacks(execute=True):
        again = post(client, AM, fixture("alertmanager-5-fires-again"), alert_token)

    assert again.status_code == 201, again.content
    assert again.json()["result"] == "created"
    second = Incident.objects.get(pk=again.json()["incident_id"])
    assert second.id != incident.id
    assert second.window_start == datetime(2026, 11, 30, 11, 40, 2, 301000, tzinfo=UTC)
    assert len(enqueued) == 2
    assert list(
        AlertGroup.objects.order_by("first_payload_at").values_list(
            "status", "incident"
        )
    ) == [("resolved", incident.id), ("firing", second.id)]


def _reader(tenant) -> str:
    return factories.make_token(
        factories.make_member(tenant, role=Role.VIEWER), scopes=("incidents:read",)
    )


def test_a_running_diagnosis_hears_of_repeats_and_the_resolve_and_runs_on(
    client, alert_token, clock
):
    created = post(client, AM, fixture("alertmanager-1-firing"), alert_token).json()
    task = lifecycle.diagnosis_claim(task_id=created["task_id"], owner="worker-1")
    assert task is not None and task.state == "running"

    post(client, AM, fixture("alertmanager-2-repeat"), alert_token)
    post(client, AM, fixture("alertmanager-4-resolved"), alert_token)

    task.refresh_from_db()
    assert (task.state, task.lease_owner) == ("running", "worker-1")
    kinds = list(task.events.order_by("seq").values_list("type", "data__status"))
    assert kinds[-2:] == [("alert_received", "firing"), ("alert_received", "resolved")]
    # The engine's own writes still hold: the lease was not touched.
    lifecycle.diagnosis_event_append(
        task_id=task.id,
        kind="agent_started",
        data={"agent": "logs"},
        lease_owner="worker-1",
    )


def test_a_finished_diagnosis_is_not_written_to(client, alert_token, clock):
    created = post(client, AM, fixture("alertmanager-1-firing"), alert_token).json()
    task = DiagnosisTask.objects.get(pk=created["task_id"])
    services.diagnosis_cancel(task=task)
    events = task.events.count()

    answer = post(client, AM, fixture("alertmanager-4-resolved"), alert_token).json()

    assert answer["result"] == "resolved" and answer["task_id"] is None
    assert task.events.count() == events
    assert AlertGroup.objects.get().status == "resolved"


def test_a_resolved_group_never_seen_opens_nothing(client, alert_token, clock):
    answer = post(client, AM, fixture("alertmanager-4-resolved"), alert_token)

    assert answer.status_code == 200
    assert answer.json() == {
        "source": "alertmanager",
        "result": "ignored",
        "incident_id": None,
        "task_id": None,
        "group": None,
    }
    assert counts() == (0, 0, 0, 0)


def test_receiver_and_rules_of_the_registry_map_the_incident(
    client, alert_token, clock, settings, tmp_path
):
    path = tmp_path / "servers.toml"
    path.write_text(
        BUNDLED_FILE.read_text().replace("{here}", str(BUNDLED_FILE.parent))
        + textwrap.dedent(
            """
            [environments.payments]
            description = "Payments cluster"
            [environments.payments.servers.runbooks]
            command = ["{python}", "-m", "mcpservers.runbooks"]

            [alerts]
            service_labels = ["app", "service"]
            severity_label = "priority"
            severity_map = { p1 = "sev1", p2 = "sev2" }
            default_severity = "sev4"
            symptom_annotations = ["description"]
            receivers = { payments-pager = "payments" }
            """
        )
    )
    settings.AGENTOPS_SERVERS = str(path)
    body = fixture("alertmanager-1-firing")
    body["alerts"][1]["labels"].update(app="checkout-api", priority="P2")

    created = post(client, AM, body, alert_token).json()

    incident = Incident.objects.get(pk=created["incident_id"])
    assert incident.environment == "payments"
    assert (
        incident.service == "checkout-api"
    )  # no common `app`: the first alert that has one
    assert incident.severity == "sev2"  # `severity: critical` is not the label any more
    assert incident.symptoms.splitlines()[0] == (
        "5.2% of checkout requests answered 5xx over the last 5 minutes."
    )
    assert DiagnosisTask.objects.get().environment == "payments"


def test_a_group_holds_at_most_max_group_alerts_and_bodies_may_exceed_the_api_limit(
    client, alert_token, clock
):
    body = fixture("alertmanager-1-firing")
    template = body["alerts"][0]
    body["alerts"] = [
        {
            **template,
            "labels": {**template["labels"], "instance": f"checkout-{n}:8080"},
            "fingerprint": f"{n:016x}",
        }
        for n in range(receive.MAX_GROUP_ALERTS + 50)
    ]
    body["truncatedAlerts"] = 7
    raw = json.dumps(body)
    assert MAX_BODY_BYTES < len(raw) < ALERT_MAX_BODY_BYTES

    answer = post(client, AM, None, alert_token, raw=raw)

    assert answer.status_code == 201, answer.content
    group = answer.json()["group"]
    assert len(group["alerts"]) == receive.MAX_GROUP_ALERTS
    assert (group["dropped_alerts"], group["sender_truncated_alerts"]) == (50, 7)
    assert "250 of 257 alerts firing (7 left out of the payload)" in (
        Incident.objects.get().symptoms
    )


def test_a_body_over_the_alert_limit_is_413_and_changes_nothing(client, alert_token):
    raw = json.dumps({"pad": "x" * ALERT_MAX_BODY_BYTES})

    answer = post(client, AM, None, alert_token, raw=raw)

    assert answer.status_code == 413
    assert answer.json()["limit"] == ALERT_MAX_BODY_BYTES
    assert counts() == (0, 0, 0, 0)


# --- PagerDuty ---------------------------------------------------------------------------------


def test_pagerduty_trigger_acknowledge_resolve_and_trigger_again(
    client, alert_token, clock
):
    trigger = post(client, PD, fixture("pagerduty-trigger"), alert_token)

    assert trigger.status_code == 201, trigger.content
    body = trigger.json()
    assert (body["result"], body["dedup_key"]) == (
        "created",
        "payments-gw/pool-exhausted",
    )
    incident = Incident.objects.get(pk=body["incident_id"])
    assert incident.title == "payments-gw: connection pool exhausted on db-primary"
    assert (incident.service, incident.severity) == ("payments-gw", "sev2")
    assert incident.window_start == datetime(
        2026, 11, 30, 10, 5, 58, 315000, tzinfo=UTC
    )
    assert "pool in use: 50/50" in incident.symptoms.splitlines()
    group = AlertGroup.objects.get()
    # The routing key is a credential: only its hash, with the dedup_key, names the group.
    assert "R0ZZ1XK2" not in json.dumps(body) + group.key + json.dumps(group.alerts)
    task = DiagnosisTask.objects.get(incident=incident)

    clock.shift(60)
    ack = post(client, PD, fixture("pagerduty-acknowledge"), alert_token)
    assert ack.json()["result"] == "acknowledged"
    assert (
        ack.json()["group"]["acknowledged_at"]
        == (T0 + timedelta(seconds=60)).isoformat()
    )
    retrigger = post(client, PD, fixture("pagerduty-trigger"), alert_token)
    assert retrigger.status_code == 200
    assert (retrigger.json()["result"], retrigger.json()["group"]["status"]) == (
        "unchanged",
        "acknowledged",
    )

    resolve = post(client, PD, fixture("pagerduty-resolve"), alert_token)
    assert resolve.json()["result"] == "resolved"
    assert [e.data["status"] for e in task.events.filter(type="alert_received")] == [
        "acknowledged",
        "resolved",
    ]
    # PagerDuty drops an acknowledge or resolve for no open alert; so does this.
    assert (
        post(client, PD, fixture("pagerduty-resolve"), alert_token).json()["result"]
        == "ignored"
    )

    again = post(client, PD, fixture("pagerduty-trigger"), alert_token)
    assert again.status_code == 201
    assert again.json()["incident_id"] != str(incident.id)
    assert Incident.objects.count() == 2


def test_pagerduty_groups_are_per_routing_key_and_a_trigger_without_key_is_new(
    client, alert_token, clock
):
    first = post(client, PD, fixture("pagerduty-trigger"), alert_token).json()
    other_key = {**fixture("pagerduty-trigger"), "routing_key": "another-integration"}
    second = post(client, PD, other_key, alert_token).json()
    keyless = fixture("pagerduty-trigger")
    del keyless["dedup_key"]
    third = post(client, PD, keyless, alert_token).json()
    fourth = post(client, PD, keyless, alert_token).json()

    assert [a["result"] for a in (first, second, third, fourth)] == ["created"] * 4
    assert len({a["incident_id"] for a in (first, second, third, fourth)}) == 4
    assert third["dedup_key"] != fourth["dedup_key"]
    ack = {**fixture("pagerduty-acknowledge"), "dedup_key": third["dedup_key"]}
    assert post(client, PD, ack, alert_token).json()["result"] == "acknowledged"


# --- auth, tenants, floods --------------------------------------------------------------------


def test_without_a_token_401_and_without_the_scope_403_and_nothing_is_created(
    client, tenant, clock
):
    body = fixture("alertmanager-1-firing")
    responder = factories.make_token(factories.make_member(tenant, role=Role.RESPONDER))
    approver = factories.make_token(factories.make_member(tenant, role=Role.APPROVER))
    admin_without = factories.make_token(
        factories.make_member(tenant, role=Role.ADMIN), scopes=("incidents:write",)
    )

    assert post(client, AM, body).status_code == 401
    assert post(client, PD, fixture("pagerduty-trigger")).status_code == 401
    assert post(client, AM, body, "aops_not-a-token").status_code == 401
    for token in (responder, approver, admin_without):
        for path, payload in ((AM, body), (PD, fixture("pagerduty-trigger"))):
            answer = post(client, path, payload, token)
            assert answer.status_code == 403, (path, answer.content)
            assert answer.json()["required_scope"] == "alerts:write"
    assert counts() == (0, 0, 0, 0)
    assert AlertIntakeWindow.objects.count() == 0


def test_an_alerts_only_token_opens_incidents_its_diagnosis_may_run(
    client, alert_token, clock
):
    created = post(client, AM, fixture("alertmanager-1-firing"), alert_token).json()

    task = DiagnosisTask.objects.get(pk=created["task_id"])
    # The engine runs tools only for a creator with incidents:write (engine.policy).
    assert task.granted_scopes == ["alerts:write", "incidents:write"]
    assert task.principal.startswith("token:aops_")
    assert Incident.objects.get().created_by.username == "monitoring"


def test_tenants_are_isolated(client, alert_token, tenant, other_tenant, clock):
    b_admin = factories.make_member(other_tenant, role=Role.ADMIN)
    b_token = factories.make_token(b_admin, scopes=("alerts:write", "incidents:read"))
    a = post(client, AM, fixture("alertmanager-1-firing"), alert_token).json()

    b = post(client, AM, fixture("alertmanager-1-firing"), b_token).json()
    b_repeat = post(client, AM, fixture("alertmanager-2-repeat"), b_token).json()

    assert b["result"] == "created" and b["incident_id"] != a["incident_id"]
    assert b_repeat["incident_id"] == b["incident_id"]
    assert Incident.objects.get(pk=b["incident_id"]).tenant == other_tenant
    a_group = AlertGroup.objects.get(incident_id=a["incident_id"])
    assert (a_group.payloads, len(a_group.alerts)) == (1, 2)  # B's repeat is B's
    hidden = client.get(
        f"/api/incidents/{a['incident_id']}",
        headers={"Authorization": f"Bearer {b_token}"},
    )
    assert hidden.status_code == 404


@pytest.mark.fault("A flood of alert payloads from one tenant", kind="limit")
def test_a_flood_is_429_with_retry_after_and_changes_nothing(
    client, alert_token, tenant, other_tenant, clock, settings, reliability_record
):
    settings.ALERT_RATE_LIMIT = 3
    settings.ALERT_RATE_WINDOW_SECONDS = 60
    clock.move_to(datetime(2026, 11, 30, 10, 9, 0, tzinfo=UTC))
    assert (
        post(client, AM, fixture("alertmanager-1-firing"), alert_token).status_code
        == 201
    )
    clock.shift(15)
    assert (
        post(client, AM, fixture("alertmanager-2-repeat"), alert_token).status_code
        == 200
    )
    assert (
        post(client, AM, fixture("alertmanager-3-same"), alert_token).status_code == 200
    )
    before = counts()
    group = AlertGroup.objects.get()

    refused = post(client, AM, fixture("alertmanager-4-resolved"), alert_token)
    refused_pd = post(client, PD, fixture("pagerduty-trigger"), alert_token)

    assert refused.status_code == 429 and refused_pd.status_code == 429
    assert refused.headers["Retry-After"] == "45"  # the window ends at 10:10:00
    assert refused.json()["code"] == "rate_limited"
    assert "alert payloads" in refused.json()["error"]
    assert counts() == before
    group.refresh_from_db()
    assert (group.status, group.payloads) == ("firing", 3)
    # Another tenant is not held back.
    b_token = factories.make_token(
        factories.make_member(other_tenant, role=Role.ADMIN), scopes=("alerts:write",)
    )
    assert (
        post(client, AM, fixture("alertmanager-1-firing"), b_token).status_code == 201
    )

    clock.shift(45)  # the next window
    late = post(client, AM, fixture("alertmanager-4-resolved"), alert_token)
    assert late.status_code == 200 and late.json()["result"] == "resolved"
    # Only the current window is kept.
    assert AlertIntakeWindow.objects.filter(tenant=tenant).count() == 1
    reliability_record(
        observed="the 4th payload in a 60 s window got 429 with Retry-After 45 (the window's "
        "end) and changed nothing; another tenant was served; the next window took it",
        figures={"limit": 3, "window_s": 60, "retry_after_s": 45},
    )


def test_an_alert_over_the_incident_rate_limit_is_429_and_opens_no_group(
    client, alert_token, clock, settings
):
    settings.INCIDENT_RATE_LIMIT = 1
    assert (
        post(client, PD, fixture("pagerduty-trigger"), alert_token).status_code == 201
    )
    before = counts()

    refused = post(client, AM, fixture("alertmanager-1-firing"), alert_token)

    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) >= 1
    assert counts() == before
    # The refused payload was not counted either.
    assert AlertIntakeWindow.objects.get().payloads == 1


# --- bad payloads ------------------------------------------------------------------------------


def _am(**changes):
    body = fixture("alertmanager-1-firing")
    body.update(changes)
    return body


def _am_alert(index, **changes):
    body = fixture("alertmanager-1-firing")
    body["alerts"][index].update(changes)
    return body


def _pd(**changes):
    body = fixture("pagerduty-trigger")
    body.update(changes)
    return body


def _pd_payload(**changes):
    body = fixture("pagerduty-trigger")
    body["payload"].update(changes)
    return body


@pytest.mark.parametrize(
    ("path", "body", "field", "reason"),
    [
        (AM, _am(version="3"), "version", 'must be "4"'),
        (
            AM,
            {k: v for k, v in _am().items() if k != "groupKey"},
            "groupKey",
            "required",
        ),
        (AM, _am(groupKey="  "), "groupKey", "blank"),
        (AM, _am(status="pending"), "status", "firing or resolved"),
        (AM, _am(alerts=[]), "alerts", "at least one"),
        (AM, _am(alerts={"a": 1}), "alerts", "list"),
        (AM, _am(truncatedAlerts=-1), "truncatedAlerts", "non-negative"),
        (AM, _am(commonLabels={"severity": 5}), "commonLabels.severity", "string"),
        (AM, _am(alerts=["x"]), "alerts[0]", "object"),
        (AM, _am_alert(1, startsAt="yesterday"), "alerts[1].startsAt", "date-time"),
        (AM, _am_alert(0, endsAt="2026-11-30T10:00:00"), "alerts[0].endsAt", "offset"),
        (
            AM,
            _am_alert(0, startsAt="1999-01-01T00:00:00Z"),
            "alerts[0].startsAt",
            "between",
        ),
        (AM, _am_alert(1, status="unknown"), "alerts[1].status", "firing or resolved"),
        (AM, _am_alert(0, labels=None), "alerts[0].labels", "required"),
        (AM, _am_alert(0, fingerprint=7), "alerts[0].fingerprint", "string"),
        (PD, _pd(event_action="escalate"), "event_action", "trigger"),
        (PD, _pd(routing_key=""), "routing_key", "blank"),
        (PD, _pd(dedup_key="k" * 256), "dedup_key", "at most 255"),
        (PD, _pd(payload=None), "payload", "required"),
        (PD, _pd_payload(severity="high"), "payload.severity", "critical"),
        (PD, _pd_payload(summary=None), "payload.summary", "required"),
        (PD, _pd_payload(timestamp="soon"), "payload.timestamp", "date-time"),
        (
            PD,
            {"routing_key": "r", "event_action": "resolve"},
            "dedup_key",
            "required",
        ),
    ],
)
def test_a_bad_payload_is_400_naming_the_field_and_changes_nothing(
    client, alert_token, clock, path, body, field, reason
):
    answer = post(client, path, body, alert_token)

    assert answer.status_code == 400, answer.content
    assert answer.json()["code"] == "invalid"
    assert reason in answer.json()["fields"][field], answer.json()
    assert counts() == (0, 0, 0, 0)
    assert AlertIntakeWindow.objects.count() == 0


def test_not_json_is_400(client, alert_token):
    answer = post(
        client, AM, None, alert_token, raw="groupKey=x", content_type="text/plain"
    )

    assert answer.status_code == 400
    assert "Content-Type" in answer.json()["fields"]


def test_a_payload_with_many_errors_names_a_bounded_number(client, alert_token, clock):
    body = _am(alerts=[{"status": "?"}] * 500)

    fields = post(client, AM, body, alert_token).json()["fields"]

    assert len(fields) == model.MAX_FIELD_ERRORS


def test_the_labels_all_alerts_of_the_incident_share_reach_its_diagnosis(
    client, alert_token, clock
):
    body = fixture("alertmanager-1-firing")
    body["alerts"][1]["labels"]["job"] = "checkout-api"

    fired = post(client, AM, body, alert_token)

    incident = Incident.objects.get(pk=fired.json()["incident_id"])
    # instance differs between the two alerts, and so does job now: neither is the group's.
    assert selectors.incident_alert_labels(incident=incident) == {
        "alertname": "CheckoutHighErrorRate",
        "namespace": "shop",
        "service": "checkout",
        "severity": "critical",
    }
    typed = Incident.objects.create(
        tenant=incident.tenant, title="typed", service="checkout"
    )
    assert selectors.incident_alert_labels(incident=typed) == {}


# --- the alert's labels and description on the incident (issue 21 item 2) --------------------


def test_an_alertmanager_group_opens_an_incident_with_its_labels_and_description(
    client, alert_token, clock
):
    response = post(client, AM, fixture("alertmanager-1-firing"), alert_token)

    assert response.status_code == 201, response.content
    incident = Incident.objects.get(pk=response.json()["incident_id"])
    assert incident.labels == {
        "alertname": "CheckoutHighErrorRate",
        "job": "checkout",
        "namespace": "shop",
        "service": "checkout",
        "severity": "critical",
    }
    assert incident.description == (
        "5.2% of checkout requests answered 5xx over the last 5 minutes."
    )


def test_a_pagerduty_trigger_opens_an_incident_with_its_labels_and_summary(
    client, alert_token, clock
):
    response = post(client, PD, fixture("pagerduty-trigger"), alert_token)

    assert response.status_code == 201, response.content
    incident = Incident.objects.get(pk=response.json()["incident_id"])
    assert (
        incident.description == "payments-gw: connection pool exhausted on db-primary"
    )
    assert incident.labels["component"] == "payments-gw"
    assert incident.labels["service"] == "payments-gw"
    assert incident.labels["group"] == "prod-payments"
