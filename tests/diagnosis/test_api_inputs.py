"""Input an attacker would send: every malformed value is a 400 with a JSON body naming the
field and the reason, and changes nothing. Datetimes are bounded; a bad row already stored
does not break the reads; plan input is checked before anything is created."""

import base64
import json
import uuid
from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.db import connection
from django.urls import reverse

from diagnosis import services
from diagnosis.api.openapi import build_document
from diagnosis.api.validation import encode_cursor
from diagnosis.exceptions import ValidationFailed
from diagnosis.models import (
    Approval,
    DiagnosisTask,
    IdempotencyRecord,
    Incident,
    Role,
    TaskEvent,
)
from tests import factories

VALID = {"title": "checkout 502s", "service": "checkout", "severity": "sev2"}


def _counts():
    return (
        Incident.objects.count(),
        DiagnosisTask.objects.count(),
        TaskEvent.objects.count(),
        IdempotencyRecord.objects.count(),
    )


def _post(client, token, raw, path="/api/incidents", **headers):
    return client.post(
        path,
        data=raw,
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}", **headers},
    )


def _assert_refused(response, field, before, reason=None):
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["code"] == "invalid"
    assert field in body["fields"], body
    if reason is not None:
        assert reason in body["fields"][field], body
    assert _counts() == before


def _with(**fields):
    return json.dumps({**VALID, **fields})


# --- item 5: strings that are not Unicode, JSON too deep, numbers no double holds ------------

SURROGATE = "\ud800"


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (_with(title="a" + SURROGATE), "title"),
        (_with(service=SURROGATE), "service"),
        (_with(symptoms="x" + SURROGATE + "y"), "symptoms"),
        (_with(severity=SURROGATE), "severity"),
        (_with(window_start="2026-11-30T10:00:00" + SURROGATE), "window_start"),
        (_with(plan=SURROGATE), "plan"),
        (_with(plan_args={"steps": [SURROGATE]}), "plan_args"),
        (_with(plan_args={SURROGATE: 1}), "plan_args"),
        (_with(**{SURROGATE: 1}), "body"),
        # The low half alone, and written as raw JSON escapes rather than by json.dumps.
        (json.dumps(VALID)[:-1] + ', "symptoms": "\\udfff"}', "symptoms"),
    ],
)
@pytest.mark.fault("Lone UTF-16 surrogate in a JSON string", kind="limit")
def test_lone_surrogate_in_any_string_is_400_naming_the_field(
    client, token, raw, field, reliability_record
):
    before = _counts()

    response = _post(client, token, raw)

    _assert_refused(response, field, before)
    reliability_record(
        observed="400 JSON naming the field; nothing written",
        figures={"status": 400, "field": field},
    )


def _nested(depth):
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (
            json.dumps(VALID)[:-1] + f', "plan_args": {{"x": {_nested(500)}}}}}',
            "plan_args",
        ),
        (
            json.dumps(VALID)[:-1] + f', "plan_args": {{"x": {_nested(40)}}}}}',
            "plan_args",
        ),
        (json.dumps(VALID)[:-1] + f', "x": {_nested(500)}}}', "x"),
        (json.dumps(VALID)[:-1] + f', "title": {_nested(500)}}}', "title"),
        # Deeper than the JSON parser itself goes: the whole body is refused.
        (json.dumps(VALID)[:-1] + f', "x": {_nested(5000)}}}', "body"),
    ],
)
@pytest.mark.fault("JSON nested 40 to 5000 deep", kind="limit")
def test_json_nested_too_deep_is_400_naming_the_field(
    client, token, raw, field, reliability_record
):
    before = _counts()

    response = _post(client, token, raw)

    _assert_refused(response, field, before)
    reliability_record(
        observed="400 JSON naming the field (the body when deeper than the parser goes); nothing written",
        figures={"status": 400, "field": field},
    )


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (json.dumps(VALID)[:-1] + ', "plan_args": {"x": 1e400}}', "plan_args"),
        (json.dumps(VALID)[:-1] + ', "plan_args": {"steps": [-1e400]}}', "plan_args"),
        (json.dumps(VALID)[:-1] + ', "title": 1e400}', "title"),
        (json.dumps({**VALID, "severity": None})[:-5] + "1E+999}", "severity"),
    ],
)
@pytest.mark.fault("A number no double holds (1e400)", kind="limit")
def test_number_out_of_double_range_is_400_naming_the_field(
    client, token, raw, field, reliability_record
):
    before = _counts()

    response = _post(client, token, raw)

    _assert_refused(response, field, before, reason="out of range")
    reliability_record(
        observed="400 out of range naming the field; nothing written",
        figures={"status": 400, "field": field},
    )


