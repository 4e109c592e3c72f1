"""Typed errors of the client: one class per error ``type`` of ``polar serve``, plus connection loss.

``polar serve`` answers a failure with ``{"error": {"type", "message", "hint"?}}`` and an HTTP status.
:func:`error_from_response` turns that into the matching :class:`PolarError` subclass, so a caller can
``except NotFound`` without comparing strings, and ``str(error)`` reads the way the CLI prints it: the
message, then ``hint: ...`` on its own line.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional, Type


class PolarError(Exception):
    """Base class: what failed (``message``), how to fix it (``hint``), the server's ``type`` and HTTP ``status``."""

    #: The server's error type this class stands for (``None`` on the base class).
    error_type: Optional[str] = None

    def __init__(self, message: str, *, type: Optional[str] = None, hint: Optional[str] = None, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        self.type = type if type is not None else (self.error_type or "error")
        self.hint = hint
        self.status = status

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\nhint: {self.hint}"

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(type={self.type!r}, status={self.status!r}, message={self.message!r}, hint={self.hint!r})"


class InvalidRequest(PolarError):
    """400 ``invalid_request``: bad JSON, an unknown field or harness, a malformed task row, a bad query value."""

    error_type = "invalid_request"


class Unauthorized(PolarError):
    """401 ``unauthorized``: the bearer token is missing or wrong."""

    error_type = "unauthorized"


class NotFound(PolarError):
    """404 ``not_found``: no such batch (or route)."""

    error_type = "not_found"


class Conflict(PolarError):
    """409 ``conflict``: an idempotency key already used with another request body."""

    error_type = "conflict"


class CaptureUnavailable(PolarError):
    """409 ``capture_unavailable``: the batch asked for a capture mode the server or its engine cannot do.

    ``polar serve`` answers it when a batch asks for ``"capture": "token_in"`` and an engine behind it has no
    usable token-in route (or for ``"chat"``, an SGLang whose chat answers carry no token ids); the hint names the
    fix. The trainer adapters also raise it when a server that predates per-batch capture refuses the field, or
    answers with another capture than the one asked for; their hint adds the opt-in to chat mode.
    """

    error_type = "capture_unavailable"


class PayloadTooLarge(PolarError):
    """413 ``payload_too_large``: the request body is over the server's ``--max-body-bytes``."""

    error_type = "payload_too_large"


class ServerError(PolarError):
    """500 ``internal`` or any other 5xx the server (or a proxy in front of it) answered with."""

    error_type = "internal"


class ConnectionLost(PolarError):
    """The server could not be reached, or the connection broke, and the call was not (or no longer) retried.

    ``attempts`` is how many times the call was sent or tried; ``__cause__`` is the last socket error.
    """

    error_type = "connection_lost"

    def __init__(self, message: str, *, hint: Optional[str] = None, attempts: int = 1) -> None:
        super().__init__(message, hint=hint)
        self.attempts = attempts


class InvalidResponse(PolarError):
    """The server answered with something the documented API does not allow (a broken row, a missing header)."""

    error_type = "invalid_response"


class WaitTimeout(PolarError):
    """:meth:`PolarClient.wait` gave up before the batch ended."""

    error_type = "wait_timeout"


_BY_TYPE: Dict[str, Type[PolarError]] = {
    cls.error_type: cls
    for cls in (InvalidRequest, Unauthorized, NotFound, Conflict, CaptureUnavailable, PayloadTooLarge, ServerError)
    if cls.error_type is not None
}
_BY_STATUS: Dict[int, Type[PolarError]] = {400: InvalidRequest, 401: Unauthorized, 404: NotFound, 409: Conflict, 413: PayloadTooLarge}

#: Said when the server's 401 carries no hint of its own (its message names the server's flags, not the client's).
UNAUTHORIZED_HINT = "Pass token= to PolarClient or set POLAR_SERVE_TOKEN to the token polar serve was started with (--token, POLAR_SERVE_TOKEN, or the one it printed)."


def error_class(error_type: Optional[str], status: int) -> Type[PolarError]:
    """The class for a server error ``type``; by HTTP status when the type is unknown (a newer server)."""
    if error_type is not None and error_type in _BY_TYPE:
        return _BY_TYPE[error_type]
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return ServerError if status >= 500 else PolarError


def error_from_response(status: int, body: bytes, what: str) -> PolarError:
    """The typed error for an HTTP error answer; ``what`` (e.g. ``GET /v1/rollouts/b_1``) names the call when the body is not polar's JSON."""
    error_type: Optional[str] = None
    message: Optional[str] = None
    hint: Optional[str] = None
    parsed = _parse_error_body(body)
    if parsed is not None:
        error_type = parsed.get("type") if isinstance(parsed.get("type"), str) else None
        message = parsed.get("message") if isinstance(parsed.get("message"), str) else None
        hint = parsed.get("hint") if isinstance(parsed.get("hint"), str) else None
    if message is None:
        text = body.decode("utf-8", errors="replace").strip()
        message = f"{what}: HTTP {status}" + (f": {text[:500]}" if text else "")
    cls = error_class(error_type, status)
    if cls is Unauthorized and hint is None:
        hint = UNAUTHORIZED_HINT
    return cls(message, type=error_type, hint=hint, status=status)


def _parse_error_body(body: bytes) -> Optional[Dict[str, Any]]:
    try:
        value = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if isinstance(value, dict) and isinstance(value.get("error"), dict):
        error: Dict[str, Any] = value["error"]
        return error
    return None
