"""Running an incident in a real browser (issue 20 items 6 and 4): on a finished diagnosis, one
responder acknowledges, takes it ("Assign to me") and adds a note; a second responder's page,
left alone, shows each change and the timeline entry live, over the stream that follows the
incident past the diagnosis's end."""

from diagnosis.models import DiagnosisTask, Incident, Role
from diagnosis.states import TaskState
from tests import factories
from tests.browser.conftest import (
    PHONE,
    api_post,
    log_in,
    member,
    open_incident,
    screenshot,
    serious_accessibility_violations,
)
from tests.livestack import wait_for


def test_acknowledge_assign_and_note_reach_a_second_page_live(pages, stack):
    tenant = factories.make_tenant("browser-run")
    token = factories.make_token(member(tenant, "lead", Role.RESPONDER))
    member(tenant, "second", Role.RESPONDER)
    incident_id, task_id = open_incident(
        stack,
        token,
        {
            "title": "orders slow",
            "service": "orders",
            "severity": "sev3",
            "plan": "timed",
            "plan_args": {"steps": [0.01]},
        },
    )
    wait_for(
        lambda: DiagnosisTask.objects.get(pk=task_id).state == TaskState.SUCCEEDED,
        timeout=60,
        what="the worker",
    )
    lead, watcher = pages.new(), pages.new()
    for page, name in ((lead, "lead"), (watcher, "second")):
        log_in(page, name)
        page.goto(f"/incidents/{incident_id}/")
        # The diagnosis is over; the page still follows the incident.
        page.wait_for_selector("#stream-status:has-text('following the incident')")

    lead.click("#status-acknowledged")
    lead.wait_for_selector("#incident-status[data-status=acknowledged]")
    # A note being typed survives the refreshes the other changes bring (the form is not
    # part of what the stream refreshes).
    lead.fill("#note-text", "pool at 100 %, paging the DBA")
    lead.click("#assign-me")
    lead.wait_for_selector("#unassign")
    lead.wait_for_selector(".timeline-entry[data-event=incident_owner_changed]")
    assert lead.input_value("#note-text") == "pool at 100 %, paging the DBA"
    lead.click("#note-add")
    lead.wait_for_selector(".timeline-entry[data-event=incident_note_added]")

    # The second page was never reloaded: every change came over its stream.
    watcher.wait_for_selector("#incident-status[data-status=acknowledged]")
    watcher.wait_for_selector("#incident-owner:has-text('lead')")
    note = watcher.wait_for_selector(".timeline-entry[data-event=incident_note_added]")
    assert "pool at 100 %, paging the DBA" in note.text_content()
    assert "by lead" in note.text_content()
    assert watcher.input_value("#note-text") == ""
    assert (
        lead.input_value("#note-text") == ""
    )  # the note was sent: its form is cleared
    entries = watcher.eval_on_selector_all(
        "#timeline .timeline-entry",
        "items => items.map(i => i.querySelector('.timeline-title').textContent)",
    )
    assert entries == [
        "Diagnosis queued",
        "Diagnosis started (attempt 1)",
        "Diagnosis succeeded",
        "Status triggered → acknowledged",
        "Owner: lead",
        "Note",
    ]
    incident = Incident.objects.get(pk=incident_id)
    assert (incident.status, incident.owner.username) == ("acknowledged", "lead")

    # A blank note is refused with its reason beside the forms; the next change that goes
    # through answers anew, and the reason goes with it.
    lead.fill("#note-text", "   ")
    lead.click("#note-add")
    lead.wait_for_selector("#coordination-error:has-text('must not be blank')")
    lead.click("#status-resolved")
    lead.wait_for_selector("#incident-status[data-status=resolved]")
    assert lead.query_selector("#coordination-error") is None

    assert serious_accessibility_violations(pages, watcher) == []
    screenshot(watcher, "incident-coordination-1280")
    watcher.set_viewport_size(PHONE)
    screenshot(watcher, "incident-coordination-390")


def test_an_earlier_diagnosis_page_shows_the_incidents_changes_live(pages, stack):
    """Status, owner and notes are events of the incident's latest diagnosis: the page of an
    earlier one follows that stream too and shows them without a reload."""
    tenant = factories.make_tenant("browser-run-older")
    token = factories.make_token(member(tenant, "lead2", Role.RESPONDER))
    member(tenant, "second2", Role.RESPONDER)
    body = {
        "title": "cart slow",
        "service": "cart",
        "severity": "sev3",
        "plan": "timed",
        "plan_args": {"steps": [0.01]},
    }
    incident_id, first = open_incident(stack, token, body)

    def finished(task_id):
        return DiagnosisTask.objects.get(pk=task_id).state == TaskState.SUCCEEDED

    wait_for(lambda: finished(first), timeout=60, what="the first diagnosis")
    rerun = api_post(stack, token, f"/api/incidents/{incident_id}/diagnoses", {})
    assert rerun.status_code == 201, rerun.text
    second = rerun.json()["id"]
    wait_for(lambda: finished(second), timeout=60, what="the re-run")

    lead, watcher = pages.new(), pages.new()
    log_in(lead, "lead2")
    lead.goto(f"/incidents/{incident_id}/")
    lead.wait_for_selector("#stream-status:has-text('following the incident')")
    log_in(watcher, "second2")
    watcher.goto(f"/incidents/{incident_id}/?task={first}")  # the earlier diagnosis
    watcher.wait_for_selector(f"#investigation[data-task='{first}']")
    watcher.wait_for_selector("#stream-status:has-text('following the incident')")

    lead.click("#status-acknowledged")
    lead.wait_for_selector("#incident-status[data-status=acknowledged]")
    lead.fill("#note-text", "rolled back the cart image")
    lead.click("#note-add")
    lead.wait_for_selector(".timeline-entry[data-event=incident_note_added]")

    watcher.wait_for_selector("#incident-status[data-status=acknowledged]")
    note = watcher.wait_for_selector(".timeline-entry[data-event=incident_note_added]")
    assert "rolled back the cart image" in note.text_content()
    # Still the earlier diagnosis's page: nothing reloaded it onto the latest.
    assert watcher.get_attribute("#investigation", "data-task") == first