@pytest.mark.parametrize(
    ("path", "raw", "field"),
    [
        (
            "/api/incidents/{incident}/diagnoses",
            '{"plan_args": {"x": 1e400}}',
            "plan_args",
        ),
        (
            "/api/incidents/{incident}/diagnoses",
            json.dumps({"plan": SURROGATE}),
            "plan",
        ),
        ("/api/incidents/{incident}/cancel", json.dumps({SURROGATE: 1}), "body"),
        ("/api/tasks/{task}/cancel", f'{{"x": {_nested(100)}}}', "x"),
        (
            "/api/approvals/{approval}/decision",
            json.dumps({"decision": "deny", "reason": SURROGATE}),
            "reason",
        ),
    ],
)
def test_every_post_endpoint_refuses_the_same_input(client, tenant, path, raw, field):
    admin = factories.make_member(tenant, role=Role.ADMIN)
    token = factories.make_token(admin)
    incident, task = factories.make_incident(tenant)
    approval = Approval.objects.create(task=task)
    services.diagnosis_cancel(task=task)  # the re-run would be allowed
    before = _counts()

    response = _post(
        client,
        token,
        raw,
        path.format(incident=incident.id, task=task.id, approval=approval.id),
    )

    _assert_refused(response, field, before)
    assert Approval.objects.get().status == "pending"


@pytest.mark.parametrize(
    "key", ["a\x00b", "tab\there", "caf\xe9", "\x7f", "line\nbreak"]
)
def test_idempotency_key_that_is_not_printable_ascii_is_400(client, token, key):
    before = _counts()

    response = _post(client, token, json.dumps(VALID), **{"Idempotency-Key": key})

    _assert_refused(response, "Idempotency-Key", before)


# --- item 5: list parameters and the cursor ------------------------------------------------


@pytest.mark.parametrize(
    "limit",
    ["²", "①", "٣", "１", "+5", "-1", " 5", "5 ", "0", "101", "1e1", "0x10"],  # noqa: RUF001
)
@pytest.mark.fault("?limit= that is not ASCII digits in 1..100", kind="limit")
def test_limit_that_is_not_ascii_digits_in_range_is_400(
    client, token, limit, reliability_record
):
    response = client.get(
        "/api/incidents", {"limit": limit}, headers={"Authorization": f"Bearer {token}"}
    )

    assert response.status_code == 400
    assert set(response.json()["fields"]) == {"limit"}
    reliability_record(
        observed="400 naming limit (Unicode digits, signs, spaces, out of range)",
        figures={"status": 400, "field": "limit"},
    )


def _cursor(value):
    raw = value if isinstance(value, bytes) else json.dumps(value).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


NOW = "2026-11-30T10:00:00+00:00"
PK = str(uuid.uuid4())


