"""Process-local counters of the stream, readable in tests (a /metrics view can export them)."""

from dataclasses import asdict, dataclass


@dataclass
class StreamMetrics:
    streams_open: int = 0  # gauge
    streams_opened: int = 0
    reconnects_with_cursor: int = 0
    events_sent: int = 0
    replay_reads: int = 0
    feed_reads: int = 0  # reads triggered by wake-ups (one per task per process)
    wakeups_received: int = 0
    catchup_reads: int = 0  # periodic watermark checks (one query per tick per process)
    catchup_hits: int = 0  # ...that found events no wake-up had announced
    resyncs: int = 0
    terminal_closes: int = 0
    no_content: int = 0  # 204: cursor already covers a finished task
    rejected_limit: int = 0  # 429
    slow_client_cutoffs: int = 0
    lifetime_expired: int = 0
    drained: int = 0
    group_add_failures: int = 0
    wakeup_outages: int = 0  # times wake-ups were found unavailable (then: polling)
    fallback_polls: int = 0  # table reads on the fallback tick while wake-ups were away

    def snapshot(self) -> dict[str, int]:
        return asdict(self)

    def reset(self) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, 0)


METRICS = StreamMetrics()
