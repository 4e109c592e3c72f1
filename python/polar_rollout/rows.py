"""Typed accessors over polar rows (format ``polar``): sessions, groups, traces and trainable tokens.

Rows are the server's JSON objects, kept as plain ``dict``s so nothing is lost or renamed on the way to a
trainer. This module reads them; it never computes what the server decides (groups, advantages, masks).
Field meanings are the polar format table of docs/reference/export-formats.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

#: One polar row as parsed from JSON.
Row = Dict[str, Any]

#: Session statuses a row can carry (``status``); ``infra_error`` and ``eval_error`` sessions are excluded by
#: the server, so an adapter that meets one excludes it with that reason instead of training on it.
POLICY_STATUSES = ("completed", "agent_error", "timeout", "cancelled")
UNTRAINABLE_STATUSES = ("infra_error", "eval_error")

_REQUIRED = ("session_id", "row_index", "group_id", "task_id", "builder", "call_ids", "prompt_ids", "response_ids", "loss_mask", "logprobs", "loss_weight")


class RowError(ValueError):
    """A row is not a polar row this package can read (a missing field, unequal lengths)."""

    def __init__(self, message: str, *, session_id: Any = None, row_index: Any = None) -> None:
        super().__init__(message)
        self.session_id = session_id
        self.row_index = row_index


def check_row(row: Mapping[str, Any]) -> None:
    """Raise RowError unless ``row`` has the fields the adapters read, with aligned lengths."""
    missing = [name for name in _REQUIRED if name not in row]
    where = {"session_id": row.get("session_id"), "row_index": row.get("row_index")}
    if missing:
        raise RowError(
            f"Row {where['session_id']}/{where['row_index']} lacks {', '.join(missing)}: read rows with format=polar "
            "(client.groups(..., format='polar')).",
            **where,
        )
    length = len(row["response_ids"])
    for name in ("loss_mask", "logprobs"):
        if len(row[name]) != length:
            raise RowError(f"Row {where['session_id']}/{where['row_index']}: len({name}) {len(row[name])} != len(response_ids) {length}.", **where)
    versions = row.get("versions")
    if versions is not None and len(versions) != length:
        raise RowError(f"Row {where['session_id']}/{where['row_index']}: len(versions) {len(versions)} != len(response_ids) {length}.", **where)
    for position, (mask, logprob) in enumerate(zip(row["loss_mask"], row["logprobs"])):
        if mask == 1 and (logprob is None or not math.isfinite(logprob)):
            raise RowError(f"Row {where['session_id']}/{where['row_index']}: token {position} has mask 1 but logprob {logprob!r}.", **where)


def status_of(row: Mapping[str, Any]) -> str:
    """The session's terminal status; rows from before schema v2 carry none and were exported as trainable."""
    return row.get("status") or "completed"


def reward_of(row: Mapping[str, Any]) -> Optional[float]:
    """The session's reward as a float (JSON writes a reward of 1.0 as ``1``); None when never graded."""
    reward = row.get("reward")
    return None if reward is None else float(reward)


def advantage_of(row: Mapping[str, Any]) -> Optional[float]:
    """The session's group advantage as a float; None when never graded."""
    advantage = row.get("advantage")
    return None if advantage is None else float(advantage)


def trace_id_of(row: Mapping[str, Any]) -> str:
    """``<session_id>:<lineage_id>``; rows without one (schema v1) form one trace per lineage id."""
    trace = row.get("trace_id")
    if trace is not None:
        return str(trace)
    return f"{row['session_id']}:{row.get('lineage_id', 0)}"


def is_main(row: Mapping[str, Any]) -> bool:
    return row.get("lineage_kind") in (None, "main")


def trainable_count(row: Mapping[str, Any]) -> int:
    """Tokens with mask 1."""
    return sum(1 for mask in row["loss_mask"] if mask == 1)


def sampled_tokens(row: Mapping[str, Any]) -> List[Tuple[int, float]]:
    """(token id, sampled logprob) of every mask-1 token, in order."""
    return [(token, logprob) for token, mask, logprob in zip(row["response_ids"], row["loss_mask"], row["logprobs"]) if mask == 1]


def finite_logprobs(row: Mapping[str, Any]) -> List[float]:
    """The row's logprobs with 0.0 where the mask is 0 (trainers multiply by the mask; NaN x 0 = NaN)."""
    return [float(logprob) if mask == 1 else 0.0 for mask, logprob in zip(row["loss_mask"], row["logprobs"])]


def call_versions(row: Mapping[str, Any]) -> List[int]:
    """Distinct policy versions of the row's tokens, ascending (``policy_versions``)."""
    return [int(version) for version in row.get("policy_versions") or []]


@dataclass
class Session:
    """The rows of one session (one sample of one task), in row order."""

    session_id: int
    group_id: str
    task_id: str
    sample_index: Optional[int]
    status: str
    rows: List[Row] = field(default_factory=list)

    @property
    def reward(self) -> Optional[float]:
        return reward_of(self.rows[0])

    @property
    def advantage(self) -> Optional[float]:
        return advantage_of(self.rows[0])

    def traces(self) -> Dict[str, List[Row]]:
        """Rows per trace, each trace's rows by ``step_index``; traces in order of their first row."""
        traces: Dict[str, List[Row]] = {}
        for row in self.rows:
            traces.setdefault(trace_id_of(row), []).append(row)
        for rows in traces.values():
            rows.sort(key=lambda row: (row.get("step_index", 0), row["row_index"]))
        return traces


@dataclass
class GroupRows:
    """The sessions of one server group (all samples of one task within a batch)."""

    group_id: str
    task_id: str
    sessions: List[Session] = field(default_factory=list)


def sessions_of(rows: Iterable[Row]) -> List[Session]:
    """Rows grouped per session, sessions in order of first appearance, rows by ``row_index``."""
    sessions: Dict[int, Session] = {}
    for row in rows:
        check_row(row)
        session = sessions.get(row["session_id"])
        if session is None:
            session = Session(row["session_id"], row["group_id"], row["task_id"], row.get("sample_index"), status_of(row))
            sessions[row["session_id"]] = session
        session.rows.append(row)
    for session in sessions.values():
        session.rows.sort(key=lambda row: int(row["row_index"]))
    return list(sessions.values())


def groups_of(rows: Iterable[Row]) -> List[GroupRows]:
    """Sessions grouped per server group, groups in order of first appearance, sessions by ``sample_index``."""
    groups: Dict[str, GroupRows] = {}
    for session in sessions_of(rows):
        group = groups.get(session.group_id)
        if group is None:
            group = groups[session.group_id] = GroupRows(session.group_id, session.task_id)
        group.sessions.append(session)
    for group in groups.values():
        group.sessions.sort(key=lambda session: (session.sample_index is None, session.sample_index or 0, session.session_id))
    return list(groups.values())


def rows_by_call(rows: Sequence[Row]) -> Dict[int, Row]:
    """per_request rows keyed by their one call id."""
    by_call: Dict[int, Row] = {}
    for row in rows:
        check_row(row)
        if len(row["call_ids"]) != 1:
            raise RowError(
                f"Row {row['session_id']}/{row['row_index']} holds {len(row['call_ids'])} calls: the fidelity check needs "
                "per_request rows (builder=per_request), one call each.",
                session_id=row["session_id"],
                row_index=row["row_index"],
            )
        by_call[row["call_ids"][0]] = row
    return by_call
