"""Issue 21 class 6: the right component, named conclusively, cites the line that carries its fault
(reasoning/layered/cited_lines.py).

Names and wordings are invented: an arm64 image whose binary is `exec format error` on amd64 nodes,
an entrypoint missing from the image, a 90 MB rules blob read at each poll, a certificate renewed
against a wrong CA URL.
"""

import re
from functools import partial

import pytest

from reasoning import layers
from reasoning.layered import cited_lines
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.observations import IncidentBrief, Investigation, Observation

_BRIEF = IncidentBrief(
    title="renders stuck",
    service="render farm",
    severity="sev2",
    symptoms=(),
    window_start="2030-01-01T10:00:00Z",
    window_end="2030-01-01T11:00:00Z",
)


def _obs(span, tool, arguments, *, text="", result=None):
    return Observation(
        span_id=span,
        agent="a",
        server="kube-mcp" if tool in ("describe", "events") else "logs-mcp",
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
        text=text,
    )


def _board(*observations):
    inv = Investigation(incident=_BRIEF, tools=(), observations=list(observations))
    return Board(inv, Facts.read(inv.observations))


def _lines(service, *rows):
    return {
        "lines": [
            {"service": service, "time": t, "level": "info", "message": m}
            for t, m in rows
        ]
    }


def _cited(c):
    return {e.span_id for e in c.evidence}


@pytest.mark.rule("board.cited-lines")
def test_a_workload_cites_its_containers_exec_format_error_from_describe():
    describe = _obs(
        "d1",
        "describe",
        {"kind": "pod", "name": "framer-7c9d-x2k4p", "namespace": "render"},
        text=(
            "Name: framer-7c9d-x2k4p\n    Last State:     Terminated\n"
            "      Reason:       StartError\n"
            "      Message:      exec /usr/local/bin/framer: exec format error\n"
            "      Exit Code:    1\n"
        ),
    )
    events = _obs(
        "e1",
        "events",
        {"namespace": "render"},
        text="2m Normal Scheduled pod/ledger-5f 	Successfully assigned\n",
    )
    board = _board(events, describe)
    c = board.get(layers.APPLICATION, "framer", "framer crash loops")
    c.confidence, c.status = 0.8, "confirmed"
    other = board.get(layers.APPLICATION, "ledger", "ledger slow")
    other.confidence = 0.3
    cited_lines.cite_specific(board)
    assert _cited(c) == {"d1"}
    assert "exec format error" in c.evidence[0].fact
    assert not other.evidence  # only the leading hypothesis cites


@pytest.mark.rule("board.cited-lines")
def test_a_missing_entrypoint_in_the_events_is_cited_and_no_second_read_is_asked():
    events = _obs(
        "e2",
        "events",
        {"namespace": "jobs"},
        text=(
            "3m Warning Failed pod/stitcher-66b-9qv Error: failed to create containerd task: "
            'exec: "/opt/run.sh": stat /opt/run.sh: no such file or directory: unknown\n'
        ),
    )
    board = _board(events)
    c = board.get(layers.APPLICATION, "deployment/stitcher", "stitcher does not start")
    c.confidence = 0.7
    cited_lines.cite_specific(board)
    assert _cited(c) == {"e2"}
    call = partial(lambda tool, args, why: (tool, args))
    assert list(cited_lines.reads(board, call, {}, every_service=True)) == []


@pytest.mark.rule("board.cited-lines")
def test_a_service_cites_the_size_that_first_appears_at_the_start_not_the_old_one():
    search = _obs(
        "s1",
        "search_logs",
        {"service": "quote-engine", "query": "x"},
        result=_lines(
            "quote-engine",
            ("2030-01-01T09:40:00Z", "loaded pricing rules blob (2.1 MB) from s3"),
            ("2030-01-01T10:05:00Z", "loaded pricing rules blob (90.4 MB) from s3"),
            ("2030-01-01T10:05:30Z", "loaded pricing rules blob (90.4 MB) from s3"),
        ),
    )
    board = _board(search)
    c = board.get(layers.APPLICATION, "quote-engine", "quote-engine stalls")
    c.confidence = 0.78
    cited_lines.cite_specific(board)
    assert _cited(c) == {"s1"}
    assert "90.4 MB" in c.evidence[0].fact


