"""An incident's description and labels (issue 21 items 2 and 6): the one rule that checks labels,
the API that refuses bad ones with a 400 naming the field (nothing created), the page that shows
them, the brief the reasoning gets, and a scenario's incident.json that carries them."""

import json

import pytest
from django.urls import reverse

from diagnosis import environments, fields
from diagnosis.engine.runtime import incident_brief
from diagnosis.incident_labels import (
    LABEL_NAME_MAX,
    LABEL_VALUE_MAX,
    LABELS_MAX,
    label_errors,
    labels_problem,
)
from diagnosis.models import DiagnosisTask, Incident
from diagnosis.registry import demo_environments
from tests import factories

VALID = {"title": "basket totals wrong", "service": "basket", "severity": "sev3"}


# --- the rule --------------------------------------------------------------------------------


def test_good_labels_have_no_errors():
    labels = {"alertname": "BasketSlow", "namespace": "retail", "app": "basket-api"}

    assert label_errors(labels) == {}
    assert labels_problem(labels) is None


@pytest.mark.parametrize(
    ("labels", "field", "reason"),
    [
        (["app=basket-api"], "labels", "must be an object of strings"),
        ("app=basket-api", "labels", "must be an object of strings"),
        (
            {f"k{i}": "v" for i in range(LABELS_MAX + 1)},
            "labels",
            f"at most {LABELS_MAX} labels",
        ),
        ({"replicas": 3}, "labels.replicas", "must be a string"),
        ({"team": None}, "labels.team", "must be a string"),
        ({"": "basket"}, "labels.", "a label's name is 1 to"),
        ({"n" * (LABEL_NAME_MAX + 1): "x"}, "labels." + "n" * 64, "a label's name"),
        (
            {"app": "b" * (LABEL_VALUE_MAX + 1)},
            "labels.app",
            f"at most {LABEL_VALUE_MAX} characters",
        ),
        ({"app": "bas\x00ket"}, "labels.app", "NUL"),
    ],
)
def test_bad_labels_are_named_with_the_reason(labels, field, reason):
    errors = label_errors(labels)

    assert field in errors and reason in errors[field], errors
    assert labels_problem(labels) is not None


def test_at_most_three_bad_labels_are_named():
    errors = label_errors({f"k{i}": i for i in range(10)})

    assert len(errors) == 3


def test_the_field_reader_returns_nothing_for_refused_labels():
    errors = fields.FieldErrors()

    assert fields.labels({"labels": {"app": 1}}, "labels", errors) == {}
    assert errors == {"labels.app": "must be a string"}
    assert fields.labels({}, "labels", errors) == {}


# --- the API ---------------------------------------------------------------------------------


def _post(client, token, body):
    return client.post(
        "/api/incidents",
        data=json.dumps(body),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )


def _counts():
    return Incident.objects.count(), DiagnosisTask.objects.count()


