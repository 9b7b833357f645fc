"""Webhook targets in the registry file (issue 20 item 7, "registry file or admin"): secrets
and token-bearing URLs by variable name only, every bad entry named by file, entry, field and
reason; the rows kept in step with the file, read-only in the admin, disabled (their delivery
log kept) once the file drops them; a delivery reads the variables when it is sent."""

import textwrap

import pytest
from django.contrib.auth import get_user_model

from diagnosis import coordination, environments, services
from diagnosis.models import WebhookDelivery, WebhookFormat, WebhookTarget
from diagnosis.principals import principal_from_user
from diagnosis.registry import RegistryError, WebhookEntry, load_registry
from diagnosis.webhooks import delivery, rules, targets
from tests import factories
from tests.diagnosis.test_webhooks import SECRET, _send_all, receiver  # noqa: F401

MINIMAL = """
default_environment = "prod"
[environments.prod.servers.logs]
command = ["{python}", "-m", "mcpservers.logs"]
"""


def write(tmp_path, text: str):
    path = tmp_path / "servers.toml"
    path.write_text(MINIMAL + textwrap.dedent(text), encoding="utf-8")
    return path


def test_webhook_tables_load_with_variable_names_only(tmp_path):
    path = write(
        tmp_path,
        """
        [webhooks.pager]
        tenant = "acme"
        url = "https://pager.example.com/agentops"
        secret_env = "PAGER_SECRET"
        notices = ["approval_waiting", "status_changed"]

        [webhooks.chat]
        tenant = "acme"
        format = "slack"
        url_env = "CHAT_WEBHOOK_URL"
        """,
    )

    reg = load_registry(path)

    assert reg.webhooks == (
        WebhookEntry(
            name="pager",
            tenant="acme",
            url="https://pager.example.com/agentops",
            secret_env="PAGER_SECRET",
            notices=("approval_waiting", "status_changed"),
        ),
        WebhookEntry(
            name="chat", tenant="acme", format="slack", url_env="CHAT_WEBHOOK_URL"
        ),
    )
    assert load_registry(tmp_path / "servers.toml").webhooks[0].format == "generic"


SLACK_URL = "https://hooks.slack.com/services/T000/B000/xoxb-secret-token"

BAD = [
    ("no tenant", 'url = "https://h.example/x"', "tenant", "tenant slug"),
    ("bad tenant", 'tenant = "a b"\nurl = "https://h.example/x"', "tenant", "slug"),
    (
        "unknown format",
        'tenant = "acme"\nformat = "teams"\nurl = "https://h.example/x"',
        "format",
        "one of slack, generic",
    ),
    ("neither url", 'tenant = "acme"', "url", "exactly one of url and url_env"),
    (
        "both urls",
        'tenant = "acme"\nurl = "https://h.example/x"\nurl_env = "U"',
        "url",
        "exactly one of url and url_env",
    ),
    ("ftp url", 'tenant = "acme"\nurl = "ftp://h.example/x"', "url", "http or https"),
    ("bad port", 'tenant = "acme"\nurl = "https://h:port/x"', "url", "http or https"),
    (
        "credentials in the url",
        'tenant = "acme"\nurl = "https://user:pw@h.example/x"',
        "url",
        "credentials",
    ),
    (
        "token in the query",
        'tenant = "acme"\nurl = "https://h.example/x?token=abc"',
        "url",
        "url_env",
    ),
    (
        "a slack webhook url inline",
        f'tenant = "acme"\nformat = "slack"\nurl = "{SLACK_URL}"',
        "url",
        "itself a credential",
    ),
    (
        "an inline secret",
        'tenant = "acme"\nurl = "https://h.example/x"\nsecret_env = "whsec-0123"',
        "secret_env",
        "variable name (never the value)",
    ),
    (
        "the app's secret",
        'tenant = "acme"\nurl = "https://h.example/x"\nsecret_env = "SECRET_KEY"',
        "secret_env",
        "the app's own secret",
    ),
    (
        "url_env not a name",
        f'tenant = "acme"\nurl_env = "{SLACK_URL}"',
        "url_env",
        "variable name",
    ),
    (
        "unknown notice",
        'tenant = "acme"\nurl = "https://h.example/x"\nnotices = ["everything"]',
        "notices",
        "diagnosis_finished",
    ),
    (
        "unknown key",
        'tenant = "acme"\nurl = "https://h.example/x"\nsecret = "whsec"',
        "secret",
        "unknown key",
    ),
]