@pytest.mark.rule("board.cited-lines")
def test_with_nothing_specific_read_a_service_asks_one_read_of_its_sized_lines():
    board = _board()
    c = board.get(layers.APPLICATION, "quote-engine", "quote-engine stalls")
    c.confidence = 0.78
    calls = list(
        cited_lines.reads(
            board,
            lambda tool, args, why: (tool, args),
            {"start": "s", "end": "e"},
            every_service=False,
        )
    )
    assert len(calls) == 1
    tool, args = calls[0]
    assert tool == "search_logs" and args["service"] == "quote-engine"
    assert args["regex"] is True and "[KMGT]i?B" in args["query"]


@pytest.mark.rule("board.cited-lines")
def test_a_tls_host_cites_its_renewal_against_a_wrong_ca_url_and_reads_it_once_when_unread():
    board = _board()
    c = board.get(layers.TLS, "shop.quillmark.io", "handshake fails: unknown authority")
    c.confidence = 0.9
    calls = list(
        cited_lines.reads(
            board, lambda tool, args, why: (tool, args), {}, every_service=True
        )
    )
    assert len(calls) == 1 and "shop\\.quillmark\\.io" in calls[0][1]["query"]
    renewal = _obs(
        "r1",
        "search_logs",
        {"query": "shop"},
        result=_lines(
            "ingress-traefik",
            (
                "2030-01-01T09:58:00Z",
                "client hello from 10.1.1.1 host=shop.quillmark.io",
            ),
            (
                "2030-01-01T09:59:00Z",
                "certificate for shop.quillmark.io renewed via ca_server "
                "https://ca.test-pki.quillmark.dev/acme/directory",
            ),
        ),
    )
    board = _board(renewal)
    c = board.get(layers.TLS, "shop.quillmark.io", "handshake fails: unknown authority")
    c.confidence = 0.9
    cited_lines.cite_specific(board)
    assert _cited(c) == {"r1"}
    assert "ca.test-pki.quillmark.dev" in c.evidence[0].fact


@pytest.mark.rule("board.cited-lines")
def test_a_ruled_out_hypothesis_cites_nothing_and_long_lines_stay_linear():
    hostile = "a" * 20000 + " MB /" + "b" * 20000
    search = _obs(
        "s9",
        "search_logs",
        {"service": "quote-engine", "query": "x"},
        result=_lines("quote-engine", ("2030-01-01T10:05:00Z", hostile)),
    )
    board = _board(search)
    c = board.get(layers.APPLICATION, "quote-engine", "quote-engine stalls")
    c.confidence, c.status = 0.9, "ruled_out"
    cited_lines.cite_specific(board)
    assert not c.evidence


# --- a registry's word on a DNS name's domain; a slow service's stack dumps -------------------
# Invented: a registry watcher reporting `serverHold` for a media domain, a `.co.uk` name whose
# registration expired, a fares service waiting in a synchronous audit sink (Java) or a
# metrics push (Go).


def _dns(board, host):
    c = board.get(layers.DNS, host, f"{host} does not resolve")
    c.confidence, c.status = 0.9, "confirmed"
    return c


@pytest.mark.rule("board.cited-lines")
def test_a_dns_name_cites_the_registry_line_putting_its_domain_on_hold():
    watch = _obs(
        "w1",
        "top_errors",
        {"service": "registry-watch"},
        result={
            "top": [
                {
                    "sample": "rdap lumenfold.net: Registry Status: serverHold (expires 2030-01-01)",
                    "first_seen": "2030-01-01T10:01:00Z",
                }
            ]
        },
    )
    board = _board(watch)
    c = _dns(board, "media.lumenfold.net")
    cited_lines.cite_specific(board)
    assert _cited(c) == {"w1"}
    assert "serverHold" in c.evidence[0].fact


