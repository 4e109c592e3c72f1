"""slime adapter: polar rows -> slime ``Sample``s, one per row of each trace, sharing the session's ``rollout_id``.

Trainer-side configuration (slime 624b824)::

    --rollout-function-path polar_rollout.adapters.slime.generate_rollout
    --custom-reward-post-process-path polar_rollout.adapters.slime.post_process_rewards

or, keeping slime's own rollout loop (one polar batch per step is still formed from its concurrent calls)::

    --custom-generate-function-path polar_rollout.adapters.slime.generate
    --custom-reward-post-process-path polar_rollout.adapters.slime.post_process_rewards

Shape: a rollout function returns ``list[list[list[Sample]]]`` (prompt group x session x the session's rows),
every leaf at the same depth; each session's rows share ``rollout_id`` (the slot's ``index``), so slime's loss
reducer averages within the session instead of counting its traces as rollouts. ``post_process_rewards``
hands slime polar's own group advantages (x the row's loss weight) in place of slime's re-normalisation,
which groups by ``n_samples_per_prompt`` only when the sample count is exactly n x batch.

slime trains every row, so it receives every sampled trainable token in either capture mode; its batches ask
for none (the server's default: chat unless ``polar serve --token-in``; ``POLAR_CAPTURE`` to choose). The rollout
function's metrics carry ``polar/yield`` and its tokens.
"""

from __future__ import annotations

import copy
import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..check import Exclusion, NormalisedSample
from ..rows import GroupRows, Row, Session, call_versions, finite_logprobs, groups_of, reward_of, sessions_of
from .batching import BatchCoalescer, PolarSettings, default_client, plan_batches, run_batch
from .common import AdapterError, MissingRewardError, assign_sessions, instance_id_of, lazy_import, row_exclusion, sampling_from, session_metrics, task_ref, untrainable_exclusion
from .trainer_yield import TrainerYield, received_tokens, report_yield, session_sampled_tokens

#: slime ``Sample.Status`` member per polar session status (infra / eval errors never become samples).
STATUS_BY_SESSION = {"completed": "COMPLETED", "agent_error": "FAILED", "timeout": "TRUNCATED", "cancelled": "ABORTED"}

_PROVENANCE = (
    "session_id", "row_index", "call_ids", "trace_id", "step_index", "is_last_step", "group_id", "task_id", "sample_index",
    "lineage_id", "lineage_kind", "loss_weight", "reward", "advantage", "status", "status_reason", "stop_reason",
    "policy_versions", "versions", "capture",
)


def slime_status(session_status: str, stop_reason: Optional[str]) -> str:
    """TRUNCATED when the row's last call stopped at the length limit or the session timed out;
    FAILED for an agent error, ABORTED for a cancelled session (exported only with a reward), else COMPLETED."""
    if stop_reason == "length":
        return "TRUNCATED"
    return STATUS_BY_SESSION.get(session_status, "FAILED")


def provenance(row: Row) -> Dict[str, Any]:
    """The polar fields a sample keeps in ``metadata["polar"]`` (no messages)."""
    return {name: copy.deepcopy(row.get(name)) for name in _PROVENANCE}


def session_samples(session: Session, template: Any, *, keep_untrained: bool = False) -> Tuple[List[Any], List[Exclusion]]:
    """One ``Sample`` per row of the session, copied from slime's ``template`` (prompt, label, index...).

    Rows the server weighs 0 (side calls) are excluded, or with ``keep_untrained`` kept with
    ``remove_sample=True`` (slime zeroes their loss mask). Infra / eval errors: no sample, one exclusion.
    """
    untrainable = untrainable_exclusion(session)
    if untrainable is not None:
        return [], [untrainable]
    samples: List[Any] = []
    exclusions: List[Exclusion] = []
    for row in session.rows:
        if row["loss_weight"] == 0 and not keep_untrained:
            exclusions.append(row_exclusion(row, "loss-weight-0"))
            continue
        samples.append(_sample(row, template, session.status))
    return samples, exclusions


