"""Policy versions between a trainer and ``polar serve``: which version polar records on every model call.

polar stamps each call with the version in force when it went upstream (``POST /v1/generation/resume
{"policy_version": n}``); rows carry it per token (``versions``) and per row (``policy_versions``), which is
where slime's ``weight_versions``, verl's ``param_version_start/end`` and AReaL-style per-token versions come from.

When the trainer pushes weights while no call of polar's is in flight (into its own engine, Shape A, or into
polar's engine between the steps of a synchronous trainer), the glue announces the trainer's version before
each batch (``announce_policy_version``, ``policy_sync="announce"``); calls sent from then on record it. When
calls may be in flight during the push (polar owns the engine, Shape B, with an asynchronous trainer), the push
goes between ``client.pause()`` and ``client.resume(policy_version=...)``, which ``sync_weights`` does around
the trainer's own function (``policy_sync="pause"``); the glue then only warns when polar's version lags.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Dict, Mapping, Optional

log = logging.getLogger("polar_rollout")

#: How polar learns the trainer's version: the glue announces it, or the trainer's push is wrapped in a pause.
POLICY_SYNCS = ("announce", "pause")


def current_policy_version(client: Any) -> int:
    """The version polar records on calls sent now (``GET /v1/status``)."""
    return int(client.status()["generation"]["policy_version"])


def announce_policy_version(client: Any, version: int) -> bool:
    """The trainer pushed weights ``version`` while no call was in flight; polar's calls record it from now on.

    Returns True when polar's version moved. Never lowers it (polar refuses a lower version, and a lower one
    here means the trainer restarted from an older checkpoint: its calls keep the newer number). Not while the
    trainer pauses polar itself: a resume also releases that pause.
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
    mode: Optional[str] = None,
    drain_timeout_ms: int = 60_000,
    sleep: Optional[int] = None,
    weights: Optional[Mapping[str, str]] = None,
    resume_options: Optional[Mapping[str, Any]] = None,
    **pause_options: Any,
) -> Dict[str, Any]:
    """Pause polar's generation, run the trainer's weight push into polar's engine, resume with ``policy_version``.

    ``mode`` is the pause's (``PolarClient.pause``): ``"hold"`` (the server's default) holds new model calls and
    drains the ones in flight, so no call straddles the push; ``"keep"`` freezes the calls in flight in the
    engine, which continue under the new weights with their per-token version boundary recorded; ``"abort"``
    ends them (their sessions are retried). ``sleep`` (1 or 2) puts the engine to sleep during the push (one GPU:
    the trainer gets the memory back); the resume wakes it. ``weights`` (``polar_rollout.weights``) are what
    polar loads into the engine at the resume when ``update_weights`` does not push them itself; without them
    the push is ``update_weights``' (give ``PUSHED_WEIGHTS`` to have SGLang label its answers with the
    version). Other ``pause_options`` go to the pause as they are. Calls sent after the resume record
    ``policy_version``. When ``update_weights`` raises, generation stays paused and the error propagates: resume
    once the engine's weights are consistent. Returns the resume's answer.
    """
    pause: Dict[str, Any] = {"drain_timeout_ms": drain_timeout_ms, **pause_options}
    if mode is not None:
        pause["mode"] = mode
    if sleep is not None:
        pause["sleep"] = sleep
    client.pause(**pause)
    if update_weights is not None:
        update_weights()
    resume: Dict[str, Any] = dict(resume_options or {})
    if weights is not None:
        resume["weights"] = dict(weights)
    answer: Dict[str, Any] = client.resume(policy_version=policy_version, **resume)
    return answer


def apply_policy_version(client: Any, policy_sync: str, version: Optional[int]) -> None:
    """What the glue does before it submits a batch for the trainer's ``version`` (nothing when it has none)."""
    if version is None:
        return
    if policy_sync == "announce":
        announce_policy_version(client, version)
        return
    current = current_policy_version(client)
    if current < version:
        log.warning(
            "polar serve records policy version %d but the trainer is at %d: its weight push did not go through "
            "polar_rollout.adapters.policy_versions.sync_weights, or polar should be told the version (POLAR_POLICY_SYNC=announce).",
            current,
            version,
        )
