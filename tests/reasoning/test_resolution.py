"""Service resolution: each rule on its own (table-driven), names that must not resolve, what the
observations make known, and the planner's survey when a name resolves to nothing."""

import asyncio
import dataclasses

import pytest

from reasoning.layered import LayeredPlanner
from reasoning.layered.facts import Facts
from reasoning.layered.resolution import (
    Known,
    incident_labels,
    known_names,
    resolve,
)
from reasoning.layered.survey import ERRORS, REQUESTS
from reasoning.observations import Investigation, Observation
from tests.reasoning.kubernetes.answers import NS, describe, listing
from tests.reasoning.test_planner import (
    World,
    errors,
    health,
    incident,
    targets,
    tool_infos,
)


def known(*services, labels=(), routes=(), hosts=None):
    data = Known(labels=list(labels), routes=list(routes), hosts=dict(hosts or {}))
    for name in services:
        data.add(name, "metrics")
    return data


# (case, name, what the data knows, the alert's labels, expected service, expected method)
RESOLVED = [
    ("exact", "checkout", known("checkout", "checkout-api"), {}, "checkout", "exact"),
    (
        "exact ignores case",
        "Checkout",
        known("checkout"),
        {},
        "checkout",
        "exact",
    ),
    (
        "a dashboard label's spelling",
        "Ledger API",
        known("ledger-api", "ledger-worker"),
        {},
        "ledger-api",
        "spelling",
    ),
    (
        "underscores for hyphens",
        "stock_sync",
        known("stock-sync", "stock"),
        {},
        "stock-sync",
        "spelling",
    ),
    (
        "a label's words, then a suffix dropped",
        "Invoice Service",
        known("invoice", "billing-api"),
        {},
        "invoice",
        "affix",
    ),
    (
        "alert label job",
        "shop",
        known("checkout-api", "fraud"),
        {"job": "checkout-api"},
        "checkout-api",
        "alert_label",
    ),
    (
        "alert label service beats app",
        "shop",
        known("checkout-api", "fraud"),
        {"app": "fraud", "service": "checkout-api"},
        "checkout-api",
        "alert_label",
    ),
    (
        "kubernetes app label",
        "checkout",
        known(
            "checkout-api",
            labels=[("app", "checkout", "checkout-api", "orders")],
        ),
        {},
        "checkout-api",
        "kubernetes_label",
    ),
    (
        "app.kubernetes.io/name before app",
        "web",
        known(
            "storefront",
            "legacy-web",
            labels=[
                ("app", "web", "legacy-web", "shop"),
                ("app.kubernetes.io/name", "web", "storefront", "shop"),
            ],
        ),
        {},
        "storefront",
        "kubernetes_label",
    ),
    (
        "the alert's namespace picks the labelled workload",
        "web",
        known(
            "storefront",
            "shop-web",
            labels=[
                ("app", "web", "storefront", "shop"),
                ("app", "web", "shop-web", "staging"),
            ],
        ),
        {"namespace": "shop"},
        "storefront",
        "kubernetes_label",
    ),
    (
        "ingress path",
        "login",
        known(
            "auth-service",
            "api-gateway",
            routes=[("shop.example.com", "/login", "auth-service")],
        ),
        {},
        "auth-service",
        "ingress",
    ),
    (
        "ingress host",
        "webshop",
        known("frontend", routes=[("webshop.example.com", "/", "frontend")]),
        {},
        "frontend",
        "ingress",
    ),
    (
        "dns name in the logs",
        "payments",
        known(
            "payments-api",
            "payments-gw",
            "checkout",
            hosts={"api.payments.internal": "checkout's logs"},
        ),
        {},
        "payments-api",
        "dns",
    ),
    (
        "suffix -api",
        "checkout",
        known("checkout-api", "checkout-worker"),
        {},
        "checkout-api",
        "affix",
    ),
    ("suffix -svc", "orders", known("orders-svc", "ledger"), {}, "orders-svc", "affix"),
    (
        "suffix -web",
        "storefront",
        known("storefront-web", "inventory"),
        {},
        "storefront-web",
        "affix",
    ),
    (
        "glued suffix",
        "cart",
        known("cartservice", "frontend"),
        {},
        "cartservice",
        "affix",
    ),
    (
        "suffix dropped",
        "checkout-service",
        known("checkout", "fraud"),
        {},
        "checkout",
        "affix",
    ),
    ("prefix", "gateway", known("api-gateway", "ledger"), {}, "api-gateway", "affix"),
    (
        "shared words",
        "order-status",
        known("orders", "payments-api"),
        {},
        "orders",
        "tokens",
    ),
]


