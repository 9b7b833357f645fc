"""Every URL the app serves, walked as every kind of caller (issue 10 item 11).

The walk enumerates the root URLconf recursively (API, pages, fragments, accounts, admin) plus the
routes agentops/asgi.py mounts in front of Django (the SSE stream), fills path parameters with
tenant A's objects and sends each method as: anonymous; a user and a token of tenant B; a
session and a token of each role of tenant A; a staff user (Django admin's operator, who belongs
to no tenant). EXPECTED holds the answer for every (route, method, caller); a route it does not
cover, or an entry for a route that no longer exists, fails the walk, so it stays complete.

Every request runs in a savepoint that is rolled back, so a write (a cancel, a decision) does not
change what the next caller sees. A 2xx answer to a tenant-B caller must not mention A's objects.
"""

import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from agentops.asgi import application
from diagnosis.models import Role
from diagnosis.principals import ALL_SCOPES
from diagnosis.registry import demo_environment_name
from tests import factories
from tests.diagnosis.test_streaming_support import StreamClient, bearer, finish

SECRET_TITLE = "tenant-a-only-7f3c"


@pytest.fixture(autouse=True)
def _no_celery(monkeypatch):
    monkeypatch.setattr("diagnosis.dispatch.diagnosis_run_enqueue", lambda *a: None)


# --- the routes ------------------------------------------------------------------------------


def _walk(
    resolver: URLResolver, prefix: str = "", namespace: str = ""
) -> Iterator[tuple[str, str]]:
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            ns = namespace + (f"{pattern.namespace}:" if pattern.namespace else "")
            yield from _walk(pattern, prefix + str(pattern.pattern), ns)
        else:
            assert isinstance(pattern, URLPattern)
            route = prefix + str(pattern.pattern)
            yield (namespace + pattern.name) if pattern.name else route, route


def urlconf_routes() -> dict[str, str]:
    """{key: route}: the URL name, or the route itself for an unnamed pattern."""
    routes = dict(_walk(get_resolver()))
    assert len(routes) == len(list(_walk(get_resolver()))), "two patterns share a key"
    return routes


def asgi_routes() -> list[str]:
    """Routes agentops/asgi.py serves before Django's handler (not in the URLconf)."""
    router = application.application_mapping["http"]
    while not hasattr(
        router, "routes"
    ):  # through middleware (body limits) to the URLRouter
        router = router.app
    return [
        str(p.pattern) for p in router.routes if str(p.pattern) not in {"", "^", ".*"}
    ]


# --- the callers -------------------------------------------------------------------------------

ANON = "anonymous"
B_USER, B_TOKEN = "tenant-b user", "tenant-b token"
STAFF = "staff"
A_ROLES = [Role.VIEWER, Role.RESPONDER, Role.APPROVER, Role.ADMIN]
A_SESSIONS = [f"a {role} session" for role in A_ROLES]
A_TOKENS = [f"a {role} token" for role in A_ROLES]
CALLERS = [ANON, B_USER, B_TOKEN, STAFF, *A_SESSIONS, *A_TOKENS]


def _a(role: str) -> list[str]:
    return [f"a {role} session", f"a {role} token"]


@dataclass(frozen=True)
class Caller:
    name: str
    user: object | None = None
    token: str | None = None


# --- expected answers ------------------------------------------------------------------------
# Each kind maps every caller to the set of statuses it may get. Page and admin callers that
# come with a token only are anonymous to Django's session auth (both answer a login redirect).

LOGIN = {302}  # to settings.LOGIN_URL or the admin login


def _table(default: set[int], **by_group: set[int]) -> dict[str, set[int]]:
    groups = {  # applied in the order given: a later group overrides an earlier one
        "anon": [ANON],
        "b_user": [B_USER],
        "b_token": [B_TOKEN],
        "staff": [STAFF],
        "tokens": [B_TOKEN, *A_TOKENS],
        "viewer": _a(Role.VIEWER),
        "responder": _a(Role.RESPONDER),
        "approver": _a(Role.APPROVER),
        "admin": _a(Role.ADMIN),
    }
    table = dict.fromkeys(CALLERS, default)
    for group, statuses in by_group.items():
        for caller in groups[group]:
            table[caller] = statuses
    return table


