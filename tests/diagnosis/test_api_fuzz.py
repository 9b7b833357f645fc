"""Property tests: any JSON body or list query gets a documented JSON answer, never a 500,
and only a 201 creates anything."""

import json

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from diagnosis.models import DiagnosisTask, Incident, TaskEvent

FIELDS = [
    "title",
    "service",
    "severity",
    "symptoms",
    "window_start",
    "window_end",
    "plan",
    "plan_args",
    "x",
]
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
field_values = st.one_of(
    json_values,
    st.sampled_from(
        [
            "sev1",
            "sev4",
            "sev0",
            "default",
            "timed",
            "2026-11-30T10:00:00Z",
            "2026-11-30",
            "",
        ]
    ),
    st.text(min_size=190, max_size=210),
)
VALID = {
    "title": "t",
    "service": "s",
    "severity": "sev2",
    "symptoms": "",
    "window_start": "2026-11-30T10:00:00Z",
    "window_end": "2026-11-30T11:00:00Z",
    "plan": "timed",
    "plan_args": {},
}


@st.composite
def bodies(draw):
    """Mostly valid fields, some absent, some random: both answers come up often."""
    body = {}
    for name in FIELDS:
        how = draw(st.sampled_from(["valid"] * 8 + ["absent", "random"]))
        if how == "random":
            body[name] = draw(field_values)
        elif how == "valid" and name in VALID:
            body[name] = VALID[name]
    return body


relaxed = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _counts():
    return (
        Incident.objects.count(),
        DiagnosisTask.objects.count(),
        TaskEvent.objects.count(),
    )


@relaxed
@given(body=bodies())
def test_any_json_object_is_created_or_rejected_field_by_field(client, token, body):
    before = _counts()

    response = client.post(
        "/api/incidents",
        data=json.dumps(body),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )

    assert response.status_code in {201, 400}, response.content
    event(f"status {response.status_code}")
    if response.status_code == 201:
        assert _counts() == (before[0] + 1, before[1] + 1, before[2] + 1)
    else:
        assert response.json()["fields"]
        assert set(response.json()["fields"]) <= {*FIELDS, "body"}
        assert _counts() == before


@relaxed
@given(raw=st.binary(max_size=200))
def test_any_bytes_are_rejected_never_a_500(client, token, raw):
    before = _counts()

    response = client.post(
        "/api/incidents",
        data=raw,
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )

    assert response.status_code == 400
    assert response.json()["fields"]
    assert _counts() == before


@relaxed
@given(limit=st.text(max_size=6), cursor=st.text(max_size=40))
def test_any_list_query_is_a_page_or_a_400(client, token, limit, cursor):
    response = client.get(
        "/api/incidents",
        {"limit": limit, "cursor": cursor},
        headers={"Authorization": f"Bearer {token}"},
    )

    assert response.status_code in {200, 400}
    if response.status_code == 400:
        assert set(response.json()["fields"]) <= {"limit", "cursor"}


# What an attacker sends that a well-behaved client never does: lone surrogates, control
# characters, numbers no double holds and deep nesting, written into the body's text.
hostile_text = st.lists(
    st.characters(categories=["Cc", "Zs", "L", "N", "So"])
    | st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff", "\x00"]),
    max_size=8,
).map("".join)
hostile_leaves = st.one_of(
    hostile_text.map(json.dumps),
    st.sampled_from(["1e400", "-1e400", "1E+309", "0", "-0.0", "1" * 30, "true"]),
    st.integers(min_value=1, max_value=600).map(lambda n: "[" * n + "]" * n),
    st.just('"2026-11-30T10:00:00+16:00"'),
    st.just('"9999-12-31T23:59:59-14:00"'),
)


def _hostile_body(name, leaf):
    """VALID with one field's JSON text replaced by `leaf` (or a new key `name` holding it)."""
    fields = {k: json.dumps(v) for k, v in VALID.items()}
    if name == "plan_args.inner":
        fields["plan_args"] = f'{{"steps": [{leaf}]}}'
    else:
        fields[json.dumps(name)[1:-1]] = leaf
    return "{" + ", ".join(f'"{k}": {v}' for k, v in fields.items()) + "}"


@relaxed
@given(
    name=st.sampled_from([*FIELDS, "plan_args.inner"]) | hostile_text,
    leaf=hostile_leaves,
)
# The cases issue 10 reported, always run: the search above looks for more of their kind.
@example(name="title", leaf='"\\ud800"')
@example(name="plan_args.inner", leaf="1e400")
@example(name="plan_args.inner", leaf="[" * 500 + "]" * 500)
@example(name="window_start", leaf='"2026-11-30T10:00:00+16:00"')
@example(name="window_end", leaf='"9999-12-31T23:59:59-14:00"')
def test_hostile_json_text_is_created_or_rejected_never_a_500(
    client, token, name, leaf
):
    raw = _hostile_body(name, leaf)
    before = _counts()

    response = client.post(
        "/api/incidents",
        data=raw.encode("utf-8", "surrogatepass"),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )

    assert response.status_code in {201, 400}, (raw[:200], response.content)
    event(f"status {response.status_code}")
    if response.status_code == 400:
        assert response.json()["fields"]
        assert _counts() == before