@pytest.mark.parametrize(
    ("name", "data", "labels", "service", "method"),
    [case[1:] for case in RESOLVED],
    ids=[case[0] for case in RESOLVED],
)
@pytest.mark.rule(
    "resolve.exact",
    "resolve.spelling",
    "resolve.alert-label",
    "resolve.kubernetes-label",
    "resolve.ingress",
    "resolve.dns",
    "resolve.affix",
    "resolve.tokens",
)
def test_each_rule_resolves_the_name_and_says_how(name, data, labels, service, method):
    resolution = resolve(name, data, labels)

    assert (resolution.service, resolution.method) == (service, method)
    assert resolution.is_resolved and resolution.evidence
    sentence = resolution.sentence()
    assert repr(name) in sentence
    if method != "exact":
        assert repr(service) in sentence and resolution.evidence[0] in sentence


# (case, name, what the data knows, labels, expected method, the candidates that tied)
UNRESOLVED = [
    (
        "nothing like it",
        "login",
        known("auth-service", "api-gateway", "user-profile"),
        {},
        "unresolved",
        (),
    ),
    (
        "a qualifier that is no affix",
        "checkout",
        known("checkout-worker", "fraud"),
        {},
        "unresolved",
        (),
    ),
    ("a generic word alone", "web", known("web-frontend-v2"), {}, "unresolved", ()),
    ("a short stem", "pay", known("payments-api"), {}, "unresolved", ()),
    (
        "an alert label the data does not know",
        "shop",
        known("frontend"),
        {"job": "shop-v1"},
        "unresolved",
        (),
    ),
    (
        "two services spelled with the same words",
        "Ledger API",
        known("ledger-api", "ledger_api"),
        {},
        "ambiguous",
        ("ledger-api", "ledger_api"),
    ),
    (
        "two affixed services",
        "checkout",
        known("checkout-api", "checkout-web"),
        {},
        "ambiguous",
        ("checkout-api", "checkout-web"),
    ),
    (
        "two services share the words",
        "order-status",
        known("orders", "order-api"),
        {},
        "ambiguous",
        ("order-api", "orders"),
    ),
    (
        "one app label on two workloads",
        "web",
        known(
            "storefront",
            "shop-web",
            labels=[
                ("app", "web", "storefront", "shop"),
                ("app", "web", "shop-web", "staging"),
            ],
        ),
        {},
        "ambiguous",
        ("shop-web", "storefront"),
    ),
    (
        "one host routed to two services",
        "shop",
        known(
            "frontend",
            "cartservice",
            routes=[
                ("shop.example.com", "/", "frontend"),
                ("shop.example.com", "/cart", "cartservice"),
            ],
        ),
        {},
        "ambiguous",
        ("cartservice", "frontend"),
    ),
    (
        # A stronger rule's tie is not broken by a weaker rule that happens to find one.
        "a tie is not broken by a weaker rule",
        "checkout",
        known(
            "checkout-api",
            "checkout-web",
            labels=[
                ("app", "checkout", "checkout-api", "a"),
                ("app", "checkout", "checkout-web", "b"),
            ],
        ),
        {},
        "ambiguous",
        ("checkout-api", "checkout-web"),
    ),
]


@pytest.mark.parametrize(
    ("name", "data", "labels", "method", "candidates"),
    [case[1:] for case in UNRESOLVED],
    ids=[case[0] for case in UNRESOLVED],
)
def test_unknown_and_ambiguous_names_do_not_resolve_to_a_wrong_service(
    name, data, labels, method, candidates
):
    resolution = resolve(name, data, labels)

    assert resolution.service is None and not resolution.is_resolved
    assert resolution.method == method
    assert resolution.candidates == candidates
    for candidate in candidates:
        assert candidate in resolution.sentence()


def obs(tool, arguments, result=None, *, error=None):
    return Observation(
        span_id=f"{tool}-{len(str(arguments))}",
        agent="test",
        server="s",
        tool=tool,
        arguments=arguments,
        is_ok=error is None,
        result=result,
        error_layer="tool_backend" if error else None,
        error_message=error,
    )


def metric_series(by_service):
    return {
        "series": [
            {"metric": {"service": s}, "values": [[t, str(v)] for t, v in points]}
            for s, points in by_service.items()
        ]
    }


