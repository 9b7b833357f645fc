"""The diagnosis follows the evidence, not the incident's wording (issue 21, class 5): what the data
shows is read and weighed the same whether or not the incident's words anticipated it."""

from reasoning.layered import LayeredPlanner
from reasoning.layered.facts import Facts
from reasoning.observations import Observation
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
