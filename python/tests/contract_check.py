"""Each trainer's contract (contracts/<trainer>.json) checked on an adapter's output, rule by rule.

``violations(trainer, output, **context)`` returns ``[(rule id, message)]``; every rule id it can report is
a rule of that trainer's JSON (``test_adapter_standins`` checks this), and every JSON rule has a check here.
"""

from __future__ import annotations

import ast
import json
import math
import os
from typing import Any, Callable, Dict, List, Tuple

HERE = os.path.dirname(__file__)
Violation = Tuple[str, str]


def contract(trainer: str) -> Dict[str, Any]:
    with open(os.path.join(HERE, "contracts", f"{trainer}.json"), encoding="utf-8") as handle:
        return json.load(handle)


def matches(value: Any, annotation: str, named: Dict[str, Any]) -> bool:
    """Whether ``value`` fits the type annotation written in the trainer's source (``list[int] | None``, ``Optional[...]``)."""
    return _match(value, ast.parse(annotation, mode="eval").body, named)


_SIMPLE = {"int": int, "float": float, "str": str, "bool": bool, "dict": dict, "list": list, "Any": object}


def _match(value: Any, node: ast.AST, named: Dict[str, Any]) -> bool:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _match(value, node.left, named) or _match(value, node.right, named)
    if isinstance(node, ast.Constant) and node.value is None:
        return value is None
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = ast.unparse(node)
        if name in _SIMPLE:
            return isinstance(value, _SIMPLE[name]) and not (name in ("int", "float") and isinstance(value, bool))
        return isinstance(value, named[name])  # a KeyError names a type this table does not know yet
    if isinstance(node, ast.Subscript):
        base = ast.unparse(node.value)
        args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if base == "Optional":
            return value is None or _match(value, args[0], named)
        if base == "Union":
            return any(_match(value, arg, named) for arg in args)
        if base == "Literal":
            return value in [ast.literal_eval(arg) for arg in args]
        if base in ("list", "List"):
            return isinstance(value, list) and all(_match(item, args[0], named) for item in value)
        if base in ("dict", "Dict"):
            return isinstance(value, dict) and all(_match(k, args[0], named) and _match(v, args[1], named) for k, v in value.items())
    raise ValueError(f"cannot read the annotation {ast.unparse(node)}")


def field_types(trainer: str, type_name: str, values: Dict[str, Any], named: Dict[str, Any], where: str) -> List[Violation]:
    """("field-types", ...) for every field of the contract's type whose value does not fit its annotation."""
    found = []
    for field in contract(trainer)["types"][type_name]:
        if "name" in field and field["name"] in values and not matches(values[field["name"]], field["type"], named):
            found.append(("field-types", f"{where}: {field['name']} = {values[field['name']]!r:.80} is not {field['type']}"))
    return found


class _Never:
    """A type no adapter output holds (torch.Tensor: the adapters never set tensor fields)."""