def test_the_observations_make_names_labels_routes_and_hosts_known():
    ingress_rules = (
        "Name:             shop\n"
        f"Namespace:        {NS}\n"
        "Rules:\n"
        "  Host              Path  Backends\n"
        "  ----              ----  --------\n"
        "  shop.example.com\n"
        "                    /login   auth-service:8080 (10.0.0.1:8080)\n"
        "                    /cart    cartservice:80 (10.0.0.2:8080)\n"
    )
    observations = [
        obs("service_health", {"service": "frontend"}, health("frontend", "degraded")),
        obs("service_health", {"service": "login"}, health("login", "unknown")),
        obs(
            "top_errors",
            {"service": "login"},
            error="no logs for service 'login'; known services: api-gateway, ledger",
        ),
        obs(
            "top_errors",
            {"service": "frontend"},
            errors(
                "frontend",
                "GET /pay failed: dial tcp: lookup api.payments.internal: no such host",
            ),
        ),
        obs(
            "query_metric",
            {"promql": REQUESTS},
            metric_series({"fraud-check": [(1, 2.0)]}),
        ),
        listing(
            "pods",
            ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS"),
            (
                "checkout-api-7d9f8c6b5-abcde",
                "1/1",
                "Running",
                "0",
                "5d",
                "10.0.0.3",
                "w1",
                "app=checkout,pod-template-hash=7d9f8c6b5",
            ),
        ),
        listing(
            "services",
            ("NAME", "TYPE", "CLUSTER-IP", "PORT(S)", "SELECTOR"),
            ("checkout-api", "ClusterIP", "10.1.0.1", "80/TCP", "app=checkout"),
        ),
        listing(
            "ingresses",
            ("NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"),
            ("shop", "nginx", "shop.example.com", "", "80", "5d"),
        ),
        describe("ingress", "shop", ingress_rules),
        obs("list_targets", {}, targets("http://orders.shop.internal:8080/health")),
    ]
    inv = Investigation(
        incident=incident("login"), tools=tool_infos(), observations=observations
    )

    data = known_names(inv, Facts.read(observations))

    assert data.services["frontend"] == ["metrics", "logs"]
    assert "login" not in data.services  # asked about, not known
    assert data.services["api-gateway"] == ["logs"] and "ledger" in data.services
    assert data.services["fraud-check"] == ["metrics"]
    assert "Kubernetes services" in data.services["checkout-api"]
    assert ("app", "checkout", "checkout-api", NS) in data.labels
    assert data.pods == {"checkout-api-7d9f8c6b5-abcde": "checkout-api"}
    assert ("shop.example.com", "/login", "auth-service") in data.routes
    assert ("shop.example.com", "/cart", "cartservice") in data.routes
    assert data.hosts["api.payments.internal"] == "frontend's logs"
    assert data.hosts["orders.shop.internal"] == "a netcheck target"
    assert resolve("login", data).service == "auth-service"
    assert resolve("checkout", data).method == "kubernetes_label"


def test_the_alert_labels_come_from_the_brief_and_from_label_pairs_the_text_quotes():
    brief = incident(
        "shop",
        'firing: {job="checkout-api", namespace="orders"}',
        title="5xx high app=web",
    )
    brief = dataclasses.replace(brief, labels=(("service", "checkout"),))
    inv = Investigation(incident=brief, tools=[])

    assert incident_labels(inv) == {
        "service": "checkout",
        "job": "checkout-api",
        "namespace": "orders",
        "app": "web",
    }


class SurveyWorld(World):
    """The World of test_planner, whose metrics also answer the survey's two queries."""

    def __init__(self, answers, metrics):
        super().__init__(answers)
        self.metrics = metrics

    def answer(self, call, span_id):
        if call.tool != "query_metric":
            return super().answer(call, span_id)
        self.asked.append((call.tool, call.arguments["promql"]))
        return Observation(
            span_id=span_id,
            agent=call.agent,
            server=call.server,
            tool=call.tool,
            arguments=call.arguments,
            is_ok=True,
            # A query the survey does not make (every service's own series) finds nothing here.
            result=metric_series(self.metrics.get(call.arguments["promql"], {})),
        )