@pytest.mark.parametrize(
    "cursor",
    [
        _cursor([NOW, 5]),  # uuid.UUID(5): AttributeError
        _cursor([NOW, None]),
        _cursor([5, PK]),
        _cursor([NOW, PK, "extra"]),
        _cursor({"a": NOW, "b": PK}),  # unpacks to the two keys
        _cursor("ab"),  # a two-character string unpacks too
        _cursor(["2026-11-30T10:00:00+23:00", PK]),  # an offset PostgreSQL refuses
        _cursor(["9999-12-31T23:59:59-14:00", PK]),  # year 10000 in UTC
        _cursor(["0001-01-01T00:00:00+14:00", PK]),  # before year 1 in UTC
        _cursor(["2026-11-30T10:00:00", PK]),  # naive
        _cursor([NOW + SURROGATE, PK]),
        _cursor(_nested(5000).encode()),
        _cursor(b"\xff\xfe not utf-8"),
        _cursor(["x" * 100_000, PK]),
        "not base64 !",
        "é",
        "A",
    ],
)
@pytest.mark.fault("Crafted pagination cursor", kind="limit")
def test_crafted_cursor_is_400_naming_the_cursor(
    client, token, cursor, reliability_record
):
    response = client.get(
        "/api/incidents",
        {"cursor": cursor},
        headers={"Authorization": f"Bearer {token}"},
    )

    assert response.status_code == 400
    assert set(response.json()["fields"]) == {"cursor"}
    reliability_record(
        observed="400 naming cursor for each malformed shape, datetime, encoding and size",
        figures={"status": 400, "field": "cursor"},
    )


def test_cursor_made_by_the_api_still_pages(client, token, tenant):
    made = [factories.make_incident(tenant, title=f"i{n}")[0] for n in range(3)]
    newest = max(made, key=lambda i: (i.created_at, i.pk))

    response = client.get(
        "/api/incidents",
        {"cursor": encode_cursor(newest.created_at, newest.pk)},
        headers={"Authorization": f"Bearer {token}"},
    )

    assert response.status_code == 200
    assert len(response.json()["results"]) == 2


# --- item 5: a multipart/form-data POST gets the JSON refusal ------------------------------

CURL_FORM = (
    b"--------------------------d74496d66958873e\r\n"
    b'Content-Disposition: form-data; name="title"\r\n\r\n'
    b"x\r\n"
    b"--------------------------d74496d66958873e--\r\n"
)
CURL_TYPE = "multipart/form-data; boundary=------------------------d74496d66958873e"


@pytest.mark.parametrize(
    ("content_type", "raw"),
    [
        (CURL_TYPE, CURL_FORM),
        ("multipart/form-data", b"--x\r\n"),  # no boundary
        ("multipart/form-data; boundary=zz", b"junk"),
        ("application/x-www-form-urlencoded", b"title=x&service=y"),
    ],
)
@pytest.mark.fault("Form or multipart POST to the API", kind="limit")
def test_form_post_gets_the_json_refusal(
    client, token, content_type, raw, reliability_record
):
    before = _counts()

    response = client.post(
        "/api/incidents",
        data=raw,
        content_type=content_type,
        headers={"Authorization": f"Bearer {token}"},
    )

    _assert_refused(response, "Content-Type", before)
    reliability_record(
        observed="the API's JSON 400 naming Content-Type, not a bare 400",
        figures={"status": 400, "field": "Content-Type"},
    )


# --- item 1: datetimes are bounded; a bad stored row does not break the reads --------------


def _iso(moment):
    return moment.isoformat()


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("9999-12-31T23:59:59-14:00", "between"),
        ("0001-01-01T00:00:00+14:00", "between"),
        ("9999-12-31T23:59:59+00:00", "between"),
        ("1999-01-01T00:00:00Z", "between"),
        (_iso(datetime.now(UTC) + timedelta(days=400)), "between"),
        ("2026-11-30T10:00:00+16:00", "±15:59"),
        ("2026-11-30T10:00:00-16:00", "±15:59"),
        ("2026-11-30T10:00:00+23:59", "±15:59"),
        ("2026-11-30T10:00:00", "UTC offset"),
    ],
)
@pytest.mark.parametrize("field", ["window_start", "window_end"])
@pytest.mark.fault(
    "Datetime out of range or with a UTC offset beyond ±15:59", kind="limit"
)
def test_datetime_out_of_bounds_is_400_and_changes_nothing(
    client, token, field, value, reason, reliability_record
):
    before = _counts()

    response = _post(client, token, _with(**{field: value}))

    _assert_refused(response, field, before, reason=reason)
    reliability_record(
        observed="400 naming the field with the accepted range; nothing written",
        figures={"status": 400, "field": field},
    )