def _api(a_ok: set[int], *, viewer: set[int], responder: set[int], b: set[int]):
    """An API operation: 401 anonymous, `b` for tenant B, 403 for a session with no tenant."""
    return _table(
        a_ok,
        anon={401},
        b_user=b,
        b_token=b,
        staff={403},
        viewer=viewer,
        responder=responder,
    )


def _page(a_ok: set[int], *, viewer: set[int], responder: set[int], b: set[int]):
    """A page: login redirect without a session; 404 for a user of no tenant (views._principal)."""
    return _table(
        a_ok,
        anon=LOGIN,
        b_user=b,
        staff={404},
        viewer=viewer,
        responder=responder,
        tokens=LOGIN,  # last: a token is no session, whatever its role
    )


PUBLIC_OK = _table({200})
API_405 = _table({405})  # method checked before authentication
PAGE_405 = _table({405}, anon=LOGIN, tokens=LOGIN)  # login_required wraps require_*
API_READ = _api({200}, viewer={200}, responder={200}, b={404})
API_READ_OWN = _api({200}, viewer={200}, responder={200}, b={200})  # B sees only B's
API_WRITE = _api({202}, viewer={403}, responder={202}, b={404})
API_CREATE = _api({201}, viewer={403}, responder={201}, b={201})  # B creates in B
# The incident already has an active task: 409 once past authentication, scope and tenant.
API_RERUN = _api({409}, viewer={403}, responder={409}, b={404})
API_DECIDE = _api({200}, viewer={403}, responder={403}, b={404})
API_COORDINATE = _api({200}, viewer={403}, responder={200}, b={404})
API_NOTE = _api({201}, viewer={403}, responder={201}, b={404})
# alerts:write is the admin role's: tenant B's admin opens B's own incident.
API_ALERTS = _table(
    {201}, anon={401}, staff={403}, viewer={403}, responder={403}, approver={403}
)
PAGE_READ = _page({200}, viewer={200}, responder={200}, b={404})
PAGE_LIST = _page({200}, viewer={200}, responder={200}, b={200})
PAGE_CREATE = _page(
    {302}, viewer={404}, responder={302}, b={302}
)  # to the new incident
PAGE_WRITE = _page({200}, viewer={404}, responder={200}, b={404})
PAGE_DECIDE = _page({200}, viewer={403}, responder={403}, b={404})
# The coordination forms without htmx: back to the page.
PAGE_COORDINATE = _page({302}, viewer={404}, responder={302}, b={404})
# The walk's task is parked, not finished: feedback is refused with the form's errors.
PAGE_FEEDBACK = _page({400}, viewer={404}, responder={400}, b={404})
# The admin role's page; tenant B's admin sees B's own figures.
PAGE_ADMIN = _table(
    {200},
    anon=LOGIN,
    b_user={200},
    staff={404},
    viewer={403},
    responder={403},
    approver={403},
    tokens=LOGIN,
)
PAGE_ADMIN_400 = {
    caller: ({400} if statuses == {200} else statuses)
    for caller, statuses in PAGE_ADMIN.items()
}
# Django admin is for staff (operators across tenants); a tenant role, even admin, is not staff.
ADMIN = _table(LOGIN, staff={200})
ADMIN_OBJECT = _table(
    LOGIN, staff={200, 302}
)  # 302 to the index for a row of another model
ADMIN_ADD_READONLY = _table(LOGIN, staff={403})
ADMIN_POST_READONLY = _table(LOGIN, staff={403})
ADMIN_LOGOUT = _table({200, 302})
ADMIN_LOGIN = _table({200}, staff={302})  # staff already logged in: to the index
ACCOUNTS_POST = _table({200})  # re-rendered form with errors (empty body)
SESSION_ONLY = _table({200}, anon=LOGIN, tokens=LOGIN)
SSE = _table({204}, anon={401}, b_user={404}, b_token={404}, staff={401})

