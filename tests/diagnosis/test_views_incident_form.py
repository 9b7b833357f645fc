"""The "Open an incident" form: the API's rules, errors beside their field, checked on change."""

import pytest
from django.urls import reverse

from diagnosis.api.errors import ApiError
from diagnosis.api.validation import incident_create_args
from diagnosis.fields import TITLE_MAX
from diagnosis.models import Incident, Role
from tests import factories

pytestmark = pytest.mark.django_db

GOOD = {
    "title": "db slow",
    "service": "orders",
    "severity": "sev2",
    "symptoms": "p99 up",
    "environment": "default",
}


@pytest.fixture
def logged_in(client, member):
    client.force_login(member.user)
    return client


def _api_reason(**changes):
    with pytest.raises(ApiError) as caught:
        incident_create_args({**GOOD, **changes})
    return caught.value.body["fields"]


def _validate(client, name, **changes):
    return client.post(
        reverse("diagnosis:incident-validate"),
        {**GOOD, **changes},
        headers={"HX-Request": "true", "HX-Trigger-Name": name},
    )


def test_page_draws_every_field_with_its_error_slot_and_the_check_on_change(logged_in):
    page = logged_in.get(reverse("diagnosis:incident-list")).content.decode()
    url = reverse("diagnosis:incident-validate")
    for name in ("title", "service", "severity", "symptoms", "environment"):
        assert f'aria-describedby="id_{name}_error"' in page
        assert f'<p class="field-error" id="id_{name}_error"></p>' in page
        assert f'hx-target="#field-{name}"' in page
    assert page.count(f'hx-post="{url}"') == 5
    assert f'maxlength="{TITLE_MAX}"' in page


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"title": "   "}, "title"),
        ({"title": "x" * (TITLE_MAX + 1)}, "title"),
        ({"service": ""}, "service"),
        ({"severity": "sev9"}, "severity"),
        ({"symptoms": "a\x00b"}, "symptoms"),
    ],
)
def test_submit_with_bad_input_shows_the_apis_reason_next_to_the_field_and_creates_nothing(
    logged_in, changes, field
):
    reason = _api_reason(**changes)[field]
    response = logged_in.post(
        reverse("diagnosis:incident-list"),
        {**GOOD, **changes},
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert response.status_code == 400
    assert f'<p class="field-error" id="id_{field}_error">{reason}</p>' in body
    assert f'id="field-{field}"' in body and 'aria-invalid="true"' in body
    assert Incident.objects.count() == 0


def test_without_htmx_the_whole_page_comes_back_with_the_error(logged_in):
    response = logged_in.post(reverse("diagnosis:incident-list"), {**GOOD, "title": ""})
    assert response.status_code == 400
    body = response.content.decode()
    assert "<html" in body
    assert '<p class="field-error" id="id_title_error">must not be blank</p>' in body
    assert Incident.objects.count() == 0


def test_an_unknown_environment_is_the_services_reason(logged_in):
    response = logged_in.post(
        reverse("diagnosis:incident-list"),
        {**GOOD, "environment": "nowhere"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 400
    assert (
        "no environment &#x27;nowhere&#x27; for this tenant"
        in response.content.decode()
    )
    assert Incident.objects.count() == 0


def test_a_good_form_still_opens_the_incident(logged_in):
    response = logged_in.post(
        reverse("diagnosis:incident-list"), GOOD, headers={"HX-Request": "true"}
    )
    incident = Incident.objects.get()
    assert response["HX-Redirect"] == reverse(
        "diagnosis:incident-detail", args=[incident.id]
    )
    assert (incident.title, incident.environment) == ("db slow", "default")


def test_check_on_change_answers_the_field_with_its_error(logged_in):
    response = _validate(logged_in, "title", title="")
    body = response.content.decode()
    assert response.status_code == 200
    assert body.strip().startswith('<div class="field has-error" id="field-title">')
    assert '<p class="field-error" id="id_title_error">must not be blank</p>' in body
    assert 'aria-invalid="true"' in body
    assert "id_service" not in body  # that field alone
    assert Incident.objects.count() == 0


def test_check_on_change_of_a_good_field_clears_its_error(logged_in):
    # Another field being wrong does not show here.
    body = _validate(logged_in, "service", title="").content.decode()
    assert '<p class="field-error" id="id_service_error"></p>' in body
    assert 'value="orders"' in body
    assert "aria-invalid" not in body


def test_check_on_change_escapes_what_was_typed(logged_in):
    body = _validate(
        logged_in, "title", title='"><script>x()</script>'
    ).content.decode()
    assert "<script>x()" not in body
    assert "&lt;script&gt;" in body


def test_check_of_no_field_or_an_unknown_one_is_400(logged_in):
    assert _validate(logged_in, "plan").status_code == 400
    response = logged_in.post(reverse("diagnosis:incident-validate"), GOOD)
    assert response.status_code == 400
    response = logged_in.post(
        reverse("diagnosis:incident-validate"), {**GOOD, "field": "title"}
    )
    assert response.status_code == 200


def test_a_viewer_gets_no_form_and_no_check(client, tenant):
    viewer = factories.make_member(tenant, role=Role.VIEWER)
    client.force_login(viewer.user)
    assert _validate(client, "title").status_code == 404
