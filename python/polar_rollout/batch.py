"""A batch as ``polar serve`` describes it (``POST`` / ``GET /v1/rollouts``), with the JSON's field names."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Optional, Tuple

from .errors import InvalidResponse

#: Statuses after which a batch never changes again.
TERMINAL_STATUSES = frozenset({"finished", "cancelled", "failed"})

#: What happens to a batch's sessions still going once ``target_groups`` groups are complete.
TailPolicy = Literal["wait", "cancel", "carry"]

#: How the gateway captures a batch's model calls: ``token_in`` (a call continuing a lineage goes to the engine as
#: that lineage's exact tokens: one row per lineage) or ``chat`` (the engine renders each call's messages itself).
Capture = Literal["token_in", "chat"]

#: The capture modes a batch can ask for.
CAPTURES = ("token_in", "chat")


@dataclass(frozen=True)
class SessionCounts:
    """``sessions`` of a batch: how many there are, and where they stand."""

    total: int
    done: int
    queued: int = 0
    running: int = 0
    #: Ended sessions by status (``completed``, ``timeout``, ``cancelled``, ...).
    by_status: Dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class GroupCounts:
    """``groups`` of a batch: one group per task; ``completed`` once all its samples ended."""

    total: int
    completed: int


@dataclass(frozen=True)
class TailCounts:
    """``tail_counts`` of a batch, at its target (``tail`` cancel or carry; zeros before it and for wait)."""

    #: Groups complete when the target was reached.
    complete: int
    #: Sessions the tail cut stopped (status ``cancelled``, reason ``tail_cancelled``; never delivered).
    cancelled: int
    #: Sessions that ran on past the target (their groups come through the results cursor when complete).
    carried: int


@dataclass(frozen=True)
class ExcludedSession:
    """An ended session the batch's results leave out of its group (``excluded`` of a batch), and why.

    ``reason`` is the export's: ``infra-error`` (never trainable), ``eval-error`` (grading failed),
    ``cancelled`` (ended without a reward; ``status_reason`` ``tail_cancelled`` when the batch's tail cut stopped
    it) or ``group-cut`` (ended normally, but its group lost a session to the tail cut and is not delivered).
    """

    session_id: int
    group_id: str
    instance_id: str
    sample_index: int
    status: str
    status_reason: Optional[str]
    reason: str


@dataclass(frozen=True)
class Batch:
    """A batch of rollouts. ``submit`` fills ``id``, ``status`` and ``created``; ``get``/``list``/``cancel`` the rest.

    ``created`` is ``False`` when the server already had a batch for this idempotency key (a repeated or
    retried submit) and ``None`` on answers other than a submit's. ``raw`` is the whole JSON object, for
    fields newer than this client.
    """

    id: str
    status: str
    created: Optional[bool] = None
    status_reason: Optional[str] = None
    run: Optional[str] = None
    harness: Optional[str] = None
    policy_version: Optional[int] = None
    created_at: Optional[str] = None
    finished_at: Optional[str] = None
    sessions: Optional[SessionCounts] = None
    groups: Optional[GroupCounts] = None
    #: Ended sessions the results leave out of their groups, with the server's reason (empty on a submit's answer).
    excluded: Tuple[ExcludedSession, ...] = ()
    callback: Optional[Dict[str, Any]] = None
    #: Complete groups that make the batch done for the trainer (the request's, capped; default every group).
    target_groups: Optional[int] = None
    #: ``wait``, ``cancel`` or ``carry`` (see ``PolarClient.submit``).
    tail: Optional[str] = None
    #: ``target_groups`` groups are complete: a trainer may step (with ``carry`` the batch still runs).
    target_reached: Optional[bool] = None
    target_reached_at: Optional[str] = None
    tail_counts: Optional[TailCounts] = None
    #: The batch's capture mode (``token_in`` or ``chat``); None from a server that predates per-batch capture.
    capture: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def infra_session_ids(self) -> List[int]:
        """Sessions that ended in an infrastructure failure: never trainable (``polar_rollout.check``'s ``infra_session_ids``)."""
        return [session.session_id for session in self.excluded if session.reason == "infra-error"]

    @property
    def terminal(self) -> bool:
        """True once the batch is ``finished``, ``cancelled`` or ``failed``."""
        return self.status in TERMINAL_STATUSES

    @classmethod
    def from_json(cls, value: Any) -> Batch:
        """Reads a batch object of the API (an :class:`InvalidResponse` when ``id`` or ``status`` is missing)."""
        if not isinstance(value, dict) or not isinstance(value.get("id"), str) or not isinstance(value.get("status"), str):
            raise InvalidResponse(f"not a batch (an object with string id and status): {str(value)[:200]}")
        sessions = value.get("sessions")
        groups = value.get("groups")
        callback = value.get("callback")
        counts = value.get("tail_counts")
        return cls(
            id=value["id"],
            status=value["status"],
            created=_typed(value.get("created"), bool),
            status_reason=_typed(value.get("status_reason"), str),
            run=_typed(value.get("run"), str),
            harness=_typed(value.get("harness"), str),
            policy_version=_typed(value.get("policy_version"), int),
            created_at=_typed(value.get("created_at"), str),
            finished_at=_typed(value.get("finished_at"), str),
            sessions=_session_counts(sessions) if isinstance(sessions, dict) else None,
            groups=GroupCounts(total=int(groups.get("total", 0)), completed=int(groups.get("completed", 0))) if isinstance(groups, dict) else None,
            excluded=tuple(_excluded(item) for item in value.get("excluded") or [] if isinstance(item, dict)),
            callback=callback if isinstance(callback, dict) else None,
            target_groups=_typed(value.get("target_groups"), int),
            tail=_typed(value.get("tail"), str),
            target_reached=_typed(value.get("target_reached"), bool),
            target_reached_at=_typed(value.get("target_reached_at"), str),
            tail_counts=TailCounts(int(counts.get("complete", 0)), int(counts.get("cancelled", 0)), int(counts.get("carried", 0))) if isinstance(counts, dict) else None,
            capture=_typed(value.get("capture"), str),
            raw=value,
        )


def _session_counts(value: Dict[str, Any]) -> SessionCounts:
    by_status = value.get("by_status")
    return SessionCounts(
        total=int(value.get("total", 0)),
        done=int(value.get("done", 0)),
        queued=int(value.get("queued", 0)),
        running=int(value.get("running", 0)),
        by_status={str(key): int(count) for key, count in by_status.items()} if isinstance(by_status, dict) else {},
    )


def _excluded(value: Dict[str, Any]) -> ExcludedSession:
    try:
        return ExcludedSession(
            session_id=int(value["session_id"]),
            group_id=str(value["group_id"]),
            instance_id=str(value["instance_id"]),
            sample_index=int(value["sample_index"]),
            status=str(value["status"]),
            status_reason=_typed(value.get("status_reason"), str),
            reason=str(value["reason"]),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise InvalidResponse(f"not an excluded session ({error!r}): {str(value)[:200]}") from error


def _typed(value: Any, kind: type) -> Any:
    """``value`` when it is a ``kind`` (a bool is not taken for an int), else None."""
    if kind is int and isinstance(value, bool):
        return None
    return value if isinstance(value, kind) else None
