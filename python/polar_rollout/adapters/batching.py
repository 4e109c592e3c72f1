"""Glue between trainers and ``polar serve``: submit one batch, read its groups, hand each request its session.

Trainers that ask per sample (verl's ``AgentLoopBase.run``, slime's custom generate function) get their
concurrent requests gathered by ``BatchCoalescer`` into one polar batch (one task per prompt, ``samples`` =
the requests for that prompt), so polar computes each group's advantages over all its samples. Trainers that
ask per step (slime's rollout function, SkyRL, TRL) call ``run_batch`` directly.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Set, Tuple

from ..errors import PolarError
from ..rows import Row, groups_of
from .capture import capture_refused, check_capture, confirm_capture
from .common import AdapterError, GroupSplitError, TaskRef, instance_id_of, submit_arguments
from .policy_versions import POLICY_SYNCS, apply_policy_version
from .trainer_yield import YieldTally


@dataclass
class PolarSettings:
    """What the glue needs to submit a batch; ``from_env`` reads ``POLAR_*`` variables.

    ``policy_sync`` (``POLAR_POLICY_SYNC``): how polar learns the trainer's policy version. "announce" (the
    default): the glue tells polar before each batch, for weights pushed while no call of polar's was in
    flight (into the trainer's own engine, Shape A, or by a synchronous trainer between steps). "pause": the
    trainer's push goes through ``policy_versions.sync_weights`` and the glue only warns when polar lags.

    ``capture`` (``POLAR_CAPTURE``): ``token_in`` or ``chat`` for every batch, over the adapter's default
    (``token_in`` for verl, TRL and SkyRL trajectory mode; the server's default for slime and SkyRL step-wise).
    """

    harness: str
    dataset: Optional[str] = None
    timeout_seconds: Optional[int] = None
    submit_options: Dict[str, Any] = field(default_factory=dict)
    policy_sync: str = "announce"
    capture: Optional[str] = None

    def __post_init__(self) -> None:
        check_capture(self.capture, "PolarSettings.capture (POLAR_CAPTURE)")
        if self.policy_sync not in POLICY_SYNCS:
            raise AdapterError(f"policy_sync must be one of {', '.join(POLICY_SYNCS)}, not {self.policy_sync!r}.",
                               hint="announce: the glue tells polar the trainer's version; pause: the trainer's push goes through sync_weights (POLAR_POLICY_SYNC).")

    @classmethod
    def from_env(cls, env: Optional[Mapping[str, str]] = None, *, default_sync: str = "announce", **overrides: Any) -> PolarSettings:
        env = os.environ if env is None else env
        harness = overrides.pop("harness", None) or env.get("POLAR_HARNESS")
        if not harness:
            raise AdapterError("No harness named for polar batches.", hint="set POLAR_HARNESS (pi, codex, claude-code, qwen-code, gemini) or pass harness=.")
        timeout = env.get("POLAR_TIMEOUT_SECONDS")
        return cls(
            harness=harness,
            dataset=overrides.pop("dataset", None) or env.get("POLAR_DATASET"),
            timeout_seconds=overrides.pop("timeout_seconds", None) or (int(float(timeout)) if timeout else None),
            policy_sync=overrides.pop("policy_sync", None) or env.get("POLAR_POLICY_SYNC") or default_sync,
            capture=overrides.pop("capture", None) or env.get("POLAR_CAPTURE") or None,
            submit_options=overrides,
        )


def default_client() -> Any:
    """A client from ``POLAR_SERVE_URL`` / ``POLAR_SERVE_TOKEN``."""
    from .. import PolarClient

    return PolarClient()


@dataclass
class BatchRun:
    """A submitted batch and its groups as they complete: (instance id, that group's rows); ``capture`` is the
    batch's capture mode as the server answered it (the one asked for, or the server's default; None from a
    server that predates per-batch capture)."""

    batch_id: str
    groups: Iterator[Tuple[Optional[str], List[Row]]]
    capture: Optional[str] = None


def run_batch(
    client: Any,
    settings: PolarSettings,
    tasks: Sequence[TaskRef],
    samples: int,
    *,
    builder: str,
    advantage: str = "grpo",
    sampling: Optional[Mapping[str, Any]] = None,
    policy_version: Optional[int] = None,
    capture: Optional[str] = None,
) -> BatchRun:
    """Submit ``tasks`` x ``samples`` and iterate its completed groups (following the batch to its end).

    ``policy_version`` is the trainer's (the optimizer steps behind the weights that will generate the
    batch): sent with the batch (polar's ``--max-staleness`` reads it) and, with ``policy_sync="announce"``,
    announced first so the batch's calls record it. ``capture`` (``token_in`` / ``chat``; None: the server's
    default) is asked for and confirmed: a server or engine that cannot do it raises CaptureUnavailable.
    """
    check_capture(capture, "capture")
    apply_policy_version(client, settings.policy_sync, policy_version)
    options: Dict[str, Any] = dict(settings.submit_options)
    if settings.timeout_seconds is not None:
        options["timeout_seconds"] = settings.timeout_seconds
    if capture is not None:
        options["capture"] = capture
    try:
        batch = client.submit(
            settings.harness,
            **submit_arguments(tasks, settings.dataset),
            samples=samples,
            sampling=dict(sampling) if sampling else None,
            policy_version=policy_version,
            **options,
        )
    except PolarError as error:
        refused = capture_refused(error, capture) if capture is not None else None
        if refused is None:
            raise
        raise refused from error
    answered = confirm_capture(batch, capture)

    def groups() -> Iterator[Tuple[Optional[str], List[Row]]]:
        for group in client.groups(batch.id, follow=True, format="polar", builder=builder, advantage=advantage):
            rows = list(group.rows)
            instance = getattr(group, "instance_id", None) or (rows[0]["task_id"] if rows else None)
            yield instance, rows

    return BatchRun(batch.id, groups(), answered)


def plan_batches(tasks: Sequence[TaskRef], counts: Sequence[int]) -> List[List[int]]:
    """Indexes of ``tasks`` split into batches with distinct instance ids and one sample count each.

    A batch's group is ``<run>/<instance_id>``, so the same task twice in one batch would merge two
    trainer groups; a batch has one ``samples``, so prompts asking for different counts go apart.
    """
    batches: List[Tuple[int, Set[str], List[int]]] = []
    for index, (task, count) in enumerate(zip(tasks, counts)):
        instance = instance_id_of(task)
        for batch_count, seen, members in batches:
            if batch_count == count and instance not in seen:
                seen.add(instance)
                members.append(index)
                break
        else:
            batches.append((count, {instance}, [index]))
    return [members for _, _, members in batches]


#: Reads one batch for the coalescer: (tasks, samples) -> completed groups as (instance id, rows).
ReadBatch = Callable[[List[TaskRef], int], Iterable[Tuple[Optional[str], List[Row]]]]


@dataclass
class SlotRows:
    """One request's answer: its slot (``sample_index``) among ``samples``, its session's rows (``[]`` when the
    server excluded that session) and every row of the group (to tell whether the group is complete)."""

    slot: int
    samples: int
    rows: List[Row]
    group: List[Row]
    #: Shared by every request answered from one batch: each adds its yield, the last one logs the batch's.
    tally: Optional[YieldTally] = None

    @property
    def complete(self) -> bool:
        """Every asked sample has rows (no session of the group was excluded)."""
        return len({row["session_id"] for row in self.group}) == self.samples


@dataclass
class _Pending:
    task: TaskRef
    futures: List["asyncio.Future[SlotRows]"] = field(default_factory=list)


class BatchCoalescer:
    """Gathers per-sample requests that arrive together into polar batches and answers each with its session.

    ``request(key, task)`` is awaited once per sample (it returns ``SlotRows``); requests with the same ``key`` (one prompt: slime's
    ``group_index``, verl's ``uid``) become one task whose ``samples`` is their number. A batch is submitted
    once no request arrived for ``linger`` seconds. The j-th request of a key gets the rows of the session
    with ``sample_index`` j, or none when the server excluded that session (an infra error): the adapter then
    fills the slot with a placeholder. With ``expected_samples`` set, a key with another number of requests
    fails with GroupSplitError (polar's advantages would be computed over part of the trainer's group).
    """

    def __init__(self, read_batch: ReadBatch, *, linger: float = 0.05, expected_samples: Optional[int] = None) -> None:
        self._read_batch = read_batch
        self._linger = linger
        self._expected = expected_samples
        self._pending: Dict[str, _Pending] = {}
        self._timer: Optional[asyncio.TimerHandle] = None

    async def request(self, key: str, task: TaskRef) -> SlotRows:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[SlotRows] = loop.create_future()
        self._pending.setdefault(key, _Pending(task)).futures.append(future)
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_later(self._linger, self._flush)
        return await future

    def _flush(self) -> None:
        self._timer = None
        pending, self._pending = self._pending, {}
        keys = list(pending)
        for key in keys:
            count = len(pending[key].futures)
            if self._expected is not None and count != self._expected:
                error = GroupSplitError(
                    f"Prompt {key} reached this worker with {count} samples, not {self._expected}.",
                    hint="make every worker's share hold whole groups (verl: train_batch_size divisible by agent.num_workers), or use signal='reward'.",
                )
                for future in pending.pop(key).futures:
                    future.set_exception(error)
        keys = list(pending)
        for members in plan_batches([pending[key].task for key in keys], [len(pending[key].futures) for key in keys]):
            batch = {keys[i]: pending[keys[i]] for i in members}
            asyncio.get_running_loop().create_task(self._answer(batch))

    async def _answer(self, batch: Dict[str, _Pending]) -> None:
        by_instance = {instance_id_of(entry.task): entry for entry in batch.values()}
        samples = len(next(iter(batch.values())).futures)
        tally = YieldTally(sum(len(entry.futures) for entry in batch.values()))
        loop = asyncio.get_running_loop()

        def read() -> None:
            for instance, rows in self._read_batch([entry.task for entry in batch.values()], samples):
                entry = by_instance.pop(instance, None) if instance is not None else None
                if entry is not None:
                    loop.call_soon_threadsafe(_resolve, entry, rows, tally)

        try:
            await loop.run_in_executor(None, read)
        except BaseException as error:  # answer every waiting request with the failure
            for entry in by_instance.values():
                for future in entry.futures:
                    if not future.done():
                        future.set_exception(error)
            return
        for entry in by_instance.values():  # groups that exported no row at all (every session excluded)
            _resolve(entry, [], tally)


def _resolve(entry: _Pending, rows: List[Row], tally: Optional[YieldTally] = None) -> None:
    sessions = groups_of(rows)[0].sessions if rows else []
    by_sample: Dict[int, List[Row]] = {}
    for position, session in enumerate(sessions):
        by_sample[session.sample_index if session.sample_index is not None else position] = session.rows
    for index, future in enumerate(entry.futures):
        if not future.done():
            future.set_result(SlotRows(index, len(entry.futures), by_sample.get(index, []), rows, tally))
