"""Incidents are diagnosed against an environment (issue 9 items 1-2): resolution per tenant,
what the task records, GET /api/environments, demo incidents, and the pages' forms.

Against the bundled registry file and a temporary one (AGENTOPS_SERVERS overridden).
"""

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from diagnosis import environments, services
from diagnosis.exceptions import ValidationFailed
from diagnosis.models import DiagnosisTask, Incident, Role
from diagnosis.principals import ROLE_SCOPES, principal_from_token, principal_from_user
from diagnosis.registry import (
    BUNDLED_FILE,
    bundled_scenarios_dir,
    demo_environment_name,
)
from diagnosis.states import TaskState
from tests import factories

pytestmark = pytest.mark.django_db

SCENARIOS = bundled_scenarios_dir()
assert SCENARIOS is not None
POOL = demo_environment_name("pool-exhaustion")
INCIDENT = {"title": "checkout 502s", "service": "checkout", "severity": "sev2"}

# acme (the `tenant` fixture) has its own production environment and default; globex (the
# `other_tenant`) only the shared ones; demos are acme's only.
REGISTRY = """
default_environment = "shared"
tenant_defaults = { acme = "prod" }

[demo]
tenants = ["acme"]

[environments.shared]
description = "Shared staging"
[environments.shared.servers.runbooks]
command = ["{python}", "-m", "mcpservers.runbooks"]

[environments.prod]
description = "Acme production"
tenants = ["acme"]
[environments.prod.servers.logs]
command = ["{python}", "-m", "mcpservers.logs"]
[environments.prod.servers.metrics]
command = ["{python}", "-m", "mcpservers.metrics"]

[environments.lab]
description = "Lab, one server per tenant"
[environments.lab.servers.runbooks]
command = ["{python}", "-m", "mcpservers.runbooks"]
[environments.lab.servers.acme-only]
command = ["{python}", "-m", "mcpservers.runbooks"]
tenants = ["acme"]
"""


@pytest.fixture
def registry_file(tmp_path: Path, settings) -> Path:
    path = tmp_path / "servers.toml"
    path.write_text(REGISTRY)
    settings.AGENTOPS_SERVERS = str(path)
    return path


def _post(client, token, path, body):
    return client.post(
        path,
        data=body if isinstance(body, str) else json.dumps(body),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )


def _counts():
    return Incident.objects.count(), DiagnosisTask.objects.count()


# --- the registry of the process ------------------------------------------------------------


def test_the_registry_is_loaded_once_and_again_after_the_setting_changes(
    tmp_path, settings
):
    settings.AGENTOPS_SERVERS = str(BUNDLED_FILE)
    first = environments.registry()
    assert environments.registry() is first
    assert "default" in first.environments

    path = tmp_path / "servers.toml"
    path.write_text(REGISTRY)
    settings.AGENTOPS_SERVERS = str(path)
    changed = environments.registry()
    assert changed.path == str(path)
    assert sorted(n for n in changed.environments if not n.startswith("demo-")) == [
        "lab",
        "prod",
        "shared",
    ]


def test_reset_reads_the_file_again(registry_file):
    before = environments.registry()
    registry_file.write_text(REGISTRY.replace("Shared staging", "Renamed"))
    assert environments.registry() is before  # kept: no reload per request
    environments.reset()
    assert environments.registry().environments["shared"].description == "Renamed"


# --- resolution ------------------------------------------------------------------------------


def test_the_bundled_default_environment_is_used_when_none_is_named(tenant, settings):
    settings.AGENTOPS_SERVERS = str(BUNDLED_FILE)
    incident, task = factories.make_incident(tenant)
    assert (incident.environment, task.environment) == ("default", "default")
    assert environments.environment_resolve(tenant=tenant, name="").name == "default"
    assert environments.environment_resolve(tenant=tenant, name=None).name == "default"


def test_tenant_defaults_override_the_global_default(
    registry_file, tenant, other_tenant
):
    acme, _ = factories.make_incident(tenant)
    globex, _ = factories.make_incident(other_tenant)
    assert (acme.environment, globex.environment) == ("prod", "shared")


def test_an_environment_of_another_tenant_is_refused_like_an_unknown_one(
    registry_file, other_tenant
):
    reasons = []
    for name in ("prod", "no-such-env"):
        with pytest.raises(ValidationFailed) as caught:
            environments.environment_resolve(tenant=other_tenant, name=name)
        assert list(caught.value.fields) == ["environment"]
        reasons.append(caught.value.fields["environment"])
    # Same words either way, listing what globex may use: prod's existence is not disclosed.
    assert reasons[0].replace("'prod'", "X") == reasons[1].replace("'no-such-env'", "X")
    assert reasons[0].endswith("one of: lab, shared")


