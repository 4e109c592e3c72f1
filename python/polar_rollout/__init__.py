"""polar_rollout: a standard-library client for ``polar serve`` and per-trainer adapters.

    from polar_rollout import PolarClient
    client = PolarClient()  # POLAR_SERVE_URL, POLAR_SERVE_TOKEN
    batch = client.submit("pi", tasks=rows, samples=8)
    for group in client.groups(batch.id):
        train_on(group.rows)
"""

from __future__ import annotations

from .batch import CAPTURES, TERMINAL_STATUSES, Batch, Capture, ExcludedSession, GroupCounts, SessionCounts, TailCounts, TailPolicy
from .client import PolarClient
from .errors import (
    CaptureUnavailable,
    Conflict,
    ConnectionLost,
    InvalidRequest,
    InvalidResponse,
    NotFound,
    PayloadTooLarge,
    PolarError,
    ServerError,
    Unauthorized,
    WaitTimeout,
)
from .events import Event
from .groups import Group, GroupIterator
from .results import ResultsPage, Row
from .retry import RetryPolicy
from .weights import PUSHED_WEIGHTS, RELOAD_WEIGHTS, WEIGHTS_KINDS, Weights, disk_weights, lora_weights

__version__ = "0.1.0"

__all__ = [
    "CAPTURES",
    "PUSHED_WEIGHTS",
    "RELOAD_WEIGHTS",
    "TERMINAL_STATUSES",
    "WEIGHTS_KINDS",
    "Batch",
    "Capture",
    "CaptureUnavailable",
    "Conflict",
    "ConnectionLost",
    "Event",
    "ExcludedSession",
    "Group",
    "GroupCounts",
    "GroupIterator",
    "InvalidRequest",
    "InvalidResponse",
    "NotFound",
    "PayloadTooLarge",
    "PolarClient",
    "PolarError",
    "ResultsPage",
    "RetryPolicy",
    "Row",
    "ServerError",
    "SessionCounts",
    "TailCounts",
    "TailPolicy",
    "Unauthorized",
    "WaitTimeout",
    "Weights",
    "__version__",
    "disk_weights",
    "lora_weights",
]