_API_METHODS = ("GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE")
_PAGE_METHODS = ("GET", "OPTIONS", "POST", "DELETE")


def _api_route(**served: dict[str, set[int]]) -> dict[str, dict[str, set[int]]]:
    """Served methods as given; every other method a JSON 405."""
    return {m: served.get(m.lower(), API_405) for m in _API_METHODS}


def _page_route(**served: dict[str, set[int]]) -> dict[str, dict[str, set[int]]]:
    return {m: served.get(m.lower(), PAGE_405) for m in _PAGE_METHODS}


READONLY_MODELS = [
    "incident",
    "diagnosistask",
    "taskevent",
    "toolcallspan",
    "approval",
    "idempotencyrecord",
    "webhookdelivery",
]
EDITABLE_MODELS = [
    "auth_group",
    "auth_user",
    "diagnosis_tenant",
    "diagnosis_membership",
    "diagnosis_webhooktarget",
]


def _admin_entries() -> dict[str, dict[str, dict[str, set[int]]]]:
    entries: dict[str, dict[str, dict[str, set[int]]]] = {
        "admin:index": {"GET": ADMIN},
        "admin:login": {"GET": ADMIN_LOGIN},
        "admin:logout": {"POST": ADMIN_LOGOUT},
        "admin:password_change": {"GET": ADMIN},
        "admin:password_change_done": {"GET": ADMIN},
        "admin:autocomplete": {"GET": _table(LOGIN, staff={403})},  # no params
        "admin:jsi18n": {"GET": ADMIN},
        "admin:view_on_site": {"GET": _table(LOGIN, staff={404})},
        "admin:app_list": {"GET": ADMIN},
        "admin/(?P<url>.*)$": {"GET": _table(LOGIN, staff={404})},
    }
    models = [f"diagnosis_{m}" for m in READONLY_MODELS] + EDITABLE_MODELS
    models.append("diagnosis_apitoken")
    for model in models:
        readonly = model.removeprefix("diagnosis_") in READONLY_MODELS
        add_forbidden = readonly or model == "diagnosis_apitoken"
        prefix = f"admin/{model.replace('_', '/', 1)}/"
        entries[f"admin:{model}_changelist"] = {"GET": ADMIN}
        entries[f"admin:{model}_add"] = {
            "GET": ADMIN_ADD_READONLY if add_forbidden else ADMIN
        }
        for view in ("history", "delete", "change"):
            entries[f"admin:{model}_{view}"] = {"GET": ADMIN_OBJECT}
        entries[f"{prefix}<path:object_id>/"] = {"GET": ADMIN_OBJECT}
        if readonly:  # read-only admins refuse a change POST
            entries[f"admin:{model}_change"]["POST"] = ADMIN_POST_READONLY
    entries["admin:auth_user_password_change"] = {"GET": ADMIN_OBJECT}
    return entries


