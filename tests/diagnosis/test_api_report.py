"""GET /api/tasks/{id}/report.md: the report as a Markdown download, for the task's own tenant."""

from diagnosis.models import DiagnosisTask, Role
from reasoning.report import Evidence, Hypothesis, Report
from tests import factories


def _auth(token):
    return {"Authorization": f"Bearer {token}"}


def _with_report(task):
    report = Report(
        summary="payments-gw refuses connections",
        hypotheses=[
            Hypothesis(
                layer="connect",
                component="payments-gw",
                statement="payments-gw refuses TCP connections",
                confidence=0.9,
                status="confirmed",
                evidence=[
                    Evidence("3f2a9c1d0e4b5a67", "netcheck", "probe", "connect refused")
                ],
            )
        ],
        partial=False,
    )
    DiagnosisTask.objects.filter(pk=task.pk).update(report=report.to_dict())


def test_own_task_report_is_a_markdown_attachment(client, token, tenant):
    incident, task = factories.make_incident(tenant, title="Checkout <b>502s</b>")
    _with_report(task)

    response = client.get(f"/api/tasks/{task.id}/report.md", headers=_auth(token))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert (
        response["Content-Disposition"]
        == f'attachment; filename="incident-{incident.id}-report.md"'
    )
    body = response.content.decode("utf-8")
    assert body.startswith("# Checkout &lt;b&gt;502s&lt;/b&gt;\n")
    assert "**payments-gw refuses TCP connections**" in body
    # Without SITE_URL the links are absolute on the request's own origin, to the trace page.
    span = "3f2a9c1d0e4b5a67"
    trace = f"http://testserver/tasks/{task.id}/trace"
    assert f"[span 3f2a9c1d]({trace}?span={span}#span-{span})" in body


def test_report_links_use_site_url_when_set(client, token, tenant, settings):
    settings.SITE_URL = "https://agentops.example.com"
    _, task = factories.make_incident(tenant)
    _with_report(task)

    body = client.get(f"/api/tasks/{task.id}/report.md", headers=_auth(token)).content

    span = "3f2a9c1d0e4b5a67"
    trace = f"https://agentops.example.com/tasks/{task.id}/trace"
    assert f"[span 3f2a9c1d]({trace}?span={span}#span-{span})".encode() in body
    assert b"testserver" not in body


def test_evidence_citing_a_span_row_links_to_its_trace_anchor(client, token, tenant):
    _, task = factories.make_incident(tenant)
    span = factories.make_span(task, span_id="5e6f7a8b9c0d1e2f")
    _with_report(task)
    report = DiagnosisTask.objects.get(pk=task.pk).report
    report["hypotheses"][0]["evidence"][0]["span_id"] = str(span.id)
    DiagnosisTask.objects.filter(pk=task.pk).update(report=report)

    body = client.get(f"/api/tasks/{task.id}/report.md", headers=_auth(token)).content

    assert b"?span=5e6f7a8b9c0d1e2f#span-5e6f7a8b9c0d1e2f" in body
    assert str(span.id).encode() not in body


def test_queued_task_gets_a_document_saying_there_is_no_report_yet(
    client, token, tenant
):
    _, task = factories.make_incident(tenant)

    response = client.get(f"/api/tasks/{task.id}/report.md", headers=_auth(token))

    assert response.status_code == 200
    assert "No report yet: the diagnosis is queued." in response.content.decode()


def test_another_tenants_task_is_not_found(client, other_tenant, tenant):
    _, task = factories.make_incident(tenant, title="acme-only-title")
    _with_report(task)
    outsider = factories.make_token(
        factories.make_member(other_tenant, role=Role.ADMIN)
    )

    response = client.get(f"/api/tasks/{task.id}/report.md", headers=_auth(outsider))

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert b"acme-only-title" not in response.content


def test_a_malformed_id_is_not_found(client, token):
    response = client.get("/api/tasks/not-a-uuid/report.md", headers=_auth(token))

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_without_credentials_is_401(client, tenant):
    _, task = factories.make_incident(tenant)

    response = client.get(f"/api/tasks/{task.id}/report.md")

    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_token_without_tasks_read_is_403(client, tenant):
    _, task = factories.make_incident(tenant)
    weak = factories.make_token(
        factories.make_member(tenant, role=Role.ADMIN), scopes=("incidents:read",)
    )

    response = client.get(f"/api/tasks/{task.id}/report.md", headers=_auth(weak))

    assert response.status_code == 403
    assert response.json()["required_scope"] == "tasks:read"


def test_viewer_reads_the_report_by_token_and_by_session(client, tenant):
    _, task = factories.make_incident(tenant)
    _with_report(task)
    viewer = factories.make_member(tenant, role=Role.VIEWER)

    by_token = client.get(
        f"/api/tasks/{task.id}/report.md", headers=_auth(factories.make_token(viewer))
    )
    client.force_login(viewer.user)
    by_session = client.get(f"/api/tasks/{task.id}/report.md")

    assert by_token.status_code == by_session.status_code == 200
    assert by_token.content == by_session.content
    assert b"payments-gw refuses TCP connections" in by_session.content


def test_other_methods_are_405(client, token, tenant):
    _, task = factories.make_incident(tenant)

    response = client.post(
        f"/api/tasks/{task.id}/report.md",
        data="{}",
        content_type="application/json",
        headers=_auth(token),
    )

    assert response.status_code == 405
    assert response["Allow"] == "GET"