def test_the_api_stores_and_returns_the_description_and_labels(client, token):
    labels = {"alertname": "BasketSlow", "namespace": "retail", "app": "basket-api"}

    response = _post(
        client,
        token,
        {**VALID, "description": "  p99 above 2 s on /basket  ", "labels": labels},
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["description"], body["labels"]) == ("p99 above 2 s on /basket", labels)
    incident = Incident.objects.get(pk=body["id"])
    assert (incident.description, incident.labels) == (
        "p99 above 2 s on /basket",
        labels,
    )
    detail = client.get(
        f"/api/incidents/{incident.pk}",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert detail.json()["labels"] == labels


def test_without_them_the_incident_has_none(client, token):
    response = _post(client, token, VALID)

    assert response.status_code == 201, response.content
    assert (response.json()["description"], response.json()["labels"]) == ("", {})


@pytest.mark.parametrize(
    ("extra", "field", "reason"),
    [
        ({"labels": ["app=basket"]}, "labels", "must be an object of strings"),
        ({"labels": {"replicas": 2}}, "labels.replicas", "must be a string"),
        (
            {"labels": {f"k{i}": "v" for i in range(LABELS_MAX + 1)}},
            "labels",
            "at most 64 labels",
        ),
        (
            {"labels": {"app": "x" * (LABEL_VALUE_MAX + 1)}},
            "labels.app",
            "at most 1000 characters",
        ),
        ({"labels": {"": "basket"}}, "labels.", "a label's name"),
        ({"description": 42}, "description", "must be a string"),
        (
            {"description": "d" * (fields.DESCRIPTION_MAX + 1)},
            "description",
            "at most 4000 characters",
        ),
    ],
)
def test_bad_description_or_labels_are_400_naming_the_field_and_create_nothing(
    client, token, extra, field, reason
):
    before = _counts()

    response = _post(client, token, {**VALID, **extra})

    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert field in body["fields"] and reason in body["fields"][field], body
    assert _counts() == before


def test_the_openapi_document_describes_both(client):
    from diagnosis.api.openapi import build_document

    create = build_document()["components"]["schemas"]["IncidentCreate"]
    assert create["properties"]["labels"]["maxProperties"] == LABELS_MAX
    assert "description" in create["properties"]
    assert "labels" not in create["required"]


# --- the page --------------------------------------------------------------------------------


def test_the_incident_page_shows_the_description_and_labels(client, member, tenant):
    client.force_login(member.user)
    incident, _ = factories.make_incident(
        tenant,
        description="Alert BasketSlow fired for basket-api",
        labels={"namespace": "retail", "app": "basket-api"},
    )

    page = client.get(reverse("diagnosis:incident-detail", args=[incident.id]))

    text = page.content.decode()
    assert "Alert BasketSlow fired for basket-api" in text
    assert "<code>app=basket-api</code>" in text
    assert text.index("app=basket-api") < text.index("namespace=retail")


# --- what the reasoning gets -----------------------------------------------------------------


def test_the_brief_carries_the_description_and_labels_the_incident_own_winning():
    incident = Incident(
        title="basket slow",
        service="basket",
        severity="sev3",
        symptoms="slow\n\n totals wrong ",
        description="Alert BasketSlow fired",
        labels={"app": "basket-api", "team": ""},
    )

    brief = incident_brief(incident, {"app": "old-basket", "namespace": "retail"})

    assert brief.description == "Alert BasketSlow fired"
    assert brief.symptoms == ("slow", "totals wrong")
    assert dict(brief.labels) == {"app": "basket-api", "namespace": "retail"}


# --- a scenario's incident.json --------------------------------------------------------------


def _scenario(root, incident):
    folder = root / "basket-slow"
    folder.mkdir(parents=True)
    (folder / "incident.json").write_text(json.dumps(incident), encoding="utf-8")
    return folder


def test_a_scenario_passes_its_description_and_labels_to_the_incident(
    tmp_path, settings, tenant
):
    labels = {"alertname": "BasketSlow", "namespace": "retail", "job": "basket-api"}
    _scenario(
        tmp_path,
        {**VALID, "description": "Alert BasketSlow fired.", "labels": labels},
    )
    registry = tmp_path / "servers.toml"
    registry.write_text(
        f"[demo]\nscenarios_dir = {json.dumps(str(tmp_path))}\n", encoding="utf-8"
    )
    settings.AGENTOPS_SERVERS = str(registry)

    (env,) = demo_environments(tmp_path)
    values = environments.demo_incident_fields(tenant=tenant, name=env.name)

    assert (values["description"], values["labels"]) == (
        "Alert BasketSlow fired.",
        labels,
    )


def test_a_scenario_with_bad_labels_is_refused_with_a_clear_error(tmp_path):
    _scenario(tmp_path, {**VALID, "labels": {"replicas": 2}})

    with pytest.raises(
        ValueError, match=r"incident.json: labels.replicas: must be a string"
    ):
        demo_environments(tmp_path)
