"""The diagnosis follows the evidence, not the incident's wording (issue 21, class 5): what the data
shows is read and weighed the same whether or not the incident's words anticipated it."""

from reasoning.layered import LayeredPlanner
from reasoning.layered.analysis import Analysis
from reasoning.layered.facts import Facts
from reasoning.observations import Investigation, Observation, ToolInfo
from tests.reasoning.kubernetes.answers import (
    NS,
    answer,
    deployments,
    events,
    listing,
    pods,
    table,
)
from tests.reasoning.test_planner import World, errors, health, incident, run, targets

QUOTES = "http://quotes.market.example:9000"
FEED = "http://feed.market.example:9100"


def stream_probe(url, *, watched, cut):
    """A probe of a target answering an event stream; cut: the stream dies once it is watched."""
    answer = {
        "url": url,
        "status": 200,
        "failed_layer": "http" if watched and cut else "none",
        "reason": "stream_cut" if watched and cut else None,
        "evidence": (
            ["event stream closed by the peer after 3.0 s, 3.0 s after the last byte"]
            if watched and cut
            else []
        ),
        "http": {
            "status": 200,
            "headers": {"Content-Type": "text/event-stream; charset=utf-8"},
            "body_excerpt": "event: tick\ndata: {}\n\n",
        },
    }
    if watched:
        answer["stream"] = {"watched_s": 6.0, "bytes": 40, "events": 1}
    return answer


class StreamWorld(World):
    """quotes' stream is cut once watched; feed's survives the watch."""

    def answer(self, call, span_id):
        url = call.arguments.get("url")
        if call.tool == "probe_url" and url in (QUOTES, FEED):
            self.asked.append((call.tool, url))
            self.arguments.append((call.tool, dict(call.arguments)))
            return Observation(
                span_id=span_id,
                agent=call.agent,
                server=call.server,
                tool=call.tool,
                arguments=call.arguments,
                is_ok=True,
                result=stream_probe(
                    url, watched="stream_s" in call.arguments, cut=url == QUOTES
                ),
            )
        return super().answer(call, span_id)


def stream_world():
    return StreamWorld(
        {
            ("service_health", "ticker"): health("ticker"),
            ("top_errors", "ticker"): errors(
                "ticker",
                "upstream timed out (110: Connection timed out) while reading upstream, "
                "server: quotes.market.example, request: GET /v2/ticks",
            ),
            ("list_targets", ""): targets(QUOTES, FEED),
        }
    )


def test_a_target_answering_an_event_stream_is_watched_though_the_incident_never_says_stream():
    world = stream_world()

    inv, _, report = run(world, incident("ticker", title="prices frozen"))

    watched = [a["url"] for tool, a in world.arguments if "stream_s" in a]
    unwatched = [a["url"] for tool, a in world.arguments if tool == "probe_url"]
    assert sorted(watched) == [FEED, QUOTES]  # each once more, watching the stream
    assert unwatched.count(QUOTES) == 2 and unwatched.count(FEED) == 2
    assert report.top.id == "http:quotes.market.example" and report.conclusive
    # The watched probe is the one read; the unwatched pass does not rule the cut out.
    assert Facts.read(inv.observations).probes[QUOTES].layer == "http"


def test_a_stream_named_in_the_incident_is_watched_at_once_and_the_verdict_is_the_same():
    world = stream_world()

    _, _, named = run(
        world, incident("ticker", "the quotes stream reconnects", title="prices")
    )
    _, _, silent = run(stream_world(), incident("ticker", title="prices frozen"))

    assert [a["url"] for _, a in world.arguments if "url" in a].count(QUOTES) == 1
    assert named.top.id == silent.top.id == "http:quotes.market.example"
    assert named.top.status == silent.top.status == "confirmed"
    assert named.top.confidence == silent.top.confidence


def test_a_target_not_answering_an_event_stream_is_not_probed_twice():
    world = World(
        {
            ("service_health", "ticker"): health("ticker"),
            ("top_errors", "ticker"): errors("ticker"),
            ("list_targets", ""): targets(QUOTES),
            ("probe_url", QUOTES): {
                "url": QUOTES,
                "status": 200,
                "failed_layer": "none",
                "reason": None,
                "evidence": [],
                "http": {"status": 200, "headers": {"content-type": "text/html"}},
            },
        }
    )

    run(world, incident("ticker", title="prices frozen"), LayeredPlanner())

    assert world.asked.count(("probe_url", QUOTES)) == 1


