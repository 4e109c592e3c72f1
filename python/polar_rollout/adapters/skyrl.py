"""SkyRL adapter: polar rows -> a ``GeneratorOutput``, step-wise (one row per model call) or one row per trajectory.

Trainer-side configuration (SkyRL a956457): an entrypoint whose ``BasePPOExp.get_generator`` returns
``polar_rollout.adapters.skyrl.make_generator(step_wise=True)``, with::

    generator.step_wise_trajectories=true          # per_request rows: every call trained in its own context
    trainer.algorithm.advantage_estimator=polar    # after polar_rollout.adapters.skyrl.register_polar_estimator()

A trajectory is a polar session (``TrajectoryID(instance_id, repetition_id)`` with ``repetition_id`` = the
session's ``sample_index``); in step-wise mode its rows are adjacent, ``is_last_step`` is a real bool true only
on its last row, and the scalar in ``rewards`` sits on that last row (0.0 on the others), which SkyRL
broadcasts to every step. With ``signal="advantage"`` (default) that scalar is polar's advantage x the loss weight
of the trained trace (the lineage kind's weight, main 1: a step trains each of its tokens at the session's
advantage, as trajectory mode does) and the ``polar`` estimator passes it through; with ``signal="reward"`` it is
polar's reward and SkyRL's own estimator (grpo, rloo...) computes advantages per ``instance_id``.

Trajectory mode asks for token-in batches (each lineage one row, so the one row per trajectory holds every sampled
token); ``make_generator(step_wise=False, capture="chat")`` (or ``POLAR_CAPTURE=chat``) opts into chat capture, and
each step's yield is then logged as a warning. Step-wise mode trains every row in either capture and asks for none
(the server's default). ``rollout_metrics`` carries ``polar/yield`` and its tokens either way.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..check import Exclusion, NormalisedSample
from ..rows import Row, Session, call_versions, finite_logprobs, groups_of, is_main, trace_id_of
from .batching import PolarSettings, default_client, plan_batches, run_batch
from .capture import asked_capture, check_capture
from .trainer_yield import RECEIVED, SAMPLED, TrainerYield, report_yield, trainer_yield
from .common import (
    AdapterError,
    MissingRewardError,
    choose_sequence,
    instance_id_of,
    lazy_import,
    row_exclusion,
    sampling_from,
    session_metrics,
    split_by_weight,
    task_ref,
    trace_weight,
    untrainable_exclusion,
)

log = logging.getLogger("polar_rollout")

SIGNALS = ("advantage", "reward")

#: SkyRL's stop-reason vocabulary is the engine's: "stop" for a normal end (a tool call ends normally), "length".
STOP_REASONS = {"stop": "stop", "tool_calls": "stop", "length": "length", "abort": "abort"}

_PROVENANCE = ("session_id", "row_index", "call_ids", "trace_id", "step_index", "group_id", "task_id", "sample_index",
               "lineage_kind", "loss_weight", "reward", "advantage", "status", "stop_reason", "policy_versions", "capture")


def skyrl_stop_reason(stop_reason: Optional[str]) -> str:
    return STOP_REASONS.get(stop_reason or "", "unknown")


def signal_value(row: Row, signal: str, weight: Optional[float] = None) -> float:
    """The scalar SkyRL reads from ``rewards``: advantage x ``weight`` (default the row's loss weight; both modes
    give the last row its trace's whole weight, see ``step_wise_weight``), or the reward.

    SkyRL a956457 puts a scalar reward on the last response token; the ``polar`` estimator sums a row's token
    rewards and puts that on every response token (step-wise: the last step's, broadcast to the trajectory's steps).
    """
    value = row.get("advantage") if signal == "advantage" else row.get("reward")
    if value is None:
        raise MissingRewardError(
            f"Session {row['session_id']} has no {signal}: the batch ran without evaluation.",
            hint="SkyRL takes rewards from the generator: run batches with evaluation (the default).",
        )
    if signal != "advantage":
        return float(value)
    return float(value) * float(row["loss_weight"] if weight is None else weight)


def step_wise_weight(rows: Sequence[Row]) -> float:
    """What the advantage on a step-wise trajectory's last row is scaled by: the loss weight of the main lineage's
    whole trace (of the last row's trace when no main row is trained), not one row's share of it.

    SkyRL a956457 computes advantages on last steps only and broadcasts each to every step of its trajectory
    (``skyrl/train/trainer.py`` 1142-1179, ``compute_advantages_and_returns``: ``last_step_advantages[traj_ids] *
    response_mask``), "mathematically equivalent to non-step-wise advantage computation"
    (``docs/content/docs/tutorials/step-wise-training.mdx`` line 30); its default ``loss_reduction="token_mean"``
    (``skyrl/train/config/config.py`` 876) divides every token's loss by the mini-batch's token count
    (``skyrl/backends/skyrl_train/utils/ppo_utils.py`` 1180-1181), so how many rows hold a session's tokens does not
    weigh it. Scaled by a per_request row's share (1/n of a lineage of n calls), a session trained at 1/n of its
    trajectory-mode advantage. One scalar per trajectory also means a second lineage weighed above 0 with another
    weight (``--lineage-weights sub-agent=0.5``) trains at the main trace's weight: that is logged.
    """
    main = [row for row in rows if is_main(row)] or list(rows[-1:])
    trace = trace_id_of(main[-1])
    weight = trace_weight(rows, trace)
    others = {trace_id_of(row) for row in rows} - {trace}
    if any(abs(trace_weight(rows, other) - weight) > 1e-9 for other in others):
        log.warning("SkyRL step-wise broadcasts one advantage per trajectory: session %s's lineages weigh differently, "
                    "and all of its steps train at trace %s's weight %s.", rows[-1].get("session_id"), trace, weight)
    return weight


def trajectory_rows(session: Optional[Session], step_wise: bool) -> Tuple[List[Row], List[Exclusion], Optional[float]]:
    """The rows SkyRL trains for a session: every row weighed above 0 (step-wise), or the one chosen row; and the
    weight of the last row's advantage (step-wise: ``step_wise_weight``; trajectory mode: the chosen row's trace's)."""
    if session is None:
        return [], [], None
    untrainable = untrainable_exclusion(session)
    if untrainable is not None:
        return [], [untrainable], None
    if step_wise:
        rows, exclusions = split_by_weight(session.rows)
        return rows, exclusions, step_wise_weight(rows) if rows else None
    choice = choose_sequence(session)
    return ([choice.row] if choice.row is not None else []), choice.exclusions, choice.weight


class _Columns:
    def __init__(self) -> None:
        self.values: Dict[str, List[Any]] = {name: [] for name in (
            "prompt_token_ids", "response_ids", "rewards", "loss_masks", "stop_reasons", "rollout_logprobs", "trajectory_ids",
            "is_last_step", "trajectory_generation_times", "env_metrics", "polar")}

    def add(self, **values: Any) -> None:
        for name, value in values.items():
            self.values[name].append(value)


def to_generator_output(
    slots: Sequence[Tuple[Any, Optional[Session]]],
    *,
    step_wise: bool,
    signal: str = "advantage",
    placeholder_token_id: int = 0,
) -> Tuple[Dict[str, Any], List[Exclusion]]:
    """``GeneratorOutput`` for ``slots`` (SkyRL's ``TrajectoryID``s in input order, each with its session or None).

    A slot whose session the server excluded (an infra error) gets one placeholder row (prompt and response
    ``[placeholder_token_id]``, mask 0, reward 0.0, stop reason "error"), as SkyRL's Harbor generator does. With
    ``signal="reward"`` a group missing a session is masked whole (every slot a placeholder), because SkyRL's
    estimator would otherwise normalise the group's rewards over a placeholder's 0.
    """
    if signal not in SIGNALS:
        raise ValueError(f"signal must be one of {SIGNALS}, got {signal!r}")
    chosen = [(tid, *trajectory_rows(session, step_wise)) for tid, session in slots]
    masked = set()
    if signal == "reward":
        masked = {tid.instance_id for tid, rows, _, _ in chosen if not rows}
    columns, exclusions, placeholders, rewards = _Columns(), [], 0, []
    for tid, rows, excluded, weight in chosen:
        exclusions += excluded
        if rows and tid.instance_id in masked:
            exclusions += [row_exclusion(row, "incomplete-group") for row in rows]
            rows = []
        if not rows:
            placeholders += 1
            columns.add(prompt_token_ids=[placeholder_token_id], response_ids=[placeholder_token_id], rewards=0.0, loss_masks=[0],
                        stop_reasons="error", rollout_logprobs=[0.0], trajectory_ids=tid, is_last_step=True, trajectory_generation_times=0.0, env_metrics={}, polar={"placeholder": True, "signal": signal})
            continue
        rewards.append(rows[-1].get("reward"))
        agent, llm = _seconds(rows)
        for step, row in enumerate(rows):
            last = step == len(rows) - 1
            columns.add(
                prompt_token_ids=list(row["prompt_ids"]), response_ids=list(row["response_ids"]),
                rewards=signal_value(row, signal, weight) if last else 0.0, loss_masks=list(row["loss_mask"]),
                stop_reasons=skyrl_stop_reason(row.get("stop_reason")), rollout_logprobs=finite_logprobs(row), trajectory_ids=tid,
                is_last_step=last, trajectory_generation_times=agent, env_metrics={},
                polar={**{name: row.get(name) for name in _PROVENANCE}, "signal": signal, "versions": call_versions(row), "llm_seconds": llm, "env_seconds": None if agent is None or llm is None else max(agent - llm, 0.0)},
            )
    values = columns.values
    times = values["trajectory_generation_times"]
    metrics = session_metrics(exclusions, placeholders)
    graded = [reward for reward in rewards if reward is not None]
    if graded:
        metrics["polar/avg_reward"] = sum(graded) / len(graded)
    output = {
        "prompt_token_ids": values["prompt_token_ids"],
        "response_ids": values["response_ids"],
        "rewards": values["rewards"],
        "loss_masks": values["loss_masks"],
        "stop_reasons": values["stop_reasons"],
        "rollout_metrics": metrics,
        "rollout_logprobs": values["rollout_logprobs"],
        "trajectory_ids": values["trajectory_ids"],
        "trajectory_generation_times": None if any(t is None for t in times) else times,
        # A dict of lists in SkyRL's TypedDict, but slice_generator_output indexes every non-None key but
        # rollout_metrics per row, so a dict would fail there: the split travels in "polar" instead.
        "trajectory_time_splits": None,
        "rollout_expert_indices": None,
        "is_last_step": values["is_last_step"] if step_wise else None,
        "env_metrics": values["env_metrics"],
        "pixel_values": None,
        "image_grid_thw": None,
        "polar": values["polar"],
    }
    metrics.update(trainer_yield([session for _, session in slots], normalise(output)).metrics())
    return output, exclusions


def output_yield(output: Dict[str, Any]) -> TrainerYield:
    """The yield ``to_generator_output`` put in ``rollout_metrics``."""
    metrics = output["rollout_metrics"]
    return TrainerYield(int(metrics[RECEIVED]), int(metrics[SAMPLED]))


def _seconds(rows: Sequence[Row]) -> Tuple[Optional[float], Optional[float]]:
    """The session's agent time and its rows' model time, in seconds (None when not recorded)."""
    timings = [row.get("timings") or {} for row in rows]
    agent = timings[0].get("agent_ms")
    if agent is None or any(t.get("model_ms") is None for t in timings):
        return None, None
    return agent / 1000, sum(t["model_ms"] for t in timings) / 1000


def normalise(output: Dict[str, Any]) -> List[NormalisedSample]:
    """What SkyRL trains per row: in step-wise mode every row gets its trajectory's last-step scalar, an advantage
    scaled by a whole trace's weight (``advantage_weight="trace"``)."""
    count = len(output["response_ids"])
    step_wise = output["is_last_step"] is not None
    last = output["is_last_step"] or [True] * count
    scalars: List[float] = [0.0] * count
    start = 0
    for index in range(count):
        if last[index]:
            for member in range(start, index + 1):
                scalars[member] = output["rewards"][index]
            start = index + 1
    normalised = []
    for index in range(count):
        polar = output["polar"][index]
        advantage_signal = polar.get("signal") == "advantage"
        normalised.append(NormalisedSample(
            group_key=output["trajectory_ids"][index].instance_id,
            session_id=polar.get("session_id"),
            call_ids=list(polar.get("call_ids") or []),
            prompt_ids=output["prompt_token_ids"][index],
            response_ids=output["response_ids"][index],
            loss_mask=output["loss_masks"][index],
            logprobs=output["rollout_logprobs"][index],
            reward=None if advantage_signal else scalars[index],
            advantage=scalars[index] if advantage_signal else None,
            placeholder=bool(polar.get("placeholder")),
            advantage_weight="trace" if step_wise else "row",
        ))
    return normalised


# --- glue ---------------------------------------------------------------------------------------------------


def polar_advantage(token_level_rewards: Any, response_mask: Any, index: Any = None, **kwargs: Any) -> Tuple[Any, Any]:
    """SkyRL advantage estimator ``polar``: the scalar the generator put in ``rewards`` (polar's advantage), on every
    response token. Tensor methods only (no torch import)."""
    scores = token_level_rewards.sum(dim=-1, keepdim=True)
    advantages = scores * response_mask
    return advantages, advantages.clone()


def register_polar_estimator(name: str = "polar") -> None:
    """Register ``polar_advantage`` in SkyRL's ``AdvantageEstimatorRegistry`` (once; call before ``BasePPOExp.run``)."""
    registry = lazy_import("skyrl.backends.skyrl_train.utils.ppo_utils", "SkyRL").AdvantageEstimatorRegistry
    if name not in registry.list_available():
        registry.register(name, polar_advantage)


def policy_version_of(batch_metadata: Any) -> Optional[int]:
    """The optimizer steps behind the weights generating this batch, from SkyRL's ``BatchMetadata``: training
    generates step ``global_step`` with the weights of ``global_step - 1`` steps (synced at the end of each
    step, ``save_weights_for_sampler``); evaluation runs after ``global_step`` steps. None without metadata."""
    if batch_metadata is None:
        return None
    read = batch_metadata.get if isinstance(batch_metadata, dict) else lambda name: getattr(batch_metadata, name, None)
    step = read("global_step")
    if step is None:
        return None
    return int(step) if read("training_phase") == "eval" else max(int(step) - 1, 0)


class PolarGeneratorBase:
    """``generate`` for SkyRL; ``make_generator`` mixes it with SkyRL's ``GeneratorInterface``."""

    def __init__(self, *, client: Any = None, settings: Optional[PolarSettings] = None, step_wise: bool = True,
                 signal: str = "advantage", task_of: Callable[[Any], Any] = task_ref, placeholder_token_id: int = 0,
                 capture: Optional[str] = None) -> None:
        """``capture``: ``"token_in"`` or ``"chat"`` for every batch (over ``POLAR_CAPTURE``); unset, trajectory mode
        asks for token-in and step-wise mode for the server's default."""
        self.client = client
        self.settings = settings
        self.capture = check_capture(capture, "make_generator(capture=)")
        self.step_wise = step_wise
        self.signal = signal
        self.task_of = task_of
        self.placeholder_token_id = placeholder_token_id

    async def generate(self, input_batch: Dict[str, Any]) -> Dict[str, Any]:
        trajectory_ids = input_batch.get("trajectory_ids")
        if not trajectory_ids:
            raise AdapterError("SkyRL's generator input has no trajectory_ids.", hint="use SkyRL's prepare_generator_input (it sets them).")
        extras = input_batch.get("env_extras") or [{} for _ in trajectory_ids]
        sampling = sampling_from(input_batch.get("sampling_params") or {})
        version = policy_version_of(input_batch.get("batch_metadata"))
        settings = self.settings or PolarSettings.from_env()
        sessions = await asyncio.get_running_loop().run_in_executor(None, self._collect, trajectory_ids, extras, sampling, version, settings)
        slots = [(tid, sessions.get((tid.instance_id, tid.repetition_id))) for tid in trajectory_ids]
        output, _ = to_generator_output(slots, step_wise=self.step_wise, signal=self.signal, placeholder_token_id=self.placeholder_token_id)
        mode = "step-wise" if self.step_wise else "trajectory"
        report_yield(output_yield(output), trainer=f"SkyRL ({mode})", capture=self._asked(settings), one_sequence=not self.step_wise)
        return output

    def _asked(self, settings: PolarSettings) -> Optional[str]:
        """The capture mode batches ask for: the generator's, the settings', else token-in in trajectory mode."""
        return asked_capture(self.capture, settings.capture, one_sequence=not self.step_wise)

    def _collect(self, trajectory_ids: Sequence[Any], extras: Sequence[Any], sampling: Dict[str, Any], version: Optional[int],
                 settings: PolarSettings) -> Dict[Tuple[str, int], Session]:
        client = self.client or default_client()
        order: List[str] = []
        tasks: Dict[str, Any] = {}
        counts: Dict[str, int] = {}
        for tid, extra in zip(trajectory_ids, extras):
            if tid.instance_id not in tasks:
                order.append(tid.instance_id)
                tasks[tid.instance_id] = self.task_of(extra)
            counts[tid.instance_id] = counts.get(tid.instance_id, 0) + 1
        sessions: Dict[Tuple[str, int], Session] = {}
        builder = "per_request" if self.step_wise else "prefix_merging"
        for members in plan_batches([tasks[key] for key in order], [counts[key] for key in order]):
            keys = [order[i] for i in members]
            by_instance = {instance_id_of(tasks[key]): key for key in keys}
            run = run_batch(client, settings, [tasks[key] for key in keys], counts[keys[0]], builder=builder, sampling=sampling,
                            policy_version=version, capture=self._asked(settings))
            for instance, rows in run.groups:
                key = by_instance.get(instance or "")
                if key is None or not rows:
                    continue
                for session in groups_of(rows)[0].sessions:
                    sessions[(key, session.sample_index or 0)] = session
        return sessions


def make_generator(**options: Any) -> Any:
    """A SkyRL ``GeneratorInterface`` backed by polar (options: see ``PolarGeneratorBase``)."""
    base = lazy_import("skyrl.train.generators.base", "SkyRL")
    generator_class = type("PolarGenerator", (PolarGeneratorBase, base.GeneratorInterface), {})
    return generator_class(**options)
