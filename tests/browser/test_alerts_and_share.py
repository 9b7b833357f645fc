"""An incident opened by Alertmanager in a real browser: its alerts panel, and "Copy summary"
through the browser's clipboard (issue 20 items 5 and 8)."""

from diagnosis.models import Role
from tests import factories
from tests.browser.conftest import (
    PHONE,
    api_post,
    log_in,
    member,
    screenshot,
    serious_accessibility_violations,
)
from tests.diagnosis.intake.support import fixture

DONE = (
    "#task-state[data-state=succeeded], #task-state[data-state=failed], "
    "#task-state[data-state=timed_out]"
)


def test_an_alertmanager_incident_shows_its_alerts_and_copies_its_summary(pages, stack):
    tenant = factories.make_tenant("browser-alerts")
    token = factories.make_token(
        member(tenant, "oncall-alerts", Role.ADMIN), scopes=("alerts:write",)
    )
    webhook = fixture("alertmanager-1-firing")
    response = api_post(stack, token, "/api/alerts/alertmanager", webhook)
    assert response.status_code == 201, response.text
    incident_id = response.json()["incident_id"]
    page = pages.new(permissions=["clipboard-read", "clipboard-write"])
    log_in(page, "oncall-alerts")

    page.goto(f"/incidents/{incident_id}/")

    rows = page.locator("#alerts .alert-row")
    assert rows.count() == 2
    assert "alertname=CheckoutHighErrorRate" in rows.first.inner_text()
    assert "instance=checkout-7d9f6c5b8-2xkqp:8080" in page.inner_text("#alerts")
    source = page.locator(
        f'#alerts a[href="{webhook["alerts"][0]["generatorURL"]}"]'
    ).first
    assert source.inner_text() == "Source (prometheus-0:9090)"
    assert source.get_attribute("rel") == "noopener noreferrer"

    # Once the run has ended no refresh swaps the controls under the click.
    page.wait_for_selector(DONE)
    page.click("#share [data-copy=share-slack]")
    page.wait_for_selector("#share-status:has-text('Copied')")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith(
        "*[SEV1] CheckoutHighErrorRate: checkout answers 502 to a share of requests*\n"
    )
    assert f"<{stack}/incidents/{incident_id}/|Open the incident>" in copied
    screenshot(page, "alerts-panel-1280")
    assert serious_accessibility_violations(pages, page) == []

    # Without the clipboard permission Chromium refuses writeText: the text is shown, selected.
    refused = pages.new(viewport=PHONE)
    log_in(refused, "oncall-alerts")
    refused.goto(f"/incidents/{incident_id}/")
    refused.click("#share [data-copy=share-markdown]")
    refused.wait_for_selector("#share-fallback-text", state="visible")
    selected = refused.evaluate(
        "(() => { const a = document.activeElement;"
        " return a.id + ':' + a.value.slice(a.selectionStart, a.selectionEnd); })()"
    )
    assert selected.startswith("share-fallback-text:**\\[SEV1\\] CheckoutHighErrorRate")
    assert f"[Open the incident]({stack}/incidents/{incident_id}/)" in selected
    screenshot(refused, "alerts-panel-390")