def _sample(row: Row, template: Any, status: str) -> Any:
    Sample = lazy_import("slime.utils.types", "slime").Sample
    sample = copy.deepcopy(template)
    trained = row["loss_weight"] > 0
    sample.rollout_id = template.rollout_id if template.rollout_id is not None else template.index
    sample.tokens = list(row["prompt_ids"]) + list(row["response_ids"])
    sample.response = ""
    sample.response_length = len(row["response_ids"])
    sample.loss_mask = list(row["loss_mask"]) if trained else [0] * len(row["response_ids"])
    sample.remove_sample = not trained
    sample.rollout_log_probs = finite_logprobs(row)
    sample.reward = reward_of(row)
    sample.status = Sample.Status[slime_status(status, row.get("stop_reason"))]
    sample.weight_versions = [str(version) for version in call_versions(row)]
    sample.metadata = {**(template.metadata or {}), "polar": provenance(row)}
    return sample


def placeholder_sample(template: Any, *, token_id: int = 0, exclusions: Sequence[Exclusion] = ()) -> Any:
    """What slime's per-sample ``generate`` returns for a session the server excluded: one masked token,
    ``remove_sample=True``, reward 0 (advantage 0 through ``post_process_rewards``), status ABORTED."""
    Sample = lazy_import("slime.utils.types", "slime").Sample
    sample = copy.deepcopy(template)
    sample.rollout_id = template.rollout_id if template.rollout_id is not None else template.index
    sample.tokens, sample.response_length, sample.response = [token_id], 1, ""
    sample.loss_mask, sample.rollout_log_probs, sample.remove_sample = [0], [0.0], True
    sample.reward, sample.status = 0.0, Sample.Status.ABORTED
    sample.metadata = {**(template.metadata or {}), "polar": {"placeholder": True, "exclusions": [vars(e) for e in exclusions]}}
    return sample


@dataclass
class SlimeGroup:
    """One prompt's sessions as slime samples; ``complete`` when every asked sample is there."""

    group_id: str
    sessions: List[List[Any]]
    exclusions: List[Exclusion]
    complete: bool
    #: The group's sampled trainable tokens (the yield's denominator share).
    sampled_tokens: int = 0


def to_slime_group(group: GroupRows, templates: Sequence[Any], *, keep_untrained: bool = False) -> SlimeGroup:
    """The group's sessions (by ``sample_index``, copied from ``templates[sample_index]``), never an empty list."""
    sessions: List[List[Any]] = []
    exclusions: List[Exclusion] = []
    sampled = 0
    for slot, session in enumerate(assign_sessions(group.sessions, len(templates))):
        if session is None:
            continue
        sampled += session_sampled_tokens(session)
        samples, excluded = session_samples(session, templates[slot], keep_untrained=keep_untrained)
        exclusions += excluded
        if samples:
            sessions.append(samples)
    return SlimeGroup(group.group_id, sessions, exclusions, len(sessions) == len(templates), sampled)


@dataclass
class GroupSelector:
    """Takes completed groups until ``target`` full ones passed the filter (slime's over-sampling loop).

    A group short of samples (the server excluded an infra-error session) is set aside as
    ``incomplete-group``: slime's step split (``build_dp_schedule``) drops rollouts that do not fill
    ``global_batch_size``, so only full groups go in and over-sampling replaces the others.
    """

    target: int
    keep: Optional[Callable[[List[Any]], bool]] = None
    accepted: List[List[List[Any]]] = field(default_factory=list)
    exclusions: List[Exclusion] = field(default_factory=list)
    sampled_tokens: int = 0

    @property
    def done(self) -> bool:
        return len(self.accepted) >= self.target

    def offer(self, group: SlimeGroup) -> bool:
        self.exclusions += group.exclusions
        self.sampled_tokens += group.sampled_tokens
        reason = "incomplete-group" if not group.complete else "surplus-group" if self.done else None
        if reason is None and self.keep is not None and not self.keep([session[0] for session in group.sessions]):
            reason = "filtered"
        if reason is not None:
            for session in group.sessions:
                self.exclusions += [_sample_exclusion(sample, reason) for sample in session]
            return False
        self.accepted.append(group.sessions)
        return True

    def result(self) -> List[List[List[Any]]]:
        """Accepted groups in slime's order (by the first sample's ``index``)."""
        return sorted(self.accepted, key=lambda group: group[0][0].index if group[0][0].index is not None else 0)

    def trainer_yield(self) -> TrainerYield:
        """What slime trains of the accepted groups against what was sampled in every group offered."""
        return TrainerYield(received_tokens(normalise(self.accepted)), self.sampled_tokens)

    def metrics(self, value: Optional[TrainerYield] = None) -> Dict[str, float]:
        """The exclusions' counts and the yield (``value``: the yield already computed for this step)."""
        return {**session_metrics(self.exclusions), **(value or self.trainer_yield()).metrics()}