@pytest.mark.rule("board.cited-lines")
def test_a_second_level_registration_that_expired_is_cited_for_its_host():
    search = _obs(
        "s9",
        "search_logs",
        {"query": "x"},
        result=_lines(
            "domain-audit",
            (
                "2030-01-01T10:02:00Z",
                "domain lumenfold.co.uk has expired; renewal failed",
            ),
        ),
    )
    board = _board(search)
    c = _dns(board, "static.lumenfold.co.uk")
    cited_lines.cite_specific(board)
    assert _cited(c) == {"s9"}
    assert cited_lines.registered_domain("static.lumenfold.co.uk") == "lumenfold.co.uk"
    assert cited_lines.registered_domain("a.b.lumenfold.net") == "lumenfold.net"
    assert cited_lines.registered_domain("db.payments.internal") == ""


@pytest.mark.rule("board.cited-lines")
def test_a_healthy_status_or_another_domains_hold_is_not_cited():
    search = _obs(
        "s8",
        "search_logs",
        {"query": "x"},
        result=_lines(
            "registry-watch",
            (
                "2030-01-01T10:02:00Z",
                "whois lumenfold.net: Domain Status: clientTransferProhibited",
            ),
            ("2030-01-01T10:02:00Z", "whois lumenfold.net: Domain Status: ok"),
            ("2030-01-01T10:03:00Z", "whois otherfold.net: Domain Status: clientHold"),
        ),
    )
    board = _board(search)
    c = _dns(board, "media.lumenfold.net")
    cited_lines.cite_specific(board)
    assert not c.evidence


@pytest.mark.rule("board.cited-lines")
def test_with_no_registration_line_read_a_dns_name_asks_one_search_of_every_service():
    board = _board()
    _dns(board, "media.lumenfold.net")
    calls = list(
        cited_lines.reads(
            board,
            lambda tool, args, why: (tool, args),
            {"start": "s", "end": "e"},
            every_service=True,
        )
    )
    assert len(calls) == 1
    tool, args = calls[0]
    assert tool == "search_logs" and "service" not in args
    assert "lumenfold\\.net" in args["query"]
    assert not list(cited_lines.reads(board, lambda *a: a, {}, every_service=False))


def _slow(service):
    return _obs(
        f"h-{service}",
        "service_health",
        {"service": service},
        result={
            "verdict": "unhealthy",
            "summary": "p99 latency 9 s",
            "findings": [
                {"signal": "p99_latency_s", "severity": "critical", "detail": "9 s"}
            ],
        },
    )


_JAVA_DUMP = (
    '"http-nio-8080-exec-7" WAITING at java.net.SocketInputStream.read(SocketInputStream.java:141) '
    "at com.acme.audit.SyncAuditSink.write(SyncAuditSink.java:57) "
    "at com.acme.fares.QuoteController.quote(QuoteController.java:88)"
)
_GO_DUMP = (
    "goroutine 41 [IO wait]: net.(*conn).Write(...) /usr/local/go/src/net/net.go:191 "
    "main.(*pusher).flush(...) /src/metrics/push.go:77 main.handleQuote(...) /src/quote.go:30"
)


@pytest.mark.rule("board.cited-lines")
@pytest.mark.parametrize("dump", [_JAVA_DUMP, _GO_DUMP])
def test_a_slow_service_cites_its_stack_dump(dump):
    search = _obs(
        "f1",
        "search_logs",
        {"service": "fare-api", "query": "x"},
        result=_lines(
            "fare-api",
            ("2030-01-01T10:10:00Z", "GET /v2/quote 200 8400ms"),
            ("2030-01-01T10:11:00Z", dump),
        ),
    )
    board = _board(_slow("fare-api"), search)
    c = board.get(layers.APPLICATION, "fare-api", "fare-api is slow")
    c.confidence = 0.5
    cited_lines.cite_specific(board)
    assert _cited(c) == {"f1"}
    assert dump[:40] in c.evidence[0].fact


@pytest.mark.rule("board.cited-lines")
def test_the_dump_sharing_the_frame_most_dumps_share_comes_first():
    search = _obs(
        "f2",
        "search_logs",
        {"service": "fare-api", "query": "x"},
        result=_lines(
            "fare-api",
            ("2030-01-01T10:10:00Z", "idle at pool.py:12 <- loop (worker.py:40)"),
            (
                "2030-01-01T10:11:00Z",
                "read (ssl.py:10) <- send (audit/sink.py:57) <- quote (views.py:8)",
            ),
            (
                "2030-01-01T10:12:00Z",
                "recv (ssl.py:10) <- send (audit/sink.py:57) <- book (views.py:19)",
            ),
        ),
    )
    board = _board(search)
    lines = cited_lines.frame_lines(board.inv, "fare-api")
    assert "sink.py:57" in lines[0][1] and "pool.py" in lines[-1][1]


