"""``PolarClient``: a typed mirror of ``polar serve``'s HTTP API (see ``GET /openapi.json``).

Every method is one route. Nothing here decides anything the server decides: groups, rows, advantages and
policy versions come back as the server computed them.
"""

from __future__ import annotations

import http.client
import os
import time
import uuid
from typing import Any, Callable, Dict, Generator, List, Mapping, Optional, Sequence

from .batch import Batch, Capture, TailPolicy
from .errors import InvalidResponse, WaitTimeout
from .events import Event, SseDecoder
from .groups import GroupIterator
from .results import ResultsPage, read_page
from .retry import TRANSFER, RetryPolicy
from .transport import Failure, QueryValue, Transport, read_json, route

DEFAULT_URL = "http://127.0.0.1:8080"


class PolarClient:
    """A client of one ``polar serve``.

    ``url`` defaults to ``$POLAR_SERVE_URL`` (else ``http://127.0.0.1:8080``) and ``token`` to
    ``$POLAR_SERVE_TOKEN``. ``timeout`` bounds each socket operation (connect, each read) in seconds.
    A call that loses its connection is sent again after an exponential backoff with jitter
    (``backoff`` seconds doubled per retry, at most ``max_backoff``), up to ``max_retries`` times, when that
    is safe (see :mod:`polar_rollout.retry`); then :class:`~polar_rollout.errors.ConnectionLost` is raised.
    """

    def __init__(
        self,
        url: Optional[str] = None,
        token: Optional[str] = None,
        *,
        timeout: float = 30.0,
        max_retries: int = 8,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
    ) -> None:
        self.url = (url or os.environ.get("POLAR_SERVE_URL") or DEFAULT_URL).rstrip("/")
        self.timeout = timeout
        self.retry_policy = RetryPolicy(max_retries=max_retries, backoff=backoff, max_backoff=max_backoff)
        self._transport = Transport(self.url, token if token is not None else os.environ.get("POLAR_SERVE_TOKEN"), timeout=timeout, policy=self.retry_policy)

    def __repr__(self) -> str:
        return f"PolarClient(url={self.url!r})"

    # --- batches -------------------------------------------------------------------------------------

    def submit(
        self,
        harness: str,
        *,
        tasks: Optional[Sequence[Mapping[str, Any]]] = None,
        dataset: Optional[str] = None,
        instance_ids: Optional[Sequence[str]] = None,
        samples: int = 1,
        sampling: Optional[Mapping[str, float]] = None,
        policy_version: Optional[int] = None,
        timeout_seconds: Optional[int] = None,
        deadline_seconds: Optional[int] = None,
        concurrency: Optional[int] = None,
        evaluate: Optional[bool] = None,
        allow_logprob_mismatch: Optional[bool] = None,
        callback_url: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        target_groups: Optional[int] = None,
        tail: Optional[TailPolicy] = None,
        capture: Optional[Capture] = None,
        **extra: Any,
    ) -> Batch:
        """Submit a batch: ``samples`` sessions of ``harness`` per task (a GRPO group per task).

        Give ``tasks`` (SWE-bench rows) or ``dataset`` (+ ``instance_ids``). ``None`` arguments are left out
        (the server's defaults apply); ``extra`` fields are sent as they are, for fields newer than this
        client. An idempotency key is always sent (a random one when ``idempotency_key`` is None), so a
        submit repeated after a lost connection returns the first batch instead of making a second; pass
        your own key (e.g. ``f"step-{step}"``) to make a submit repeated after a trainer crash harmless too.

        ``target_groups`` (APRIL-style over-provisioning): the batch counts as done once this many groups are
        complete (default: all). ``tail`` says what happens then to the sessions still going: ``"wait"`` (default)
        lets them finish; ``"cancel"`` stops them (``cancelled`` / ``tail_cancelled``, listed in ``excluded``, never
        delivered) and finishes the batch; ``"carry"`` lets them run on across your step, their groups delivered
        by ``groups``/``results`` when complete, with their tokens' policy versions. Wait for the target with
        :meth:`wait_target`.

        ``capture`` asks for a capture mode: ``"token_in"`` (every call continuing a lineage goes to the engine as
        that lineage's exact tokens, so each lineage is one row: what a trainer taking one sequence per sample
        needs) or ``"chat"`` (the engine renders each call's messages; a lineage whose re-rendered history drifts
        from what was sampled splits into several rows). None: the server's default (``token_in`` when it runs
        with ``--token-in``, else ``chat``). A server or engine that cannot do token-in raises
        :class:`~polar_rollout.errors.CaptureUnavailable` (409) with the fix in its hint; the answer's
        ``Batch.capture`` says which mode the batch runs in.
        """
        body: Dict[str, Any] = {"harness": harness, "samples": samples}
        optional: Dict[str, Any] = {
            "tasks": None if tasks is None else [dict(task) for task in tasks],
            "dataset": dataset,
            "instance_ids": None if instance_ids is None else list(instance_ids),
            "sampling": None if sampling is None else dict(sampling),
            "policy_version": policy_version,
            "timeout_seconds": timeout_seconds,
            "deadline_seconds": deadline_seconds,
            "concurrency": concurrency,
            "evaluate": evaluate,
            "allow_logprob_mismatch": allow_logprob_mismatch,
            "callback_url": callback_url,
            "target_groups": target_groups,
            "tail": tail,
            "capture": capture,
            **extra,
        }
        body.update(_present(optional))
        key = idempotency_key if idempotency_key is not None else f"polar-rollout-{uuid.uuid4().hex}"
        answer = self._transport.call("POST", "/v1/rollouts", read_json, body=body, headers={"Idempotency-Key": key}, idempotent=True)
        return Batch.from_json(answer)

    def get(self, batch_id: str) -> Batch:
        """The batch's status, session and group counts (``GET /v1/rollouts/{id}``)."""
        return Batch.from_json(self._transport.call("GET", route("/v1/rollouts", batch_id), read_json, idempotent=True))

    def list(self) -> List[Batch]:
        """Every batch the server's database holds, oldest first (``GET /v1/rollouts``)."""
        answer = self._transport.call("GET", "/v1/rollouts", read_json, idempotent=True)
        rollouts = answer.get("rollouts")
        if not isinstance(rollouts, list):
            raise InvalidResponse(f"GET /v1/rollouts: no rollouts list in {str(answer)[:200]}")
        return [Batch.from_json(item) for item in rollouts]

    def cancel(self, batch_id: str) -> Batch:
        """Cancel a batch: queued sessions dropped, running ones stopped (``DELETE /v1/rollouts/{id}``).

        A batch that already ended is returned as it is.
        """
        return Batch.from_json(self._transport.call("DELETE", route("/v1/rollouts", batch_id), read_json, idempotent=True))

    def wait(self, batch_id: str, *, poll_interval: float = 1.0, timeout: Optional[float] = None) -> Batch:
        """Poll until the batch is finished, cancelled or failed, and return it.

        Raises :class:`~polar_rollout.errors.WaitTimeout` after ``timeout`` seconds (None: no limit).
        """
        return self._poll(batch_id, lambda batch: batch.terminal, "still", poll_interval, timeout)

    def wait_target(self, batch_id: str, *, poll_interval: float = 1.0, timeout: Optional[float] = None) -> Batch:
        """Poll until the batch's ``target_groups`` groups are complete (or it ended), and return it.

        The moment to step: the target's groups are in ``groups``/``results``. With ``tail="carry"`` the batch is
        still ``running`` (its remaining groups come later through the same cursor); with ``"cancel"`` it is
        ``finished``. A batch that ended without reaching its target (cancelled, failed) is returned too: check
        ``batch.target_reached``. Raises :class:`~polar_rollout.errors.WaitTimeout` after ``timeout`` seconds.
        """
        return self._poll(batch_id, lambda batch: batch.target_reached is True or batch.terminal, "short of its target,", poll_interval, timeout)

    def _poll(self, batch_id: str, done: Callable[[Batch], bool], what: str, poll_interval: float, timeout: Optional[float]) -> Batch:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            batch = self.get(batch_id)
            if done(batch):
                return batch
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise WaitTimeout(
                    f"batch {batch_id} is {what} {batch.status} after {timeout} s",
                    hint="Wait longer (timeout=), or cancel it with client.cancel(batch_id).",
                )
            time.sleep(poll_interval if left is None else min(poll_interval, left))

    # --- results -------------------------------------------------------------------------------------

    def results(
        self,
        batch_id: str,
        *,
        cursor: int = 0,
        limit: Optional[int] = None,
        format: Optional[str] = None,
        builder: Optional[str] = None,
        advantage: Optional[str] = None,
        std: Optional[str] = None,
        messages: Optional[bool] = None,
        min_reward: Optional[float] = None,
        sample: Optional[int] = None,
        **extra: QueryValue,
    ) -> ResultsPage:
        """Rows of the groups completed after ``cursor`` (at most ``limit`` groups).

        ``format`` (polar | verl | openrlhf | sft | swebench-predictions), ``builder`` (prefix_merging |
        per_request), ``advantage`` (grpo | mean | loo | none), ``std``, ``messages``, ``min_reward`` and
        ``sample`` are the ``polar export jsonl`` options; ``extra`` query parameters are sent as they are.
        Rows are read as NDJSON while they arrive; the page is retried whole when the connection breaks.
        """
        query: Dict[str, QueryValue] = {
            "cursor": cursor,
            "limit": limit,
            "format": format,
            "builder": builder,
            "advantage": advantage,
            "std": std,
            "messages": messages,
            "min_reward": min_reward,
            "sample": sample,
            **extra,
        }
        path = route("/v1/rollouts", batch_id, "results")
        return self._transport.call("GET", path, lambda response: read_page(response.getheader, response), query=query, idempotent=True)

    def groups(self, batch_id: str, *, cursor: int = 0, follow: bool = True, poll_interval: float = 1.0, **export_options: Any) -> GroupIterator:
        """Completed groups in order, each once, as :class:`~polar_rollout.groups.Group` (rows in the
        requested ``format``/``builder``/... — the ``results`` options).

        With ``follow`` the iterator polls every ``poll_interval`` seconds until the batch has ended and
        every group was delivered; without, it stops at the last group completed so far. Its ``cursor``
        attribute is the last yielded group's: persist it and pass it back here to resume after a crash.
        """

        def fetch(after: int) -> ResultsPage:
            return self.results(batch_id, cursor=after, limit=1, **export_options)

        return GroupIterator(fetch, batch_id, cursor=cursor, follow=follow, poll_interval=poll_interval)

    def events(self, *, reconnect: bool = True, read_timeout: float = 60.0) -> Generator[Event, None, None]:
        """Server-sent events (``GET /v1/events``) as :class:`~polar_rollout.events.Event`.

        With ``reconnect`` a broken or ended stream is opened again with backoff (each new connection
        starts with a ``hello`` event); events sent while disconnected are lost, so count on the results
        cursor, not on events, for data. ``read_timeout`` must exceed the server's keep-alive (15 s).
        ``close()`` the generator (or leave the loop) to close the connection.
        """
        policy, transport = self.retry_policy, self._transport
        failures = 0
        while True:
            try:
                connection, response = transport.open("GET", "/v1/events", timeout=read_timeout)
            except Failure as failure:
                failures += 1
                if not reconnect or not policy.should_retry(failure.phase, idempotent=True, attempt=failures):
                    raise transport.gave_up("GET", "/v1/events", failure, failures, idempotent=True) from failure.cause
                transport.wait_before_retry("GET", "/v1/events", failure, failures)
                continue
            broken: Optional[Failure] = None
            try:
                decoder = SseDecoder()
                for line in response:
                    event = decoder.feed(line)
                    if event is not None:
                        failures = 0
                        yield event
            except (OSError, http.client.HTTPException) as error:  # reset, read timeout, a cut-off chunked stream
                broken = Failure(TRANSFER, error)
            finally:
                connection.close()
            failures += 1
            ended = broken if broken is not None else Failure(TRANSFER, ConnectionResetError("the server ended the event stream"))
            if not reconnect or not policy.should_retry(ended.phase, idempotent=True, attempt=failures):
                if not reconnect and broken is None:
                    return
                raise transport.gave_up("GET", "/v1/events", ended, failures, idempotent=True) from ended.cause
            transport.wait_before_retry("GET", "/v1/events", ended, failures)

    # --- generation ----------------------------------------------------------------------------------

    def pause(
        self,
        *,
        mode: Optional[str] = None,
        drain_timeout_ms: Optional[int] = None,
        sleep: Optional[int] = None,
        request_timeout: Optional[float] = None,
        **extra: Any,
    ) -> Dict[str, Any]:
        """Pause generation around a weight sync.

        ``mode`` (server default ``"hold"``): ``"hold"`` holds new model calls and drains those upstream for up to
        ``drain_timeout_ms`` (server default 60 000); ``"keep"`` also pauses every engine replica with its requests
        frozen in place (they continue under the next resume's weights, each call recording where its version
        changed); ``"abort"`` pauses every replica and ends its requests (their sessions are retried). ``sleep``
        (1 or 2) then puts the engines to sleep once nothing is in flight (not with ``"keep"``).
        Returns the server's answer, e.g. ``{"paused": True, "mode": "keep", "drained": False, "in_flight": 2,
        "frozen": 2, "sleeping": None, "policy_version": 3}``. An engine that lacks the mode or sleep raises
        ``Conflict`` whose hint says how to enable it. ``extra`` fields are sent as they are. The call waits for
        the drain (and the sleep): its read timeout is the drain plus 30 s (plus 5 min with ``sleep``) unless
        ``request_timeout`` says otherwise. Not repeated after a broken connection.
        """
        drain = 60_000 if drain_timeout_ms is None else drain_timeout_ms
        timeout = request_timeout if request_timeout is not None else max(self.timeout, drain / 1000 + 30 + (300 if sleep is not None else 0))
        body = _present({"mode": mode, "drain_timeout_ms": drain_timeout_ms, "sleep": sleep, **extra})
        return self._transport.call("POST", "/v1/generation/pause", read_json, body=body, idempotent=False, timeout=timeout)

    def resume(
        self,
        *,
        policy_version: Optional[int] = None,
        weights: Optional[Mapping[str, str]] = None,
        request_timeout: Optional[float] = None,
        **extra: Any,
    ) -> Dict[str, Any]:
        """Wake the engines if asleep, load ``weights`` on every replica, resume them and release held calls.

        Calls sent from now on record ``policy_version`` (never lower than the current). ``weights`` (see
        :mod:`polar_rollout.weights`: ``disk_weights(path)``, ``lora_weights(name, path)``, ``RELOAD_WEIGHTS``,
        ``PUSHED_WEIGHTS``) needs a ``policy_version`` above the current one; a replica that fails to load them
        leaves generation paused (``ServerError``, status 502). Returns e.g. ``{"paused": False,
        "policy_version": 4, "weights": "reload", "version_boundaries": 2, "version_unobserved": 0,
        "upstream_model": None}``. The read timeout is 15 minutes unless ``request_timeout`` says otherwise (a
        weight load takes time). Not repeated after a broken connection.
        """
        body = _present({"policy_version": policy_version, "weights": dict(weights) if weights is not None else None, **extra})
        timeout = request_timeout if request_timeout is not None else (max(self.timeout, 900.0) if weights is not None else None)
        return self._transport.call("POST", "/v1/generation/resume", read_json, body=body, idempotent=False, timeout=timeout)

    def status(self) -> Dict[str, Any]:
        """Generation (paused, policy version, in flight, held), queue per stage, batches, model, replicas, hosts (per Docker host: state, slots, sessions)."""
        return self._transport.call("GET", "/v1/status", read_json, idempotent=True)

    def openapi(self) -> Dict[str, Any]:
        """The server's OpenAPI 3.1 document (``GET /openapi.json``, no token needed)."""
        return self._transport.call("GET", "/openapi.json", read_json, idempotent=True)


def _present(fields: Mapping[str, Any]) -> Dict[str, Any]:
    """The fields whose value is not None."""
    return {key: value for key, value in fields.items() if value is not None}
