"""Completed groups of a batch, one at a time and each once, with a cursor a trainer can persist.

The iterator asks ``GET /v1/rollouts/{id}/results?cursor=c&limit=1``: one group per answer, so after every
group the cursor is exactly that group's, and a trainer that stores it and crashes resumes with the next
group (``client.groups(batch_id, cursor=stored)``) — nothing delivered twice, nothing skipped. The groups
themselves (which sessions, which rows, advantages) are the server's; this only walks them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterator, List, Optional, Tuple

from .errors import InvalidResponse
from .results import ResultsPage, Row


@dataclass(frozen=True)
class Group:
    """One completed group: all samples of one task, as export rows.

    ``group_id`` is the rows' own group id (``"<run>/<instance_id>"``: ``group_id`` in polar rows, ``uid`` in
    verl rows); a group that exported no row (every session skipped: infra errors, no reward, ``min_reward``)
    has ``rows == []``, ``instance_id`` None and ``group_id`` ``"serve-<batch>#<cursor>"``. ``cursor`` is the
    group's place in the batch's results: pass it back as ``cursor`` to continue after this group.
    """

    group_id: str
    instance_id: Optional[str]
    rows: List[Row]
    cursor: int
    batch_id: str


class GroupIterator(Iterator[Group]):
    """Yields a batch's completed groups in order; with ``follow`` it waits for more until the batch ends.

    ``cursor`` is the cursor of the last group yielded (the start cursor before the first): persist it
    after handling a group to resume there. ``batch_status`` is the batch's status at the last answer.
    Connection loss is retried by the client (results are read with GET), so a server restarted on the
    same database in the meantime is picked up where it was.
    """

    def __init__(
        self,
        fetch: Callable[[int], ResultsPage],
        batch_id: str,
        *,
        cursor: int = 0,
        follow: bool = True,
        poll_interval: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if cursor < 0:
            raise ValueError(f"cursor must be >= 0 (got {cursor})")
        self._fetch = fetch
        self.batch_id = batch_id
        self._cursor = cursor
        self._follow = follow
        self._poll_interval = poll_interval
        self._sleep = sleep
        self._done = False
        self.batch_status: Optional[str] = None
        self.delivered = 0

    @property
    def cursor(self) -> int:
        """The cursor to resume from: the last yielded group's (or the one this iterator started at)."""
        return self._cursor

    def __iter__(self) -> GroupIterator:
        return self

    def __next__(self) -> Group:
        while not self._done:
            page = self._fetch(self._cursor)
            self.batch_status = page.batch_status
            if page.groups == 1:
                return self._take(page)
            if page.groups != 0:
                raise InvalidResponse(f"asked for one group after cursor {self._cursor} and got {page.groups}")
            if page.rows:
                raise InvalidResponse(f"{len(page.rows)} row(s) after cursor {self._cursor} without a group (Polar-Groups: 0)")
            if not self._follow or page.batch_terminal:
                self._done = True
                break
            self._sleep(self._poll_interval)
        raise StopIteration

    def _take(self, page: ResultsPage) -> Group:
        if page.next_cursor <= self._cursor:
            raise InvalidResponse(f"the results cursor did not advance past {self._cursor} (Polar-Next-Cursor: {page.next_cursor})")
        group_id, instance_id = group_identity(self.batch_id, page.next_cursor, page.rows)
        self._cursor = page.next_cursor
        self.delivered += 1
        return Group(group_id=group_id, instance_id=instance_id, rows=page.rows, cursor=page.next_cursor, batch_id=self.batch_id)


def group_identity(batch_id: str, cursor: int, rows: List[Row]) -> Tuple[str, Optional[str]]:
    """``(group_id, instance_id)`` of one group's rows, in whichever export format they are."""
    ids = {identity for identity in (_row_group_id(batch_id, row) for row in rows) if identity is not None}
    if len(ids) > 1:
        raise InvalidResponse(f"one group's rows name {len(ids)} groups: {sorted(ids)[:4]}")
    if not ids:
        return f"serve-{batch_id}#{cursor}", None
    group_id = ids.pop()
    return group_id, group_id.split("/", 1)[1] if "/" in group_id else None


def _row_group_id(batch_id: str, row: Row) -> Optional[str]:
    """polar: ``group_id``; openrlhf: ``polar.group_id``; sft: ``metadata.group_id``; verl: ``uid``;
    swebench-predictions: ``instance_id`` of run ``serve-<batch>``."""
    for holder in (row, row.get("polar"), row.get("metadata")):
        if isinstance(holder, dict) and isinstance(holder.get("group_id"), str):
            value: str = holder["group_id"]
            return value
    uid = row.get("uid")
    if isinstance(uid, str):
        return uid
    instance = row.get("instance_id")
    if isinstance(instance, str):
        return f"serve-{batch_id}/{instance}"
    return None
