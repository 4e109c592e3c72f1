"""TRL adapter on polar rows: TRL's rollout_func contract (contracts/trl.json) and the fidelity check."""

from __future__ import annotations

import unittest
from types import SimpleNamespace

import support  # noqa: F401
from contract_check import violations
from polar_rollout.adapters import trl
from polar_rollout.adapters.common import PromptLayoutError
from polar_rollout.check import check
from polar_rollout.rows import sessions_of
from adapter_runs import run_trl, trl_entries
from rows_fixture import constructed, fixtures


def entries(fixture):
    return trl_entries(fixture)


class TRLOnFixtures(unittest.TestCase):
    def test_contract_and_fidelity_on_every_fixture(self) -> None:
        for fixture in fixtures():
            with self.subTest(fixture=fixture.name):
                self.assertEqual(run_trl(fixture).problems(), [])

    def test_entries_in_order_with_rewards_and_a_placeholder(self) -> None:
        output, _ = trl.to_rollout_dict(entries(constructed())[1], placeholder_token_id=151645)
        self.assertEqual(trl.polar_reward(polar_reward=output["polar_reward"]), [1.0, 0.0, 1.0, None])  # None -> NaN in TRL
        self.assertEqual([p.get("session_id") for p in output["polar"]], [1, 2, 3, None])
        self.assertEqual((output["completion_ids"][3], output["env_mask"][3], output["logprobs"][3]), ([151645], [0], [0.0]))
        self.assertTrue(all(len(m) == len(c) for m, c in zip(output["env_mask"], output["completion_ids"])))

    def test_short_env_mask_is_caught(self) -> None:
        fixture = constructed()
        output, exclusions = trl.to_rollout_dict(entries(fixture)[1])
        output["env_mask"][0] = output["env_mask"][0][:-4]  # TRL pads with 1: the tail would train masked tokens
        prompts = entries(fixture)[0]
        self.assertIn("env-mask-length", [rule for rule, _ in violations("trl", output, prompts=prompts, num_generations=2, reward_func=trl.polar_reward)])

    def test_prompt_layout(self) -> None:
        self.assertEqual(trl.prompt_blocks(["a", "a", "b", "b"], 2), [0, 2])
        with self.assertRaises(PromptLayoutError):
            trl.prompt_blocks(["a", "a", "b"], 2)
        with self.assertRaises(PromptLayoutError):
            trl.prompt_blocks(["a", "b", "b", "a"], 2)
        self.assertEqual(trl.task_of_prompt([{"role": "user", "content": "demo__calc-1"}]), "demo__calc-1")

    def test_rollout_func_glue(self) -> None:
        fixture = constructed()
        client = support.FakeClient(fixture)
        rollout_func = trl.make_rollout_func(client=client, settings=trl.PolarSettings(harness="pi", dataset="d"))
        trainer = SimpleNamespace(num_generations=2, num_generations_eval=1, model=SimpleNamespace(training=True),
                                  args=SimpleNamespace(temperature=1.0, top_p=1.0, top_k=0, min_p=None), _tokenizer=SimpleNamespace(eos_token_id=151645))
        prompts = [[{"role": "user", "content": task}] for task in fixture.tasks for _ in range(2)]
        output = rollout_func(prompts, trainer)
        [submit] = [c for c in client.calls if c[0] == "submit"]
        self.assertEqual((submit[2]["instance_ids"], submit[2]["samples"], submit[2]["sampling"]), (fixture.tasks, 2, {"temperature": 1.0, "top_p": 1.0}))
        self.assertEqual(output["completion_ids"][3], [151645])
        self.assertEqual(violations("trl", output, prompts=prompts, num_generations=2, reward_func=trl.polar_reward), [])
        _, exclusions = trl.to_rollout_dict(entries(fixture)[1])
        check(trl.normalise(output, 2), fixture.per_request, source_rows=fixture.prefix_merging, exclusions=exclusions)


if __name__ == "__main__":
    unittest.main()