def _sample_exclusion(sample: Any, reason: str) -> Exclusion:
    polar = sample.metadata["polar"]
    return Exclusion(reason, polar["session_id"], tuple(polar["call_ids"]), sum(sample.loss_mask or []))


def polar_advantage(sample: Any) -> Optional[float]:
    """The advantage slime trains ``sample`` with: polar's advantage x loss weight (0 for a placeholder)."""
    polar = (sample.metadata or {}).get("polar") or {}
    if polar.get("placeholder"):
        return 0.0
    if polar.get("advantage") is None:
        return None
    return float(polar["advantage"]) * float(polar.get("loss_weight", 1))


def post_process_rewards(args: Any, samples: List[Any]) -> Tuple[List[Any], List[float]]:
    """slime's ``--custom-reward-post-process-path``: (raw rewards, polar's advantage x loss weight)."""
    advantages: List[float] = []
    for sample in samples:
        advantage = polar_advantage(sample)
        if advantage is None:
            session = ((sample.metadata or {}).get("polar") or {}).get("session_id")
            raise MissingRewardError(
                f"Sample {sample.index} (polar session {session}) has no polar advantage.",
                hint="run batches with evaluation (the default), or drop --custom-reward-post-process-path and let slime's reward model score them.",
            )
        advantages.append(advantage)
    return [sample.reward for sample in samples], advantages


def flatten(data: List[Any]) -> List[Any]:
    """slime's own flattening (``RolloutManager._get_rollout_data``): while the first element is a list."""
    import itertools

    while data and isinstance(data[0], list):
        data = list(itertools.chain.from_iterable(data))
    return data


def normalise(data: List[Any]) -> List[NormalisedSample]:
    """What slime trains, per sample: the response is ``tokens[-response_length:]``, a missing loss mask is all
    ones, ``remove_sample`` zeroes it, the advantage is ``post_process_rewards``' (None for a never-graded one)."""
    normalised: List[NormalisedSample] = []
    for sample in flatten(data):
        response = sample.tokens[-sample.response_length :]
        mask = list(sample.loss_mask) if sample.loss_mask is not None else [1] * sample.response_length
        if sample.remove_sample:
            mask = [0] * sample.response_length
        polar = sample.metadata.get("polar") or {}
        normalised.append(
            NormalisedSample(
                group_key=str(sample.group_index),
                session_id=polar.get("session_id"),
                call_ids=list(polar.get("call_ids") or []),
                prompt_ids=list(sample.tokens[: len(sample.tokens) - len(response)]),
                response_ids=list(response),
                loss_mask=mask,
                logprobs=list(sample.rollout_log_probs) if sample.rollout_log_probs is not None else [],
                reward=sample.reward,
                advantage=polar_advantage(sample),
                placeholder=bool(polar.get("placeholder")),
            )
        )
    return normalised


# --- glue: the functions slime loads by path -------------------------------------------------------------


def task_of_sample(sample: Any) -> Any:
    """The polar task of a slime prompt sample: its metadata (``--metadata-key``) naming an instance id, or its label."""
    metadata = sample.metadata or {}
    if metadata.get("instance_id"):
        return task_ref(metadata)
    return task_ref(sample.label)


def slime_sampling(args: Any) -> Dict[str, Any]:
    values = {"temperature": getattr(args, "rollout_temperature", None), "top_p": getattr(args, "rollout_top_p", None),
              "top_k": getattr(args, "rollout_top_k", None), "max_tokens": getattr(args, "rollout_max_response_len", None)}
    return sampling_from(values)


def generate_rollout(args: Any, rollout_id: int, data_source: Any, evaluation: bool = False) -> Any:
    """slime's ``--rollout-function-path``: one polar batch of over-sampled prompts, the first full groups."""
    if evaluation:  # slime's own evaluation (its eval datasets and reward models) on the trainer's engine
        return importlib.import_module("slime.rollout.sglang_rollout").generate_rollout(args, rollout_id, data_source, evaluation=True)
    return SlimeRollout().run(args, rollout_id, data_source)