@pytest.mark.rule("board.cited-lines")
def test_a_line_naming_one_file_or_another_services_dump_is_no_stack_dump():
    search = _obs(
        "f3",
        "search_logs",
        {"service": "", "query": "x"},
        result={
            "lines": [
                {
                    "service": "fare-api",
                    "time": "t",
                    "message": "loaded settings from conf.py:1",
                },
                {"service": "seat-map", "time": "t", "message": _JAVA_DUMP},
            ]
        },
    )
    board = _board(search)
    assert cited_lines.frame_lines(board.inv, "fare-api") == []


@pytest.mark.rule("board.cited-lines")
def test_a_slow_service_asks_for_its_stack_dumps_even_with_other_lines_read_a_fast_one_does_not():
    sized = _obs(
        "z1",
        "search_logs",
        {"service": "fare-api", "query": "x"},
        result=_lines("fare-api", ("2030-01-01T10:05:00Z", "cache warmed: 12 MB")),
    )
    call = lambda tool, args, why: (tool, args)  # noqa: E731
    board = _board(_slow("fare-api"), sized)
    board.get(layers.APPLICATION, "fare-api", "fare-api is slow").confidence = 0.5
    calls = list(cited_lines.reads(board, call, {}, every_service=True))
    assert len(calls) == 1 and calls[0][1]["service"] == "fare-api"
    fast = _board(sized)
    fast.get(layers.APPLICATION, "fare-api", "fare-api fails").confidence = 0.5
    assert list(cited_lines.reads(fast, call, {}, every_service=True)) == []


@pytest.mark.rule("board.cited-lines")
@pytest.mark.timeout(60)
def test_long_registration_and_dump_lines_stay_linear():
    long_line = ("lumenfold.net status: " + "x.py:1 " * 30000)[:200000]
    search = _obs(
        "L1",
        "search_logs",
        {"service": "fare-api", "query": "x"},
        result=_lines("fare-api", ("t", long_line), ("t", "a" * 200000)),
    )
    board = _board(search)
    _dns(board, "media.lumenfold.net")
    cited_lines.cite_specific(board)
    cited_lines.frame_lines(board.inv, "fare-api")


@pytest.mark.rule("board.cited-lines")
def test_a_slow_services_dump_is_cited_beside_its_new_sizes():
    sizes = _obs(
        "v1",
        "search_logs",
        {"service": "fare-api", "query": "x"},
        result=_lines(
            "fare-api",
            ("2030-01-01T09:40:00Z", "flag payload fetched (0.2 MB)"),
            ("2030-01-01T10:05:00Z", "flag payload fetched (38.0 MB)"),
        ),
    )
    dumps = _obs(
        "v2",
        "search_logs",
        {"service": "fare-api", "query": "y"},
        result=_lines("fare-api", ("2030-01-01T10:06:00Z", _JAVA_DUMP)),
    )
    board = _board(_slow("fare-api"), sizes, dumps)
    c = board.get(layers.APPLICATION, "fare-api", "fare-api is slow")
    c.confidence = 0.6
    cited_lines.cite_specific(board)
    assert {"v1", "v2"} <= _cited(c)
    assert "38.0 MB" in c.evidence[0].fact


# --- a service's own fatal or hard-limit line; the host's line naming its unit ------------------
# Invented: a Go tile renderer dying of `fatal error: runtime: out of memory`, a JVM search indexer,
# a Python report worker's MemoryError, a Node gateway's heap limit read from its previous
# container's log, a mailer refused file descriptors by systemd's LimitNOFILE, a thumbnailer
# whose forks the kernel's pids controller refuses.


def _errors(span, service, *groups):
    return _obs(
        span,
        "top_errors",
        {"service": service},
        result={
            "top": [
                {"signature": sig, "sample": sig, "first_seen": at, "count": 9}
                for at, sig in groups
            ]
        },
    )


