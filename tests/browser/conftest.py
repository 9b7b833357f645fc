"""Fixtures of the browser tests: Daphne and a Celery worker on the test database (optionally
with settings of their own), Debian's chromium through playwright, and the helpers the tests
share (log in, open an incident over the API, screenshots, the accessibility check)."""

import contextlib
import os
import shutil
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest

from diagnosis.models import Role
from tests import factories, pytest_internals
from tests.livestack import wait_for, web_and_worker

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
]
# The stack's Redis database (emptied first); parallel runs on one Redis each name their own.
BROKER_DB = int(os.environ.get("AGENTOPS_BROWSER_BROKER_DB", "13"))
PASSWORD = "pw-123456"
# Screenshots for people to look at (gitignored); AGENTOPS_SCREENSHOTS names another folder.
SCREENSHOTS = Path(
    os.environ.get(
        "AGENTOPS_SCREENSHOTS",
        Path(__file__).resolve().parents[2] / "var" / "screenshots",
    )
)
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.django_db(transaction=True))
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)
            if shutil.which(CHROMIUM) is None:
                item.add_marker(
                    pytest.mark.skip(
                        reason="Debian's chromium is not installed (apt-get install chromium)"
                    )
                )
    # Among their own places in the run, the tests on the plain stack go first, then those whose
    # fixtures give the stack settings of their own, then the DEBUG ones: consecutive tests with
    # one environment share a stack (the `stack` fixture), so fewer stacks are started.
    places = [
        i for i, item in enumerate(items) if Path(str(item.fspath)).is_relative_to(here)
    ]
    ordered = sorted((items[i] for i in places), key=_stack_kind)
    for i, item in zip(places, ordered, strict=True):
        items[i] = item


def _stack_kind(item) -> int:
    """0: the plain stack; 1: a stack of the test's own settings; 2: the DEBUG stack."""
    if pytest_internals.parameters(item).get("stack_env") == "debug":
        return 2
    definitions = pytest_internals.fixture_definitions(item)
    own = len(definitions.get("stack_env", ())) > 1 or any(
        "stack_env" in pytest_internals.fixture_arguments(fixturedefs[-1])
        for name, fixturedefs in definitions.items()
        if name != "stack"
    )
    return 1 if own else 0


@pytest.fixture
def _fast_password_hasher():
    """The product's hashers, not tests/conftest.py's MD5: the stack's Daphne runs agentops.settings
    and must verify the password typed into the login form."""


@pytest.fixture
def stack_env(live_db_env, request):
    """The environment of Daphne and the worker; a test's fixture may add to it first.

    Parametrized indirectly with "debug", the stack runs with DEBUG on (as `./run` does):
    `@pytest.mark.parametrize("stack_env", ["debug"], indirect=True)`.
    """
    env = dict(live_db_env)
    if getattr(request, "param", None) == "debug":
        env["DEBUG"] = "1"
    return env


# Stacks shared by consecutive browser tests that run them with the same environment, keyed by
# it: starting Daphne and a worker costs more than most of these tests' own steps. A test whose
# fixtures give the stack settings of its own (a registry file, a cut) gets one of its own.
_shared: dict[tuple[tuple[str, str], ...], tuple[contextlib.ExitStack, str]] = {}
# How long a test's end waits for the worker to finish what the test left it (a stop gave the
# worker's task as long) before the stack is stopped instead of handed on.
SETTLE_SECONDS = 15


def _stop_shared(key: tuple[tuple[str, str], ...]) -> None:
    exits, _base = _shared.pop(key)
    exits.close()  # web_and_worker's exit: stop both, wait for their database sessions


def _broker_url() -> str:
    from django.conf import settings

    return urlunsplit(urlsplit(settings.REDIS_URL)._replace(path=f"/{BROKER_DB}"))


def _worker_idle() -> bool:
    """Nothing queued for the worker and nothing taken: with acks_late a message stays in
    kombu's `unacked` hash while its task runs (or waits for its ETA). The database cannot
    tell: factories make queued tasks no worker was ever sent."""
    import redis

    client = redis.Redis.from_url(_broker_url())
    try:
        return client.llen("celery") == 0 and client.hlen("unacked") == 0
    finally:
        client.close()


def _settled() -> bool:
    try:
        wait_for(_worker_idle, timeout=SETTLE_SECONDS, what="the worker to go idle")
    except AssertionError:
        return False
    return True


@pytest.fixture
def stack(stack_env, live_db_env):
    """Daphne and a worker for the test. With the plain environment (or DEBUG added) it is the
    stack the previous browser test left, when that one ended with the worker idle; each test
    still gets an emptied database (transactional_db) and a browser of its own."""
    changed = {
        name
        for name in set(stack_env) | set(live_db_env)
        if stack_env.get(name) != live_db_env.get(name)
    }
    # pytest names the running test in the environment; nothing in a stack reads it.
    key = tuple(sorted(i for i in stack_env.items() if i[0] != "PYTEST_CURRENT_TEST"))
    for other in [k for k in _shared if k != key]:
        _stop_shared(other)  # one stack at a time: they use the same broker database
    if not changed <= {"DEBUG"}:
        with web_and_worker(stack_env, broker_db=BROKER_DB) as base:
            yield base
        return
    if key not in _shared:
        exits = contextlib.ExitStack()
        base = exits.enter_context(web_and_worker(stack_env, broker_db=BROKER_DB))
        _shared[key] = (exits, base)
    yield _shared[key][1]
    if not _settled():
        _stop_shared(key)