@pytest.mark.parametrize(
    ("body", "field", "reason"),
    [case[1:] for case in BAD],
    ids=[case[0] for case in BAD],
)
def test_a_bad_webhook_names_file_entry_field_and_reason(tmp_path, body, field, reason):
    path = write(tmp_path, "[webhooks.pager]\n" + body + "\n")

    with pytest.raises(RegistryError) as caught:
        load_registry(path)

    assert str(caught.value).startswith(f"{path}: webhook 'pager', field {field!r}: ")
    assert (caught.value.entry, caught.value.field) == ("webhook 'pager'", field)
    assert reason in caught.value.reason
    # The error never repeats a credential it refused.
    assert "xoxb-secret-token" not in str(caught.value)
    assert "whsec" not in caught.value.reason


def test_a_bad_target_name_is_named(tmp_path):
    path = write(
        tmp_path, '[webhooks."Pager!"]\ntenant = "acme"\nurl = "https://h.example/x"\n'
    )
    with pytest.raises(RegistryError, match="webhook 'Pager!'"):
        load_registry(path)


def test_the_registry_knows_the_models_formats_and_the_notices():
    from diagnosis.webhooks import notices

    assert set(rules.FORMATS) == set(WebhookFormat.values)
    assert set(notices.NOTICE_OF.values()) == set(rules.NOTICE_KINDS)


# --- the rows ------------------------------------------------------------------------------------


def _registry_file(settings, tmp_path, text: str) -> None:
    settings.AGENTOPS_SERVERS = str(write(tmp_path, text))


def _acknowledge(incident, member, status="acknowledged") -> None:
    coordination.incident_status_change(
        incident=incident, principal=principal_from_user(member.user), status=status
    )


@pytest.mark.django_db
def test_a_registry_target_is_sent_signed_with_its_variables_and_follows_the_file(
    settings,
    tmp_path,
    tenant,
    member,
    receiver,  # noqa: F811
    monkeypatch,
):
    admin_made = targets.webhook_target_create(
        tenant=tenant, name="pager", url="http://127.0.0.1:9/hook"
    )
    WebhookTarget.objects.filter(pk=admin_made.pk).update(is_enabled=False)
    monkeypatch.setenv("PAGER_HOOK_URL", receiver.url)
    monkeypatch.setenv("PAGER_HOOK_SECRET", SECRET)
    _registry_file(
        settings,
        tmp_path,
        f"""
        [webhooks.pager]
        tenant = "{tenant.slug}"
        url_env = "PAGER_HOOK_URL"
        secret_env = "PAGER_HOOK_SECRET"
        notices = ["status_changed"]

        [webhooks.later]
        tenant = "no-such-tenant"
        url = "https://h.example/x"
        """,
    )
    incident, _task = factories.make_incident(tenant)

    services.diagnosis_reap()  # beat's reaper syncs the file's targets
    _acknowledge(incident, member)

    row = WebhookTarget.objects.get(from_registry=True)
    assert (row.tenant_id, row.name, row.url, row.secret) == (
        tenant.pk,
        "pager",
        "",
        "",
    )
    assert (row.url_env, row.secret_env, row.notices) == (
        "PAGER_HOOK_URL",
        "PAGER_HOOK_SECRET",
        ["status_changed"],
    )
    assert targets.target_host(row) == "$PAGER_HOOK_URL"
    assert _send_all() == ["delivered"]
    (hit,) = receiver.received
    assert hit["signed"] is True and hit["json"]["notice"] == "status_changed"
    # Neither the URL nor the secret is stored.
    (stored,) = WebhookDelivery.objects.all()
    assert receiver.url not in str(stored.payload) and stored.target_id == row.pk
    admin_made.refresh_from_db()
    assert admin_made.from_registry is False and admin_made.is_enabled is False

    # The file drops it: disabled, not deleted; its delivery log stays; admin's left alone.
    _registry_file(settings, tmp_path, "")
    services.diagnosis_reap()
    _acknowledge(incident, member, status="mitigated")
    row.refresh_from_db()
    assert row.is_enabled is False
    assert WebhookDelivery.objects.filter(target=row).count() == 1
    assert WebhookTarget.objects.filter(pk=admin_made.pk).exists()

    # Back in the file: enabled again, the same row.
    _registry_file(
        settings,
        tmp_path,
        f'[webhooks.pager]\ntenant = "{tenant.slug}"\nurl = "https://h.example/x"\n',
    )
    assert (
        targets.registry_targets_sync(environments.registry().webhooks)["synced"] == 1
    )
    row.refresh_from_db()
    assert (row.is_enabled, row.url, row.url_env, row.secret_env) == (
        True,
        "https://h.example/x",
        "",
        "",
    )


