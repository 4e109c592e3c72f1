"""When a failed call is sent again, and how long to wait first (exponential backoff with jitter).

A call is repeated only when repeating it cannot do anything twice:

- the connection could not be made (refused, connect timeout): the server never saw the request, so any
  call is safe to send again;
- the connection broke after the request went out (reset, read timeout, a cut-off body) or a proxy answered
  502 / 503 / 504: only *idempotent* calls are sent again — GET, DELETE, and a POST that carries an
  idempotency key (a submit: the server answers a repeated key with the batch it made the first time).

A pause or resume is a POST without a key: after a broken connection the client cannot know whether the server
acted on it, so it raises :class:`~polar_rollout.errors.ConnectionLost` instead of guessing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Optional

#: Where in a call it failed.
CONNECT = "connect"  # no connection: the request was never sent
TRANSFER = "transfer"  # the request may have been sent: reset, timeout, cut-off answer
STATUS = "status"  # a 502 / 503 / 504 answer (a proxy, or a server that is starting)
RESOLVE = "resolve"  # the host name does not resolve: a wrong URL, never retried

#: HTTP statuses that mean "not now" rather than "no".
RETRY_STATUSES = frozenset({502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to repeat a call that lost its connection.

    ``max_retries`` repeats after the first try; the wait before repeat *n* (1-based) is
    ``min(max_backoff, backoff * 2 ** (n - 1))`` scaled by a random factor in [0.5, 1) (jitter, so many
    clients do not come back at the same instant), or the server's ``Retry-After`` when it sent one.
    The defaults ride out about a minute of outage (a ``polar serve`` restart takes seconds).
    """

    max_retries: int = 8
    backoff: float = 0.5
    max_backoff: float = 30.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0 (got {self.max_retries})")
        if self.backoff < 0 or self.max_backoff < 0:
            raise ValueError(f"backoff and max_backoff must be >= 0 (got {self.backoff}, {self.max_backoff})")

    def should_retry(self, phase: str, *, idempotent: bool, attempt: int) -> bool:
        """Whether to send again after try number ``attempt`` (1-based) failed in ``phase``."""
        if attempt > self.max_retries:
            return False
        if phase == CONNECT:
            return True
        if phase in (TRANSFER, STATUS):
            return idempotent
        return False

    def delay(self, attempt: int, *, retry_after: Optional[float] = None, rand: Callable[[], float] = random.random) -> float:
        """Seconds to wait before repeat number ``attempt`` (1-based)."""
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_backoff)
        base = min(self.max_backoff, self.backoff * (2.0 ** (attempt - 1)))
        return base * (0.5 + 0.5 * rand())


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """``Retry-After`` in seconds (the delta-seconds form; an HTTP date is ignored)."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
