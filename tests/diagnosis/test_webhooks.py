"""Outgoing notifications (issue 20 item 7) against real HTTP receivers on 127.0.0.1: the
generic body signed with HMAC-SHA256 over timestamp + body (the receiver checks it), the
Slack-compatible body, the outbox rows written with the event, a failing receiver retried
with backoff, targets validated, and neither URL nor secret in the delivery log or the logs."""

import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from celery.exceptions import Retry

from diagnosis import coordination, lifecycle
from diagnosis.exceptions import ValidationFailed
from diagnosis.models import Role, WebhookDelivery, WebhookFormat
from diagnosis.principals import principal_from_user
from diagnosis.states import TaskState
from diagnosis.tasks import webhook_deliver
from diagnosis.webhooks import bodies, delivery, targets
from tests import factories

SECRET = "whsec-test-0123456789"


@dataclass
class Receiver:
    """A local webhook receiver: answers `statuses` in turn (then 200) and checks signatures."""

    statuses: list[int] = field(default_factory=list)
    secret: str = SECRET
    received: list[dict] = field(default_factory=list)
    url: str = ""

    def handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                timestamp = self.headers.get(bodies.TIMESTAMP_HEADER, "")
                signature = self.headers.get(bodies.SIGNATURE_HEADER, "")
                receiver.received.append(
                    {
                        "path": self.path,
                        "json": json.loads(body),
                        "signed": bodies.signature_is_valid(
                            receiver.secret,
                            timestamp=timestamp,
                            body=body,
                            received=signature,
                        ),
                    }
                )
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        return Handler


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    server = ThreadingHTTPServer(("127.0.0.1", 0), made.handler())
    made.url = f"http://127.0.0.1:{server.server_port}/hooks/T0/B0/xoxb-secret-path"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield made
    server.shutdown()
    server.server_close()


def _finish(task):
    lifecycle.diagnosis_claim(task_id=task.id, owner="w")
    task.refresh_from_db()
    return lifecycle.diagnosis_transition(task=task, to=TaskState.SUCCEEDED)


def _send_all() -> list[str]:
    return [
        delivery.webhook_attempt(delivery_id=str(pk)).status
        for pk in WebhookDelivery.objects.order_by("created_at").values_list(
            "pk", flat=True
        )
    ]


def test_a_status_change_is_delivered_signed_to_a_generic_target(
    tenant, member, receiver, django_capture_on_commit_callbacks
):
    targets.webhook_target_create(
        tenant=tenant, name="pager", url=receiver.url, secret=SECRET
    )
    incident, task = factories.make_incident(tenant)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        coordination.incident_status_change(
            incident=incident,
            principal=principal_from_user(member.user),
            status="acknowledged",
        )
    # Written with the event; sent only after commit (one enqueue per delivery).
    (row,) = WebhookDelivery.objects.all()
    assert (row.notice, row.status, row.event_seq) == (
        "status_changed",
        "pending",
        task.events.latest("seq").seq,
    )
    assert len(callbacks) == 2  # the wake-up and the enqueue

    assert _send_all() == ["delivered"]
    (hit,) = receiver.received
    assert hit["signed"] is True
    assert hit["json"]["notice"] == "status_changed"
    assert hit["json"]["incident"]["status"] == "acknowledged"
    assert hit["json"]["detail"] == {
        "status": "acknowledged",
        "previous_status": "triggered",
        "by": "alice",
    }
    row.refresh_from_db()
    assert (row.status, row.attempts, row.last_status_code) == ("delivered", 1, 200)


def test_a_tampered_body_or_old_timestamp_fails_the_receivers_check():
    body = b'{"notice":"status_changed"}'
    headers = bodies.signed_headers(SECRET, body, now=1_000_000)
    ts, sig = headers[bodies.TIMESTAMP_HEADER], headers[bodies.SIGNATURE_HEADER]

    def ok(**changes):
        values = {"timestamp": ts, "body": body, "received": sig, "now": 1_000_010}
        values.update(changes)
        return bodies.signature_is_valid(SECRET, **values)

    assert ok()
    assert not ok(body=body + b" ")
    assert not ok(now=1_000_000 + bodies.TOLERANCE_SECONDS + 1)
    assert not ok(received=bodies.signature("other", int(ts), body))


