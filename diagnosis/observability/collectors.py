"""Series the web process works out at scrape time: the SSE hub's counters and lag, tasks by
state and approvals waiting (three indexed queries, bounded by a statement timeout).

The stream counters are the ones diagnosis.streaming.metrics already keeps (exported here, not
counted twice); every field of StreamMetrics becomes a series, so a counter added there is
exported without a change here.
"""

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from django.db import DatabaseError, connection, transaction
from django.db.models import Count, Min
from django.utils import timezone
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from diagnosis.models import Approval, ApprovalStatus, DiagnosisTask
from diagnosis.states import TERMINAL, TaskState

logger = logging.getLogger(__name__)

# The statement timeout of the scrape's queries: a slow database costs a scrape a gauge, not
# the scrape itself.
DB_TIMEOUT_MS = 2000
ACTIVE_STATES = [s for s in TaskState if s not in TERMINAL]

_STREAM_GAUGES = {"streams_open": "SSE streams open now."}
_STREAM_HELP = {
    "streams_opened": "SSE streams opened (200 answers).",
    "reconnects_with_cursor": "SSE requests that came with a cursor (Last-Event-ID or last_event_id).",
    "events_sent": "Events written to SSE streams.",
    "replay_reads": "Reads of the event table for a replay or a gap.",
    "feed_reads": "Reads of the event table triggered by wake-ups (one per task per process).",
    "wakeups_received": "Wake-ups received from the channel layer.",
    "catchup_reads": "Watermark checks of the heartbeat tick (one query per tick).",
    "catchup_hits": "Watermark checks that found events no wake-up had announced.",
    "resyncs": "resync_required events sent (malformed, too new or compacted cursor).",
    "terminal_closes": "SSE streams closed after their task's terminal event.",
    "no_content": "204 answers: the cursor already covered a finished task.",
    "rejected_limit": "429 answers: too many streams for one user.",
    "slow_client_cutoffs": "SSE streams cut off because the client did not read.",
    "lifetime_expired": "SSE streams ended at their maximum lifetime.",
    "drained": "SSE streams ended by a drain (server shutdown).",
    "group_add_failures": "Channel layer group_add calls that failed.",
    "wakeup_outages": "Times wake-ups were found unavailable (streams then polled).",
    "fallback_polls": "Table reads of the polling fallback while wake-ups were away.",
}


class StreamCollector:
    """The SSE counters of this process (diagnosis.streaming.metrics) and the streams' lag."""

    def collect(self) -> Iterator[Metric]:
        from diagnosis.streaming.metrics import METRICS

        for name, value in METRICS.snapshot().items():
            if name in _STREAM_GAUGES:
                yield GaugeMetricFamily(
                    f"agentops_sse_{name}", _STREAM_GAUGES[name], value=value
                )
            else:
                help_text = _STREAM_HELP.get(name, f"SSE counter {name}.")
                yield CounterMetricFamily(
                    f"agentops_sse_{name}", help_text, value=value
                )
        lag_max, queued = stream_lag()
        yield GaugeMetricFamily(
            "agentops_sse_stream_lag_max_events",
            "The most events any open stream is behind what its process has read.",
            value=lag_max,
        )
        yield GaugeMetricFamily(
            "agentops_sse_stream_queued_events",
            "Events queued in open streams' mailboxes, not yet written.",
            value=queued,
        )


def stream_lag() -> tuple[int, int]:
    """(largest lag of an open stream in events, events queued in all streams' mailboxes).

    Read from another thread than the hubs' loops: each set is copied in one C-level call
    (atomic under the GIL), and a hub that changes meanwhile costs at most a stale figure.
    """
    from diagnosis.streaming.hub import all_hubs

    lag_max = queued = 0
    for hub in all_hubs():
        feeds = dict(hub.feeds)
        for sub in list(hub.streams):
            feed = feeds.get(sub.task_id)
            high = feed.high if feed is not None else sub.watermark
            lag_max = max(lag_max, high - sub.last)
            queued += len(sub.frames)
    return lag_max, queued


class DatabaseCollector:
    """Tasks in each non-terminal state, the oldest queued task, approvals waiting.

    Terminal tasks are not counted here (their number only grows; the worker's
    agentops_tasks_finished_total says how many end). Served by the web process only: a
    worker does not repeat these gauges.
    """

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily(
            "agentops_metrics_database_up",
            "1 when the scrape's task and approval queries answered, else 0.",
        )
        try:
            figures = database_figures()
        except DatabaseError:
            logger.warning("metrics: task and approval queries failed", exc_info=True)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        tasks = GaugeMetricFamily(
            "agentops_tasks",
            "Diagnosis tasks in each non-terminal state.",
            labels=["state"],
        )
        for state in ACTIVE_STATES:
            tasks.add_metric([state.value], figures.by_state.get(state.value, 0))
        yield tasks
        yield GaugeMetricFamily(
            "agentops_tasks_oldest_queued_age_seconds",
            "Age of the oldest queued task's last change (0 when none is queued).",
            value=figures.oldest_queued_age,
        )
        yield GaugeMetricFamily(
            "agentops_approvals_pending",
            "Approvals waiting for a decision.",
            value=figures.pending_approvals,
        )
        yield GaugeMetricFamily(
            "agentops_approvals_oldest_pending_age_seconds",
            "Age of the oldest approval waiting for a decision (0 when none waits).",
            value=figures.oldest_approval_age,
        )


@dataclass(frozen=True)
class DatabaseFigures:
    by_state: dict[str, int]
    oldest_queued_age: float
    pending_approvals: int
    oldest_approval_age: float


def _age(since: datetime | None, now: datetime) -> float:
    return max((now - since).total_seconds(), 0.0) if since is not None else 0.0


def database_figures() -> DatabaseFigures:
    """The scrape's three queries, each served by an index on state or status.

    Raises:
        DatabaseError: the database is away or the statement timeout passed.
    """
    with transaction.atomic():
        with connection.cursor() as cursor:
            # SET LOCAL: the timeout ends with this transaction, the connection keeps its own.
            cursor.execute(f"SET LOCAL statement_timeout = {int(DB_TIMEOUT_MS)}")
        rows = (
            DiagnosisTask.objects.filter(state__in=ACTIVE_STATES)
            .values("state")
            .annotate(n=Count("id"))
            .order_by()
        )
        by_state = {row["state"]: row["n"] for row in rows}
        oldest_queued = DiagnosisTask.objects.filter(state=TaskState.QUEUED).aggregate(
            oldest=Min("updated_at")
        )["oldest"]
        approvals = Approval.objects.filter(status=ApprovalStatus.PENDING).aggregate(
            n=Count("id"), oldest=Min("requested_at")
        )
    now = timezone.now()
    return DatabaseFigures(
        by_state=by_state,
        oldest_queued_age=_age(oldest_queued, now),
        pending_approvals=int(approvals["n"] or 0),
        oldest_approval_age=_age(approvals["oldest"], now),
    )
