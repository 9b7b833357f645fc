"""The list page's form and header in a real browser: a field checks itself when it changes
(the API's words, beside the field), a bad submit creates nothing, and a user in two tenants
switches between them from the header."""

from diagnosis.models import Incident, Membership, Role
from tests import factories
from tests.browser.conftest import (
    log_in,
    member,
    screenshot,
    serious_accessibility_violations,
)


def test_inline_errors_and_the_tenant_switcher(pages):
    acme = factories.make_tenant("form-acme")
    globex = factories.make_tenant("form-globex")
    alice = member(acme, "formuser", Role.RESPONDER)
    Membership.objects.create(user=alice.user, tenant=globex, role=Role.RESPONDER)
    factories.make_incident(globex, title="globex is down")
    page = pages.new()
    log_in(page, "formuser")

    # A field that becomes blank says so as soon as it loses focus, in the API's words.
    page.fill("#id_title", "checkout 502s")
    page.fill("#id_title", "   ")
    page.press("#id_title", "Tab")
    page.wait_for_selector("#id_title_error:has-text('must not be blank')")
    assert page.get_attribute("#id_title", "aria-describedby") == "id_title_error"
    assert page.get_attribute("#id_title", "aria-invalid") == "true"
    # Mended, the error goes.
    page.fill("#id_title", "checkout 502s")
    page.press("#id_title", "Tab")
    page.wait_for_selector("#field-title:not(.has-error)")
    assert page.text_content("#id_title_error") == ""

    # Submitted with the service blank: the error beside it, nothing created.
    page.click("#new-incident button[type=submit]")
    page.wait_for_selector("#id_service_error:has-text('must not be blank')")
    assert page.input_value("#id_title") == "checkout 502s"  # what was typed stays
    assert Incident.objects.count() == 1  # globex's only
    screenshot(page, "incident-form-errors")
    assert serious_accessibility_violations(pages, page) == []

    # The header switches to the other tenant: its incidents, and back.
    assert page.query_selector("#incident-table:has-text('globex is down')") is None
    page.select_option("#tenant-switcher select", label="Form-Globex")
    page.click("#tenant-switcher button[type=submit]")
    page.wait_for_selector("#incident-table:has-text('globex is down')")
    page.select_option("#tenant-switcher select", label="Form-Acme")
    page.click("#tenant-switcher button[type=submit]")
    page.wait_for_selector("#incident-table:has-text('No incidents yet.')")