def pool_world():
    """checkout exhausts its pool and answers 503; fraud-check is healthy; nobody knows 'webshop'."""
    return SurveyWorld(
        {
            ("service_health", "checkout"): health(
                "checkout",
                "unhealthy",
                [
                    ("error_ratio", "critical", "error ratio 20%"),
                    ("db_pool_utilization", "critical", "db pool 100% in use"),
                ],
            ),
            ("top_errors", "checkout"): errors(
                "checkout",
                "QueuePool limit of size 20 overflow 0 reached, connection timed out",
            ),
            ("service_health", "fraud-check"): health("fraud-check"),
            ("top_errors", "fraud-check"): errors("fraud-check"),
            ("list_targets", ""): targets(),
        },
        {
            REQUESTS: {
                "checkout": [(1, 10.0), (2, 10.0)],
                "fraud-check": [(1, 5.0), (2, 5.0)],
            },
            ERRORS: {"checkout": [(1, 0.5), (2, 2.0)]},
        },
    )


def run(world, brief):
    planner = LayeredPlanner()
    inv = Investigation(incident=brief, tools=tool_infos())
    while calls := asyncio.run(planner.next_round(inv)):
        n = inv.round + 1
        inv.observations.extend(
            world.answer(c, f"s{n}-{i}") for i, c in enumerate(calls, 1)
        )
        inv.round = n
    return asyncio.run(planner.conclude(inv))


def test_an_unresolved_name_starts_from_everything_unhealthy():
    world = pool_world()

    report = run(world, incident("webshop", title="webshop slow"))

    # Round one asks about the name; it is unknown, so the metrics list every service, and each is read.
    assert ("query_metric", REQUESTS) in world.asked and (
        "query_metric",
        ERRORS,
    ) in world.asked
    for call in [
        ("service_health", "checkout"),
        ("top_errors", "checkout"),
        ("service_health", "fraud-check"),
    ]:
        assert call in world.asked
    assert report.top.id == "application:checkout" and report.conclusive
    assert (
        report.open_questions[0]
        == "service 'webshop' is unknown to every data source read"
    )
    assert report.open_questions[1].startswith(
        "started from everything unhealthy: checkout (20% 5xx, metrics unhealthy, 10 error lines)"
    )
    assert "fraud-check (" not in report.open_questions[1]


def test_confidence_does_not_depend_on_whether_the_incident_named_the_culprit():
    named = run(pool_world(), incident("checkout", title="checkout slow"))
    hurried = run(pool_world(), incident("webshop", title="webshop slow"))

    assert named.top.id == hurried.top.id == "application:checkout"
    assert named.top.confidence == hurried.top.confidence
    assert named.top.status == hurried.top.status == "confirmed"
    # Named as the data knows it: no survey and no line about the name.
    assert not any("unhealthy" in q or "resolved" in q for q in named.open_questions)


def test_a_resolved_name_is_diagnosed_under_the_data_s_name_and_the_report_says_how():
    world = pool_world()

    report = run(world, incident("checkout-service", title="checkout-service down"))

    assert report.top.id == "application:checkout" and report.conclusive
    assert report.open_questions[0] == (
        "service 'checkout-service' resolved to 'checkout' by a prefix or suffix: "
        "checkout-service without -service is checkout, known to metrics, logs"
    )
    assert ("service_health", "fraud-check") not in world.asked  # resolved: no survey


def test_nothing_unhealthy_in_the_survey_stays_inconclusive_and_says_so():
    world = SurveyWorld(
        {
            ("service_health", "checkout"): health("checkout"),
            ("list_targets", ""): targets(),
        },
        {REQUESTS: {"checkout": [(1, 10.0)]}, ERRORS: {}},
    )

    report = run(world, incident("webshop"))

    assert not report.conclusive
    assert "the survey of every service found none unhealthy" in report.open_questions


# --- the alert's labels (issue 21 item 2): what each label names, and the report's wording ----


def known_pods(*services, pods=None):
    data = known(*services)
    data.pods.update(pods or {})
    return data


