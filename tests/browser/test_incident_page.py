"""The incident pages in a real browser: Debian's chromium driven by playwright, against Daphne
and a Celery worker on the test database (fixtures in conftest.py)."""

from diagnosis.models import DiagnosisTask, Incident, Role
from diagnosis.states import TaskState
from tests import factories
from tests.browser.conftest import (
    api_post,
    log_in,
    member,
    open_incident,
    screenshot,
    serious_accessibility_violations,
    shown_seqs,
)
from tests.livestack import wait_for


def open_running_timed_diagnosis(stack, token) -> tuple[str, str]:
    """A "slow checkout" incident whose timed plan (30 steps of 2 s) the worker is running."""
    incident_id, task_id = open_incident(
        stack,
        token,
        {
            "title": "slow checkout",
            "service": "checkout",
            "severity": "sev3",
            "plan": "timed",
            "plan_args": {"steps": [2] * 30},
        },
    )
    wait_for(
        lambda: DiagnosisTask.objects.get(pk=task_id).state == TaskState.RUNNING,
        timeout=60,
        what="the worker",
    )
    return incident_id, task_id


TERMINAL_SELECTOR = (
    "#events li:has-text('task_completed'), #events li:has-text('task_failed'), "
    "#events li:has-text('task_timed_out')"
)


def test_new_incident_streams_its_events_live_until_the_end(page):
    member(factories.make_tenant("browser"), "oncall", Role.ADMIN)
    log_in(page, "oncall")

    page.fill("input[name=title]", "checkout 502s")
    page.fill("input[name=service]", "checkout")
    page.select_option("select[name=severity]", "sev2")
    # The form offers environments, not plans: this runs the default plan on the bundled one.
    assert page.query_selector("select[name=plan]") is None
    page.select_option("select[name=environment]", "default")
    page.click("#new-incident button[type=submit]")
    page.wait_for_url("**/incidents/*/")

    # the events arrive over SSE while the worker runs, up to the terminal one (the event
    # log is folded: attached, not visible)
    page.wait_for_selector(TERMINAL_SELECTOR, state="attached")
    page.wait_for_selector("#stream-status:has-text('finished')")
    incident = Incident.objects.get(title="checkout 502s")
    task = incident.tasks.get()
    assert (incident.environment, task.environment, task.plan) == (
        "default",
        "default",
        "default",
    )
    assert shown_seqs(page) == list(range(1, task.last_seq + 1))
    # the verdict was fetched again after the end: an honest inconclusive report
    page.wait_for_selector("#cause:has-text('inconclusive')")
    assert page.text_content("#task-state") in ("succeeded", "failed", "timed out")


def test_a_stale_cancel_answer_landing_last_does_not_undo_the_end(page, stack):
    """The Cancel button's answer (rendered while `cancelling`) arrives after the stream said
    `cancelled`, while the parts the stream asked for are still out: the status line must not
    go back to `cancelling`, and the parts that land last still show the end."""
    tenant = factories.make_tenant("browser-race")
    token = factories.make_token(member(tenant, "oncall4"))
    incident_id, task_id = open_running_timed_diagnosis(stack, token)
    held_cancel, held_parts, holding = [], [], [True]

    def hold_parts(route):
        if holding[0]:
            held_parts.append(route)
        else:
            route.continue_()

    page.route(
        f"**/incidents/{incident_id}/cancel",
        lambda route: held_cancel.append(
            (route, route.fetch())
        ),  # the server cancels now
    )
    page.route(f"**/tasks/{task_id}/parts", hold_parts)
    log_in(page, "oncall4")
    page.goto(f"/incidents/{incident_id}/")
    page.wait_for_selector("#stream-status:has-text('live')")
    page.click("#cancel")
    page.wait_for_selector("#events li:has-text('task_cancelled')", state="attached")
    assert page.text_content("#task-state") == "cancelled"  # from the stream itself
    assert held_cancel and held_parts

    route, response = held_cancel[0]
    assert 'data-state="cancelling"' in response.text()
    # Registered after the page's own listener: it runs once the page handled the answer.
    page.evaluate(
        "() => document.body.addEventListener('htmx:afterRequest',"
        " () => { window.cancelAnswered = true; })"
    )
    route.fulfill(response=response)
    page.wait_for_function("() => window.cancelAnswered === true")
    assert page.text_content("#task-state") == "cancelled"
    holding[0] = False
    for held in held_parts:
        held.continue_()
    page.wait_for_selector("#rerun")
    assert page.text_content("#task-state") == "cancelled"
    task = DiagnosisTask.objects.get(pk=task_id)
    assert task.state == TaskState.CANCELLED
    assert shown_seqs(page) == list(range(1, task.last_seq + 1))


