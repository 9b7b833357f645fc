"""No token of a connected grant shows anywhere a diagnosis leaves a trace (issue 22): a whole
diagnosis run by the real runner and engine against a live local authorization server and
protected MCP server (tests/mcpclient/servers/oauth_http.py), one server renewed before use
and one whose renewal the provider refuses; every log record, span, event, the report (JSON
and Markdown), the stored errors and the operations page are searched for every access and
refresh token the provider issued."""

import asyncio
import json
import logging
import time

import pytest
from django.forms.models import model_to_dict
from django.test import Client

import mcpclient
from diagnosis import oauth_grants, runner
from diagnosis.engine import planners
from diagnosis.models import DiagnosisTask, OAuthGrant, Role, TaskEvent, ToolCallSpan
from reasoning.layered import LayeredPlanner
from reasoning.observations import PlannedCall
from tests import factories
from tests.diagnosis.engine import support
from tests.diagnosis.test_oauth_grants import CLIENT, admin_grant, expiring
from tests.mcpclient.servers.oauth_http import OAuthWorld, served_in_thread

pytestmark = pytest.mark.django_db(transaction=True)


class WhoAmIPlanner(LayeredPlanner):
    """The layered planner's report; round 0 calls whoami on both OAuth servers, then stops."""

    async def next_round(self, investigation):
        if investigation.round > 0:
            return []
        return [
            PlannedCall("metrics", server, "whoami", {}, why="who does the server see")
            for server in ("metrics", "billing")
        ]


def test_no_token_in_logs_spans_events_report_or_errors(
    tmp_path, settings, caplog, monkeypatch
):
    caplog.set_level(logging.DEBUG)
    with served_in_thread(OAuthWorld(clients={"app": "pw"})) as world:
        registry = tmp_path / "servers.toml"
        registry.write_text(
            'default_environment = "prod"\n[environments.prod]\ndescription = "p"\n'
            + "".join(
                f"[environments.prod.servers.{name}]\n"
                f'url = "{world.mcp_url}"\nprotocol_version = "2025-11-25"\n'
                'auth = {type = "oauth", grant = "connected"}\n'
                for name in ("metrics", "billing")
            )
        )
        settings.AGENTOPS_SERVERS = str(registry)
        for name in ("metrics", "billing"):
            tokens = asyncio.run(admin_grant(world))
            oauth_grants.save_grant(
                environment="prod",
                server=name,
                tokens=expiring(tokens),
                client=CLIENT,
            )
        # billing's grant: its access token revoked, its refresh token no longer honoured.
        billing_rt = oauth_grants.stored("prod", "billing")[0].refresh_token
        world.refresh.pop(billing_rt)
        OAuthGrant.objects.filter(server="billing").update(
            tokens_encrypted=oauth_grants._seal(
                mcpclient.Tokens(
                    **{
                        **oauth_grants.stored("prod", "billing")[0].to_dict(),
                        "expires_at": time.time() - 1,
                    }
                ).to_dict()
            )
        )

        tenant = factories.make_tenant("default")
        monkeypatch.setattr(planners, "planner_from_settings", lambda: WhoAmIPlanner())
        _, task = support.open_incident(tenant, environment="prod")
        state = runner.run_task(str(task.id))
        issued = [*world.tokens, *world.refresh, billing_rt]

    task = DiagnosisTask.objects.get(pk=task.pk)
    spans = list(ToolCallSpan.objects.filter(task=task))
    by_server = {s.server_name: s for s in spans}
    # The diagnosis really called through the grants: metrics renewed and answered, billing
    # failed on its refused renewal (the error recorded, without a token).
    assert state in ("succeeded", "failed"), state
    assert by_server["metrics"].state == "ok", model_to_dict(by_server["metrics"])
    assert by_server["billing"].state != "ok"
    metrics_row = OAuthGrant.objects.get(server="metrics")
    billing_row = OAuthGrant.objects.get(server="billing")
    assert metrics_row.refreshed_at is not None
    assert "invalid_grant" in billing_row.last_error

    events = list(TaskEvent.objects.filter(task=task).values())
    member = factories.make_member(tenant, role=Role.ADMIN)
    admin = Client()
    admin.force_login(member.user)
    page = admin.get("/operations/").text
    assert 'data-state="failed"' in page
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {factories.make_token(member)}"}
    answers = [
        admin.get(f"/api/tasks/{task.pk}/report.md", **bearer),
        admin.get(f"/api/tasks/{task.pk}/trace", **bearer),
        admin.get(f"/api/tasks/{task.pk}", **bearer),
        admin.get(f"/tasks/{task.pk}/trace"),
        admin.get(f"/incidents/{task.incident_id}/"),
    ]
    assert [a.status_code for a in answers] == [200] * 5
    markdown = answers[0].content.decode()
    assert "# checkout slow" in markdown
    searched = "\n".join(
        [
            caplog.text,
            *(f"{r.getMessage()} {r.args!r} {r.__dict__!r}" for r in caplog.records),
            *(json.dumps(model_to_dict(s), default=str) for s in spans),
            json.dumps(events, default=str),
            json.dumps(task.report, default=str),
            *(a.content.decode() for a in answers),
            metrics_row.last_error,
            billing_row.last_error,
            page,
        ]
    )
    assert len(issued) >= 5 and "whoami" in searched
    for secret in issued:
        assert secret not in searched
