"""Retry policy: t_n = min(base·2ⁿ, cap) + jitter, Retry-After honoured, only within the deadline."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how long to wait before retrying an idempotent call."""

    max_attempts: int = 3
    base: float = 0.5
    cap: float = 30.0
    jitter: float = 0.25  # up to this fraction of the delay is added at random

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before attempt ``attempt + 1`` (``attempt`` counts from 0)."""
        base = min(self.base * 2.0**attempt, self.cap)
        if retry_after is not None:
            base = max(base, retry_after)  # the server knows better than our schedule
        return base + random.uniform(0.0, base * self.jitter)


NO_RETRY = RetryPolicy(max_attempts=1)
