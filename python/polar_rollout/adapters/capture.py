"""Which capture mode an adapter's batches ask for, and the typed error when the server cannot do it.

A trainer that takes one sequence per sample (verl, TRL, SkyRL trajectory mode) asks for ``token_in`` batches:
each lineage is then one row, so the one sequence it takes holds every token the model sampled. A user may opt
into ``chat`` explicitly (the adapter's ``capture`` parameter or ``POLAR_CAPTURE=chat``); the step's yield is then
logged as a warning. slime and SkyRL step-wise train every row in either mode and ask for none: the server's
default (``chat`` unless ``polar serve --token-in``).
"""

from __future__ import annotations

from typing import Any, Literal, Optional, overload

from ..batch import CAPTURES
from ..errors import CaptureUnavailable, InvalidRequest, PolarError

#: What one-sequence trainers ask for unless the user opts into chat.
ONE_SEQUENCE_CAPTURE = "token_in"

@overload
def asked_capture(explicit: Optional[str], configured: Optional[str], *, one_sequence: Literal[True]) -> str: ...


@overload
def asked_capture(explicit: Optional[str], configured: Optional[str], *, one_sequence: bool) -> Optional[str]: ...


def asked_capture(explicit: Optional[str], configured: Optional[str], *, one_sequence: bool) -> Optional[str]:
    """The capture mode an adapter's batches ask for: the adapter's own, else the settings' (POLAR_CAPTURE), else
    token-in for a trainer that takes one sequence per sample (None: the server's default)."""
    return explicit or configured or (ONE_SEQUENCE_CAPTURE if one_sequence else None)


#: Said with every CaptureUnavailable an adapter raises: the opt-in and what it costs.
CHAT_OPT_IN = (
    "Or opt into chat mode (capture='chat' on the adapter, or POLAR_CAPTURE=chat): a trainer taking one sequence per "
    "sample then trains one row of each session whose lineage split, and logs each step's yield (polar/yield)."
)

_SERVER_FIX = (
    "Token-in needs an engine with a token-in route, reached directly: vLLM >= 0.10.2 (/tokenize with messages, "
    "/v1/completions with return_token_ids) or a recent SGLang (/tokenize rendering chat messages, /generate); "
    "polar serve --token-in (with --tool-format) makes it every batch's default."
)


def check_capture(capture: Optional[str], where: str) -> Optional[str]:
    """``capture`` when it is None or a capture mode; a ValueError naming ``where`` otherwise."""
    if capture is not None and capture not in CAPTURES:
        raise ValueError(f"{where} must be one of {', '.join(CAPTURES)} (or unset), not {capture!r}.")
    return capture


def capture_refused(error: PolarError, asked: str) -> Optional[CaptureUnavailable]:
    """The CaptureUnavailable to raise for a submit that asked for ``asked`` and failed with ``error``, or None
    when the failure is about something else. Adds the chat opt-in to the server's own fix."""
    if isinstance(error, CaptureUnavailable):
        hint = " ".join(part for part in (error.hint or _SERVER_FIX, CHAT_OPT_IN) if part)
        return CaptureUnavailable(error.message, hint=hint, status=error.status)
    if isinstance(error, InvalidRequest) and "capture" in error.message:
        return CaptureUnavailable(
            f"polar serve refused the batch field capture={asked!r} ({error.message}): it predates per-batch capture modes.",
            hint=f"Update polar. {_SERVER_FIX} {CHAT_OPT_IN}",
            status=error.status,
        )
    return None


def confirm_capture(batch: Any, asked: Optional[str]) -> Optional[str]:
    """The batch's capture mode; CaptureUnavailable when the server answered with another one than ``asked``."""
    answered = getattr(batch, "capture", None)
    if asked is not None and answered != asked:
        raise CaptureUnavailable(
            f"Batch {getattr(batch, 'id', '?')} was asked for capture {asked!r} but runs in {answered!r}.",
            hint=f"{_SERVER_FIX} {CHAT_OPT_IN}",
        )
    return answered if isinstance(answered, str) else asked