@pytest.mark.rule("board.cited-lines")
@pytest.mark.parametrize(
    "fatal",
    [
        "fatal error: runtime: out of memory",
        'Exception in thread "indexer-3" java.lang.OutOfMemoryError: Java heap space',
        "Traceback (most recent call last): MemoryError",
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "<--- Last few GCs ---> FATAL ERROR: Reached heap limit Allocation failed",
    ],
)
def test_a_workload_cites_its_services_fatal_line_read_in_its_top_errors(fatal):
    counts = _obs(
        "g1",
        "get_resources",
        {"kind": "pods", "namespace": "maps"},
        text="tiler-5d8-q2x 0/1 CrashLoopBackOff 4 30m\n",
    )
    errors = _errors(
        "t1",
        "tiler",
        ("2030-01-01T10:06:00Z", "GET /tiles/3/4/5 503 upstream busy"),
        ("2030-01-01T10:07:00Z", fatal),
    )
    board = _board(counts, errors)
    c = board.get(layers.APPLICATION, "deployment/tiler", "tiler crash loops")
    c.confidence, c.status = 0.9, "confirmed"
    c.cite(counts, "tiler-5d8-q2x 0/1 CrashLoopBackOff")
    cited_lines.cite_specific(board)
    assert "t1" in _cited(c)
    assert fatal[:20] in next(e.fact for e in c.evidence if e.span_id == "t1")


@pytest.mark.rule("board.cited-lines")
def test_the_fatal_line_of_the_window_comes_before_an_older_one_and_a_process_end_before_a_limit():
    old = _obs(
        "o1",
        "search_logs",
        {"service": "report-worker", "query": "x"},
        result=_lines(
            "report-worker",
            ("2030-01-01T08:10:00Z", "worker exited with code 137 (stale deploy)"),
        ),
    )
    now = _obs(
        "n1",
        "search_logs",
        {"service": "report-worker", "query": "y"},
        result=_lines(
            "report-worker",
            ("2030-01-01T10:02:00Z", "open /tmp/r.csv: too many open files"),
            ("2030-01-01T10:03:00Z", "Fatal Python error: Aborted"),
        ),
    )
    board = _board(old, now)
    lines = cited_lines.decisive_lines(board.inv, "report-worker")
    assert [o.span_id for o, _ in lines] == ["n1", "n1", "o1"]
    assert "Fatal Python error" in lines[0][1]
    assert "too many open files" in lines[1][1]


@pytest.mark.rule("board.cited-lines")
def test_a_node_service_cites_the_heap_limit_line_of_its_previous_container():
    logs = _obs(
        "p1",
        "pod_logs",
        {"pod": "edge-gw-7f9-k2m", "namespace": "edge", "previous": True},
        text=(
            "listening on :8080\n"
            "<--- JS stacktrace --->\n"
            "FATAL ERROR: CALL_AND_RETRY_LAST Allocation failed - JavaScript heap out of memory\n"
        ),
    )
    board = _board(logs)
    c = board.get(layers.APPLICATION, "deployment/edge-gw", "edge-gw restarts")
    c.confidence, c.status = 0.9, "confirmed"
    cited_lines.cite_specific(board)
    assert _cited(c) == {"p1"}
    assert "JavaScript heap out of memory" in c.evidence[0].fact


@pytest.mark.rule("board.cited-lines")
def test_another_services_fatal_line_or_a_healthy_line_is_not_cited():
    errors = _errors(
        "t2", "indexer", ("2030-01-01T10:07:00Z", "java.lang.OutOfMemoryError")
    )
    quiet = _obs(
        "s2",
        "search_logs",
        {"service": "mailer", "query": "x"},
        result=_lines("mailer", ("2030-01-01T10:07:00Z", "sent 40 messages")),
    )
    board = _board(errors, quiet)
    c = board.get(layers.APPLICATION, "mailer", "mail is late")
    c.confidence = 0.8
    cited_lines.cite_specific(board)
    assert not c.evidence