@pytest.fixture(scope="session", autouse=True)
def _shared_stacks_stopped_at_the_end(django_db_setup, django_db_blocker):
    """Whatever ends the run early (an interrupt, -x) still stops a shared stack, before the
    test database is dropped."""
    yield
    with django_db_blocker.unblock():
        for key in list(_shared):
            _stop_shared(key)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """The shared stack stops once the next test is not a browser test (or there is none): other
    tests use the broker's database number, and a stack must not outlive the test database."""
    result = yield
    here = Path(__file__).parent
    if _shared and (
        nextitem is None or not Path(str(nextitem.fspath)).is_relative_to(here)
    ):
        with pytest_internals.database_unblocked(item.config):
            for key in list(_shared):
                _stop_shared(key)
    return result


@pytest.fixture
def browser(stack, monkeypatch):
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; the ORM calls of the test are
    # still plain blocking calls, which Django allows once told (Playwright's documented advice).
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


class Pages:
    """New pages of the stack, each with its own session; CSP violations are collected."""

    def __init__(self, browser, base_url: str) -> None:
        self.browser = browser
        self.base_url = base_url
        self.csp_violations: list[str] = []
        self.page_errors: list[str] = []

    def new(
        self,
        *,
        viewport: dict | None = None,
        permissions: list[str] | None = None,
        color_scheme: str = "light",
    ):
        context = self.browser.new_context(
            base_url=self.base_url,
            viewport=viewport or DESKTOP,
            permissions=permissions or [],
            color_scheme=color_scheme,
        )
        page = context.new_page()
        page.set_default_timeout(60_000)
        # Chromium logs each resource or inline code the Content-Security-Policy blocks.
        page.on(
            "console",
            lambda message: (
                self.csp_violations.append(
                    f"{page.url} ({message.location['url']}): {message.text}"
                )
                if "Content Security Policy" in message.text
                else None
            ),
        )
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        # Cancel asks for a confirmation; the tests say yes.
        page.on("dialog", lambda dialog: dialog.accept())
        return page


@pytest.fixture
def pages(browser, stack):
    pages = Pages(browser, stack)
    yield pages
    assert pages.csp_violations == []
    assert pages.page_errors == []


@pytest.fixture
def page(pages):
    return pages.new()


def log_in(page, username: str, password: str = PASSWORD) -> None:
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url("**/")


def member(tenant, username: str, role: str = Role.RESPONDER):
    return factories.make_member(
        tenant, username=username, password=PASSWORD, role=role
    )


def api_post(base_url: str, token: str, path: str, body: dict) -> httpx.Response:
    return httpx.post(
        f"{base_url}{path}",
        headers={"Authorization": f"Bearer {token}"},
        json=body,
        timeout=30,
    )


def open_incident(base_url: str, token: str, body: dict) -> tuple[str, str]:
    """Open an incident through the API, so Daphne enqueues it on the worker's broker."""
    path = "/api/incidents/demo" if set(body) == {"environment"} else "/api/incidents"
    response = api_post(base_url, token, path, body)
    assert response.status_code == 201, response.text
    return response.json()["id"], response.json()["task"]["id"]


def shown_seqs(page) -> list[int]:
    return [
        int(s)
        for s in page.eval_on_selector_all(
            "#events li", "items => items.map(i => i.dataset.seq)"
        )
    ]


def shown_spans(page) -> list[str]:
    return page.eval_on_selector_all(
        ".tool-row", "rows => rows.map(r => r.dataset.span)"
    )


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def serious_accessibility_violations(pages: "Pages", page) -> list[str]:
    """axe-core's serious and critical findings on the page (axe-playwright-python ships it).

    axe adds <style> elements to measure a page, which our policy refuses; so it runs on a
    twin of the page (same session and URL, loaded afresh) in a context that bypasses CSP.
    """
    from axe_playwright_python.sync_playwright import Axe

    context = pages.browser.new_context(
        base_url=pages.base_url,
        storage_state=page.context.storage_state(),
        viewport=page.viewport_size,
        bypass_csp=True,
    )
    try:
        twin = context.new_page()
        twin.goto(page.url)
        results = Axe().run(twin)
    finally:
        context.close()
    return [
        f"{v['id']}: {v['help']} ({len(v['nodes'])} nodes: "
        f"{[n['target'] for n in v['nodes']][:3]})"
        for v in results.response["violations"]
        if v.get("impact") in ("serious", "critical")
    ]


def accessibility_problems(
    pages: "Pages", page, *, color_scheme: str = "light"
) -> list[str]:
    """axe-core's serious and critical violations, and any duplicate-id finding it could only
    call "incomplete" (issue 20: the list page's twice-rendered id hid there), on a twin of
    the page in `color_scheme` (serious_accessibility_violations says why a twin)."""
    from axe_playwright_python.sync_playwright import Axe

    context = pages.browser.new_context(
        base_url=pages.base_url,
        storage_state=page.context.storage_state(),
        viewport=page.viewport_size,
        bypass_csp=True,
        color_scheme=color_scheme,
    )
    try:
        twin = context.new_page()
        twin.goto(page.url)
        response = Axe().run(twin).response
    finally:
        context.close()
    found = [
        v for v in response["violations"] if v.get("impact") in ("serious", "critical")
    ] + [v for v in response["incomplete"] if v["id"].startswith("duplicate-id")]
    return [
        f"{v['id']}: {v['help']} ({len(v['nodes'])} nodes: "
        f"{[n['target'] for n in v['nodes']][:3]})"
        for v in found
    ]
