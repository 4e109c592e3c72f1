"""A page of ``GET /v1/rollouts/{id}/results``: NDJSON rows read line by line, and the page's headers."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from .batch import TERMINAL_STATUSES
from .errors import InvalidResponse

Row = Dict[str, Any]


@dataclass(frozen=True)
class ResultsPage:
    """Rows of the groups completed after a cursor.

    ``rows`` are the export records (``polar export jsonl`` with the query's format and builder) of
    ``groups`` groups; pass ``next_cursor`` as ``cursor`` next time. ``batch_status`` is the batch's status
    when the page was cut: once it is terminal and a page has no group, every group was delivered.
    """

    rows: List[Row]
    next_cursor: int
    groups: int
    batch_status: str

    @property
    def batch_terminal(self) -> bool:
        """True when the batch had ended when this page was read."""
        return self.batch_status in TERMINAL_STATUSES


def parse_page_headers(header: Callable[[str], Optional[str]]) -> Tuple[int, int, str]:
    """``(next_cursor, groups, batch_status)`` from ``Polar-Next-Cursor``, ``Polar-Groups``, ``Polar-Batch-Status``."""
    cursor = _integer_header(header, "Polar-Next-Cursor")
    groups = _integer_header(header, "Polar-Groups")
    status = header("Polar-Batch-Status")
    if not status:
        raise InvalidResponse("the results answer has no Polar-Batch-Status header")
    return cursor, groups, status.strip()


def iter_ndjson(lines: Iterable[bytes]) -> Iterator[Row]:
    """The JSON objects of NDJSON ``lines`` (blank lines skipped), an :class:`InvalidResponse` at the first bad line."""
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text:
            continue
        try:
            value = json.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise InvalidResponse(f"results line {number} is not JSON ({error}): {text[:200]!r}") from error
        if not isinstance(value, dict):
            raise InvalidResponse(f"results line {number} is not a JSON object: {text[:200]!r}")
        yield value


def read_page(header: Callable[[str], Optional[str]], body: Iterable[bytes]) -> ResultsPage:
    """The page of a results answer: its headers, then its rows read as they arrive."""
    cursor, groups, status = parse_page_headers(header)
    return ResultsPage(rows=list(iter_ndjson(body)), next_cursor=cursor, groups=groups, batch_status=status)


def _integer_header(header: Callable[[str], Optional[str]], name: str) -> int:
    value = header(name)
    if value is None or not (value.strip().isascii() and value.strip().isdigit()):
        raise InvalidResponse(f"the results answer's {name} header is not an integer >= 0: {value!r}")
    return int(value.strip())