@pytest.mark.rule("board.cited-lines")
@pytest.mark.parametrize(
    ("host_line", "service"),
    [
        (
            "cgroup: fork rejected by pids controller in /system.slice/thumbnailer.service",
            "kernel",
        ),
        (
            "thumbnailer.service: Main process exited, code=killed, status=9/KILL",
            "systemd",
        ),
        ("thumbnailer[4121]: segfault at 0 ip 00007f error 4 in libvips.so", "kernel"),
    ],
)
def test_a_service_cites_the_hosts_line_refusing_its_unit(host_line, service):
    own = _errors(
        "t3",
        "thumbnailer",
        ("2030-01-01T10:04:00Z", "resize failed: can't create new thread: EAGAIN"),
    )
    host = _obs(
        "h1",
        "search_logs",
        {"query": "thumbnailer(...)"},
        result=_lines(service, ("2030-01-01T10:03:00Z", host_line)),
    )
    board = _board(own, host)
    c = board.get(layers.APPLICATION, "thumbnailer", "thumbnails fail")
    c.confidence, c.status = 0.86, "confirmed"
    c.cite(own, "top_errors(thumbnailer): can't create new thread")
    cited_lines.cite_specific(board)
    assert "h1" in _cited(c)
    assert host_line[:30] in next(e.fact for e in c.evidence if e.span_id == "h1")


@pytest.mark.rule("board.cited-lines")
def test_a_unit_named_without_a_fault_or_another_unit_is_not_the_hosts_word():
    host = _obs(
        "h2",
        "search_logs",
        {"query": "x"},
        result=_lines(
            "systemd",
            ("2030-01-01T10:03:00Z", "Started thumbnailer.service - image resizer."),
            ("2030-01-01T10:03:00Z", "mailer.service: Failed with result 'oom-kill'."),
        ),
    )
    board = _board(host)
    assert cited_lines.unit_lines(board.inv, "thumbnailer") == []
    assert len(cited_lines.unit_lines(board.inv, "mailer")) == 1


@pytest.mark.rule("board.cited-lines")
def test_a_service_at_a_hard_limit_asks_once_for_the_hosts_lines_naming_its_unit():
    own = _errors(
        "t4",
        "mailer",
        ("2030-01-01T10:04:00Z", "accept: too many open files"),
    )
    board = _board(own)
    c = board.get(layers.APPLICATION, "mailer", "mail is late")
    c.confidence = 0.8

    def asked(every_service):
        return [
            args
            for tool, args in cited_lines.reads(
                board,
                lambda tool, args, why: (tool, args),
                {"start": "s", "end": "e"},
                every_service=every_service,
            )
            if "service" not in args
        ]

    calls = asked(True)
    assert len(calls) == 1 and calls[0]["regex"] is True
    assert re.search(calls[0]["query"], "mailer.service: Failed", re.I)
    assert re.search(calls[0]["query"], "kernel: mailer[311]: segfault", re.I)
    assert not re.search(calls[0]["query"], "mailer-queue.service", re.I)
    assert asked(False) == []
    # With the host's line read, it is not asked again.
    host = _obs(
        "h3",
        "search_logs",
        calls[0],
        result=_lines(
            "systemd",
            ("2030-01-01T10:03:00Z", "mailer.service: reached LimitNOFILE limit"),
        ),
    )
    board.inv.observations.append(host)
    assert asked(True) == []


@pytest.mark.rule("board.cited-lines")
@pytest.mark.timeout(60)
def test_long_fatal_and_unit_lines_stay_linear():
    hostile = ("fatal " * 40000) + ("x.service[" * 20000)
    errors = _errors("t5", "mailer", ("2030-01-01T10:04:00Z", hostile))
    host = _obs(
        "h4",
        "search_logs",
        {"query": "x"},
        result=_lines("kernel", ("2030-01-01T10:03:00Z", "mailer" * 40000)),
    )
    board = _board(errors, host)
    c = board.get(layers.APPLICATION, "mailer", "mail is late")
    c.confidence = 0.8
    cited_lines.cite_specific(board)
    assert cited_lines.decisive_lines(board.inv, "mailer") == []
    assert cited_lines.unit_lines(board.inv, "mailer") == []


# The decisive line in another answer than the one that named the culprit: a dead container's own
# startup line carrying a value, a change recorded about the culprit by another service, an
# autoscaler's error about the object a pending workload's events name.


