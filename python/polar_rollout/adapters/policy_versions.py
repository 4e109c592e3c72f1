"""Policy versions between a trainer and ``polar serve``: which version polar records on every model call.

polar stamps each call with the version in force when it went upstream (``POST /v1/generation/resume
{"policy_version": n}``); rows carry it per token (``versions``) and per row (``policy_versions``), which is
where slime's ``weight_versions``, verl's ``param_version_start/end`` and AReaL-style per-token versions come from.

Shape A (the trainer owns the engine and pushes weights into it itself): polar cannot see the push, so the
glue announces the trainer's version before each batch (``announce_policy_version``); calls sent from then
on record it. Shape B (polar owns the engine): the trainer's weight push goes between ``client.pause()`` and
``client.resume(policy_version=...)``, which ``sync_weights`` does around the trainer's own function; the glue
only warns when polar's version lags the trainer's (the push was not wrapped).
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Dict, Mapping, Optional

log = logging.getLogger("polar_rollout")

#: Who owns the inference engine: "A" the trainer, "B" polar serve.
ENGINE_SHAPES = ("A", "B")


def current_policy_version(client: Any) -> int:
    """The version polar records on calls sent now (``GET /v1/status``)."""
    return int(client.status()["generation"]["policy_version"])


def announce_policy_version(client: Any, version: int) -> bool:
    """Shape A: the trainer pushed weights ``version`` into its own engine; polar's calls record it from now on.

    Returns True when polar's version moved. Never lowers it (polar refuses a lower version, and a lower one
    here means the trainer restarted from an older checkpoint: its calls keep the newer number). Shape A only:
    a resume also releases a pause someone else holds.
    """
    if version <= current_policy_version(client):
        return False
    client.resume(policy_version=version)
    return True


def sync_weights(
    client: Any,
    policy_version: int,
    update_weights: Optional[Callable[[], Any]] = None,
    *,
    drain_timeout_ms: int = 60_000,
    resume_options: Optional[Mapping[str, Any]] = None,
    **pause_options: Any,
) -> Dict[str, Any]:
    """Shape B: pause polar's generation, run the trainer's weight push, resume with ``policy_version``.

    The pause holds new model calls (harnesses wait) and drains the ones in flight, so no call straddles the
    push; ``pause_options`` go to ``POST /v1/generation/pause`` as they are (an engine-side mode such as
    keeping or aborting in-flight requests, where the server offers one). Calls sent after the resume record
    ``policy_version``. When ``update_weights`` raises, generation stays paused and the error propagates:
    resume once the engine's weights are consistent. Returns the resume's answer.
    """
    client.pause(drain_timeout_ms=drain_timeout_ms, **pause_options)
    if update_weights is not None:
        update_weights()
    answer: Dict[str, Any] = client.resume(policy_version=policy_version, **dict(resume_options or {}))
    return answer


def apply_policy_version(client: Any, engine_shape: str, version: Optional[int]) -> None:
    """What the glue does before it submits a batch for the trainer's ``version`` (nothing when it has none)."""
    if version is None:
        return
    if engine_shape == "A":
        announce_policy_version(client, version)
        return
    current = current_policy_version(client)
    if current < version:
        log.warning(
            "polar serve records policy version %d but the trainer is at %d: its weight push did not go through "
            "polar_rollout.adapters.policy_versions.sync_weights (Shape B), or the engine is the trainer's (set POLAR_ENGINE_SHAPE=A).",
            current,
            version,
        )