def test_a_tenant_without_a_default_must_name_one(tmp_path, settings, other_tenant):
    path = tmp_path / "servers.toml"
    path.write_text(REGISTRY.replace('default_environment = "shared"', ""))
    settings.AGENTOPS_SERVERS = str(path)
    with pytest.raises(ValidationFailed, match="invalid input") as caught:
        services.incident_create(tenant=other_tenant, user=None, **INCIDENT)
    assert caught.value.fields["environment"].startswith("required")
    assert _counts() == (0, 0)
    incident, _ = services.incident_create(
        tenant=other_tenant, user=None, environment="lab", **INCIDENT
    )
    assert incident.environment == "lab"


def test_the_environment_keeps_only_the_servers_the_tenant_may_use(
    registry_file, tenant, other_tenant
):
    def servers(t):
        env = environments.environment_resolve(tenant=t, name="lab")
        return [s.name for s in env.servers]

    assert servers(tenant) == ["runbooks", "acme-only"]
    assert servers(other_tenant) == ["runbooks"]


# --- what the task records -------------------------------------------------------------------


def test_a_token_creator_is_recorded_with_its_effective_scopes_and_reruns_count_generations(
    client, registry_file, tenant
):
    member = factories.make_member(tenant, role=Role.RESPONDER)
    # approvals:decide is beyond a responder's role: never effective, so never granted.
    token = factories.make_token(
        member, scopes=("incidents:write", "incidents:read", "approvals:decide")
    )
    prefix = principal_from_token(token).token_prefix
    response = _post(
        client, token, "/api/incidents", {**INCIDENT, "environment": "lab"}
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["environment"] == "lab"
    task = DiagnosisTask.objects.get(pk=body["task"]["id"])
    assert (task.environment, task.generation) == ("lab", 1)
    assert task.principal == f"token:{prefix}"
    assert task.granted_scopes == ["incidents:read", "incidents:write"]

    services.diagnosis_cancel(task=task)
    response = _post(client, token, f"/api/incidents/{body['id']}/diagnoses", {})
    assert response.status_code == 201, response.content
    rerun = response.json()
    # A re-run runs where the incident runs, not on the tenant default (prod).
    assert (rerun["environment"], rerun["generation"]) == ("lab", 2)
    detail = client.get(
        f"/api/incidents/{body['id']}", headers={"Authorization": f"Bearer {token}"}
    ).json()
    assert [(t["environment"], t["generation"]) for t in detail["tasks"]] == [
        ("lab", 2),
        ("lab", 1),
    ]


def test_a_rerun_is_refused_once_the_tenant_lost_the_environment(registry_file, tenant):
    incident, task = services.incident_create(
        tenant=tenant, user=None, environment="prod", **INCIDENT
    )
    services.diagnosis_cancel(task=task)
    registry_file.write_text(
        REGISTRY.replace('tenant_defaults = { acme = "prod" }', "").replace(
            'description = "Acme production"\ntenants = ["acme"]',
            'description = "Acme production"\ntenants = ["initech"]',
        )
    )
    environments.reset()
    assert "prod" not in {e.name for e in environments.environments_for(tenant)}
    with pytest.raises(ValidationFailed) as caught:
        services.diagnosis_start(incident=incident)
    assert "environment" in caught.value.fields
    assert incident.tasks.count() == 1


# --- the JSON API ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("environment", "reason"),
    [
        ("prod", "one of: lab, shared"),  # acme's, not globex's
        ("no-such-env", "one of: lab, shared"),
        (7, "must be a string"),
        (["shared"], "must be a string"),
        ("x" * 65, "at most 64 characters"),
    ],
)
def test_create_with_an_environment_the_tenant_may_not_use_is_400_and_creates_nothing(
    client, registry_file, other_tenant, environment, reason
):
    token = factories.make_token(factories.make_member(other_tenant))
    response = _post(
        client, token, "/api/incidents", {**INCIDENT, "environment": environment}
    )
    assert response.status_code == 400
    fields = response.json()["fields"]
    assert list(fields) == ["environment"]
    assert reason in fields["environment"]
    assert _counts() == (0, 0)


