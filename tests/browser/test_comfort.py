"""Comfort and steering in real Chromium (issue 20 items 9 and 10, and its "Done when"): DEBUG on
and off, axe on the list, incident and trace pages at 390, 1280 and 1920 px with screenshots,
dark mode, shortcuts, the skip link, touch targets, two columns, focus kept after swaps."""

import pytest

from diagnosis.models import DiagnosisTask, Role, TaskEvent
from diagnosis.states import TERMINAL
from tests import factories
from tests.browser.conftest import (
    accessibility_problems,
    api_post,
    log_in,
    member,
    open_incident,
    screenshot,
)
from tests.browser.test_incident_page import open_running_timed_diagnosis
from tests.livestack import wait_for

WIDTHS = (390, 1280, 1920)
TARGETS = (
    "button, a.button, select, summary,"
    " input:not([type=radio]):not([type=checkbox]):not([type=hidden])"
)


def _active(page) -> str:
    return page.evaluate(
        "(() => { const a = document.activeElement;"
        " return a === document.body ? 'BODY' : (a.id || a.tagName); })()"
    )


@pytest.mark.parametrize("stack_env", ["debug"], indirect=True)
def test_under_debug_an_htmx_4xx_stays_in_its_part_and_a_note_reaches_the_page(
    pages, stack
):
    tenant = factories.make_tenant("browser-debug")
    user = member(tenant, "oncall-debug", Role.RESPONDER)
    token = factories.make_token(user)
    incident_id, task_id = open_running_timed_diagnosis(stack, token)
    page = pages.new()
    log_in(page, "oncall-debug")
    page.goto(f"/incidents/{incident_id}/")
    page.wait_for_selector("#stream-status:has-text('live')")
    # htmx once, and not django-htmx.js (its debug handler swaps a 4xx over the whole page)
    assert (
        page.eval_on_selector_all("script[src*='htmx-2.min.js']", "s => s.length") == 1
    )
    assert page.query_selector("script[src*='django-htmx.js']") is None

    # A 400 (a blank note) answers in its part, beside the field; focus stays on the field.
    page.fill("#steering-note", "   ")
    page.focus("#steering-note")
    page.keyboard.press("Tab")  # to "Add note"
    page.keyboard.press("Enter")
    page.wait_for_selector("#steering-error:has-text('must not be blank')")
    assert page.query_selector("h1") is not None
    assert page.query_selector("#tool-log") is not None
    assert _active(page) == "steering-note-send"
    # The answer stays through the parts' refresh as calls finish: read, not wiped by the next event.
    seq = int(page.get_attribute("#steering", "data-seq"))
    page.wait_for_function(
        f"() => Number(document.getElementById('steering').dataset.seq) > {seq}"
    )
    assert page.query_selector("#steering-error:has-text('must not be blank')")
    assert _active(page) == "steering-note-send"

    # A 404 is not swapped at all.
    page.evaluate(
        "() => htmx.ajax('POST', '/incidents/00000000-0000-0000-0000-000000000000/steer',"
        " {target: '#steering', swap: 'outerHTML'}).catch(() => null)"
    )
    page.wait_for_timeout(300)
    assert page.query_selector("#steering #steering-title") is not None
    assert page.query_selector("h1") is not None

    # A note mid-run: what is typed survives the parts' refresh as calls finish; then it is an
    # event of the task, on the page, read "before its next round".
    page.fill("#steering-note", "payments-gw was deployed")
    seq = int(page.get_attribute("#steering", "data-seq"))
    page.wait_for_function(
        f"() => Number(document.getElementById('steering').dataset.seq) > {seq}"
    )
    assert page.input_value("#steering-note") == "payments-gw was deployed"
    assert _active(page) == "steering-note"
    page.fill("#steering-note", "payments-gw was deployed at 10:02")
    page.click("#steering-note-send")
    page.wait_for_selector(
        "#steering-items li[data-kind=note]:has-text('payments-gw was deployed')"
    )
    assert "reads it before its next round" in page.inner_text("#steering-items")
    assert _active(page) == "steering-note-send"
    assert TaskEvent.objects.filter(task_id=task_id, type="steering_added").count() == 1
    cancelled = api_post(stack, token, f"/api/incidents/{incident_id}/cancel", {})
    assert cancelled.status_code == 202


# One refresh of the parts, or false after 30 s.
NEXT_REFRESH = (
    "() => new Promise(done => {"
    " document.addEventListener('agentops:parts-applied', () => done(true), {once: true});"
    " setTimeout(() => done(false), 30000); })"
)