@pytest.mark.rule("board.cited-lines")
@pytest.mark.parametrize(
    "startup",
    [
        "2030-01-01T09:00:00.000Z INFO runtime: heap ceiling 31.5 GiB, cpus 64",
        "2030-01-01T09:00:00Z worker pool sized from host: 96 threads, cache 12 GB",
        "loaded model weights from /srv/models/ranker-v9/weights.bin",
    ],
)
def test_a_dead_containers_own_value_line_is_cited_before_newer_search_lines(startup):
    describe = _obs(
        "d9",
        "describe",
        {"kind": "pod", "name": "tally-5c8-q2w", "namespace": "books"},
        text="    Last State:  Terminated\n      Reason:  OOMKilled\n",
    )
    previous = _obs(
        "p9",
        "pod_logs",
        {"pod": "tally-5c8-q2w", "namespace": "books", "previous": True},
        text=f"2030-01-01T08:59:00Z booting tally\n{startup}\n",
    )
    search = _obs(
        "s9",
        "search_logs",
        {"service": "tally", "query": "x"},
        result=_lines(
            "tally", ("2030-01-01T10:20:00Z", "flushed journal segment (4.2 MB)")
        ),
    )
    board = _board(describe, search, previous)
    c = board.get(layers.APPLICATION, "deployment/tally", "tally restarts")
    c.confidence, c.status = 0.9, "confirmed"
    c.cite(describe, "describe: OOMKilled")
    cited_lines.cite_specific(board)
    assert [e.span_id for e in c.evidence][:2] == ["d9", "p9"]
    assert startup.split()[-1] in c.evidence[1].fact


@pytest.mark.rule("board.cited-lines")
def test_a_running_containers_lines_or_another_pods_logs_are_not_the_dead_ones():
    current = _obs(
        "p10",
        "pod_logs",
        {"pod": "tally-5c8-q2w", "namespace": "books"},
        text="2030-01-01T09:00:00Z heap ceiling 1.9 GiB\n",
    )
    other = _obs(
        "p11",
        "pod_logs",
        {"pod": "ledgerd-1", "namespace": "books", "previous": True},
        text="2030-01-01T09:00:00Z heap ceiling 31.5 GiB\n",
    )
    board = _board(current, other)
    lines = cited_lines.value_lines(board.inv, "tally")
    assert [o.span_id for o, _ in lines] == ["p10"]


@pytest.mark.rule("board.cited-lines")
@pytest.mark.parametrize(
    "change",
    [
        "edge-proxy config r88 applied to edge-proxy-1..4 (gzip_level 9 for text/html)",
        "Helm release edge-proxy upgraded to chart 7.1.0 by ci-bot",
        "terraform apply: edge-proxy listener idle_timeout 30 -> 400 (module lb)",
        "rolled out edge-proxy image sha256:1f2e3d (was sha256:9a8b7c)",
    ],
)
def test_a_change_another_service_recorded_about_the_culprit_is_cited(change):
    search = _obs(
        "c1",
        "search_logs",
        {"query": "edge\\-proxy.*(deploy|config)"},
        result=_lines(
            "pipeline",
            ("2030-01-01T09:10:00Z", change),
            ("2030-01-01T09:11:00Z", "edgeproxy-legacy config applied"),
        ),
    )
    board = _board(search)
    c = board.get(layers.APPLICATION, "edge-proxy", "edge-proxy slow")
    c.confidence = 0.5
    cited_lines.cite_specific(board)
    assert _cited(c) == {"c1"}
    assert change[:20] in c.evidence[0].fact


@pytest.mark.rule("board.cited-lines")
def test_an_unchanged_mention_or_another_components_change_is_not_a_change_line():
    search = _obs(
        "c2",
        "search_logs",
        {"query": "x"},
        result=_lines(
            "pipeline",
            ("2030-01-01T09:10:00Z", "edge-proxy answered 200 in 12 ms"),
            ("2030-01-01T09:11:00Z", "edge-proxy-canary config applied"),
            ("2030-01-01T09:12:00Z", "billing deployed 4.0.1"),
        ),
    )
    board = _board(search)
    assert cited_lines.change_lines(board.inv, "edge-proxy") == []


