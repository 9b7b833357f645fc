"""GET /api/openapi.json is true: routes match Django's resolver, answers match the schemas.

The contract test drives every documented (path, method, status) and validates each answer
against the documented schema, which lists every field and forbids others; it also fails if a
documented status is never observed, or an observed one is not documented.
"""

import json
import re
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import hypothesis
import pytest
import time_machine
from django.db import OperationalError, connection
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from diagnosis import bounds, lifecycle
from diagnosis.api import idempotency
from diagnosis.api.openapi import ASGI_ROUTED_PATHS, build_document
from diagnosis.api.validation import (
    ALERT_MAX_BODY_BYTES,
    CURSOR_PATTERN,
    MAX_BODY_BYTES,
    decode_cursor,
    encode_cursor,
)
from diagnosis.models import (
    IdempotencyRecord,
    IdempotencyStatus,
    Role,
)
from diagnosis.principals import principal_from_token
from diagnosis.registry import demo_environment_name
from reasoning.report import ACTION_STATUSES
from tests import factories

METHODS = {"get", "post", "put", "patch", "delete"}


def _routes(patterns=None, prefix="/"):
    """(path template, allowed methods) of every URL Django resolves, converters as {name}."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = str(entry.pattern)
        template = prefix + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
        if isinstance(entry, URLResolver):
            yield from _routes(entry.url_patterns, template)
        elif isinstance(entry, URLPattern):
            yield template, frozenset(getattr(entry.callback, "allowed_methods", ()))


def _documented_routes():
    return {
        template
        for template, _ in _routes()
        if template.startswith("/api/") or template in {"/healthz", "/readyz"}
    }


def test_openapi_document_is_served_without_credentials(client, db):
    response = client.get("/api/openapi.json")

    assert response.status_code == 200
    assert response.json() == json.loads(json.dumps(build_document()))
    assert response.json()["openapi"] == "3.1.0"


def test_every_route_is_documented_and_every_documented_path_is_routed():
    paths = build_document()["paths"]

    assert set(paths) - ASGI_ROUTED_PATHS == _documented_routes()


def test_documented_methods_match_the_views():
    paths = build_document()["paths"]

    for template, allowed in _routes():
        if template in paths:
            documented = {m.upper() for m in paths[template] if m in METHODS}
            assert documented == set(allowed), template


def test_sse_stream_is_documented_as_text_event_stream():
    operation = build_document()["paths"]["/api/tasks/{task_id}/events"]["get"]

    assert set(operation["responses"]["200"]["content"]) == {"text/event-stream"}
    assert "204" in operation["responses"]


def test_component_schemas_are_valid_json_schema():
    for name, schema in build_document()["components"]["schemas"].items():
        Draft202012Validator.check_schema(schema)
        assert schema.get("type") == "object", name


def test_report_actions_are_documented_in_the_reports_status_vocabulary():
    schemas = build_document()["components"]["schemas"]
    report = schemas["Task"]["properties"]["report"]
    assert report["properties"]["actions"]["items"] == {
        "$ref": "#/components/schemas/ReportAction"
    }
    action = schemas["ReportAction"]
    assert action["properties"]["status"]["enum"] == list(ACTION_STATUSES)
    assert "unknown" in action["properties"]["status"]["enum"]


def test_every_operation_has_a_unique_operation_id():
    ids = [
        op["operationId"]
        for item in build_document()["paths"].values()
        for method, op in item.items()
        if method in METHODS
    ]
    assert len(ids) == len(set(ids))


class Contract:
    """Sends requests, validates each answer against the document, and records what it saw."""

    def __init__(self, client):
        self.client = client
        self.document = build_document()
        self.observed = set()

    def call(
        self,
        method,
        template,
        *,
        token=None,
        body=None,
        raw=None,
        key=None,
        query="",
        client=None,
        **ids,
    ):
        client = client or self.client
        path = template.format(**ids) + (f"?{query}" if query else "")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if key:
            headers["Idempotency-Key"] = key
        if method == "get":
            response = client.get(path, headers=headers)
        else:
            data = (
                raw if raw is not None else json.dumps(body if body is not None else {})
            )
            response = client.post(
                path, data=data, content_type="application/json", headers=headers
            )
        self._check(method, template, response)
        return response

    def _check(self, method, template, response):
        operation = self.document["paths"][template][method]
        status = str(response.status_code)
        assert status in operation["responses"], (
            method,
            template,
            status,
            response.content,
        )
        media = response["Content-Type"].split(";")[0].strip()
        content = operation["responses"][status]["content"]
        assert media in content, (method, template, status, media)
        # A download (report.md): text, documented as a string.
        if media != "application/json":
            assert content[media]["schema"] == {"type": "string"}
            assert response.content.decode("utf-8")
            self.observed.add((template, method, status))
            return
        schema = {**content[media]["schema"], "components": self.document["components"]}
        errors = list(
            Draft202012Validator(
                schema, format_checker=Draft202012Validator.FORMAT_CHECKER
            ).iter_errors(response.json())
        )
        assert not errors, (method, template, status, [e.message for e in errors])
        self.observed.add((template, method, status))

    def documented(self):
        return {
            (template, method, status)
            for template, item in self.document["paths"].items()
            if template not in ASGI_ROUTED_PATHS
            for method, op in item.items()
            if method in METHODS
            for status in op["responses"]
        }


POSTS = [
    "/api/incidents",
    "/api/incidents/demo",
    "/api/incidents/{incident_id}/diagnoses",
    "/api/incidents/{incident_id}/cancel",
    "/api/tasks/{task_id}/cancel",
    "/api/approvals/{approval_id}/decision",
    "/api/incidents/{incident_id}/status",
    "/api/incidents/{incident_id}/severity",
    "/api/incidents/{incident_id}/owner",
    "/api/incidents/{incident_id}/notes",
]
GETS = [
    "/api/incidents",
    "/api/environments",
    "/api/incidents/{incident_id}",
    "/api/tasks/{task_id}",
    "/api/tasks/{task_id}/trace",
    "/api/tasks/{task_id}/spans/{span_id}",
    "/api/tasks/{task_id}/report.md",
    "/api/incidents/{incident_id}/timeline",
]
INCIDENT = {"title": "t", "service": "s", "severity": "sev2"}
DEMO = {"environment": demo_environment_name("pool-exhaustion")}
BODIES = {
    "/api/incidents": INCIDENT,
    "/api/incidents/demo": DEMO,
    "/api/approvals/{approval_id}/decision": {"decision": "deny"},
    "/api/incidents/{incident_id}/status": {"status": "mitigated"},
    "/api/incidents/{incident_id}/severity": {"severity": "sev4"},
    "/api/incidents/{incident_id}/owner": {"owner": None},
    "/api/incidents/{incident_id}/notes": {"text": "n"},
}


ALERT_FIXTURES = Path(__file__).resolve().parent / "intake" / "fixtures"


def _alert_routes(api, tenant, settings):
    """201, 200 (each result), 400, 401, 403, 413 and 429 of POST /api/alerts/*."""
    token = factories.make_token(
        factories.make_member(tenant, role=Role.ADMIN), scopes=("alerts:write",)
    )
    fixtures = {
        name: json.loads((ALERT_FIXTURES / f"{name}.json").read_text())
        for name in (
            "alertmanager-1-firing",
            "alertmanager-2-repeat",
            "alertmanager-4-resolved",
            "pagerduty-trigger",
            "pagerduty-acknowledge",
            "pagerduty-resolve",
        )
    }
    am, pd = "/api/alerts/alertmanager", "/api/alerts/pagerduty"
    # The fixtures' times are of 2026-11-30: now is just after them.
    with time_machine.travel(datetime(2026, 11, 30, 10, 8, tzinfo=UTC), tick=False):
        results = [
            api.call("post", path, token=token, body=fixtures[name]).json()["result"]
            for path, name in (
                (am, "alertmanager-1-firing"),
                (am, "alertmanager-2-repeat"),
                (am, "alertmanager-4-resolved"),
                (am, "alertmanager-4-resolved"),
                (pd, "pagerduty-trigger"),
                (pd, "pagerduty-trigger"),
                (pd, "pagerduty-acknowledge"),
                (pd, "pagerduty-resolve"),
            )
        ]
        assert results == [
            "created",
            "updated",
            "resolved",
            "ignored",
            "created",
            "unchanged",
            "acknowledged",
            "resolved",
        ]
        weak = factories.make_token(
            factories.make_member(tenant, role=Role.ADMIN), scopes=("incidents:write",)
        )
        for path in (am, pd):
            api.call("post", path, token=token, body={"version": "3"})  # 400
            api.call("post", path, body={})  # 401
            api.call("post", path, token=weak, body={})  # 403
            api.call("post", path, token=token, raw="x" * (ALERT_MAX_BODY_BYTES + 1))
        settings.ALERT_RATE_LIMIT = 1
        for path, name in ((am, "alertmanager-2-repeat"), (pd, "pagerduty-trigger")):
            limited = api.call("post", path, token=token, body=fixtures[name])
            assert limited.status_code == 429
        settings.ALERT_RATE_LIMIT = 0


def test_every_documented_status_is_observed_and_every_answer_matches_its_schema(
    client, tenant, settings
):
    api = Contract(client)
    approver = factories.make_member(tenant, role=Role.APPROVER)
    token = factories.make_token(approver)
    # A token with one scope no route below needs, held by a role that may not approve.
    weak = factories.make_token(
        factories.make_member(tenant, role=Role.RESPONDER), scopes=("approvals:decide",)
    )
    incident, task = factories.make_incident(tenant)
    # Parked, as the engine leaves a task that needs a person: the decision re-queues it.
    approval = factories.park_on_approval(task)
    ids = {"incident_id": incident.id, "task_id": task.id, "approval_id": approval.id}
    missing = {name: uuid.uuid4() for name in ids}
    scope = principal_from_token(token).scope_key

    # 200 / 201 / 202 and the natural 409s, in an order where each set-up holds.
    api.call("get", "/api/incidents", token=token, query="limit=1")
    api.call("get", "/api/environments", token=token)
    api.call("get", "/api/incidents/{incident_id}", token=token, **ids)
    for what, body in (
        ("status", {"status": "acknowledged"}),
        ("severity", {"severity": "sev1"}),
        ("owner", {"owner": "me"}),
        ("notes", {"text": "paging the DBA"}),
    ):
        api.call(
            "post",
            f"/api/incidents/{{incident_id}}/{what}",
            token=token,
            body=body,
            **ids,
        )
    api.call("get", "/api/incidents/{incident_id}/timeline", token=token, **ids)
    span = factories.make_span(task)
    ids["span_id"], missing["span_id"] = span.span_id, uuid.uuid4()
    api.call("get", "/api/tasks/{task_id}/trace", token=token, **ids)
    api.call(
        "get", "/api/tasks/{task_id}/trace", token=token, query="q=" + "x" * 201, **ids
    )
    api.call("get", "/api/tasks/{task_id}/spans/{span_id}", token=token, **ids)
    # Another task's span is not this task's.
    api.call(
        "get",
        "/api/tasks/{task_id}/spans/{span_id}",
        token=token,
        task_id=task.id,
        span_id=uuid.uuid4(),
    )
    api.call("get", "/api/tasks/{task_id}/report.md", token=token, **ids)
    api.call(
        "post",
        "/api/approvals/{approval_id}/decision",
        token=token,
        body={"decision": "approve"},
        **ids,
    )
    api.call(
        "post",
        "/api/approvals/{approval_id}/decision",
        token=token,
        body={"decision": "deny"},
        **ids,
    )
    api.call(
        "post", "/api/incidents/{incident_id}/diagnoses", token=token, **ids
    )  # 409 active
    lifecycle.diagnosis_claim(task_id=task.id, owner="w")
    api.call(
        "post", "/api/tasks/{task_id}/cancel", token=token, **ids
    )  # 202 cancelling
    api.call("get", "/api/tasks/{task_id}", token=token, **ids)
    lifecycle.diagnosis_transition(
        task=task.__class__.objects.get(pk=task.pk), to="cancelled"
    )
    api.call("post", "/api/tasks/{task_id}/cancel", token=token, **ids)  # 409 finished
    api.call(
        "post", "/api/incidents/{incident_id}/cancel", token=token, **ids
    )  # 409 none active
    rerun = api.call(
        "post", "/api/incidents/{incident_id}/diagnoses", token=token, **ids
    )
    assert rerun.status_code == 201
    api.call(
        "post", "/api/incidents/{incident_id}/cancel", token=token, **ids
    )  # 202 cancelled
    created = api.call("post", "/api/incidents", token=token, body=INCIDENT)
    assert created.status_code == 201
    demo = api.call("post", "/api/incidents/demo", token=token, body=DEMO)
    assert demo.status_code == 201
    settings.INCIDENT_RATE_LIMIT = 1
    limited = api.call("post", "/api/incidents", token=token, body=INCIDENT)
    assert limited.status_code == 429
    demo = api.call("post", "/api/incidents/demo", token=token, body=DEMO)
    assert demo.status_code == 429
    assert int(limited.headers["Retry-After"]) >= 1
    settings.INCIDENT_RATE_LIMIT = 0
    _alert_routes(api, tenant, settings)
    api.call("get", "/api/openapi.json")
    api.call("get", "/healthz")
    api.call("get", "/readyz")
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    api.call("get", "/readyz")

    # Failures every route shares.
    api.call("get", "/api/incidents", token=token, query="limit=0")
    for template in GETS:
        api.call("get", template, **ids)  # 401
        api.call("get", template, token=weak, **ids)  # 403
        if "{" in template:
            api.call("get", template, token=token, **missing)  # 404
    for n, template in enumerate(POSTS):
        # A valid body, so that each failure below comes from what it is meant to test.
        body = BODIES.get(template, {})
        api.call("post", template, token=token, raw="[]", **ids)  # 400
        api.call("post", template, body={}, **ids)  # 401
        api.call("post", template, token=weak, body={}, **ids)  # 403
        if "{" in template:
            api.call("post", template, token=token, body=body, **missing)  # 404
        api.call(
            "post", template, token=token, raw="x" * (MAX_BODY_BYTES + 1), **ids
        )  # 413
        path = template.format(**ids)
        for key, status, digest in (
            (
                f"busy-{n}",
                IdempotencyStatus.PROCESSING,
                idempotency.request_hash("POST", path, body),
            ),
            (f"used-{n}", IdempotencyStatus.SUCCEEDED, "0" * 64),
        ):
            IdempotencyRecord.objects.create(
                scope=scope,
                key=key,
                request_hash=digest,
                status=status,
                response_status=201,
                response_body={},
                expires_at=timezone.now() + timedelta(hours=1),
            )
            api.call(
                "post", template, token=token, body=body, key=key, **ids
            )  # 409, 422

    _database_outage(api, tenant, token, ids)

    assert api.observed == api.documented()


def _refused(*args, **kwargs):
    raise OperationalError('connection to server at "127.0.0.1", port 5432 failed')


def _database_outage(api, tenant, token, ids):
    """503 + Retry-After from every operation while every query fails to connect. Last in the
    test: the test's own transaction is not touched, but nothing may query after it."""
    alerts = factories.make_token(
        factories.make_member(tenant, role=Role.ADMIN),
        scopes=("alerts:write",),
    )
    # Django's handler answers the error; the test client would re-raise it.
    outside = Client(raise_request_exception=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(connection, "_cursor", _refused)
        answers = [
            api.call("get", template, token=token, client=outside, **ids)
            for template in GETS
        ]
        answers += [
            api.call(
                "post",
                template,
                token=token,
                body=BODIES.get(template, {}),
                client=outside,
                **ids,
            )
            for template in POSTS
        ]
        answers += [
            api.call("post", path, token=alerts, body={}, client=outside)
            for path in ("/api/alerts/alertmanager", "/api/alerts/pagerduty")
        ]
    for answer in answers:
        assert answer.status_code == 503, answer.content
        assert answer.json()["code"] == "database_unavailable"
        assert int(answer["Retry-After"]) == answer.json()["retry_after"] >= 1


# --- what the document allows, the server accepts --------------------------------------------


@hypothesis.settings(max_examples=200, deadline=None, database=None)
@hypothesis.given(data=st.data())
def test_every_datetime_the_document_allows_is_accepted(data):
    from diagnosis.api.openapi import datetime_input

    pattern = datetime_input()["pattern"]
    text = data.draw(st.from_regex(pattern, fullmatch=True))
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        hypothesis.reject()  # 02-30 and the like: format date-time refuses them too
    assert bounds.datetime_error(parsed) is None, text


@hypothesis.settings(max_examples=200, deadline=None, database=None)
@hypothesis.given(cursor=st.from_regex(CURSOR_PATTERN, fullmatch=True))
def test_every_cursor_the_document_allows_is_accepted(cursor):
    when, pk = decode_cursor(cursor)
    assert decode_cursor(encode_cursor(when, pk)) == (when, pk)