def test_a_part_waiting_for_its_forms_answer_outlives_the_refresh(pages, stack):
    # A hurried Enter on "Add note" while calls finish: the refresh used to replace the part
    # while its request was in flight, so htmx swapped the answer into a detached copy and the
    # page never showed it (CI saw "must not be blank" never arrive under load).
    tenant = factories.make_tenant("browser-inflight")
    user = member(tenant, "oncall-inflight", Role.RESPONDER)
    token = factories.make_token(user)
    incident_id, _ = open_running_timed_diagnosis(stack, token)
    page = pages.new()
    log_in(page, "oncall-inflight")
    page.goto(f"/incidents/{incident_id}/")
    page.wait_for_selector("#stream-status:has-text('live')")
    # The form's request in flight, marked as htmx marks it.
    page.evaluate(
        "() => { window.sentFrom = document.getElementById('steering');"
        " document.getElementById('steering-note-form').classList.add('htmx-request'); }"
    )
    assert page.evaluate(NEXT_REFRESH)
    assert page.evaluate(
        "() => document.getElementById('steering') === window.sentFrom"
    )
    # Its answer came (htmx takes the mark off): the next refresh replaces the part as before.
    page.evaluate(
        "() => document.getElementById('steering-note-form').classList.remove('htmx-request')"
    )
    assert page.evaluate(NEXT_REFRESH)
    assert page.evaluate(
        "() => document.getElementById('steering') !== window.sentFrom"
    )
    cancelled = api_post(stack, token, f"/api/incidents/{incident_id}/cancel", {})
    assert cancelled.status_code == 202


def test_pages_at_three_widths_pass_axe_and_the_comforts_work(pages, stack):
    tenant = factories.make_tenant("browser-comfort")
    member(tenant, "oncall-comfort", Role.ADMIN)
    token = factories.make_token(member(tenant, "api-comfort", Role.ADMIN))
    incident_id, task_id = open_incident(
        stack,
        token,
        {
            "title": "payment errors",
            "service": "payment",
            "severity": "sev3",
            "environment": "default",
        },
    )
    wait_for(
        lambda: DiagnosisTask.objects.get(pk=task_id).state in TERMINAL,
        timeout=120,
        what="the default diagnosis to end",
    )
    urls = {
        "incidents": "/",
        "incident": f"/incidents/{incident_id}/",
        "trace": f"/tasks/{task_id}/trace",
    }
    problems = {}
    for width in WIDTHS:
        page = pages.new(viewport={"width": width, "height": 900})
        log_in(page, "oncall-comfort")
        for name, url in urls.items():
            page.goto(url)
            screenshot(page, f"{name}-{width}")
            problems[f"{name}@{width}"] = accessibility_problems(pages, page)
            small = page.eval_on_selector_all(
                TARGETS,
                "els => els.filter(e => e.offsetParent !== null)"
                ".filter(e => e.getBoundingClientRect().height < 44)"
                ".map(e => e.outerHTML.slice(0, 80))",
            )
            problems[f"{name}@{width} targets under 44 px"] = small
            problems[f"{name}@{width} duplicate ids"] = page.evaluate(
                "(() => { const seen = new Set(), twice = [];"
                " for (const e of document.querySelectorAll('[id]')) {"
                " if (seen.has(e.id)) twice.push(e.id); seen.add(e.id); }"
                " return twice; })()"
            )
        if width == 1920:
            page.goto(urls["incident"])
            answer = page.locator("#verdict").bounding_box()
            calls = page.locator("#tool-log").bounding_box()
            assert calls["x"] >= answer["x"] + answer["width"], (answer, calls)
            assert calls["y"] < answer["y"] + answer["height"]  # side by side
    assert {k: v for k, v in problems.items() if v} == {}

    # Dark from the system, and the toggle remembered over a reload.
    dark = pages.new(color_scheme="dark")
    log_in(dark, "oncall-comfort")
    dark.goto(urls["incident"])
    background = "getComputedStyle(document.body).backgroundColor"
    assert dark.evaluate(background) == "rgb(16, 20, 27)"
    screenshot(dark, "incident-1280-dark")
    assert accessibility_problems(pages, dark, color_scheme="dark") == []
    dark.click("#theme-toggle")  # system → dark
    dark.click("#theme-toggle")  # dark → light
    assert dark.get_attribute("html", "data-theme") == "light"
    dark.reload()
    assert dark.get_attribute("html", "data-theme") == "light"
    assert dark.evaluate(background) == "rgb(247, 248, 250)"

    # The skip link first, then the shortcuts.
    page = pages.new()
    log_in(page, "oncall-comfort")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")
    assert _active(page) == "main"
    page.keyboard.press("/")
    assert _active(page) == "filter-q"
    page.goto(urls["incident"])
    page.keyboard.press("?")
    assert page.evaluate("document.getElementById('shortcuts-help').open")
    page.keyboard.press("Escape")
    assert not page.evaluate("document.getElementById('shortcuts-help').open")
    rows = page.locator(".tool-row summary")
    assert rows.count() >= 2
    page.keyboard.press("j")
    assert rows.nth(0).evaluate("e => e === document.activeElement")
    page.keyboard.press("j")
    assert rows.nth(1).evaluate("e => e === document.activeElement")
    page.keyboard.press("k")
    assert rows.nth(0).evaluate("e => e === document.activeElement")
    page.keyboard.press("g")
    page.keyboard.press("t")
    page.wait_for_url(f"**/tasks/{task_id}/trace")
