"""TRL adapter: polar rows -> what ``GRPOTrainer``'s ``rollout_func`` returns, plus the reward function reading it.

Trainer-side configuration (TRL f2cd577)::

    from polar_rollout.adapters.trl import make_rollout_func, polar_reward
    trainer = GRPOTrainer(model=..., reward_funcs=[polar_reward], rollout_func=make_rollout_func(),
                          args=GRPOConfig(num_generations=G, ...), train_dataset=dataset)  # dataset["prompt"]: instance ids

TRL hands ``rollout_func`` the process's prompts with each prompt repeated ``num_generations`` times in a
consecutive block (its ``RepeatSampler``); the function returns exactly one completion per entry, in order.
A block becomes one task of one polar batch (``samples`` = G), entry j of the block the session with
``sample_index`` j, as one sequence: ``prompt_ids``, ``completion_ids`` (model and tool tokens),
``logprobs`` (0.0 where masked, never NaN), ``env_mask`` (1 = model token, as long as the completion: TRL pads
a short one with 1, which would train the tail). ``polar_reward`` carries the session's reward; TRL computes
the group advantages from it, and a None (an excluded session's placeholder, a never-graded session)
becomes NaN, which TRL leaves out of the group's baseline and gives advantage 0. The reward is the session's,
whichever row is chosen: TRL's advantage never depended on the row's loss weight.

Batches ask for token-in capture (one row per lineage, so the completion holds every sampled token);
``make_rollout_func(capture="chat")`` (or ``POLAR_CAPTURE=chat``) opts into chat capture, and each step's yield
is then logged as a warning. ``polar/yield`` and its tokens go into TRL's own logged metrics
(``trainer._metrics[mode]``, averaged over the logging interval like TRL's).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..check import Exclusion, NormalisedSample
from ..rows import Session, finite_logprobs, groups_of, reward_of
from .batching import PolarSettings, default_client, plan_batches, run_batch
from .capture import asked_capture, check_capture
from .common import AdapterError, PromptLayoutError, assign_sessions, choose_sequence, instance_id_of, sampling_from, session_metrics, task_ref
from .policy_versions import sync_weights
from .trainer_yield import TrainerYield, report_yield, trainer_yield

_PROVENANCE = ("session_id", "row_index", "call_ids", "trace_id", "group_id", "task_id", "sample_index", "lineage_kind",
               "loss_weight", "reward", "advantage", "status", "stop_reason", "policy_versions", "capture")


def prompt_blocks(prompts: Sequence[Any], num_generations: int) -> List[int]:
    """Start index of each block of ``num_generations`` identical consecutive prompts; any other layout raises."""
    if num_generations < 1 or len(prompts) % num_generations:
        raise PromptLayoutError(
            f"rollout_func got {len(prompts)} prompts, not a multiple of num_generations={num_generations}.",
            hint="run one process, or make per_device_train_batch_size x gradient_accumulation_steps a multiple of num_generations.",
        )
    starts = list(range(0, len(prompts), num_generations))
    for start in starts:
        if any(prompts[start + j] != prompts[start] for j in range(num_generations)):
            raise PromptLayoutError(
                f"Prompts {start}..{start + num_generations - 1} are not one prompt repeated num_generations times.",
                hint="a group split over processes cannot be one polar group: run one process per group.",
            )
    return starts


def to_rollout_dict(entries: Sequence[Optional[Session]], *, placeholder_token_id: int = 0) -> Tuple[Dict[str, List[Any]], List[Exclusion]]:
    """One completion per entry (the session's chosen row), or a placeholder for a session the server excluded."""
    output: Dict[str, List[Any]] = {name: [] for name in ("prompt_ids", "completion_ids", "logprobs", "env_mask", "polar_reward", "polar")}
    exclusions: List[Exclusion] = []
    for session in entries:
        choice = choose_sequence(session) if session is not None else None
        if choice is not None:
            exclusions += choice.exclusions
        row = choice.row if choice is not None else None
        if row is None:
            for name, value in (("prompt_ids", [placeholder_token_id]), ("completion_ids", [placeholder_token_id]), ("logprobs", [0.0]),
                                ("env_mask", [0]), ("polar_reward", None), ("polar", {"placeholder": True})):
                output[name].append(value)
            continue
        output["prompt_ids"].append(list(row["prompt_ids"]))
        output["completion_ids"].append(list(row["response_ids"]))
        output["logprobs"].append(finite_logprobs(row))
        output["env_mask"].append(list(row["loss_mask"]))
        output["polar_reward"].append(reward_of(row))
        output["polar"].append({name: row.get(name) for name in _PROVENANCE})
    return output, exclusions


def polar_reward(prompts: Any = None, completions: Any = None, completion_ids: Any = None, polar_reward: Optional[List[Any]] = None, **kwargs: Any) -> List[Optional[float]]:
    """TRL reward function: the ``polar_reward`` the rollout function returned, per completion (None stays None)."""
    if polar_reward is None:
        raise AdapterError("TRL passed no polar_reward column to the reward function.", hint="use rollout_func=make_rollout_func() with reward_funcs=[polar_reward].")
    return [None if reward is None else float(reward) for reward in polar_reward]


def normalise(output: Dict[str, List[Any]], num_generations: int) -> List[NormalisedSample]:
    """What TRL trains per entry: ``env_mask`` and ``logprobs`` padded as TRL pads them (mask with 1, logprobs with 0.0)."""
    rewards = polar_reward(polar_reward=output["polar_reward"])
    normalised = []
    for index, completion in enumerate(output["completion_ids"]):
        mask = list(output["env_mask"][index])
        logprobs = list(output["logprobs"][index])
        pad = len(completion) - len(mask)
        polar = output["polar"][index]
        normalised.append(NormalisedSample(
            group_key=f"block-{index // num_generations}", session_id=polar.get("session_id"), call_ids=list(polar.get("call_ids") or []),
            prompt_ids=list(output["prompt_ids"][index]), response_ids=list(completion),
            loss_mask=mask + [1] * max(pad, 0), logprobs=logprobs + [0.0] * max(len(completion) - len(logprobs), 0),
            reward=rewards[index], advantage=None, placeholder=bool(polar.get("placeholder")),
        ))
    return normalised


# --- glue ---------------------------------------------------------------------------------------------------


def task_of_prompt(prompt: Any) -> Any:
    """A prompt naming its task: an instance id string, a dict with ``instance_id``, or messages ending with one."""
    if isinstance(prompt, list) and prompt and isinstance(prompt[-1], dict):
        return task_ref(prompt[-1].get("content"))
    return task_ref(prompt)


def rollout_yield(entries: Sequence[Optional[Session]], output: Dict[str, List[Any]], num_generations: int) -> TrainerYield:
    """The step's yield: the sessions of ``entries`` against what TRL trains of ``output``."""
    return trainer_yield(entries, normalise(output, num_generations))


def rollout_metrics(output: Dict[str, List[Any]], exclusions: Sequence[Exclusion], value: TrainerYield) -> Dict[str, float]:
    """What a step logs: ``polar/yield`` and its tokens, exclusions by reason, placeholders."""
    placeholders = sum(1 for polar in output["polar"] if polar.get("placeholder"))
    return {**session_metrics(exclusions, placeholders), **value.metrics()}


def log_metrics(trainer: Any, metrics: Dict[str, float]) -> None:
    """Appends ``metrics`` to TRL's own (``GRPOTrainer._metrics[mode]``, averaged and logged at each logging step)."""
    store = getattr(trainer, "_metrics", None)
    if not isinstance(store, dict):
        return
    mode = "train" if trainer.model.training else "eval"
    if mode in store:
        for name, value in metrics.items():
            store[mode][name].append(value)


def make_rollout_func(*, client: Any = None, settings: Optional[PolarSettings] = None, task_of: Callable[[Any], Any] = task_of_prompt,
                      placeholder_token_id: Optional[int] = None, push_weights: Optional[Callable[[Any], Any]] = None,
                      capture: Optional[str] = None) -> Callable[[List[Any], Any], Dict[str, List[Any]]]:
    """``rollout_func(prompts, trainer)`` for ``GRPOTrainer`` backed by polar batches of prefix_merging rows.

    The policy version is ``trainer.state.global_step``. ``push_weights(trainer)`` (Shape B: polar serve owns
    the engine, which TRL's own ``sync_weights`` does not reach) is run once per new step, where TRL syncs its
    own vLLM (just before calling ``rollout_func``), between polar's pause and its resume with that version.
    ``capture``: ``"token_in"`` (default, unless ``POLAR_CAPTURE`` says otherwise) or ``"chat"`` (an explicit opt-in:
    each step's yield is logged as a warning).
    """
    synced: Dict[str, Any] = {"step": None}
    check_capture(capture, "make_rollout_func(capture=)")

    def rollout_func(prompts: List[Any], trainer: Any) -> Dict[str, List[Any]]:
        generations = trainer.num_generations if trainer.model.training else trainer.num_generations_eval
        starts = prompt_blocks(prompts, generations)
        tasks = [task_of(prompts[start]) for start in starts]
        args = trainer.args
        sampling = sampling_from({name: getattr(args, name, None) for name in ("temperature", "top_p", "top_k", "min_p")})
        polar_client, polar_settings = client or default_client(), settings or PolarSettings.from_env(default_sync="pause")
        asked = asked_capture(capture, polar_settings.capture, one_sequence=True)
        version = getattr(getattr(trainer, "state", None), "global_step", None)  # the optimizer steps behind the weights
        if push_weights is not None and version is not None and version != synced["step"]:
            sync_weights(polar_client, version, functools.partial(push_weights, trainer))
            synced["step"] = version
        entries: List[Optional[Session]] = [None] * len(prompts)
        for members in plan_batches(tasks, [generations] * len(tasks)):
            blocks = {instance_id_of(tasks[i]): i for i in members}
            run = run_batch(polar_client, polar_settings, [tasks[i] for i in members], generations, builder="prefix_merging", sampling=sampling,
                            policy_version=version, capture=asked)
            for instance, rows in run.groups:
                block = blocks.get(instance or "")
                if block is None or not rows:
                    continue
                for slot, session in enumerate(assign_sessions(groups_of(rows)[0].sessions, generations)):
                    entries[starts[block] + slot] = session
        tokenizer = getattr(trainer, "_tokenizer", None) or getattr(trainer, "processing_class", None)
        token = placeholder_token_id if placeholder_token_id is not None else getattr(tokenizer, "eos_token_id", None) or 0
        output, exclusions = to_rollout_dict(entries, placeholder_token_id=token)
        value = rollout_yield(entries, output, generations)
        report_yield(value, trainer="TRL", capture=asked, one_sequence=True)
        log_metrics(trainer, rollout_metrics(output, exclusions, value))
        return output

    return rollout_func
