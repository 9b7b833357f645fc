"""Issue 21 class 4, a quiet change: no service logs an error of its own, and a setting, config or
rule changed before the incident is the cause, cited by its change line (reasoning/layered/quiet_changes.py).

Names and wordings are invented: an nginx proxy_cache rule, a JDBC URL moved to a far replica, a
password-hash iteration count raised, a connection pool shrunk; the logs server's shape is its own.
"""

import pytest

from reasoning.layered import quiet_changes
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.layered.quiet_changes import SEARCH, follow_query, spelling, terms
from reasoning.observations import Observation
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    SLOW,
    group,
    logged,
    run_with_schemas,
)


def _lines(*entries):
    return [
        {"service": s, "time": t, "level": level, "message": m, "labels": {}}
        for s, t, m, level in entries
    ]


class ChangeWorld(World):
    """A World whose every-service searches answer by query: the change search, the follow-up."""

    def __init__(self, answers, changes=(), touched=()):
        super().__init__(answers)
        self.changes = _lines(*changes)
        self.touched = _lines(*touched)
        self.queries = []

    def answer(self, call, span_id):
        if call.tool != "search_logs" or call.arguments.get("service"):
            return super().answer(call, span_id)
        query = call.arguments.get("query", "")
        self.queries.append(query)
        found = []
        if query == SEARCH:
            found = self.changes
        elif call.arguments.get("limit") == quiet_changes.FOLLOW_LIMIT:
            found = self.touched
        return Observation(
            span_id=span_id,
            agent=call.agent,
            server=call.server,
            tool=call.tool,
            arguments=call.arguments,
            is_ok=True,
            result={"lines": found},
        )


def _slow_service_world(service, caller, caller_error, changes, touched=()):
    return ChangeWorld(
        {
            ("service_health", caller): health(caller, "unhealthy", FAILING),
            ("top_errors", caller): logged(
                caller, errors=[group(caller_error, count=300)]
            ),
            ("service_health", service): health(service, "degraded", SLOW),
            ("top_errors", service): logged(
                service,
                warnings=[group(f"request GET /v2/items took 4210ms on {service}")],
            ),
        },
        changes=changes,
        touched=touched,
    )


@pytest.mark.rule("board.quiet-changes")
def test_a_jdbc_url_moved_to_a_far_replica_is_a_connect_fault_of_the_service_cited_by_its_change():
    far = "ledger-ro.ap-southeast-2.db.internal"
    world = _slow_service_world(
        "ledger-api",
        "statement-web",
        "GET http://ledger-api/v2/items timed out after 3000ms",
        changes=[
            (
                "config-agent",
                "2030-01-01T10:09:00Z",
                f"ledger-api: spring.datasource.reader.url changed to jdbc:postgresql://{far}:5432/ledger",
                "info",
            )
        ],
        touched=[
            (
                "ledger-api",
                "2030-01-01T10:11:00Z",
                f"opened 8 connections to {far}:5432",
                "info",
            )
        ],
    )

    _, _, report = run_with_schemas(
        world,
        incident("statement-web", "statements slow", title="statements slow"),
        names=NO_NETCHECK,
    )

    top = report.top
    assert top.id == "connect:ledger-api" and top.status == "confirmed"
    cited = " ".join(e.fact for e in top.evidence)
    assert far in cited and "changed to" in cited
    app = next(h for h in report.hypotheses if h.id == "application:ledger-api")
    assert app.confidence < top.confidence and "a symptom of" in app.statement
    assert SEARCH in world.queries


@pytest.mark.rule("board.quiet-changes")
def test_a_raised_hash_iteration_count_is_the_slow_services_own_cause_cited_by_its_change():
    world = _slow_service_world(
        "vault-login",
        "portal-gw",
        "POST /session 504: vault-login did not answer within 4000ms",
        changes=[
            (
                "settings-hub",
                "2030-01-01T09:05:00Z",
                "vault-login: PASSWORD_HASH_ITERATIONS raised from 27500 to 600000",
                "info",
            )
        ],
        touched=[
            (
                "vault-login",
                "2030-01-01T10:30:00Z",
                "upgrading stored hash for account 77: password hash iterations now 600000",
                "info",
            )
        ],
    )

    _, _, report = run_with_schemas(
        world, incident("portal-gw", "login hangs"), names=NO_NETCHECK
    )

    top = report.top
    assert top.id == "application:vault-login" and top.status == "confirmed"
    assert "PASSWORD_HASH_ITERATIONS" in top.statement
    assert any("raised from 27500 to 600000" in e.fact for e in top.evidence)