def test_a_finished_diagnosis_goes_to_slack_as_text(tenant, receiver):
    targets.webhook_target_create(
        tenant=tenant, name="chat", url=receiver.url, format=WebhookFormat.SLACK
    )
    _incident, task = factories.make_incident(tenant, title="checkout <502>s")

    _finish(task)

    assert _send_all() == ["delivered"]
    (hit,) = receiver.received
    assert set(hit["json"]) == {"text"}
    assert hit["json"]["text"].startswith("*Diagnosis succeeded*")
    assert "checkout &lt;502&gt;s" in hit["json"]["text"]
    # No secret, no signature.
    assert hit["signed"] is False


def test_an_approval_waiting_notifies_and_a_target_gets_only_what_it_asked_for(
    tenant, receiver
):
    targets.webhook_target_create(
        tenant=tenant, name="approvers", url=receiver.url, notices=["approval_waiting"]
    )
    _task, approval = factories.make_approval(tenant)
    _incident, other = factories.make_incident(tenant)
    _finish(other)

    (row,) = WebhookDelivery.objects.all()
    assert row.notice == "approval_waiting"
    assert row.payload["detail"]["approval_id"] == str(approval.id)
    assert _send_all() == ["delivered"]


def test_a_failing_receiver_is_retried_with_backoff_until_it_answers(
    tenant, receiver, caplog
):
    receiver.statuses = [503, 500]
    targets.webhook_target_create(
        tenant=tenant, name="flaky", url=receiver.url, secret=SECRET
    )
    _incident, task = factories.make_incident(tenant)
    _finish(task)
    (row,) = WebhookDelivery.objects.all()

    with caplog.at_level(logging.WARNING), pytest.raises(Retry):
        webhook_deliver(str(row.pk))  # the Celery task asks for a retry
    second = delivery.webhook_attempt(delivery_id=str(row.pk))
    third = delivery.webhook_attempt(delivery_id=str(row.pk))

    assert (second.status, second.retry_in) == ("retrying", delivery.backoff(2))
    assert delivery.backoff(1) < delivery.backoff(2) < delivery.backoff(9)
    assert delivery.backoff(9) == delivery.BACKOFF_MAX_S
    assert (third.status, third.retry_in) == ("delivered", None)
    assert [hit["signed"] for hit in receiver.received] == [True, True, True]
    row.refresh_from_db()
    assert (row.status, row.attempts) == ("delivered", 3)
    # What was logged names the target, never its URL or secret.
    logged = caplog.text
    assert "flaky" in logged and "HTTP 503" in logged
    assert "xoxb-secret-path" not in logged and SECRET not in logged


def test_an_unreachable_target_fails_after_its_attempts(tenant):
    targets.webhook_target_create(
        tenant=tenant, name="gone", url="http://127.0.0.1:9/hook", secret=SECRET
    )
    _incident, task = factories.make_incident(tenant)
    _finish(task)
    (row,) = WebhookDelivery.objects.all()

    outcomes = [
        delivery.webhook_attempt(delivery_id=str(row.pk)).status
        for _ in range(delivery.MAX_ATTEMPTS)
    ]

    assert outcomes == ["retrying"] * (delivery.MAX_ATTEMPTS - 1) + ["failed"]
    row.refresh_from_db()
    assert row.last_error == "ConnectError"
    assert delivery.webhook_attempt(delivery_id=str(row.pk)).retry_in is None


@pytest.mark.parametrize(
    "url",
    [
        "",
        "ftp://example.com/hook",
        "javascript:alert(1)",
        "http://",
        "https://host:port/x",
        "https://example.com/a b",
        "/relative/hook",
    ],
)
def test_a_target_must_be_an_http_url(tenant, url):
    with pytest.raises(ValidationFailed) as caught:
        targets.webhook_target_create(tenant=tenant, name="bad", url=url)
    assert set(caught.value.fields) == {"url"}


def test_bad_notices_and_format_are_refused(tenant):
    with pytest.raises(ValidationFailed) as caught:
        targets.webhook_target_create(
            tenant=tenant,
            name="",
            url="https://hooks.example.com/x",
            format="teams",
            notices=["everything"],
        )
    assert set(caught.value.fields) == {"name", "format", "notices"}


def test_the_operations_page_lists_deliveries_by_host_without_url_or_secret(
    client, tenant, receiver
):
    admin = factories.make_member(tenant, role=Role.ADMIN, username="root")
    targets.webhook_target_create(
        tenant=tenant, name="pager", url=receiver.url, secret=SECRET
    )
    _incident, task = factories.make_incident(tenant)
    _finish(task)
    _send_all()
    client.force_login(admin.user)

    page = client.get("/operations/").content.decode()

    assert "Notifications sent" in page
    assert "pager" in page and "127.0.0.1" in page and "delivered" in page
    assert "xoxb-secret-path" not in page and SECRET not in page