EXPECTED: dict[str, dict[str, dict[str, set[int]]]] = {
    # The JSON API
    "api:incidents": _api_route(get=API_READ_OWN, post=API_CREATE),
    "api:incidents-demo": _api_route(post=API_CREATE),
    "api:environments": _api_route(get=API_READ_OWN),
    "api:incident": _api_route(get=API_READ),
    "api:incident-diagnoses": _api_route(post=API_RERUN),
    "api:incident-cancel": _api_route(post=API_WRITE),
    "api:task": _api_route(get=API_READ),
    "api:task-cancel": _api_route(post=API_WRITE),
    "api:task-trace": _api_route(get=API_READ),
    "api:task-span": _api_route(get=API_READ),
    "api:task-report": _api_route(get=API_READ),
    "api:approval-decision": _api_route(post=API_DECIDE),
    "api:incident-status": _api_route(post=API_COORDINATE),
    "api:incident-severity": _api_route(post=API_COORDINATE),
    "api:incident-owner": _api_route(post=API_COORDINATE),
    "api:incident-notes": _api_route(post=API_NOTE),
    "api:incident-timeline": _api_route(get=API_READ),
    "api:alerts-alertmanager": _api_route(post=API_ALERTS),
    "api:alerts-pagerduty": _api_route(post=API_ALERTS),
    "api:openapi": _api_route(get=PUBLIC_OK),
    "healthz": _api_route(get=PUBLIC_OK),
    "readyz": _api_route(get=PUBLIC_OK),
    # No METRICS_TOKEN nor METRICS_ALLOWED_IPS in the tests' settings: nobody may scrape.
    "metrics": _api_route(get=_table({403})),
    # Pages and their htmx fragments
    "diagnosis:incident-list": _page_route(get=PAGE_LIST, post=PAGE_CREATE),
    "diagnosis:incident-demo": _page_route(post=PAGE_CREATE),
    # One field checked, nothing written: tenant B's admin checks against B's own rules.
    "diagnosis:incident-validate": _page_route(
        post=_page({200}, viewer={404}, responder={200}, b={200})
    ),
    "diagnosis:incident-detail": _page_route(get=PAGE_READ),
    "diagnosis:incident-cancel": _page_route(post=PAGE_WRITE),
    "diagnosis:incident-rerun": _page_route(post=PAGE_WRITE),
    "diagnosis:approval-decide": _page_route(post=PAGE_DECIDE),
    "diagnosis:incident-status": _page_route(post=PAGE_COORDINATE),
    "diagnosis:incident-severity": _page_route(post=PAGE_COORDINATE),
    "diagnosis:incident-owner": _page_route(post=PAGE_COORDINATE),
    "diagnosis:incident-notes": _page_route(post=PAGE_COORDINATE),
    "diagnosis:task-parts": _page_route(get=PAGE_READ),
    "diagnosis:task-steer": _page_route(post=PAGE_WRITE),
    "diagnosis:incident-steer": _page_route(post=PAGE_FEEDBACK),
    "diagnosis:task-trace": _page_route(get=PAGE_READ),
    "diagnosis:task-feedback": _page_route(post=PAGE_FEEDBACK),
    "diagnosis:operations": _page_route(get=PAGE_ADMIN),
    # The walk names no server and carries no state: the admin's page saying why (400).
    "diagnosis:oauth-connect": _page_route(post=PAGE_ADMIN_400),
    "diagnosis:oauth-callback": _page_route(get=PAGE_ADMIN_400),
    "diagnosis:span-artifact": _page_route(get=_table({404}, anon=LOGIN, tokens=LOGIN)),
    # The walk posts no tenant: the form's 400, for a staff user of no tenant too.
    "diagnosis:tenant-switch": _page_route(
        post=_table({400}, anon=LOGIN, tokens=LOGIN)
    ),
    # django.contrib.auth's views
    "login": {"GET": PUBLIC_OK, "POST": ACCOUNTS_POST},
    "logout": {"GET": _table({405}), "POST": _table({302})},  # to LOGOUT_REDIRECT_URL
    "password_change": {"GET": SESSION_ONLY, "POST": SESSION_ONLY},
    "password_change_done": {"GET": SESSION_ONLY},
    "password_reset": {"GET": PUBLIC_OK, "POST": ACCOUNTS_POST},
    "password_reset_done": {"GET": PUBLIC_OK},
    "password_reset_confirm": {"GET": PUBLIC_OK},
    "password_reset_complete": {"GET": PUBLIC_OK},
    **_admin_entries(),
}
ASGI_EXPECTED = {"api/tasks/<uuid:task_id>/events": {"GET": SSE, "POST": API_405}}


# --- the objects and the requests ------------------------------------------------------------


