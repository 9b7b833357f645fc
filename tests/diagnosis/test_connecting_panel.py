"""The connecting phase on the investigation page (issue 19 item 5): built from server_state events."""

from datetime import UTC, datetime, timedelta

from diagnosis.models import DiagnosisTask, TaskEvent
from diagnosis.pages.investigation import task_status
from diagnosis.pages.steering_panel import server_rows

T0 = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)


def _events(*items):
    return [
        TaskEvent(seq=n, type=kind, data=data, occurred_at=T0 + timedelta(seconds=n))
        for n, (kind, data) in enumerate(items, 1)
    ]


def _server(name, state, **extra):
    return (
        "server_state",
        {"server": name, "transport": "stdio", "state": state, **extra},
    )


STARTED = ("task_started", {"from": "queued", "to": "running"})


def test_phase_is_connecting_while_a_server_is_pending_then_the_agent():
    task = DiagnosisTask(state="running")
    waiting = _events(
        STARTED,
        _server("logs", "connecting"),
        _server("metrics", "connecting"),
        _server("logs", "ready", elapsed_ms=412.0, tools=3),
    )
    assert task_status(task=task, events=waiting, rows=[]).phase == "connecting"
    rows = server_rows(waiting)
    assert [(r.server, r.state, r.time_text, r.tools) for r in rows] == [
        ("logs", "ready", "412 ms", 3),
        ("metrics", "connecting", "", None),
    ]
    assert rows[1].since == T0 + timedelta(seconds=3)

    done = [
        *waiting,
        *_events(
            _server("metrics", "failed", elapsed_ms=2500.0, error="connect refused"),
            ("agent_started", {"agent": "metrics", "round": 0}),
        ),
    ]
    assert task_status(task=task, events=done, rows=[]).phase == "metrics"


def test_only_the_current_attempts_servers_are_listed():
    events = _events(
        STARTED,
        _server("logs", "failed", elapsed_ms=10.0, error="boom"),
        ("task_requeued", {"from": "running", "to": "queued"}),
        STARTED,
        _server("logs", "connecting"),
    )
    assert [(r.server, r.state) for r in server_rows(events)] == [
        ("logs", "connecting")
    ]


def test_the_panel_shows_while_connecting_or_after_a_failure_only():
    from django.template.loader import render_to_string

    def rendered(events):
        rows = server_rows(events)
        return render_to_string(
            "diagnosis/_connecting.html",
            {
                "seq": len(events),
                "servers": rows,
                "servers_waiting": [r.server for r in rows if r.state == "connecting"],
                "servers_failed": [r.server for r in rows if r.state == "failed"],
            },
        )

    waiting = _events(STARTED, _server("logs", "connecting"))
    assert "connecting to logs" in rendered(waiting)
    assert 'aria-labelledby="connecting-title">' in rendered(waiting)
    ready = _events(STARTED, _server("logs", "connecting"), _server("logs", "ready"))
    assert 'aria-labelledby="connecting-title" hidden>' in rendered(ready)
    failed = _events(
        STARTED,
        _server("logs", "connecting"),
        _server("logs", "failed", elapsed_ms=1500.0, error="refused"),
    )
    body = rendered(failed)
    assert "logs could not be reached" in body and "after 1.5 s: refused" in body
    assert 'aria-labelledby="connecting-title">' in body