def test_datetime_with_an_offset_postgresql_takes_is_accepted_and_stored_in_utc(
    client, token
):
    start = (datetime.now(UTC) - timedelta(hours=1)).replace(microsecond=0)
    east, west = (
        timezone(timedelta(hours=15, minutes=59)),
        timezone(-timedelta(hours=15, minutes=59)),
    )

    response = _post(
        client,
        token,
        _with(
            window_start=start.astimezone(east).isoformat(),
            window_end=(start + timedelta(minutes=30)).astimezone(west).isoformat(),
        ),
    )

    assert response.status_code == 201, response.content
    incident = Incident.objects.get()
    assert incident.window_start == start
    assert response.json()["window_start"] == start.isoformat()
    assert response.json()["window_end"] == (start + timedelta(minutes=30)).isoformat()


def test_service_refuses_an_unbounded_datetime_and_writes_nothing(tenant):
    far = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)
    before = _counts()

    with pytest.raises(ValidationFailed) as caught:
        services.incident_create(
            tenant=tenant,
            user=None,
            title="t",
            service="s",
            severity="sev2",
            window_end=far,
        )

    assert set(caught.value.fields) == {"window_end"}
    assert _counts() == before


# What PostgreSQL stores and Python's datetime cannot hold: a row written before the bounds.
UNREADABLE = [
    "10000-01-01 13:59:59+00",
    "0001-12-31 10:00:00+00 BC",
    "infinity",
    "-infinity",
]


@pytest.mark.parametrize("stored", UNREADABLE)
def test_a_stored_window_no_datetime_holds_does_not_break_the_reads(
    client, tenant, stored
):
    member = factories.make_member(tenant, role=Role.ADMIN)
    token = factories.make_token(member)
    bad, _task = factories.make_incident(tenant, title="bad window")
    good, _task = factories.make_incident(tenant, title="good window")
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE diagnosis_incident SET window_start = %s::timestamptz, "
            "window_end = %s::timestamptz WHERE id = %s",
            [stored, stored, bad.pk],
        )
    headers = {"Authorization": f"Bearer {token}"}

    listed = client.get("/api/incidents", headers=headers)
    detail = client.get(f"/api/incidents/{bad.pk}", headers=headers)
    client.force_login(member.user)
    page = client.get(reverse("diagnosis:incident-list"))
    detail_page = client.get(reverse("diagnosis:incident-detail", args=[bad.pk]))

    assert listed.status_code == 200
    rows = {row["title"]: row for row in listed.json()["results"]}
    assert set(rows) == {"bad window", "good window"}
    assert (rows["bad window"]["window_start"], rows["bad window"]["window_end"]) == (
        None,
        None,
    )
    assert detail.status_code == 200
    assert detail.json()["window_start"] is None
    assert page.status_code == 200
    assert "bad window" in page.content.decode()
    assert detail_page.status_code == 200
    assert Incident.objects.get(pk=good.pk).title == "good window"


# --- item 6: test-only plans and plan_args -------------------------------------------------


def test_timed_plan_is_not_offered_when_test_plans_are_off(client, token, settings):
    settings.DIAGNOSIS_TEST_PLANS = False
    before = _counts()

    response = _post(client, token, _with(plan="timed", plan_args={"steps": [30]}))

    _assert_refused(response, "plan", before, reason="one of default")
    assert "timed" not in response.json()["fields"]["plan"]


def test_timed_plan_is_not_offered_for_a_rerun_when_test_plans_are_off(
    client, tenant, token, settings
):
    settings.DIAGNOSIS_TEST_PLANS = False
    incident, task = factories.make_incident(tenant)
    services.diagnosis_cancel(task=task)
    before = _counts()

    response = _post(
        client,
        token,
        json.dumps({"plan": "timed"}),
        f"/api/incidents/{incident.id}/diagnoses",
    )

    _assert_refused(response, "plan", before)