def _objects(tenant) -> dict[str, str]:
    incident, task = factories.make_incident(tenant, title=SECRET_TITLE)
    approval = factories.park_on_approval(task)
    return {
        "incident_id": str(incident.pk),
        "task_id": str(task.pk),
        "approval_id": str(approval.pk),
        # Its result is inline: the artifact download is a 404 (test_views_artifact serves one).
        "span_id": factories.make_span(task).span_id,
        "object_id": str(incident.pk),
        "id": str(tenant.memberships.first().user_id),
        "content_type_id": "1",
        "uidb64": "MQ",
        "token": "set-password",
        "app_label": "diagnosis",
        "url": "no-such-page/",
    }


def _fill(route: str, objects: dict[str, str]) -> str:
    """The path of `route` with every parameter (converter or regex group) filled."""

    path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: objects[m.group(1)], route)
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: objects[m.group(1)], path)
    return "/" + path.replace("^", "").replace("$", "")


ALERT_FIXTURES = Path(__file__).resolve().parent / "intake" / "fixtures"
# A demo environment of the bundled registry (every tenant may use it).
DEMO = demo_environment_name("tls-expired")
BODIES = {
    "api:incidents": {"title": "b's own", "service": "db", "severity": "sev2"},
    "api:incidents-demo": {"environment": DEMO},
    "api:approval-decision": {"decision": "approve"},
    "api:incident-status": {"status": "acknowledged"},
    "api:incident-severity": {"severity": "sev1"},
    "api:incident-owner": {"owner": "me"},
    "api:incident-notes": {"text": "on it"},
    "api:alerts-alertmanager": json.loads(
        (ALERT_FIXTURES / "alertmanager-1-firing.json").read_text()
    ),
    "api:alerts-pagerduty": json.loads(
        (ALERT_FIXTURES / "pagerduty-trigger.json").read_text()
    ),
}
FORMS = {
    "diagnosis:incident-list": {
        "title": "t",
        "service": "s",
        "severity": "sev2",
        "environment": "default",
    },
    "diagnosis:incident-demo": {"environment": DEMO},
    "diagnosis:incident-validate": {"field": "title", "title": ""},
    "diagnosis:approval-decide": {"decision": "approve", "reason": ""},
    "diagnosis:task-feedback": {"verdict": "right", "comment": ""},
    "diagnosis:incident-status": {"status": "acknowledged"},
    "diagnosis:incident-severity": {"severity": "sev1"},
    "diagnosis:incident-owner": {"owner": "me"},
    "diagnosis:incident-notes": {"text": "on it"},
    "diagnosis:task-steer": {"note": "look at the ledger"},
    "diagnosis:incident-steer": {"note": "look at the ledger"},
}


def _callers(tenant, other_tenant) -> dict[str, Caller]:
    callers = {ANON: Caller(ANON)}
    b = factories.make_member(other_tenant, role=Role.ADMIN)
    factories.make_incident(other_tenant)
    callers[B_USER] = Caller(B_USER, user=b.user)
    callers[B_TOKEN] = Caller(B_TOKEN, token=factories.make_token(b, scopes=ALL_SCOPES))
    staff = get_user_model().objects.create_superuser("operator", password="pw-123456")
    callers[STAFF] = Caller(STAFF, user=staff)
    for role in A_ROLES:
        member = factories.make_member(tenant, role=role)
        session, token = _a(role)
        callers[session] = Caller(session, user=member.user)
        callers[token] = Caller(token, token=factories.make_token(member))
    return callers


def _client(caller: Caller) -> Client:
    client = Client()
    if caller.user is not None:
        client.force_login(caller.user)
    return client


def _request(client: Client, caller: Caller, key: str, method: str, path: str):
    headers = {"Authorization": f"Bearer {caller.token}"} if caller.token else {}
    if key.startswith("api:"):
        return client.generic(
            method,
            path,
            data=json.dumps(BODIES.get(key, {})),
            content_type="application/json",
            headers=headers,
        )
    if method == "POST":
        return client.post(path, FORMS.get(key, {}), headers=headers)
    return client.generic(method, path, headers=headers)


