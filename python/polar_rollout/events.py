"""Server-sent events of ``GET /v1/events``, decoded line by line.

``polar serve`` sends ``hello`` (on every connection, with the generation state), ``batch``, ``session``,
``group`` (a completed group, with its cursor ``seq``), ``target_reached`` (a batch submitted with ``tail``
cancel or carry has ``target_groups`` complete groups: ``batchId``, ``targetGroups``, ``tail``, ``complete``,
``cancelled``, ``carried``) and ``generation`` (pause / resume). Each event's
data is one JSON object. Events are not stored: one sent while the client was reconnecting is gone, so the
results cursor, not the event stream, is what a trainer counts on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from .errors import InvalidResponse


@dataclass(frozen=True)
class Event:
    """One event: its ``type`` (the SSE ``event:`` field) and its JSON ``data``."""

    type: str
    data: Dict[str, Any]


class SseDecoder:
    """Turns SSE lines into events (the text/event-stream rules: fields, comments, a blank line ends an event)."""

    def __init__(self) -> None:
        self._type: Optional[str] = None
        self._data: List[str] = []

    def feed(self, line: bytes) -> Optional[Event]:
        """Takes one line (with or without its line ending); returns the event a blank line completes."""
        text = line.decode("utf-8").rstrip("\r\n")
        if text == "":
            return self._dispatch()
        if text.startswith(":"):
            return None  # a comment: polar serve's keep-alive
        name, _, value = text.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._type = value
        elif name == "data":
            self._data.append(value)
        return None  # id and retry are not used by polar serve; unknown fields are ignored (the SSE rules)

    def _dispatch(self) -> Optional[Event]:
        kind, data = self._type or "message", self._data
        self._type, self._data = None, []
        if not data:
            return None
        raw = "\n".join(data)
        try:
            value = json.loads(raw)
        except ValueError as error:
            raise InvalidResponse(f"event {kind!r} carries data that is not JSON ({error}): {raw[:200]!r}") from error
        if not isinstance(value, dict):
            raise InvalidResponse(f"event {kind!r} carries data that is not a JSON object: {raw[:200]!r}")
        return Event(type=kind, data=value)