@pytest.mark.rule("board.cited-lines")
def test_the_leading_components_changes_are_searched_once_from_before_the_window():
    board = _board()
    lead = board.get(layers.APPLICATION, "edge-proxy", "edge-proxy slow")
    lead.confidence = 0.6
    behind = board.get(layers.APPLICATION, "thumbs", "thumbs slow")
    behind.confidence = 0.2
    window = {"start": "2030-01-01T10:00:00Z", "end": "2030-01-01T11:00:00Z"}

    def asked():
        return list(
            cited_lines.change_reads(
                board, lambda tool, args, why: (tool, args), window
            )
        )

    calls = asked()
    assert len(calls) == 1
    _tool, args = calls[0]
    assert args["start"] == "2030-01-01T08:00:00Z" and args["regex"] is True
    assert re.search(args["query"], "edge-proxy config r2 applied")
    board.inv.observations.append(_obs("c3", "search_logs", args, result={"lines": []}))
    assert asked() == []  # searched once, even when it found nothing


@pytest.mark.rule("board.cited-lines")
@pytest.mark.parametrize(
    "refusal",
    [
        "failed to create node for claim burst-pool-q8z1: capacity not available in zone b",
        'launch failed {"claim":"burst-pool-q8z1","error":"VcpuLimitExceeded: quota 64"}',
    ],
)
def test_a_pending_workload_cites_another_services_error_about_the_object_its_events_name(
    refusal,
):
    events = _obs(
        "e7",
        "events",
        {"namespace": "risk"},
        text=(
            "3m Warning FailedScheduling pod/scorer-77d-k1 0/4 nodes are available\n"
            "3m Normal Nominated pod/scorer-77d-k1 Pod should schedule on: "
            "nodeclaim/burst-pool-q8z1\n"
        ),
    )
    errors = _errors("t7", "node-provisioner", ("2030-01-01T10:05:00Z", refusal))
    info = _obs(
        "i7",
        "search_logs",
        {"query": "x"},
        result=_lines(
            "node-provisioner",
            ("2030-01-01T10:04:00Z", "created nodeclaim burst-pool-q8z1"),
        ),
    )
    board = _board(events, info, errors)
    c = board.get(layers.PLATFORM, "deployment/scorer", "scorer pods Pending")
    c.confidence, c.status = 0.9, "confirmed"
    c.cite(events, "FailedScheduling")
    cited_lines.cite_specific(board)
    assert _cited(c) == {"e7", "t7"}  # the error line, not the info line


@pytest.mark.rule("board.cited-lines")
def test_objects_not_in_the_workloads_event_rows_link_nothing():
    events = _obs(
        "e8",
        "events",
        {"namespace": "risk"},
        text=(
            "3m Normal Nominated pod/other-9-x Pod should schedule on: nodeclaim/burst-pool-q8z1\n"
            "3m Warning FailedScheduling pod/scorer-77d-k1 0/4 nodes are available\n"
        ),
    )
    errors = _errors(
        "t8",
        "node-provisioner",
        ("2030-01-01T10:05:00Z", "claim burst-pool-q8z1 failed"),
    )
    board = _board(events, errors)
    assert cited_lines.linked_names(board.inv, "scorer") == set()
    assert cited_lines.linked_lines(board.inv, "scorer") == []


@pytest.mark.rule("board.cited-lines")
@pytest.mark.timeout(60)
def test_long_container_change_and_event_lines_stay_linear():
    hostile = "a/b-1 " * 40000 + "Warning Failed" + " config" * 30000
    events = _obs("e9", "events", {"namespace": "n"}, text=f"pod/tally-1 {hostile}\n")
    previous = _obs(
        "p12",
        "pod_logs",
        {"pod": "tally-1", "previous": True},
        text="2030-01-01T09:00:00Z " + "9 MB " * 40000 + "\n" + "x" * 200000,
    )
    search = _obs(
        "c4",
        "search_logs",
        {"query": "x"},
        result=_lines(
            "ci", ("2030-01-01T09:00:00Z", "tally" + " config tally" * 20000)
        ),
    )
    board = _board(events, previous, search)
    c = board.get(layers.APPLICATION, "tally", "tally slow")
    c.confidence = 0.8
    cited_lines.cite_specific(board)
    assert cited_lines.linked_lines(board.inv, "tally") == []
