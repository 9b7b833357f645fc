"""What an attempt failed of: the real cause behind ExceptionGroups and wrapping, as the
(layer, code, message) the task's error fields and its task_failed event carry.

An asyncio.TaskGroup reports "unhandled errors in a TaskGroup (1 sub-exception)"; Django wraps
psycopg's error, whose SQLSTATE is the code worth reading. Pure: no ORM, no queries.
"""

from dataclasses import dataclass

from django.db import DatabaseError

from reasoning import layers

# The task's error layer of a database error (the span layers are reasoning.layers).
DATABASE = "database"
ENGINE = "engine"
DEADLINE = "deadline"  # the task's deadline passed


@dataclass(frozen=True)
class Failure:
    layer: str
    code: str
    message: str

    def fields(self) -> dict[str, str]:
        """The task's error fields."""
        return {
            "error_layer": self.layer,
            "error_code": self.code[:64],
            "error_message": self.message[:2000],
        }


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions an ExceptionGroup (nested or not) holds; [exc] for any other."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in leaves(sub)]
    return [exc]


def root_cause(exc: BaseException) -> BaseException:
    """The first real exception inside any ExceptionGroup wrapping it."""
    found = leaves(exc)
    return found[0] if found else exc


def describe(exc: BaseException) -> Failure:
    """The layer, code and message of the real cause of `exc`."""
    cause = root_cause(exc)
    message = str(cause).strip() or type(cause).__name__
    if isinstance(cause, DatabaseError):
        # Django's error wraps psycopg's, which knows the SQLSTATE (57P01: admin shutdown).
        wrapped = cause.__cause__
        sqlstate = getattr(wrapped, "sqlstate", None) or getattr(
            cause, "sqlstate", None
        )
        return Failure(DATABASE, str(sqlstate or type(cause).__name__), message)
    layer = getattr(cause, "layer", None)
    if isinstance(layer, str) and layer:  # an mcpclient error knows its layer
        code = getattr(cause, "code", None)
        return Failure(
            layers.from_mcpclient(layer),
            str(code) if code is not None else type(cause).__name__,
            message,
        )
    return Failure(ENGINE, type(cause).__name__, message)