@pytest.mark.rule("board.quiet-changes")
def test_a_dotted_property_name_is_a_setting_not_a_host_the_path_moved_to():
    # `worker.http.threads.max` reads like a host name; the change sets a number, not where to connect.
    world = _slow_service_world(
        "rates-svc",
        "quote-web",
        "GET http://rates-svc/v1/rates timed out after 2000ms",
        changes=[
            (
                "config-agent",
                "2030-01-01T10:04:00Z",
                "rates-svc: property worker.http.threads.max changed 200 -> 12",
                "info",
            )
        ],
    )

    _, _, report = run_with_schemas(
        world, incident("quote-web", "quotes slow"), names=NO_NETCHECK
    )

    assert report.top.id == "application:rates-svc"
    assert not any(h.layer == "connect" for h in report.hypotheses)


@pytest.mark.rule("board.quiet-changes")
def test_a_change_does_not_outrank_a_fault_already_confirmed_on_the_network_path():
    world = _slow_service_world(
        "ledger-api",
        "statement-web",
        "GET http://ledger-api/v2/items timed out after 3000ms",
        changes=[
            (
                "config-agent",
                "2030-01-01T10:09:00Z",
                "ledger-api: spring.datasource.reader.url changed to "
                "jdbc:postgresql://ledger-ro.far.db.internal:5432/ledger",
                "info",
            )
        ],
        touched=[
            (
                "ledger-api",
                "2030-01-01T10:11:00Z",
                "opened 8 connections to ledger-ro.far.db.internal:5432",
                "info",
            )
        ],
    )
    inv, _, _ = run_with_schemas(
        world,
        incident("statement-web", "statements slow", title="statements slow"),
        names=NO_NETCHECK,
    )
    board = Board(inv, Facts.read(inv.observations))
    vendor = board.get("http", "api.rates-vendor.example", "the vendor limits us (429)")
    vendor.status, vendor.confidence = "confirmed", 0.86

    quiet_changes.quiet_changes(board)

    assert "connect:ledger-api" not in board.candidates


@pytest.mark.rule("board.quiet-changes")
def test_a_pool_size_lowered_by_the_service_itself_is_its_cause():
    world = _slow_service_world(
        "order-svc",
        "checkout-bff",
        "POST http://order-svc/orders timed out after 2500ms",
        changes=[
            (
                "order-svc",
                "2030-01-01T10:02:00Z",
                "applied settings: db.pool.maxSize 50 -> 5",
                "info",
            )
        ],
    )

    _, _, report = run_with_schemas(
        world, incident("checkout-bff", "orders slow"), names=NO_NETCHECK
    )

    top = report.top
    assert top.id == "application:order-svc" and top.status == "confirmed"
    assert any("db.pool.maxSize 50 -> 5" in e.fact for e in top.evidence)


@pytest.mark.rule("board.quiet-changes")
def test_an_nginx_cache_rule_for_personal_pages_is_an_http_fault_named_by_what_its_lines_touch():
    world = ChangeWorld(
        {
            ("service_health", "profile-web"): health("profile-web", "healthy"),
            ("top_errors", "profile-web"): logged("profile-web"),
        },
        changes=[
            (
                "edge-nginx",
                "2030-01-01T10:04:00Z",
                "config reloaded: proxy_cache acct_cache added for location /account (key $host$uri, no cookie)",
                "info",
            )
        ],
        touched=[
            (
                "edge-nginx",
                "2030-01-01T10:40:00Z",
                "GET /account/profile 200 upstream_cache_status=HIT zone=acct_cache",
                "info",
            )
        ],
    )

    _, _, report = run_with_schemas(
        world,
        incident("profile-web", "users see other people's profile"),
        names=NO_NETCHECK,
    )

    top = report.top
    assert top.id == "http:acct_cache" and top.status == "confirmed"
    cited = " ".join(e.fact for e in top.evidence)
    assert "proxy_cache acct_cache added" in cited and "cache_status=HIT" in cited


@pytest.mark.rule("board.quiet-changes")
def test_a_service_with_its_own_new_error_is_not_a_quiet_incident():
    world = _slow_service_world(
        "order-svc",
        "checkout-bff",
        "POST http://order-svc/orders timed out after 2500ms",
        changes=[
            (
                "order-svc",
                "2030-01-01T10:02:00Z",
                "applied settings: db.pool.maxSize 50 -> 5",
                "info",
            )
        ],
    )
    world.answers[("top_errors", "order-svc")] = logged(
        "order-svc", errors=[group("NullPointerException in OrderMapper.map")]
    )

    _, _, report = run_with_schemas(
        world, incident("checkout-bff", "orders slow"), names=NO_NETCHECK
    )

    assert report.top.id == "application:order-svc"
    assert not any("applied settings" in e.fact for e in report.top.evidence)