@pytest.mark.django_db
def test_an_unset_variable_fails_the_attempt_naming_the_variable(
    settings, tmp_path, tenant, member, monkeypatch
):
    monkeypatch.delenv("GONE_HOOK_URL", raising=False)
    _registry_file(
        settings,
        tmp_path,
        f'[webhooks.gone]\ntenant = "{tenant.slug}"\nurl_env = "GONE_HOOK_URL"\n',
    )
    incident, _task = factories.make_incident(tenant)
    services.diagnosis_reap()
    _acknowledge(incident, member)
    (row,) = WebhookDelivery.objects.all()

    attempt = delivery.webhook_attempt(delivery_id=str(row.pk))

    row.refresh_from_db()
    assert attempt.status == "retrying"
    assert row.last_error == "variable GONE_HOOK_URL (url_env) is unset"
    monkeypatch.setenv("GONE_HOOK_URL", "ftp://nope.example/x")
    WebhookDelivery.objects.filter(pk=row.pk).update(in_flight_until=None)
    delivery.webhook_attempt(delivery_id=str(row.pk))
    row.refresh_from_db()
    assert row.last_error == "variable GONE_HOOK_URL (url_env) holds no http(s) URL"


@pytest.mark.django_db
def test_the_admin_lists_a_registry_target_read_only(
    client, settings, tmp_path, tenant
):
    _registry_file(
        settings,
        tmp_path,
        f"""
        [webhooks.chat]
        tenant = "{tenant.slug}"
        format = "slack"
        url_env = "CHAT_HOOK_URL"
        """,
    )
    client.force_login(
        get_user_model().objects.create_superuser("operator", password="pw-123456")
    )

    listing = client.get("/admin/diagnosis/webhooktarget/").content.decode()
    row = WebhookTarget.objects.get(from_registry=True)  # synced by opening the list
    page = client.get(f"/admin/diagnosis/webhooktarget/{row.pk}/change/")
    posted = client.post(
        f"/admin/diagnosis/webhooktarget/{row.pk}/change/",
        {"tenant": tenant.pk, "name": "x", "format": "generic", "url": "https://h/x"},
    )
    deleted = client.post(
        f"/admin/diagnosis/webhooktarget/{row.pk}/delete/", {"post": "yes"}
    )
    bulk = client.post(
        "/admin/diagnosis/webhooktarget/",
        {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"},
    )

    assert "registry file" in listing and "$CHAT_HOOK_URL" in listing
    assert page.status_code == 200
    body = page.content.decode()
    assert "CHAT_HOOK_URL" in body and 'name="_save"' not in body
    # Neither changed nor deleted, one by one or by "delete selected".
    assert (posted.status_code, deleted.status_code, bulk.status_code) == (403,) * 3
    row.refresh_from_db()
    assert row.name == "chat" and row.format == "slack"