def _finite(values: List[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values)


# --- slime --------------------------------------------------------------------------------------------------


def _slime(output: Any, *, rollout_batch_size: int, n_samples_per_prompt: int, post_process: Callable = None) -> List[Violation]:
    from slime.utils.types import Sample

    found: List[Violation] = []
    depths = set()
    empty = []

    def walk(node: Any, depth: int) -> None:
        if isinstance(node, Sample):
            depths.add(depth)
            return
        if not node:
            empty.append(depth)
        if node and isinstance(node[0], Sample) and depth >= 2 and len(node) > 1:
            ids = [sample.rollout_id for sample in node]
            if None in ids or len(set(ids)) != 1:
                found.append(("rollout-id-shared", f"siblings at depth {depth} have rollout_ids {ids}"))
        for item in node:
            walk(item, depth + 1)

    walk(output.samples, 0)
    if len(depths) > 1:
        found.append(("nested-depth", f"samples at depths {sorted(depths)}"))
    if empty:
        found.append(("no-empty-lists", f"empty lists at depths {empty}"))
    flat = [s for g in output.samples for sess in g for s in sess] if depths == {3} else []
    named = {"Status": Sample.Status, "SpecInfo": Sample.SpecInfo, "PrefixCacheInfo": Sample.PrefixCacheInfo, "torch.Tensor": _Never}
    for index, sample in enumerate(flat):
        found += field_types("slime", "Sample", vars(sample), named, f"sample {index}")
        if sample.loss_mask is None or len(sample.loss_mask) != sample.response_length:
            found.append(("loss-mask-length", f"sample {index}: loss mask {None if sample.loss_mask is None else len(sample.loss_mask)} != {sample.response_length}"))
        if sample.rollout_log_probs is None or len(sample.rollout_log_probs) != sample.response_length:
            found.append(("logprobs-length", f"sample {index}: logprobs length != {sample.response_length}"))
        elif not _finite(sample.rollout_log_probs):
            found.append(("finite-logprobs", f"sample {index}: a non-finite logprob"))
        if not 0 < sample.response_length <= len(sample.tokens):
            found.append(("response-in-tokens", f"sample {index}: response_length {sample.response_length}, {len(sample.tokens)} tokens"))
        if not isinstance(sample.status, Sample.Status):
            found.append(("status-member", f"sample {index}: status {sample.status!r}"))
        if not all(isinstance(v, str) for v in sample.weight_versions):
            found.append(("weight-versions-strings", f"sample {index}: weight_versions {sample.weight_versions!r}"))
    for name in ("rollout_log_probs", "train_metadata", "teacher_log_probs", "rollout_routed_experts"):
        if len({getattr(sample, name) is None for sample in flat}) > 1:
            found.append(("optional-columns-uniform", f"{name} set on some samples only"))
    rollouts = {sample.rollout_id if sample.rollout_id is not None else sample.index for sample in flat}
    if len(rollouts) != rollout_batch_size * n_samples_per_prompt:
        found.append(("rollouts-fill-steps", f"{len(rollouts)} rollouts, expected {rollout_batch_size} x {n_samples_per_prompt}"))
    if post_process is not None and flat:
        raw, rewards = post_process(None, flat)
        if len(raw) != len(flat) or len(rewards) != len(flat):
            found.append(("post-process-shape", f"post-process gave {len(raw)}/{len(rewards)} values for {len(flat)} samples"))
    return found


# --- SkyRL --------------------------------------------------------------------------------------------------


def _skyrl(output: Dict[str, Any], *, num_prompts: int, step_wise: bool) -> List[Violation]:
    found: List[Violation] = []
    keys = [field["name"] for field in contract("skyrl")["types"]["GeneratorOutput"]]
    missing = [key for key in keys if key not in output]
    if missing:
        found.append(("all-keys-present", f"missing {missing}"))
        return found
    from skyrl.train.generators.base import TrajectoryID

    named = {"TrajectoryID": TrajectoryID, "RoutedExpertIndices": object, "torch.Tensor": _Never}
    found += field_types("skyrl", "GeneratorOutput", output, named, "GeneratorOutput")
    rows = len(output["response_ids"])
    for key in ("prompt_token_ids", "response_ids", "loss_masks", "rewards", "rollout_logprobs", "stop_reasons", "trajectory_ids",
                "rollout_expert_indices", "is_last_step", "pixel_values", "image_grid_thw"):
        if isinstance(output[key], list) and len(output[key]) != rows:
            found.append(("per-row-lengths", f"{key} has {len(output[key])} entries for {rows} rows"))
    if not step_wise and rows != num_prompts:
        found.append(("one-row-per-trajectory", f"{rows} rows for {num_prompts} prompts"))
    for i in range(rows):
        length = len(output["response_ids"][i])
        if length == 0:
            found.append(("non-empty-response", f"row {i} is empty"))
        if len(output["loss_masks"][i]) != length or (output["rollout_logprobs"] and len(output["rollout_logprobs"][i]) != length):
            found.append(("token-lengths", f"row {i}: mask/logprobs lengths differ from {length}"))
        if isinstance(output["rewards"][i], list) and len(output["rewards"][i]) != length:
            found.append(("token-lengths", f"row {i}: token rewards"))
        if output["rollout_logprobs"] and not _finite(output["rollout_logprobs"][i]):
            found.append(("finite-logprobs", f"row {i}: a non-finite logprob"))
    if len({isinstance(r, list) for r in output["rewards"]}) > 1:
        found.append(("rewards-uniform", "scalar and per-token rewards mixed"))
    for key, value in output.items():
        if key != "rollout_metrics" and value is not None and not (isinstance(value, list) and len(value) == rows):
            found.append(("sliceable", f"{key} is neither None nor a per-row list"))
    uids = [tid.instance_id for tid in output["trajectory_ids"]]
    if any(uids[i] != uids[i - 1] and uids[i] in uids[:i] for i in range(1, len(uids))):
        found.append(("instances-contiguous", f"instance ids not contiguous: {uids}"))
    if step_wise:
        last = output["is_last_step"]
        if not isinstance(last, list) or any(v is not True and v is not False for v in last) or last[-1] is not True:
            found.append(("step-wise-bools", f"is_last_step {last!r}"))
        else:
            tids = [tid.to_string() for tid in output["trajectory_ids"]]
            for i in range(rows - 1):
                if (tids[i] != tids[i + 1]) != last[i]:
                    found.append(("step-wise-adjacent", f"row {i}: boundary {tids[i] != tids[i + 1]}, is_last_step {last[i]}"))
            if any(tids[i] != tids[i - 1] and tids[i] in tids[:i] for i in range(1, rows)):
                found.append(("step-wise-adjacent", "a trajectory's rows are not adjacent"))
    return found


# --- verl ---------------------------------------------------------------------------------------------------


def _verl(outputs: List[Any], *, prompt_length: int, response_length: int) -> List[Violation]:
    import dataclasses

    from verl.experimental.agent_loop.agent_loop import AgentLoopMetrics, AgentLoopOutput

    found: List[Violation] = []
    known = {f.name for f in dataclasses.fields(AgentLoopOutput)}
    for i, out in enumerate(outputs):
        if not isinstance(out, AgentLoopOutput) or not isinstance(out.metrics, AgentLoopMetrics) or out.prompt_ids is None:
            found.append(("required-fields", f"output {i}"))
            continue
        found += field_types("verl", "AgentLoopOutput", vars(out), {"AgentLoopMetrics": AgentLoopMetrics}, f"output {i}")
        found += field_types("verl", "AgentLoopMetrics", vars(out.metrics), {}, f"output {i} metrics")
        if set(vars(out)) - known:
            found.append(("known-fields-only", f"output {i}: {sorted(set(vars(out)) - known)}"))
        if len(out.response_mask) != len(out.response_ids):
            found.append(("mask-length", f"output {i}"))
        if out.response_logprobs is not None and len(out.response_logprobs) != len(out.response_ids):
            found.append(("logprobs-length", f"output {i}"))
        if out.response_logprobs is not None and not _finite(out.response_logprobs):
            found.append(("finite-logprobs", f"output {i}"))
        if len(out.prompt_ids) > prompt_length or len(out.response_ids) > response_length:
            found.append(("fits-lengths", f"output {i}: {len(out.prompt_ids)}/{len(out.response_ids)} tokens"))
        if not all(isinstance(out.extra_fields.get(k), int) for k in ("param_version_start", "param_version_end")):
            found.append(("param-versions", f"output {i}: {out.extra_fields}"))
    if len({out.response_logprobs is None for out in outputs}) > 1:
        found.append(("logprobs-uniform", "response_logprobs on some outputs only"))
    if any(out.reward_score is None for out in outputs) and any(out.reward_score is not None for out in outputs):
        found.append(("reward-score-uniform", "reward_score on some outputs only"))
    return found


# --- TRL ----------------------------------------------------------------------------------------------------


def _trl(output: Dict[str, Any], *, prompts: List[Any], num_generations: int, reward_func: Callable) -> List[Violation]:
    found: List[Violation] = []
    missing = {"prompt_ids", "completion_ids", "logprobs"} - set(output)
    if missing:
        return [("required-keys", f"missing {sorted(missing)}")]
    for key, value in output.items():
        if not isinstance(value, list) or len(value) != len(prompts):
            found.append(("one-per-prompt" if key in ("prompt_ids", "completion_ids", "logprobs") else "extra-keys-per-entry", f"{key}: {len(value) if isinstance(value, list) else value!r} for {len(prompts)} prompts"))
    if found:
        return found
    found += field_types("trl", "RolloutOutput", output, {}, "rollout_func output")
    for start in range(0, len(prompts), num_generations):
        if any(prompts[start + j] != prompts[start] for j in range(num_generations)):
            found.append(("blocks", f"block at {start} is not one prompt"))
    for i, completion in enumerate(output["completion_ids"]):
        if not completion:
            found.append(("non-empty-completion", f"entry {i}"))
        if "env_mask" in output and len(output["env_mask"][i]) != len(completion):
            found.append(("env-mask-length", f"entry {i}: {len(output['env_mask'][i])} != {len(completion)}"))
        if len(output["logprobs"][i]) != len(completion):
            found.append(("logprobs-length", f"entry {i}"))
        if not _finite(output["logprobs"][i]):
            found.append(("finite-logprobs", f"entry {i}"))
    rewards = reward_func(prompts=prompts, completions=None, completion_ids=output["completion_ids"], **{k: v for k, v in output.items() if k not in ("prompt_ids", "completion_ids", "logprobs", "env_mask")})
    if len(rewards) != len(prompts) or any(r is not None and not isinstance(r, float) for r in rewards):
        found.append(("reward-none-is-nan", f"reward function gave {rewards!r}"))
    return found


CHECKS = {"slime": _slime, "skyrl": _skyrl, "verl": _verl, "trl": _trl}

#: The rule ids each checker can report (kept equal to the JSON's rules by test_adapter_standins).
CHECKED_RULES = {
    "slime": {"field-types", "nested-depth", "no-empty-lists", "rollout-id-shared", "loss-mask-length", "logprobs-length", "response-in-tokens",
              "optional-columns-uniform", "status-member", "weight-versions-strings", "finite-logprobs", "rollouts-fill-steps", "post-process-shape"},
    "skyrl": {"field-types", "all-keys-present", "per-row-lengths", "one-row-per-trajectory", "token-lengths", "rewards-uniform", "non-empty-response",
              "sliceable", "instances-contiguous", "step-wise-bools", "step-wise-adjacent", "finite-logprobs"},
    "verl": {"field-types", "required-fields", "mask-length", "logprobs-length", "fits-lengths", "logprobs-uniform", "reward-score-uniform",
             "param-versions", "known-fields-only", "finite-logprobs"},
    "trl": {"field-types", "required-keys", "one-per-prompt", "blocks", "env-mask-length", "logprobs-length", "non-empty-completion",
            "extra-keys-per-entry", "reward-none-is-nan", "finite-logprobs"},
}


def violations(trainer: str, output: Any, **context: Any) -> List[Violation]:
    return CHECKS[trainer](output, **context)
