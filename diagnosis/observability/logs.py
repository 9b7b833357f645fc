"""Log lines: JSON (one object a line) or, when DEBUG, a human format; both through structlog's
ProcessorFormatter, so stdlib `logging` calls and structlog loggers come out alike.

Each line carries trace_id, task_id, tenant and span_id where they are bound (contextvars:
`bind_task_context`, `bind_span`), and nothing secret: the message with its arguments, extra
fields, headers and exception texts go through reasoning.masking last before the
renderer. LOGGING in agentops/settings.py names `formatter` as its formatter factory.
"""

import contextlib
import sys
from collections.abc import Iterator, Mapping
from contextvars import Token
from typing import Any, Literal

import structlog
from structlog.contextvars import bind_contextvars, reset_contextvars
from structlog.typing import EventDict, Processor, WrappedLogger

from reasoning.masking import redact

Style = Literal["json", "human"]
CONTEXT_KEYS = ("trace_id", "task_id", "tenant", "span_id")
# Keys the formatter itself fills with harmless values; redacting them would only cost time.
_PLAIN_KEYS = frozenset({"timestamp", "level", "logger"})

Tokens = Mapping[str, Token[Any]]


# --- context ---------------------------------------------------------------------------------


def bind_task_context(
    *, task_id: str | None, tenant: str | None, trace_id: str | None
) -> Tokens:
    """Put the task's ids on every line logged from this context on; unknown ones are skipped.

    Returns the tokens `unbind` takes to restore what was bound before.
    """
    values = {"task_id": task_id, "tenant": tenant, "trace_id": trace_id}
    return bind_contextvars(**{k: str(v) for k, v in values.items() if v})


def bind_span(span_id: str | None) -> Tokens:
    """Put a tool call's span id on every line logged from this context on."""
    return bind_contextvars(span_id=str(span_id)) if span_id else {}


def unbind(tokens: Tokens) -> None:
    """Restore the context as it was before the bind that returned `tokens`."""
    if tokens:
        reset_contextvars(**tokens)


@contextlib.contextmanager
def task_context(
    *, task_id: str | None, tenant: str | None, trace_id: str | None
) -> Iterator[None]:
    """`bind_task_context` for the duration of a with block."""
    tokens = bind_task_context(task_id=task_id, tenant=tenant, trace_id=trace_id)
    try:
        yield
    finally:
        unbind(tokens)


@contextlib.contextmanager
def span_context(span_id: str | None) -> Iterator[None]:
    """`bind_span` for the duration of a with block (one tool call)."""
    tokens = bind_span(span_id)
    try:
        yield
    finally:
        unbind(tokens)


# --- processors ------------------------------------------------------------------------------


def redact_event(
    _logger: WrappedLogger, _method: str, event_dict: EventDict
) -> EventDict:
    """Every field but time, level and logger through `redact`: strings by `mask_text`,
    containers by key (a `headers` extra loses its Authorization value), and a field whose
    own name says it holds a secret (an `api_key=` extra) masked whole."""
    fields = {
        key: value
        for key, value in event_dict.items()
        if not key.startswith("_") and key not in _PLAIN_KEYS
    }
    event_dict.update(redact(fields))
    return event_dict


_LEADING = ("timestamp", "level", "logger", "message", *CONTEXT_KEYS)


def lead_with_essentials(
    _logger: WrappedLogger, _method: str, event_dict: EventDict
) -> EventDict:
    """Time, level, logger, message and the context first: a line reads left to right."""
    ordered = {key: event_dict.pop(key) for key in _LEADING if key in event_dict}
    ordered.update(event_dict)
    return ordered


def _pre_chain() -> list[Processor]:
    """What both kinds of line get before formatting: context, level, logger, time."""
    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]


def configure_structlog() -> None:
    """structlog's own loggers (structlog.get_logger) hand their lines to stdlib logging."""
    structlog.configure(
        processors=[
            *_pre_chain(),
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def formatter(style: Style = "json") -> structlog.stdlib.ProcessorFormatter:
    """The logging.Formatter LOGGING uses ("()": this function): JSON lines or human lines.

    Exceptions are rendered to text before redaction in both styles, so a token in an
    exception's message is masked in the traceback too.
    """
    configure_structlog()
    renderer: Processor
    if style == "human":
        renderer = structlog.dev.ConsoleRenderer(
            colors=sys.stderr.isatty(),
            exception_formatter=structlog.dev.plain_traceback,
        )
        rename: list[Processor] = []
    else:
        renderer = structlog.processors.JSONRenderer(sort_keys=False)
        rename = [structlog.processors.EventRenamer("message"), lead_with_essentials]
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*_pre_chain(), structlog.stdlib.ExtraAdder()],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            redact_event,
            *rename,
            renderer,
        ],
    )