@pytest.mark.rule("board.quiet-changes")
def test_a_change_nothing_moved_after_is_no_cause():
    world = _slow_service_world(
        "order-svc",
        "checkout-bff",
        "POST http://order-svc/orders timed out after 2500ms",
        changes=[
            (
                "flag-board",
                "2030-01-01T10:02:00Z",
                "feature flag dark_mode enabled for 10% of users",
                "info",
            )
        ],
    )

    _, _, report = run_with_schemas(
        world, incident("checkout-bff", "orders slow"), names=NO_NETCHECK
    )

    assert SEARCH in world.queries
    assert report.top.id == "application:order-svc"
    assert not any("dark_mode" in e.fact for e in report.top.evidence)


@pytest.mark.rule("board.quiet-changes")
def test_what_a_change_touched_is_searched_in_any_spelling():
    assert terms("auth: property LOGIN_HASH_COST changed 11 -> 13") == [
        "LOGIN_HASH_COST"
    ]
    assert terms("cdn: behaviour added with cache policy short-ttl on X9K2M4Q7P1ZZ")[
        -2:
    ] == ["X9K2M4Q7P1ZZ", "short-ttl"]
    assert spelling("LOGIN_HASH_COST") == "LOGIN[ _.-]?HASH[ _.-]?COST"
    assert spelling("hash cost") == "hash[ _.-]?cost"


@pytest.mark.rule("board.quiet-changes")
def test_an_infrastructure_resource_addresses_type_is_not_what_it_touched():
    # `<type>.<name>` of a Terraform/OpenTofu apply: the resource's name, never its kind.
    touched = terms("apply eu-3: helm_release.edge_proxy created (values from prod)")
    assert "edge_proxy" in touched and "helm_release" not in touched
    touched = terms("google_dns_record_set.api_public: Destroying... [id=x]")
    assert "api_public" in touched and "google_dns_record_set" not in touched
    # A dotted setting key is not a resource address.
    assert terms("config reloaded: acct_cache.ttl=30 -> 5")[0] == "acct_cache.ttl"


@pytest.mark.rule("board.quiet-changes")
@pytest.mark.timeout(60)
def test_change_lines_are_read_in_linear_time():
    # Ten times the size a quadratic read already takes seconds on; bounded by the timeout, not by
    # a wall-clock assertion that flakes on a loaded machine.
    hostile = "A_" * 100_000 + " " + "a." * 100_000 + "x -> y " + "Z9" * 100_000
    terms(hostile)
    quiet_changes._CHANGE.search(hostile)


def test_the_follow_up_names_no_term_without_a_change_line():
    class Inv:
        observations: list = []

    assert follow_query(Inv()) is None  # type: ignore[arg-type]


@pytest.mark.rule("board.quiet-changes")
def test_a_measured_size_going_from_one_value_to_another_is_no_change_line():
    obs = Observation(
        span_id="q1",
        agent="a",
        server="logs",
        tool="search_logs",
        arguments={"query": SEARCH, "regex": True},
        is_ok=True,
        result={
            "lines": _lines(
                (
                    "ledger-svc",
                    "2030-01-01T10:01:00Z",
                    "[gc] GC(77) Pause Full (Allocation Failure) 1.9G->1.7G(2G) 880.1ms",
                    "info",
                ),
                (
                    "ledger-svc",
                    "2030-01-01T10:01:30Z",
                    "heap compacted 812MiB => 240MiB in 12ms",
                    "info",
                ),
                (
                    "ledger-svc",
                    "2030-01-01T10:02:00Z",
                    "config reloaded: ledger.cache.max=512MB -> 64MB",
                    "info",
                ),
            )
        },
    )

    class Inv:
        observations = [obs]

    found = [c.message for c in quiet_changes.change_lines(Inv())]  # type: ignore[arg-type]
    assert found == ["config reloaded: ledger.cache.max=512MB -> 64MB"]


@pytest.mark.rule("board.quiet-changes")
def test_a_monitors_reading_of_a_path_is_no_change_but_a_setting_moved_by_an_arrow_is():
    from reasoning.observations import Investigation

    inv = Investigation(incident=incident("basket-api", "slow"), tools=[])
    inv.observations.append(
        Observation(
            span_id="c1",
            agent="logs",
            server="logbook",
            tool="search_logs",
            arguments={"query": SEARCH, "regex": True},
            is_ok=True,
            result={
                "lines": _lines(
                    (
                        "linkwatch",
                        "2030-01-01T10:20:00Z",
                        "basket-api → stock-db.corp:6432 latency p99 8.4 ms (was 0.7 ms)",
                        "warn",
                    ),
                    (
                        "linkwatch",
                        "2030-01-01T10:21:00Z",
                        "basket-api -> cache-2 ping 3 ms",
                        "info",
                    ),
                    (
                        "deployer",
                        "2030-01-01T10:10:00Z",
                        "basket-api pool.max_size 40 -> 4",
                        "info",
                    ),
                )
            },
        )
    )

    found = [c.message for c in quiet_changes.change_lines(inv)]
    assert found == ["basket-api pool.max_size 40 -> 4"]