def test_timed_plan_is_not_in_the_document_or_the_page_form_when_off(
    client, member, settings
):
    settings.DIAGNOSIS_TEST_PLANS = False
    schemas = build_document()["components"]["schemas"]
    client.force_login(member.user)

    page = client.get(reverse("diagnosis:incident-list")).content.decode()

    assert schemas["IncidentCreate"]["properties"]["plan"]["enum"] == ["default"]
    assert schemas["DiagnosisCreate"]["properties"]["plan"]["enum"] == ["default"]
    assert 'value="timed"' not in page
    assert 'value="default"' in page


def test_service_layer_still_takes_the_timed_plan_when_off(tenant, settings):
    settings.DIAGNOSIS_TEST_PLANS = False

    _incident, task = factories.make_incident(tenant, plan_args={"steps": [0.01]})

    assert task.plan == "timed"


@pytest.mark.parametrize(
    ("plan", "plan_args", "reason"),
    [
        ("timed", {"steps": "abc"}, "steps"),
        ("timed", {"steps": [1e9]}, "steps"),
        ("timed", {"steps": [1000000000]}, "steps"),
        ("timed", {"steps": [-1]}, "steps"),
        ("timed", {"steps": [True]}, "steps"),
        ("timed", {"steps": ["1"]}, "steps"),
        ("timed", {"steps": [None]}, "steps"),
        ("timed", {"steps": []}, "steps"),
        ("timed", {"steps": [0.01] * 51}, "steps"),
        ("timed", {"steps": [60] * 6}, "in all"),
        ("timed", {"steps": {"0": 1}}, "steps"),
        ("timed", {"steps": [0.01], "fail_at": "x"}, "fail_at"),
        ("timed", {"steps": [0.01], "fail_at": 1}, "fail_at"),
        ("timed", {"steps": [0.01], "fail_at": -1}, "fail_at"),
        ("timed", {"steps": [0.01], "fail_at": True}, "fail_at"),
        ("timed", {"steps": [0.01], "sleep": 1}, "unknown key"),
        ("default", {"steps": [1e9]}, "takes none"),
        ("default", {"anything": 1}, "takes none"),
        ("default", [], "object"),
        ("default", "steps", "object"),
    ],
)
@pytest.mark.fault(
    "plan_args the plan cannot run (wrong types, unbounded steps)", kind="limit"
)
def test_bad_plan_args_are_400_before_anything_is_created(
    client, token, plan, plan_args, reason, reliability_record
):
    before = _counts()

    response = _post(client, token, _with(plan=plan, plan_args=plan_args))

    _assert_refused(response, "plan_args", before, reason=reason)
    reliability_record(
        observed="400 naming plan_args before any incident or task exists",
        figures={"status": 400, "field": "plan_args"},
    )


@pytest.mark.parametrize("plan", [5, None, ["timed"], {"name": "timed"}, "", "TIMED"])
def test_plan_that_is_not_a_plan_name_is_400(client, token, plan):
    before = _counts()

    response = _post(client, token, _with(plan=plan))

    _assert_refused(response, "plan", before)


def test_bad_plan_args_on_a_rerun_are_400_and_start_nothing(client, tenant, token):
    incident, task = factories.make_incident(tenant)
    services.diagnosis_cancel(task=task)
    before = _counts()

    response = _post(
        client,
        token,
        json.dumps({"plan": "timed", "plan_args": {"steps": "abc"}}),
        f"/api/incidents/{incident.id}/diagnoses",
    )

    _assert_refused(response, "plan_args", before)


def test_service_refuses_bad_plan_args_and_writes_nothing(tenant):
    before = _counts()

    with pytest.raises(ValidationFailed) as caught:
        factories.make_incident(tenant, plan_args={"steps": "abc"})

    assert set(caught.value.fields) == {"plan_args"}
    assert _counts() == before


def test_good_timed_plan_args_are_accepted(client, token):
    response = _post(
        client,
        token,
        _with(plan="timed", plan_args={"steps": [0, 1.5, 60], "fail_at": 2}),
    )

    assert response.status_code == 201, response.content
    assert DiagnosisTask.objects.get().plan_args == {
        "steps": [0, 1.5, 60],
        "fail_at": 2,
    }