class SlimeRollout:
    """The rollout function with its client and settings (``PolarSettings.from_env()`` by default)."""

    def __init__(self, client: Any = None, settings: Optional[PolarSettings] = None, *, keep_untrained: bool = False, max_batches: int = 8) -> None:
        self.client = client
        self.settings = settings
        self.keep_untrained = keep_untrained
        self.max_batches = max_batches

    def run(self, args: Any, rollout_id: int, data_source: Any) -> Any:
        """One step's groups. The policy version is ``rollout_id``: in slime's synchronous loop (train.py) the
        weights generating rollout r are those after r training steps (slime's own ``weight_version`` counter
        is one ahead: it counts the initial push too)."""
        Output = lazy_import("slime.rollout.base_types", "slime").RolloutFnTrainOutput
        client = self.client or default_client()
        settings = self.settings or PolarSettings.from_env()
        n, target = args.n_samples_per_prompt, args.rollout_batch_size
        selector = GroupSelector(target, keep=_dynamic_filter(args))
        for _ in range(self.max_batches):
            prompt_groups = data_source.get_samples(max(target, getattr(args, "over_sampling_batch_size", None) or 0))
            tasks = [task_of_sample(group[0]) for group in prompt_groups]
            for members in plan_batches(tasks, [n] * len(tasks)):
                templates = {instance_id_of(tasks[i]): prompt_groups[i] for i in members}
                run = run_batch(client, settings, [tasks[i] for i in members], n, builder="prefix_merging", sampling=slime_sampling(args),
                                policy_version=rollout_id, capture=settings.capture)
                for instance, rows in run.groups:
                    if rows and instance in templates:
                        selector.offer(to_slime_group(groups_of(rows)[0], templates[instance], keep_untrained=self.keep_untrained))
                    if selector.done:
                        client.cancel(run.batch_id)
                        break
                if selector.done:
                    value = selector.trainer_yield()
                    report_yield(value, trainer="slime", capture=run.capture, one_sequence=False)
                    return Output(samples=selector.result(), metrics=selector.metrics(value))
        raise AdapterError(
            f"{self.max_batches} polar batches gave {len(selector.accepted)} full groups of {n}, not {target}.",
            hint="look at the batches' infra errors (polar runs show), or raise --over-sampling-batch-size.",
        )


def _dynamic_filter(args: Any) -> Optional[Callable[[List[Any]], bool]]:
    path = getattr(args, "dynamic_sampling_filter_path", None)
    if not path:
        return None
    module, _, name = path.rpartition(".")
    function = getattr(importlib.import_module(module), name)
    return lambda samples: bool(getattr(function(args, samples), "keep", True))


_COALESCERS: Dict[int, BatchCoalescer] = {}
_CAPTURES: Dict[int, Optional[str]] = {}


async def generate(args: Any, sample: Any, sampling_params: Dict[str, Any]) -> List[Any]:
    """slime's ``--custom-generate-function-path``: this sample's session as a list of samples.

    The ``n_samples_per_prompt`` calls of one group arrive together; they become one task of one polar batch
    (with every other group arriving at the same time), so polar's advantages cover the whole group.
    """
    coalescer = _COALESCERS.get(id(args))
    if coalescer is None:
        client, settings = default_client(), PolarSettings.from_env()
        sampling = sampling_from(sampling_params)
        coalescer = BatchCoalescer(
            lambda tasks, samples: run_batch(client, settings, tasks, samples, builder="prefix_merging", sampling=sampling, capture=settings.capture).groups,
            expected_samples=args.n_samples_per_prompt,
        )
        _COALESCERS[id(args)] = coalescer
        _CAPTURES[id(args)] = settings.capture
    answer = await coalescer.request(str(sample.group_index), task_of_sample(sample))
    samples = samples_for_request(answer.rows, sample)
    if answer.tally is not None:  # slime's per-sample path has no metrics channel: the batch's yield is logged
        session = sessions_of(answer.rows)[0] if answer.rows else None
        share = TrainerYield(received_tokens(normalise(samples)), session_sampled_tokens(session))
        answer.tally.add(share, trainer="slime (generate)", capture=_CAPTURES.get(id(args)), one_sequence=False)
    return samples


def samples_for_request(rows: List[Row], template: Any, *, keep_untrained: bool = False) -> List[Any]:
    """``generate``'s answer for one request: the session's samples, or a placeholder when it has none."""
    if not rows:
        return [placeholder_sample(template)]
    samples, exclusions = session_samples(sessions_of(rows)[0], template, keep_untrained=keep_untrained)
    for sample in samples:
        sample.metadata["polar"]["exclusions"] = [vars(exclusion) for exclusion in exclusions]
    return samples or [placeholder_sample(template, exclusions=exclusions)]
