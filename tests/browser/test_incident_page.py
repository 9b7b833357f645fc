"""The incident page in a real browser: Debian's chromium driven by playwright, against Daphne
and a Celery worker on the test database."""

import shutil

import httpx
import pytest

from diagnosis.models import DiagnosisTask, Incident, Role, TaskEvent
from diagnosis.states import TaskState
from tests import factories
from tests.livestack import wait_for, web_and_worker

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
]
BROKER_DB = 13

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which(CHROMIUM) is None,
        reason="Debian's chromium is not installed (apt-get install chromium)",
    ),
]


@pytest.fixture
def stack(live_db_env):
    with web_and_worker(live_db_env, broker_db=BROKER_DB) as base:
        yield base


@pytest.fixture
def page(stack, monkeypatch):
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; the ORM calls of the test are
    # still plain blocking calls, which Django allows once told (Playwright's documented advice).
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            context = browser.new_context(base_url=stack)
            page = context.new_page()
            page.set_default_timeout(60_000)
            # Chromium logs each resource or inline code the Content-Security-Policy blocks.
            violations = []
            page.on(
                "console",
                lambda message: (
                    violations.append(message.text)
                    if "Content Security Policy" in message.text
                    else None
                ),
            )
            yield page
            assert violations == []
        finally:
            browser.close()


def log_in(page, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url("**/")


def open_incident(base_url: str, token: str, steps: list[float]) -> tuple[str, str]:
    """Open an incident through the API, so Daphne enqueues it on the worker's broker."""
    response = httpx.post(
        f"{base_url}/api/incidents",
        headers={"Authorization": f"Bearer {token}"},
        json={
            "title": "slow checkout",
            "service": "checkout",
            "severity": "sev3",
            "plan": "timed",
            "plan_args": {"steps": steps},
        },
        timeout=10,
    )
    assert response.status_code == 201, response.text
    return response.json()["id"], response.json()["task"]["id"]


def running_incident(base_url: str, tenant_slug: str, username: str) -> tuple[str, str]:
    """A responder's incident whose long timed plan the worker has started."""
    tenant = factories.make_tenant(tenant_slug)
    member = factories.make_member(
        tenant, username=username, password="pw-123456", role=Role.RESPONDER
    )
    incident_id, task_id = open_incident(
        base_url, factories.make_token(member), [2] * 30
    )
    wait_for(
        lambda: DiagnosisTask.objects.get(pk=task_id).state == TaskState.RUNNING,
        timeout=60,
        what="the worker",
    )
    return incident_id, task_id


def shown_seqs(page) -> list[int]:
    return [
        int(s)
        for s in page.eval_on_selector_all(
            "#events li", "items => items.map(i => i.dataset.seq)"
        )
    ]


def test_new_incident_streams_its_events_live_until_the_end(page):
    tenant = factories.make_tenant("browser")
    factories.make_member(
        tenant, username="oncall", password="pw-123456", role=Role.ADMIN
    )
    log_in(page, "oncall", "pw-123456")

    page.fill("input[name=title]", "checkout 502s")
    page.fill("input[name=service]", "checkout")
    page.select_option("select[name=severity]", "sev2")
    # The form offers environments, not plans: this runs the default plan on the bundled one.
    assert page.query_selector("select[name=plan]") is None
    page.select_option("select[name=environment]", "default")
    page.click("#new-incident button[type=submit]")
    page.wait_for_url("**/incidents/*/")

    # the events arrive over SSE while the worker runs, up to the terminal one
    page.wait_for_selector(
        "#events li:has-text('task_completed'), #events li:has-text('task_failed'), "
        "#events li:has-text('task_timed_out')"
    )
    incident = Incident.objects.get(title="checkout 502s")
    task = incident.tasks.get()
    assert (incident.environment, task.environment, task.plan) == (
        "default",
        "default",
        "default",
    )
    assert shown_seqs(page) == list(range(1, task.last_seq + 1))


def test_cancel_button_ends_a_running_diagnosis(page, stack):
    incident_id, task_id = running_incident(stack, "browser-cancel", "oncall2")

    log_in(page, "oncall2", "pw-123456")
    page.goto(f"/incidents/{incident_id}/")
    page.wait_for_selector("#stream-status:has-text('live')")
    page.click("#cancel")
    page.wait_for_selector("#events li:has-text('task_cancelled')")
    page.wait_for_selector("#task-state:has-text('cancelled')")
    task = DiagnosisTask.objects.get(pk=task_id)
    assert task.state == TaskState.CANCELLED
    seqs = shown_seqs(page)
    assert seqs == list(range(1, task.last_seq + 1))
    assert TaskEvent.objects.filter(task=task).count() == task.last_seq


def test_reopened_page_resumes_without_repeating_events(page, stack):
    tenant = factories.make_tenant("browser-resume")
    member = factories.make_member(tenant, username="oncall3", password="pw-123456")
    incident_id, task_id = open_incident(stack, factories.make_token(member), [0.5] * 6)
    log_in(page, "oncall3", "pw-123456")
    page.goto(f"/incidents/{incident_id}/")
    page.wait_for_selector("#events li:has-text('agent_completed')")
    page.reload()  # the page renders what happened so far and streams from its last seq
    page.wait_for_selector("#events li:has-text('task_completed')")
    task = DiagnosisTask.objects.get(pk=task_id)
    assert shown_seqs(page) == list(range(1, task.last_seq + 1))


def test_a_panel_refresh_answered_after_the_cancel_answer_is_not_lost(page, stack):
    """The stream asks for the panel (task_cancelling, task_cancelled) while the Cancel button's
    request is still out; the Cancel answer (`cancelling`) swaps the panel first, so the
    refreshes land on a panel no longer in the page. The page must still end up `cancelled`."""
    incident_id, _ = running_incident(stack, "browser-race", "oncall4")
    held_cancel, held_refreshes, holding = [], [], [True]

    def hold_cancel(route):
        held_cancel.append((route, route.fetch()))  # the server cancels now

    def hold_refreshes(route):
        if holding[0] and route.request.headers.get("hx-request"):
            held_refreshes.append(route)
        else:
            route.continue_()

    log_in(page, "oncall4", "pw-123456")
    page.route(f"**/incidents/{incident_id}/cancel", hold_cancel)
    page.route(f"**/incidents/{incident_id}/", hold_refreshes)
    page.goto(f"/incidents/{incident_id}/")
    page.wait_for_selector("#stream-status:has-text('live')")
    page.click("#cancel")
    page.wait_for_selector("#events li:has-text('task_cancelled')")
    assert held_refreshes and held_cancel

    route, response = held_cancel[0]
    assert "cancelling" in response.text()
    route.fulfill(response=response)
    page.wait_for_selector("#task-state:has-text('cancelling')")
    holding[0] = False
    for refresh in held_refreshes:
        refresh.continue_()
    page.wait_for_selector("#task-state:has-text('cancelled')")
