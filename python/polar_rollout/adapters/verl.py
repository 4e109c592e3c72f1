"""verl adapter: polar rows -> one ``AgentLoopOutput`` per ``run()`` (one merged sequence per trajectory).

Trainer-side configuration (verl b178a3c), an agent-loop config file (``agent_loops.yaml``)::

    - name: polar
      _target_: polar_rollout.adapters.verl.PolarAgentLoop
    - name: polar_reward
      _target_: polar_rollout.adapters.verl.PolarRewardAgentLoop

and::

    actor_rollout_ref.rollout.mode=async
    actor_rollout_ref.rollout.agent.agent_loop_config_path=agent_loops.yaml
    algorithm.adv_estimator=polar
    custom_reward_function.path=pkg://polar_rollout.adapters.verl_hooks custom_reward_function.name=polar_reward

with ``agent_name: polar`` in the dataset rows and the task in ``extra_info`` (``instance_id``, or a whole
SWE-bench row). verl calls ``run()`` once per sample, all samples of a worker's share at once; the samples
sharing a ``uid`` (one prompt, ``rollout.n`` copies) become one task of one polar batch, so polar computes each
group's advantage over all its samples. Agent ``polar`` puts that advantage (x the trace's loss weight) in
``reward_score`` and the ``polar`` estimator (registered when verl loads ``verl_hooks``) passes it through;
``polar_reward`` puts the reward there instead, for verl's own estimators (and validation, where scores should be
rewards).

Batches ask for token-in capture (one row per lineage: the one sequence verl takes holds every sampled token);
``capture: chat`` in the agent loop's config entry (or ``POLAR_CAPTURE=chat``) opts into chat capture, and each
batch's yield is then logged as a warning. verl gives agent loops no channel into its logged metrics
(``AgentLoopMetrics`` has fixed fields), so each output carries its share in ``extra_fields``
(``polar_yield_received`` / ``polar_yield_sampled``: ``yield_metrics`` sums them) and the glue logs each batch's.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Tuple

from ..check import Exclusion, NormalisedSample
from ..rows import Row, Session, call_versions, finite_logprobs, reward_of, sessions_of, trainable_count
from .batching import BatchCoalescer, PolarSettings, SlotRows, default_client, run_batch
from .capture import asked_capture, check_capture
from .common import AdapterError, MissingRewardError, SequenceTooLongError, choose_sequence, lazy_import, row_exclusion, sampling_from, task_ref
from .trainer_yield import TrainerYield, session_sampled_tokens

SIGNALS = ("advantage", "reward")
_MODULE = "verl.experimental.agent_loop.agent_loop"
_PROVENANCE = ("session_id", "row_index", "call_ids", "trace_id", "group_id", "task_id", "sample_index", "lineage_kind",
               "loss_weight", "reward", "advantage", "status", "status_reason", "stop_reason", "policy_versions", "capture")


def _provenance(row: Row, signal: str) -> Dict[str, Any]:
    """Where the sample came from (polar's row fields), carried in ``extra_fields`` (verl drops unknown top-level fields)."""
    out: Dict[str, Any] = {name: row.get(name) for name in _PROVENANCE}
    out["signal"] = signal
    return out


def score_of(row: Row, signal: str, weight: Optional[float] = None) -> Optional[float]:
    """``reward_score``: advantage x ``weight`` (``signal="advantage"``; default the row's loss weight, the one-sequence
    choice gives its trace's), or the reward (None: verl's reward loop scores it).

    verl b178a3c puts ``reward_score`` on the last response token (``rm_scores``) and the ``polar`` estimator sums a
    row's token-level rewards and puts that scalar on every response token: it is the advantage the row trains with.
    """
    if signal == "reward":
        return None if row.get("reward") is None else float(row["reward"])
    if row.get("advantage") is None:
        raise MissingRewardError(
            f"Session {row['session_id']} has no advantage: the batch ran without evaluation.",
            hint="run batches with evaluation, or use agent polar_reward (reward_score None lets verl's reward loop score it).",
        )
    return float(row["advantage"]) * float(row["loss_weight"] if weight is None else weight)


def to_agent_loop_output(
    answer: Optional[SlotRows],
    *,
    signal: str = "advantage",
    prompt_length: Optional[int] = None,
    response_length: Optional[int] = None,
    placeholder_token_id: int = 0,
) -> Tuple[Any, List[Exclusion]]:
    """The ``AgentLoopOutput`` for one ``run()``: the session's chosen row, or a placeholder.

    A placeholder (one masked token, ``reward_score`` 0.0, or None beside never-graded rows under ``signal="reward"``,
    ``param_version_start/end`` -1) fills a slot whose
    session the server excluded; with ``signal="reward"`` every slot of an incomplete group is one (verl's
    estimator would otherwise normalise the group's rewards over the missing one). A row longer than
    ``prompt_length`` / ``response_length`` raises SequenceTooLongError: verl pads but never truncates.
    """
    if signal not in SIGNALS:
        raise ValueError(f"signal must be one of {SIGNALS}, got {signal!r}")
    module = lazy_import(_MODULE, "verl")
    session: Optional[Session] = sessions_of(answer.rows)[0] if answer is not None and answer.rows else None
    choice = choose_sequence(session) if session is not None else None
    exclusions = list(choice.exclusions) if choice is not None else []
    row = choice.row if choice is not None else None
    sampled = session_sampled_tokens(session)
    if row is not None and signal == "reward" and answer is not None and not answer.complete:
        exclusions.append(row_exclusion(row, "incomplete-group"))
        row = None
    if row is None:
        # Never-graded rows under "reward" have reward_score None; the placeholder follows, so the batch stays uniform.
        ungraded = signal == "reward" and answer is not None and any(r.get("reward") is None for r in answer.group)
        extra = {"polar": {"placeholder": True, "signal": signal}, "param_version_start": -1, "param_version_end": -1, "polar_reward": None,
                 "polar_yield_received": 0, "polar_yield_sampled": sampled}
        return module.AgentLoopOutput(
            prompt_ids=[placeholder_token_id], response_ids=[placeholder_token_id], response_mask=[0], response_logprobs=[0.0],
            reward_score=None if ungraded else 0.0, num_turns=0, metrics=module.AgentLoopMetrics(), extra_fields=extra,
        ), exclusions
    _check_length(row, "prompt_ids", prompt_length, "actor_rollout_ref.rollout.prompt_length")
    _check_length(row, "response_ids", response_length, "actor_rollout_ref.rollout.response_length")
    versions = call_versions(row)
    timings = row.get("timings") or {}
    output = module.AgentLoopOutput(
        prompt_ids=list(row["prompt_ids"]),
        response_ids=list(row["response_ids"]),
        response_mask=list(row["loss_mask"]),
        response_logprobs=finite_logprobs(row),
        reward_score=score_of(row, signal, choice.weight if choice is not None else None),
        num_turns=2 * len(row["call_ids"]),
        metrics=module.AgentLoopMetrics(generate_sequences=(timings.get("model_ms") or 0) / 1000, tool_calls=(timings.get("tool_ms") or 0) / 1000),
        extra_fields={
            "polar": _provenance(row, signal),
            "param_version_start": versions[0] if versions else -1,
            "param_version_end": versions[-1] if versions else -1,
            "polar_reward": reward_of(row),
            "polar_yield_received": trainable_count(row),
            "polar_yield_sampled": sampled,
        },
    )
    return output, exclusions


def output_yield(output: Any) -> TrainerYield:
    """One output's share of its batch's yield (``extra_fields`` ``polar_yield_received`` / ``polar_yield_sampled``)."""
    extra = output.extra_fields
    return TrainerYield(int(extra.get("polar_yield_received") or 0), int(extra.get("polar_yield_sampled") or 0))


def yield_metrics(outputs: Iterable[Any]) -> Dict[str, float]:
    """``polar/yield`` and its tokens over ``AgentLoopOutput``s (a step's), for a trainer that logs them itself."""
    total = TrainerYield()
    for output in outputs:
        total = total + output_yield(output)
    return total.metrics()


def _check_length(row: Row, field: str, limit: Optional[int], setting: str) -> None:
    if limit is not None and len(row[field]) > limit:
        raise SequenceTooLongError(
            f"Session {row['session_id']} row {row['row_index']} has {len(row[field])} {field}, over {setting}={limit}.",
            hint=f"raise {setting}; verl pads to it and polar never truncates trained tokens.",
        )


def normalise(outputs: List[Any], uids: List[str]) -> List[NormalisedSample]:
    """What verl trains per output (its batch's ``uid`` column is the group)."""
    normalised = []
    for output, uid in zip(outputs, uids):
        polar = output.extra_fields.get("polar") or {}
        advantage_signal = polar.get("signal") == "advantage"
        normalised.append(NormalisedSample(
            group_key=str(uid), session_id=polar.get("session_id"), call_ids=list(polar.get("call_ids") or []),
            prompt_ids=list(output.prompt_ids), response_ids=list(output.response_ids), loss_mask=list(output.response_mask),
            logprobs=list(output.response_logprobs) if output.response_logprobs is not None else [],
            reward=None if advantage_signal else output.reward_score, advantage=output.reward_score if advantage_signal else None,
            placeholder=bool(polar.get("placeholder")),
        ))
    return normalised


# --- glue ---------------------------------------------------------------------------------------------------


def polar_advantage(token_level_rewards: Any, response_mask: Any, index: Any = None, config: Any = None, **kwargs: Any) -> Tuple[Any, Any]:
    """verl advantage estimator ``polar``: ``reward_score`` (polar's advantage) on every response token."""
    scores = token_level_rewards.sum(dim=-1, keepdim=True)
    advantages = scores * response_mask
    return advantages, advantages.clone()


def register_polar_estimator(name: str = "polar") -> None:
    """Register ``polar_advantage`` with verl's ``register_adv_est`` (idempotent)."""
    core_algos = lazy_import("verl.trainer.ppo.core_algos", "verl")
    if core_algos.ADV_ESTIMATOR_REGISTRY.get(name) is not polar_advantage:
        core_algos.register_adv_est(name)(polar_advantage)


_Key = Tuple[int, str, Optional[str]]
_COALESCERS: Dict[_Key, BatchCoalescer] = {}
#: The latest ``param_version`` verl's fully-async rollouter handed a run() (the versions its weights carry).
_VERSIONS: Dict[_Key, Optional[int]] = {}
#: The capture mode each coalescer's batches ask for.
_CAPTURES: Dict[_Key, str] = {}


class PolarAgentLoopMixin:
    """``run`` for verl; ``agent_loop_class`` mixes it with verl's ``AgentLoopBase``.

    ``capture`` (a key of the agent loop's entry in ``agent_loops.yaml``, which hydra passes to the constructor):
    ``chat`` opts into chat capture; unset, ``POLAR_CAPTURE`` or token-in.
    """

    signal = "advantage"

    def __init__(self, *args: Any, capture: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.capture = check_capture(capture, "the polar agent loop's capture")

    async def run(self, sampling_params: Dict[str, Any], **kwargs: Any) -> Any:
        if "uid" not in kwargs:
            raise AdapterError("verl passed no uid to the agent loop.", hint="use actor_rollout_ref.rollout.mode=async (the agent loop path).")
        task = task_ref(kwargs.get("extra_info") or {})
        asked = getattr(self, "capture", None)
        key = (id(self.config), self.signal, asked)  # type: ignore[attr-defined]
        version = kwargs.get("param_version")  # fully-async verl passes it; the synchronous trainer passes no step
        _VERSIONS[key] = None if version is None else int(version)
        coalescer = _COALESCERS.get(key)
        if coalescer is None:
            client, settings, sampling = default_client(), PolarSettings.from_env(), sampling_from(sampling_params)
            capture = asked_capture(asked, settings.capture, one_sequence=True)
            _CAPTURES[key] = capture
            coalescer = _COALESCERS[key] = BatchCoalescer(
                lambda tasks, samples: run_batch(client, settings, tasks, samples, builder="prefix_merging", sampling=sampling,
                                                 policy_version=_VERSIONS.get(key), capture=capture).groups
            )
        answer = await coalescer.request(str(kwargs["uid"]), task)
        rollout = self.config.actor_rollout_ref.rollout  # type: ignore[attr-defined]
        tokenizer = getattr(self, "tokenizer", None)
        pad = getattr(tokenizer, "pad_token_id", None)
        output, _ = to_agent_loop_output(
            answer, signal=self.signal, prompt_length=rollout.prompt_length, response_length=rollout.response_length,
            placeholder_token_id=pad if pad is not None else 0,
        )
        if answer.tally is not None:
            answer.tally.add(output_yield(output), trainer=f"verl (agent {self.signal})", capture=_CAPTURES.get(key), one_sequence=True)
        return output


_CLASSES: Dict[str, type] = {}


def agent_loop_class(signal: str = "advantage") -> type:
    """verl's ``AgentLoopBase`` subclass for ``signal``, registered as ``polar`` / ``polar_reward``."""
    if signal not in _CLASSES:
        module = lazy_import(_MODULE, "verl")
        name = "polar" if signal == "advantage" else "polar_reward"
        cls = type("PolarAgentLoop" if signal == "advantage" else "PolarRewardAgentLoop", (PolarAgentLoopMixin, module.AgentLoopBase), {"signal": signal})
        cls.__module__ = __name__
        _CLASSES[signal] = module.register(name)(cls)
    return _CLASSES[signal]


def __getattr__(name: str) -> Any:
    """``PolarAgentLoop`` / ``PolarRewardAgentLoop`` built on first access, so importing this module needs no verl
    and the names verl's registry records (``<module>.<class>``) resolve when hydra instantiates them."""
    if name == "PolarAgentLoop":
        return agent_loop_class("advantage")
    if name == "PolarRewardAgentLoop":
        return agent_loop_class("reward")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