# A Kubernetes fault off the path the incident's words gave: the service's own lines decide.

LEDGER_POD = "ledger-6b7c8d9f5-q2w3e"
ROUTER_POD = "edge-router-5c4d3b2a1-z9y8x"
ROUTER_LINE = (
    '"POST /v1/entries HTTP/1.1" 503 UF 0 91 1 upstream_host=- '
    "response_code_details=upstream_reset_before_response_started{connection_failure} "
    "(ledger.shop.svc.cluster.local:8080)"
)


def k8s_tools():
    return [
        ToolInfo(
            server="kubernetes" if name in ("get_resources", "describe") else "logs",
            name=name,
            description="",
            input_schema={"type": "object"},
            is_read_only=True,
            is_destructive=False,
            is_idempotent=True,
        )
        for name in ("get_resources", "describe", "top_errors", "search_logs")
    ]


def cluster_answers():
    """edge-router runs and answers 503; ledger cannot start (a secret is missing)."""
    return [
        answer(
            "get_resources",
            {"kind": "namespaces", "namespace": "default"},
            table(("NAME", "STATUS", "AGE"), (NS, "Active", "90d")),
        ),
        pods(
            (ROUTER_POD, "1/1", "Running", "0"),
            (LEDGER_POD, "0/1", "CreateContainerConfigError", "0"),
        ),
        deployments(("edge-router", "1/1"), ("ledger", "0/1")),
        listing(
            "services",
            ("NAME", "TYPE", "CLUSTER-IP", "PORT(S)", "SELECTOR"),
            ("edge-router", "ClusterIP", "10.96.4.1", "443/TCP", "app=edge-router"),
            ("ledger", "ClusterIP", "10.96.4.2", "8080/TCP", "app=ledger"),
        ),
        events(
            (
                "Warning",
                "Failed",
                f"Pod/{LEDGER_POD}",
                'Error: secret "ledger-db" not found',
            )
        ),
        Observation(
            span_id="router-errors",
            agent="logs",
            server="logs",
            tool="top_errors",
            arguments={"service": "edge-router"},
            is_ok=True,
            result={"service": "edge-router", "top": []},  # its failures are warn lines
        ),
    ]


def router_search(messages):
    return Observation(
        span_id="router-search",
        agent="logs",
        server="logs",
        tool="search_logs",
        arguments={"service": "edge-router", "query": "ledger"},
        is_ok=True,
        result={"lines": [{"level": "warn", "message": m} for m in messages]},
    )


def router_incident(*symptoms):
    return Investigation(
        incident=incident("edge-router", *symptoms, title="requests failing"),
        tools=k8s_tools(),
        observations=cluster_answers(),
    )


def ledger(inv):
    """The fault that keeps ledger from starting: the secret its refusal names (ledger its victim)."""
    return Analysis(inv, Facts.read(inv.observations)).candidates[
        "platform:secret/ledger-db"
    ]


def test_a_fault_off_the_known_path_is_searched_for_in_the_incident_service_s_own_lines():
    inv = router_incident()

    calls = LayeredPlanner()._path_searches(inv, Facts.read(inv.observations))

    assert [(c.tool, c.arguments["service"], c.arguments["query"]) for c in calls] == [
        ("search_logs", "edge-router", "ledger")
    ]
    assert ledger(inv).status == "likely"  # not yet shown on the path: a lead


def test_lines_failing_to_call_the_faulty_object_confirm_it_as_when_the_incident_names_it():
    searched = router_incident()
    searched.observations.append(router_search([ROUTER_LINE]))
    named = router_incident("ledger pods are not starting")

    found, told = ledger(searched), ledger(named)

    assert found.status == told.status == "confirmed"
    assert found.confidence >= 0.88 and told.confidence >= 0.88
    assert "not shown to be on" not in found.statement
    # On the path now: nothing left to search for.
    facts = Facts.read(searched.observations)
    assert LayeredPlanner()._path_searches(searched, facts) == []


def test_lines_that_name_the_object_without_failing_leave_it_a_lead():
    inv = router_incident()
    inv.observations.append(
        router_search(
            ['"GET /v1/health HTTP/1.1" 200 ledger.shop.svc.cluster.local:8080']
        )
    )

    assert ledger(inv).status == "likely"


def test_no_search_while_a_fault_is_already_on_the_path():
    named = router_incident("ledger pods are not starting")

    facts = Facts.read(named.observations)

    assert LayeredPlanner()._path_searches(named, facts) == []
