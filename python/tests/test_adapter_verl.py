"""verl adapter on polar rows: verl's contract (contracts/verl.json) and the fidelity check, agent loop glue."""

from __future__ import annotations

import asyncio
import importlib
import unittest
from types import SimpleNamespace

import support  # noqa: F401  (stand-ins on sys.path)
from contract_check import violations
from polar_rollout.adapters import verl
from polar_rollout.adapters.batching import SlotRows
from polar_rollout.adapters.common import MissingRewardError, SequenceTooLongError
from polar_rollout.check import check
from polar_rollout.rows import groups_of
from adapter_runs import run_verl, verl_outputs
from rows_fixture import constructed, fixtures


def run_all(fixture, signal, **limits):
    return verl_outputs(fixture, signal, **limits)


LIMITS = {"prompt_length": 4096, "response_length": 4096}


class VerlOnFixtures(unittest.TestCase):
    def test_contract_and_fidelity_on_every_fixture(self) -> None:
        for fixture in fixtures():
            for signal in verl.SIGNALS:
                with self.subTest(fixture=fixture.name, signal=signal):
                    if not fixture.graded and signal == "advantage":
                        with self.assertRaises(MissingRewardError):
                            run_all(fixture, signal, **LIMITS)
                        continue
                    self.assertEqual(run_verl(fixture, signal).problems(), [])

    def test_one_merged_sequence_per_trajectory(self) -> None:
        outputs, _, exclusions = run_all(constructed(), "advantage")
        first = outputs[0]
        self.assertEqual(first.extra_fields["polar"]["call_ids"], [1, 2, 3])
        self.assertEqual((first.extra_fields["param_version_start"], first.extra_fields["param_version_end"]), (3, 4))
        self.assertEqual(first.num_turns, 6)
        self.assertEqual(round(first.reward_score, 5), 1.0)
        self.assertEqual(first.extra_fields["polar_reward"], 1.0)
        self.assertEqual(first.response_logprobs[4:7], [0.0, 0.0, 0.0])  # masked tool tokens: 0.0, never None/NaN
        self.assertEqual(outputs[1].extra_fields["polar"]["call_ids"], [5, 6])  # the split trace: its longer row
        self.assertIn(("one-sequence-per-sample", (7,)), [(e.reason, e.call_ids) for e in exclusions])
        self.assertTrue(outputs[3].extra_fields["polar"]["placeholder"])
        self.assertEqual((outputs[3].response_mask, outputs[3].reward_score, outputs[3].extra_fields["param_version_start"]), ([0], 0.0, -1))

    def test_reward_signal_masks_the_incomplete_group(self) -> None:
        outputs, _, _ = run_all(constructed(), "reward")
        self.assertEqual([o.reward_score for o in outputs], [1.0, 0.0, 0.0, 0.0])
        self.assertTrue(outputs[2].extra_fields["polar"]["placeholder"])  # session 3: its group lost session 4

    def test_ungraded(self) -> None:
        fixture = constructed(graded=False)
        with self.assertRaises(MissingRewardError):
            run_all(fixture, "advantage")
        outputs, uids, exclusions = run_all(fixture, "reward")
        self.assertEqual(outputs[0].reward_score, None)  # verl's reward loop scores it
        check(verl.normalise(outputs, uids), fixture.per_request, source_rows=fixture.prefix_merging, exclusions=exclusions)

    def test_too_long_is_refused_not_truncated(self) -> None:
        with self.assertRaisesRegex(SequenceTooLongError, "response_length=8"):
            run_all(constructed(), "advantage", prompt_length=4096, response_length=8)


class VerlGlue(unittest.TestCase):
    def test_agent_loop_classes_register_lazily(self) -> None:
        agent_loop = importlib.import_module("verl.experimental.agent_loop.agent_loop")
        cls = verl.PolarAgentLoop
        self.assertTrue(issubclass(cls, agent_loop.AgentLoopBase))
        self.assertEqual(agent_loop._agent_loop_registry["polar"], {"_target_": "polar_rollout.adapters.verl.PolarAgentLoop"})
        self.assertEqual(verl.PolarRewardAgentLoop.signal, "reward")
        self.assertEqual(agent_loop._agent_loop_registry["polar_reward"], {"_target_": "polar_rollout.adapters.verl.PolarRewardAgentLoop"})

    def test_estimator_registers_in_the_trainer_process(self) -> None:
        core_algos = importlib.import_module("verl.trainer.ppo.core_algos")
        importlib.import_module("polar_rollout.adapters.verl_hooks")  # what verl's load_reward_manager does
        self.assertIs(core_algos.get_adv_estimator_fn("polar"), verl.polar_advantage)
        verl.register_polar_estimator()  # idempotent

    def test_run_calls_of_a_step_become_one_batch(self) -> None:
        fixture = constructed()
        client = support.FakeClient(fixture)
        verl._COALESCERS.clear()
        original = (verl.default_client, verl.PolarSettings.from_env)
        verl.default_client = lambda: client
        verl.PolarSettings.from_env = classmethod(lambda cls, env=None, **o: cls(harness="pi", dataset="d"))
        try:
            config = SimpleNamespace(actor_rollout_ref=SimpleNamespace(rollout=SimpleNamespace(prompt_length=4096, response_length=4096)))
            loops = [verl.PolarAgentLoop(SimpleNamespace(config=config), None, SimpleNamespace(pad_token_id=151643), None, None, SimpleNamespace(config={}))
                     for _ in range(4)]
            calls = [(task, f"uid-{task}") for task in fixture.tasks for _ in range(2)]

            async def main():
                return await asyncio.gather(*(loop.run({"temperature": 1.0, "top_p": 1.0, "top_k": -1, "logprobs": True}, uid=uid, extra_info={"instance_id": task}, raw_prompt=[], param_version=5)
                                              for loop, (task, uid) in zip(loops, calls)))

            outputs = asyncio.run(main())
        finally:
            verl.default_client, verl.PolarSettings.from_env = original
        [submit] = [c for c in client.calls if c[0] == "submit"]
        self.assertEqual((submit[2]["instance_ids"], submit[2]["samples"], submit[2]["sampling"]), (fixture.tasks, 2, {"temperature": 1.0, "top_p": 1.0}))
        self.assertEqual((submit[2]["policy_version"], client.policy_version), (5, 5))  # fully-async verl's param_version, announced (Shape A)
        self.assertEqual(outputs[3].prompt_ids, [151643])  # the placeholder uses the tokenizer's pad token
        _, _, exclusions = run_all(fixture, "advantage")
        check(verl.normalise(outputs, [uid for _, uid in calls]), fixture.per_request, source_rows=fixture.prefix_merging, exclusions=exclusions)


if __name__ == "__main__":
    unittest.main()