def test_get_environments_lists_each_tenants_own(
    client, registry_file, tenant, other_tenant
):
    def listed(t, role=Role.VIEWER):
        token = factories.make_token(factories.make_member(t, role=role))
        response = client.get(
            "/api/environments", headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status_code == 200
        return response.json()["results"]

    acme = listed(tenant)
    demos = [e for e in acme if e["name"].startswith("demo-")]
    assert len(demos) == len(
        [p for p in SCENARIOS.iterdir() if (p / "incident.json").exists()]
    )
    assert [e for e in acme if not e["name"].startswith("demo-")] == [
        {
            "name": "shared",
            "description": "Shared staging",
            "servers": ["runbooks"],
            "is_default": False,
        },
        {
            "name": "prod",
            "description": "Acme production",
            "servers": ["logs", "metrics"],
            "is_default": True,
        },
        {
            "name": "lab",
            "description": "Lab, one server per tenant",
            "servers": ["runbooks", "acme-only"],
            "is_default": False,
        },
    ]
    # A demo environment has the servers its folder has data for, and actions always.
    assert all(set(d["servers"]) >= {"logs", "actions"} for d in demos)
    assert any("netcheck" in d["servers"] for d in demos)
    assert any("kubernetes" in d["servers"] for d in demos)
    assert listed(other_tenant) == [
        {
            "name": "shared",
            "description": "Shared staging",
            "servers": ["runbooks"],
            "is_default": True,
        },
        {
            "name": "lab",
            "description": "Lab, one server per tenant",
            "servers": ["runbooks"],
            "is_default": False,
        },
    ]


def test_a_token_without_incidents_read_may_not_list_environments(client, tenant):
    token = factories.make_token(
        factories.make_member(tenant, role=Role.ADMIN), scopes=("tasks:read",)
    )
    response = client.get(
        "/api/environments", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 403
    assert response.json()["required_scope"] == "incidents:read"


def test_demo_incident_is_created_from_the_scenarios_incident_json(
    client, token, tenant, settings
):
    settings.AGENTOPS_SERVERS = str(BUNDLED_FILE)
    recorded = json.loads((SCENARIOS / "pool-exhaustion" / "incident.json").read_text())
    before = timezone.now()
    response = _post(client, token, "/api/incidents/demo", {"environment": POOL})
    after = timezone.now()
    assert response.status_code == 201, response.content
    body = response.json()
    incident = Incident.objects.get(pk=body["id"])
    assert (incident.title, incident.service, incident.severity) == (
        recorded["title"],
        recorded["service"],
        recorded["severity"],
    )
    assert incident.symptoms == "\n".join(recorded["symptoms"])
    assert incident.symptoms.count("\n") == len(recorded["symptoms"]) - 1
    window = recorded["window"]
    start = timedelta(seconds=window["start_offset_s"])
    end = timedelta(seconds=window["end_offset_s"])
    assert before + start <= incident.window_start <= after + start
    assert before + end <= incident.window_end <= after + end
    assert incident.window_end - incident.window_start == end - start
    task = incident.tasks.get()
    assert (incident.environment, task.environment) == (POOL, POOL)
    assert task.state == TaskState.QUEUED
    assert body["environment"] == POOL
    assert task.principal == f"token:{principal_from_token(token).token_prefix}"


@pytest.mark.parametrize("environment", ["default", "no-such-env", "", None, 3])
def test_demo_incident_needs_a_demo_environment(client, token, settings, environment):
    settings.AGENTOPS_SERVERS = str(BUNDLED_FILE)
    response = _post(client, token, "/api/incidents/demo", {"environment": environment})
    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["environment"]
    assert _counts() == (0, 0)


def test_a_demo_environment_closed_to_the_tenant_is_400(
    client, registry_file, other_tenant
):
    token = factories.make_token(factories.make_member(other_tenant))
    response = _post(client, token, "/api/incidents/demo", {"environment": POOL})
    assert response.status_code == 400
    assert "one of: lab, shared" in response.json()["fields"]["environment"]
    assert _counts() == (0, 0)


@pytest.mark.parametrize(
    ("role", "status"), [(Role.VIEWER, 403), (Role.RESPONDER, 201)]
)
def test_demo_incident_needs_incidents_write(client, tenant, settings, role, status):
    settings.AGENTOPS_SERVERS = str(BUNDLED_FILE)
    token = factories.make_token(factories.make_member(tenant, role=role))
    response = _post(client, token, "/api/incidents/demo", {"environment": POOL})
    assert response.status_code == status
    assert Incident.objects.count() == (1 if status == 201 else 0)


# --- the pages -------------------------------------------------------------------------------


def _page(client, member):
    client.force_login(member.user)
    return client.get(reverse("diagnosis:incident-list")).content.decode()


def test_the_form_offers_the_tenants_environments_with_its_default_and_no_plan(
    client, registry_file, tenant
):
    body = _page(client, factories.make_member(tenant))
    assert 'name="plan"' not in body
    assert '<option value="prod" selected>prod: Acme production</option>' in body
    assert '<option value="shared">shared: Shared staging</option>' in body
    assert 'id="demo-incident"' in body


def test_the_list_pages_two_forms_have_unique_ids_and_labelled_selects(
    client, registry_file, tenant
):
    body = _page(client, factories.make_member(tenant))
    ids = re.findall(r'\sid="([^"]+)"', body)
    assert sorted({i for i in ids if ids.count(i) > 1}) == []
    # Each select's label points at it: the demo's "Demo" label no longer focuses the other.
    for select_id in re.findall(r'<select[^>]*\sid="([^"]+)"', body):
        assert f'<label for="{select_id}"' in body, select_id
    assert '<label for="demo_environment">Demo:</label>' in body


def test_another_tenant_sees_neither_acmes_environments_nor_demos(
    client, registry_file, other_tenant
):
    body = _page(client, factories.make_member(other_tenant))
    assert '<option value="shared" selected>' in body
    assert 'value="prod"' not in body
    assert 'id="demo-incident"' not in body  # the registry opens demos to acme only


def test_a_viewer_sees_no_form_and_cannot_open_a_demo_incident(
    client, tenant, settings
):
    settings.AGENTOPS_SERVERS = str(BUNDLED_FILE)
    viewer = factories.make_member(tenant, role=Role.VIEWER)
    body = _page(client, viewer)
    assert 'id="new-incident"' not in body
    assert 'id="demo-incident"' not in body
    response = client.post(reverse("diagnosis:incident-demo"), {"environment": POOL})
    assert response.status_code == 404
    assert Incident.objects.count() == 0


def test_the_page_lists_demos_by_description_and_opens_one(client, tenant, settings):
    settings.AGENTOPS_SERVERS = str(BUNDLED_FILE)
    member = factories.make_member(tenant, role=Role.RESPONDER)
    title = json.loads((SCENARIOS / "pool-exhaustion" / "incident.json").read_text())[
        "title"
    ]
    body = _page(client, member)
    assert f'<option value="{POOL}">{title}</option>' in body
    response = client.post(reverse("diagnosis:incident-demo"), {"environment": POOL})
    incident = Incident.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse(
        "diagnosis:incident-detail", args=[incident.id]
    )
    assert (incident.title, incident.environment) == (title, POOL)
    task = incident.tasks.get()
    assert task.principal == f"user:{member.user.username}"
    assert task.granted_scopes == sorted(ROLE_SCOPES[Role.RESPONDER])


def test_the_page_form_creates_on_the_chosen_environment(client, registry_file, tenant):
    member = factories.make_member(tenant, role=Role.APPROVER)
    client.force_login(member.user)
    response = client.post(
        reverse("diagnosis:incident-list"),
        {**INCIDENT, "environment": "lab"},
        headers={"HX-Request": "true"},
    )
    incident = Incident.objects.get()
    assert response["HX-Redirect"] == reverse(
        "diagnosis:incident-detail", args=[incident.id]
    )
    task = incident.tasks.get()
    assert (incident.environment, task.environment, task.plan) == (
        "lab",
        "lab",
        "default",
    )
    assert task.granted_scopes == sorted(principal_from_user(member.user).scopes)


def test_the_page_form_refuses_an_environment_it_does_not_offer(
    client, registry_file, other_tenant
):
    client.force_login(factories.make_member(other_tenant).user)
    response = client.post(
        reverse("diagnosis:incident-list"),
        {**INCIDENT, "environment": "prod"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 400
    # The API's own answer (environments.environment_resolve), escaped in the page.
    assert (
        "no environment &#x27;prod&#x27; for this tenant; one of: lab, shared"
        in response.content.decode()
    )
    assert _counts() == (0, 0)


def test_the_demo_form_refuses_a_non_demo_environment(client, tenant, settings):
    settings.AGENTOPS_SERVERS = str(BUNDLED_FILE)
    client.force_login(factories.make_member(tenant).user)
    response = client.post(
        reverse("diagnosis:incident-demo"), {"environment": "default"}
    )
    assert response.status_code == 400
    assert 'id="demo-incident"' in response.content.decode()
    assert _counts() == (0, 0)
