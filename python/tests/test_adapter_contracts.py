"""The contract checks fail where a trainer would: each break of a contract rule is reported under its id."""

from __future__ import annotations

import copy
import unittest
from types import SimpleNamespace

import support  # noqa: F401
from contract_check import matches, violations
from polar_rollout.adapters import skyrl, slime, trl, verl
from polar_rollout.adapters.batching import SlotRows
from polar_rollout.rows import groups_of, sessions_of
from rows_fixture import constructed
from skyrl.train.generators.base import TrajectoryID
from slime.utils.types import Sample


def rules(trainer, output, **context):
    return {rule for rule, _ in violations(trainer, output, **context)}


class Annotations(unittest.TestCase):
    def test_matches_reads_source_annotations(self) -> None:
        self.assertTrue(matches([1, 2], "list[int] | None", {}))
        self.assertTrue(matches(None, "Optional[List[List[float]]]", {}))
        self.assertTrue(matches([[0.5, 1.0]], "Union[List[float], List[List[float]]]", {}))
        self.assertFalse(matches([1], "list[float]", {}))  # JSON's 1 for a reward of 1.0: an int where the trainer annotates float
        self.assertFalse(matches([True], "list[int]", {}))
        self.assertFalse(matches({"a": "b"}, "dict[str, int]", {}))
        self.assertFalse(matches(1.5, "int", {}))


class SlimeRules(unittest.TestCase):
    def setUp(self) -> None:
        fixture = constructed()
        group = groups_of(fixture.prefix_merging)[0]
        templates = [Sample(group_index=0, index=i, metadata={"instance_id": group.task_id}) for i in range(2)]
        self.output = SimpleNamespace(samples=[slime.to_slime_group(group, templates).sessions])

    def broken(self, mutate):
        output = copy.deepcopy(self.output)
        mutate(output.samples)
        return rules("slime", output, rollout_batch_size=1, n_samples_per_prompt=2)

    def test_intact(self) -> None:
        self.assertEqual(rules("slime", self.output, rollout_batch_size=1, n_samples_per_prompt=2), set())

    def test_breaks(self) -> None:
        self.assertIn("nested-depth", self.broken(lambda g: g[0].__setitem__(0, g[0][0][0])))
        self.assertIn("rollout-id-shared", self.broken(lambda g: setattr(g[0][1][1], "rollout_id", None)))
        self.assertIn("loss-mask-length", self.broken(lambda g: g[0][0][0].loss_mask.pop()))
        self.assertIn("field-types", self.broken(lambda g: setattr(g[0][0][0], "weight_versions", [3, 4])))
        self.assertIn("no-empty-lists", self.broken(lambda g: g[0].append([])))
        self.assertIn("rollouts-fill-steps", rules("slime", self.output, rollout_batch_size=2, n_samples_per_prompt=2))


class SkyRLRules(unittest.TestCase):
    def setUp(self) -> None:
        fixture = constructed()
        by_sample = {(s.task_id, s.sample_index): s for s in sessions_of(fixture.per_request)}
        slots = [(TrajectoryID(t, r), by_sample.get((t, r))) for t in fixture.tasks for r in range(2)]
        self.output, _ = skyrl.to_generator_output(slots, step_wise=True)

    def broken(self, mutate):
        output = copy.deepcopy(self.output)
        mutate(output)
        return rules("skyrl", output, num_prompts=4, step_wise=True)

    def test_breaks(self) -> None:
        self.assertEqual(rules("skyrl", self.output, num_prompts=4, step_wise=True), set())
        self.assertIn("step-wise-bools", self.broken(lambda o: o.__setitem__("is_last_step", [int(v) for v in o["is_last_step"]])))
        self.assertIn("all-keys-present", self.broken(lambda o: o.pop("rollout_logprobs")))
        self.assertIn("sliceable", self.broken(lambda o: o.__setitem__("trajectory_time_splits", {"llm": [], "env": []})))
        self.assertIn("step-wise-adjacent", self.broken(lambda o: o["trajectory_ids"].__setitem__(1, TrajectoryID("demo__calc-1", 1))))
        self.assertIn("field-types", self.broken(lambda o: o["rewards"].__setitem__(2, "1.0")))
        self.assertIn("token-lengths", self.broken(lambda o: o["loss_masks"][0].append(0)))


class VerlRules(unittest.TestCase):
    def outputs(self):
        fixture = constructed()
        group = groups_of(fixture.prefix_merging)[0]
        rows = [r for s in group.sessions for r in s.rows]
        return [verl.to_agent_loop_output(SlotRows(j, 2, s.rows, rows))[0] for j, s in enumerate(group.sessions)]

    def test_breaks(self) -> None:
        limits = {"prompt_length": 4096, "response_length": 4096}
        self.assertEqual(rules("verl", self.outputs(), **limits), set())
        outputs = self.outputs()
        outputs[0].response_mask.pop()
        outputs[1].reward_score = None
        self.assertEqual(rules("verl", outputs, **limits), {"mask-length", "reward-score-uniform"})
        outputs = self.outputs()
        outputs[0].extra_fields.pop("param_version_end")
        outputs[1].num_turns = "2"
        self.assertEqual(rules("verl", outputs, **limits), {"param-versions", "field-types"})
        self.assertEqual(rules("verl", self.outputs(), prompt_length=4, response_length=4096), {"fits-lengths"})


class TRLRules(unittest.TestCase):
    def test_breaks(self) -> None:
        fixture = constructed()
        by_sample = {(s.task_id, s.sample_index): s for s in sessions_of(fixture.prefix_merging)}
        output, _ = trl.to_rollout_dict([by_sample.get((t, j)) for t in fixture.tasks for j in range(2)])
        prompts = [t for t in fixture.tasks for _ in range(2)]
        context = {"prompts": prompts, "num_generations": 2, "reward_func": trl.polar_reward}
        self.assertEqual(rules("trl", output, **context), set())
        nan = copy.deepcopy(output)
        nan["logprobs"][0][4] = float("nan")
        self.assertEqual(rules("trl", nan, **context), {"finite-logprobs"})
        self.assertEqual(rules("trl", {k: v for k, v in output.items() if k != "logprobs"}, **context), {"required-keys"})
        self.assertEqual(rules("trl", output, **{**context, "prompts": [prompts[0], prompts[2], prompts[1], prompts[3]]}), {"blocks"})
        short = {k: v[:3] for k, v in output.items()}
        self.assertIn("one-per-prompt", rules("trl", short, **context))


if __name__ == "__main__":
    unittest.main()