def test_the_list_filters_and_its_badge_follows_a_diagnosis_live(pages, page, stack):
    tenant = factories.make_tenant("browser-list")
    token = factories.make_token(member(tenant, "oncall5"))
    factories.make_incident(tenant, title="an older, unrelated outage")
    incident_id, _ = open_running_timed_diagnosis(stack, token)
    log_in(page, "oncall5")
    page.fill("#filter-q", "slow")
    page.click("#incident-filters button[type=submit]")
    page.wait_for_url("**q=slow**")
    rows = page.query_selector_all("#incident-table tbody tr")
    assert [r.get_attribute("id") for r in rows] == [f"incident-{incident_id}"]
    page.wait_for_selector(f"#incident-{incident_id} [data-state=running]")
    screenshot(page, "incidents")
    assert serious_accessibility_violations(pages, page) == []
    cancelled = api_post(stack, token, f"/api/incidents/{incident_id}/cancel", {})
    assert cancelled.status_code == 202
    # the table asks for itself again while a diagnosis on it runs
    page.wait_for_selector(f"#incident-{incident_id} [data-state=cancelled]")
    assert page.get_attribute("#incident-table", "hx-trigger") is None


def test_parts_that_failed_to_load_at_the_end_are_fetched_again(page, stack):
    """The run ends while the page cannot fetch its parts: no event will ask again, so the page
    retries on its own, after a backoff and at once when the browser is back online."""
    tenant = factories.make_tenant("browser-offline")
    token = factories.make_token(member(tenant, "oncall6"))
    incident_id, task_id = open_running_timed_diagnosis(stack, token)
    held, mode = [], ["hold"]

    def parts(route):
        if mode[0] == "hold":
            held.append(route)
        elif mode[0] == "fail":
            route.abort()
        else:
            route.continue_()

    page.clock.install()  # the retry's backoff runs on this clock
    page.route(f"**/tasks/{task_id}/parts", parts)
    log_in(page, "oncall6")
    page.goto(f"/incidents/{incident_id}/")
    page.wait_for_selector("#stream-status:has-text('live')")
    cancelled = api_post(stack, token, f"/api/incidents/{incident_id}/cancel", {})
    assert cancelled.status_code == 202
    page.wait_for_selector("#events li:has-text('task_cancelled')", state="attached")
    assert held  # the fetch the end asked for is out
    assert page.query_selector("#cancel") is not None  # the parts are stale

    page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 1)  # seconds
    mode[0] = "fail"
    for route in held:
        route.abort()
    # After the backoff a retry goes out (and fails again, still offline) ...
    with page.expect_event("requestfailed", lambda r: r.url.endswith("/parts")):
        page.clock.run_for(1000)
    # ... and the browser coming back online retries at once, without waiting for the clock.
    mode[0] = "pass"
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    page.wait_for_selector("#rerun")
    assert page.query_selector("#cancel") is None
    assert page.text_content("#task-state") == "cancelled"


def test_back_online_while_the_failing_fetch_settles_asks_again_at_once(page, stack):
    """The browser says it is online while the fetch the end asked for is still out (it fails
    after): the failure asks again at once instead of waiting out a backoff."""
    tenant = factories.make_tenant("browser-online-race")
    token = factories.make_token(member(tenant, "oncall7"))
    incident_id, task_id = open_running_timed_diagnosis(stack, token)
    held, mode = [], ["hold"]

    def parts(route):
        if mode[0] == "hold":
            held.append(route)
        else:
            route.continue_()

    page.clock.install()
    page.route(f"**/tasks/{task_id}/parts", parts)
    log_in(page, "oncall7")
    page.goto(f"/incidents/{incident_id}/")
    page.wait_for_selector("#stream-status:has-text('live')")
    cancelled = api_post(stack, token, f"/api/incidents/{incident_id}/cancel", {})
    assert cancelled.status_code == 202
    page.wait_for_selector("#events li:has-text('task_cancelled')", state="attached")
    assert held
    # The clock stands still from here: only an immediate fetch can bring the parts.
    page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 1)
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    mode[0] = "pass"
    for route in held:
        route.abort()
    page.wait_for_selector("#rerun")
    assert page.text_content("#task-state") == "cancelled"


def test_what_the_page_said_to_a_copy_stays_through_the_last_refresh(page, stack):
    """The run ends (its state shows at once) while the parts' last refresh is still out; the
    person clicks copy (the browser refuses the clipboard: the text is shown, selected), then the
    refresh lands: it does not take back what the page said."""
    tenant = factories.make_tenant("browser-copy-race")
    token = factories.make_token(member(tenant, "oncall8"))
    incident_id, task_id = open_running_timed_diagnosis(stack, token)
    held, mode = [], ["pass"]

    def parts(route):
        if mode[0] == "hold":
            held.append(route)
        else:
            route.continue_()

    page.route(f"**/tasks/{task_id}/parts", parts)
    log_in(page, "oncall8")
    page.goto(f"/incidents/{incident_id}/")
    page.wait_for_selector("#stream-status:has-text('live')")
    mode[0] = "hold"
    cancelled = api_post(stack, token, f"/api/incidents/{incident_id}/cancel", {})
    assert cancelled.status_code == 202
    page.wait_for_selector("#task-state[data-state=cancelled]")
    page.click("#share [data-copy=share-markdown]")
    page.wait_for_selector("#share-fallback-text", state="visible")
    said = page.text_content("#share-status")
    assert said
    assert held  # the refresh the end asked for is still out
    mode[0] = "pass"
    for route in held:
        route.continue_()
    page.wait_for_selector("#rerun")  # the parts of the ended run are in
    assert page.is_visible("#share-fallback-text")
    assert page.text_content("#share-status") == said
    assert page.input_value("#share-fallback-text").startswith("**")