# Routes whose answers carry no caller's data; every other answer is `private, no-store`.
PUBLIC_KEYS = {"healthz", "readyz", "metrics"}


def test_the_table_covers_every_route_and_only_routes_that_exist():
    routes = urlconf_routes()
    assert sorted(set(routes) - set(EXPECTED)) == [], "routes the walk does not cover"
    assert sorted(set(EXPECTED) - set(routes)) == [], "entries for routes that are gone"
    assert sorted(asgi_routes()) == sorted(ASGI_EXPECTED)
    for methods in [*EXPECTED.values(), *ASGI_EXPECTED.values()]:
        for table in methods.values():
            assert sorted(table) == sorted(CALLERS)


@pytest.mark.fault("Every URLconf route, every method, as each caller", kind="limit")
@pytest.mark.parametrize("who", CALLERS)
def test_walk_every_urlconf_route(tenant, other_tenant, who, reliability_record):
    caller = _callers(tenant, other_tenant)[who]
    objects = _objects(tenant)
    secrets = {SECRET_TITLE, objects["incident_id"], objects["task_id"]}
    failures = []
    client = _client(caller)
    for key, route in urlconf_routes().items():
        path = _fill(route, objects)
        for method, table in EXPECTED[key].items():
            with transaction.atomic():
                response = _request(client, caller, key, method, path)
                transaction.set_rollback(True)
            if key.endswith("logout"):
                client = _client(caller)  # a fresh session for what follows
            status = response.status_code
            if status not in table[who]:
                failures.append(f"{method} {path} ({key}): {status}, want {table[who]}")
            if status == 302 and table[who] is LOGIN:
                login = (
                    "/admin/login/" if key.startswith("admin") else settings.LOGIN_URL
                )
                if not response["Location"].startswith(login):
                    failures.append(f"{method} {path}: to {response['Location']}")
            directives = {
                d.strip().split("=")[0].lower()
                for d in response.get("Cache-Control", "").split(",")
            }
            if key not in PUBLIC_KEYS and not {"private", "no-store"} <= directives:
                failures.append(
                    f"{method} {path}: Cache-Control {response.get('Cache-Control')!r}"
                )
            body = b"".join(response) if response.streaming else response.content
            if who in (B_USER, B_TOKEN) and 200 <= status < 300:
                leaked = [s for s in secrets if s.encode() in body]
                if leaked:
                    failures.append(f"{method} {path}: tenant B sees {leaked}")
    assert not failures, "\n".join(failures)
    reliability_record(
        observed="every answer was the expected one (refusal, login redirect or own-tenant "
        "data) and, but the public probes', Cache-Control: private, no-store; no 2xx to "
        "another tenant mentioned tenant A's rows",
        figures={
            "callers": len(CALLERS),
            "requests": sum(len(methods) for methods in EXPECTED.values()),
            "unexpected": 0,
        },
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("who", CALLERS)
def test_walk_the_asgi_routes(tenant, other_tenant, who):
    """The SSE route: a finished task with the cursor at its end, so 204 once let through."""

    def setup():
        _incident, task = factories.make_incident(tenant)
        finish(task)
        task.refresh_from_db()
        return task, _callers(tenant, other_tenant)[who]

    task, caller = async_to_sync(database_sync_to_async(setup))()
    headers = [(b"last-event-id", str(task.last_seq).encode())]
    if caller.token:
        headers += bearer(caller.token)
    if caller.user is not None:

        def cookie():
            browser = Client()
            browser.force_login(caller.user)
            return browser.cookies[settings.SESSION_COOKIE_NAME].value

        value = async_to_sync(database_sync_to_async(cookie))()
        headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={value}".encode()))
    for route, methods in ASGI_EXPECTED.items():
        assert route == "api/tasks/<uuid:task_id>/events"
        for method, table in methods.items():
            client = StreamClient(application, task.pk, headers=headers, method=method)
            status = async_to_sync(client.start)()
            assert status in table[who], (method, route, who, status)
    assert uuid.UUID(str(task.pk))
