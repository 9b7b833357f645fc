"""Per-server circuit breaker: open after consecutive transport failures, one half-open probe later."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ._exceptions import CircuitOpen

if TYPE_CHECKING:
    from collections.abc import Callable


class CircuitBreaker:
    """closed → (``failure_threshold`` consecutive failures) → open → (``reset_timeout``) → half-open.

    In half-open exactly one call goes through as a probe: success closes the circuit, failure
    opens it again. Share one instance between connections to the same server to make it per-server.
    """

    def __init__(
        self,
        *,
        failure_threshold: int = 5,
        reset_timeout: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.failure_threshold = failure_threshold
        self.reset_timeout = reset_timeout
        self._clock = clock
        self.failures = 0
        self.state = "closed"
        self._opened_at = 0.0
        self._probe_out = False

    def before_call(self) -> bool:
        """Admit a call, returning True if it is the half-open probe.

        Raises:
            CircuitOpen: the circuit is open (or half-open with its probe in flight).
        """
        if self.state == "closed":
            return False
        if self.state == "open":
            wait = self._opened_at + self.reset_timeout - self._clock()
            if wait > 0:
                raise CircuitOpen(
                    f"circuit open after {self.failures} consecutive failures; retry in {wait:.1f}s"
                )
            self.state = "half_open"
        if self._probe_out:
            raise CircuitOpen("circuit half-open; a probe call is in flight")
        self._probe_out = True
        return True

    def record_success(self) -> None:
        self.failures = 0
        self.state = "closed"
        self._probe_out = False

    def record_failure(self) -> None:
        self.failures += 1
        self._probe_out = False
        if self.state == "half_open" or self.failures >= self.failure_threshold:
            self.state = "open"
            self._opened_at = self._clock()

    def release_probe(self) -> None:
        """The probe ended without a verdict (cancelled, or a non-transport error)."""
        self._probe_out = False