# (case, name, what the data knows, the alert's labels, expected service, expected method)
FROM_LABELS = [
    (
        "app label",
        "basket",
        known("basket-api", "pricing"),
        {"alertname": "BasketSlow", "app": "basket-api"},
        "basket-api",
        "alert_label",
    ),
    (
        "the Prometheus spelling of app.kubernetes.io/name",
        "unknown",
        known("basket-api", "pricing"),
        {"app_kubernetes_io_name": "basket-api"},
        "basket-api",
        "alert_label",
    ),
    (
        "a job no data knows falls through to the instance's host",
        "unknown",
        known("basket-api", "pricing"),
        {"job": "kubernetes-pods", "instance": "basket-api:8080"},
        "basket-api",
        "alert_label",
    ),
    (
        "an instance's cluster DNS name",
        "unknown",
        known("basket-api", "pricing"),
        {"instance": "basket-api.retail.svc.cluster.local:9090"},
        "basket-api",
        "alert_label",
    ),
    (
        "an instance written as a URL",
        "unknown",
        known("basket-api", "pricing"),
        {"instance": "http://basket-api:8080/healthz"},
        "basket-api",
        "alert_label",
    ),
    (
        "a pod the data listed: its workload",
        "unknown",
        known_pods("basket-api", "pricing", pods={"cartwheel-0": "basket-api"}),
        {"pod": "cartwheel-0"},
        "basket-api",
        "alert_label",
    ),
    (
        "a pod not listed: the service its generated name comes from",
        "unknown",
        known("basket-api", "pricing"),
        {"pod": "basket-api-6c7d9f5b8-kd4wn"},
        "basket-api",
        "alert_label",
    ),
    (
        "a pod label naming a known service as is: no suffix is cut",
        "unknown",
        known("basket-worker", "basket"),
        {"pod": "basket-worker"},
        "basket-worker",
        "alert_label",
    ),
    (
        "a StatefulSet's pod",
        "unknown",
        known("basket-db", "pricing"),
        {"kubernetes_pod_name": "basket-db-2"},
        "basket-db",
        "alert_label",
    ),
    (
        "a namespace named after its one service, when nothing else fits",
        "unknown",
        known("basket", "pricing"),
        {"namespace": "basket"},
        "basket",
        "alert_namespace",
    ),
]


@pytest.mark.parametrize(
    ("name", "data", "labels", "service", "method"),
    [case[1:] for case in FROM_LABELS],
    ids=[case[0] for case in FROM_LABELS],
)
@pytest.mark.rule("resolve.alert-label", "resolve.alert-namespace")
def test_a_label_that_names_what_the_data_knows_resolves_the_name(
    name, data, labels, service, method
):
    resolution = resolve(name, data, labels)

    assert (resolution.service, resolution.method) == (service, method)
    assert resolution.sentence().startswith(
        f"service {name!r} resolved to {service!r} from the alert's label "
    )


@pytest.mark.parametrize(
    "labels",
    [
        {"instance": "10.20.30.40:9100"},
        {"instance": "[fd00::1]:9100"},
        {"pod": "unrelated-7f9c-x2k4p"},
        {"job": "kubernetes-pods", "alertname": "BasketSlow"},
        {"severity": "basket-api"},
    ],
    ids=[
        "an IPv4 address",
        "an IPv6 address",
        "a pod of nothing known",
        "no naming label",
        "a label that names nothing",
    ],
)
def test_labels_that_name_nothing_known_do_not_resolve(labels):
    assert not resolve("unknown", known("basket-api", "pricing"), labels).is_resolved


def test_the_incident_s_own_name_wins_over_its_labels():
    data = known("basket-api", "pricing")

    resolution = resolve("pricing", data, {"app": "basket-api"})

    assert (resolution.service, resolution.method) == ("pricing", "exact")


def test_the_report_says_the_name_was_resolved_from_the_alert_s_label():
    resolution = resolve("basket", known("basket-api"), {"app": "basket-api"})

    assert resolution.sentence() == (
        "service 'basket' resolved to 'basket-api' from the alert's label app=basket-api"
    )
    pod = resolve("basket", known("basket-api"), {"pod": "basket-api-6c7d9f5b8-kd4wn"})
    assert pod.sentence() == (
        "service 'basket' resolved to 'basket-api' from the alert's label "
        "pod=basket-api-6c7d9f5b8-kd4wn (basket-api's)"
    )


def test_the_description_s_label_pairs_are_read_like_the_symptoms():
    brief = dataclasses.replace(
        incident("shop"), description='Alert fired: {job="basket-api"}'
    )

    assert incident_labels(Investigation(incident=brief, tools=[])) == {
        "job": "basket-api"
    }


def test_an_alert_s_labels_resolve_the_name_in_a_diagnosis_and_the_report_says_so():
    world = pool_world()
    brief = dataclasses.replace(
        incident("webshop", title="webshop slow"), labels=(("app", "checkout"),)
    )

    report = run(world, brief)

    assert report.top.id == "application:checkout" and report.conclusive
    assert report.open_questions[0] == (
        "service 'webshop' resolved to 'checkout' from the alert's label app=checkout"
    )
    assert ("service_health", "fraud-check") not in world.asked  # resolved: no survey
