"""SkyRL adapter on polar rows: SkyRL's contract (contracts/skyrl.json) and the fidelity check, both modes."""

from __future__ import annotations

import asyncio
import unittest
from typing import List

import support  # noqa: F401  (stand-ins on sys.path)
from contract_check import violations
from polar_rollout.adapters import skyrl
from polar_rollout.adapters.common import MissingRewardError
from polar_rollout.check import check
from polar_rollout.rows import sessions_of
from adapter_runs import SKYRL_MODES, run_skyrl, skyrl_slots
from rows_fixture import constructed, fixtures
from skyrl.train.generators.base import GeneratorInterface, TrajectoryID


def slots(fixture, rows):
    return skyrl_slots(fixture, rows)


class SkyRLOnFixtures(unittest.TestCase):
    def test_contract_and_fidelity_on_every_fixture_and_mode(self) -> None:
        for fixture in fixtures():
            for step_wise, signal in SKYRL_MODES:
                with self.subTest(fixture=fixture.name, step_wise=step_wise, signal=signal):
                    if not fixture.graded:  # SkyRL takes rewards from the generator: a never-graded batch is refused
                        rows = fixture.per_request if step_wise else fixture.prefix_merging
                        with self.assertRaises(MissingRewardError):
                            skyrl.to_generator_output(slots(fixture, rows), step_wise=step_wise, signal=signal)
                        continue
                    self.assertEqual(run_skyrl(fixture, step_wise, signal).problems(), [])

    def test_step_wise_rows_of_a_session(self) -> None:
        fixture = constructed()
        output, exclusions = skyrl.to_generator_output(slots(fixture, fixture.per_request), step_wise=True)
        tids = [tid.to_string() for tid in output["trajectory_ids"]]
        self.assertEqual(tids, ["demo__calc-1_0"] * 3 + ["demo__calc-1_1"] * 3 + ["demo__calc-2_0"] * 2 + ["demo__calc-2_1"])
        self.assertEqual(output["is_last_step"], [False, False, True, False, False, True, False, True, True])
        self.assertTrue(all(value is True or value is False for value in output["is_last_step"]))
        self.assertEqual([round(r, 5) for r in output["rewards"]], [0, 0, 1.0, 0, 0, -1.0, 0, 0, 0])
        self.assertEqual(output["stop_reasons"], ["stop", "stop", "stop", "stop", "stop", "length", "stop", "stop", "error"])
        self.assertEqual(output["polar"][8], {"placeholder": True, "signal": "advantage"})  # session 4: infra error
        self.assertEqual(sorted((e.reason, e.call_ids) for e in exclusions), [("loss-weight-0", (4,)), ("loss-weight-0", (10,)), ("loss-weight-0", (11,))])
        self.assertEqual(output["trajectory_generation_times"][0], 4.0)

    def test_step_wise_trains_every_token_at_the_trajectory_modes_advantage(self) -> None:
        # SkyRL a956457 broadcasts the last step's scalar to every step (skyrl/train/trainer.py:1142-1179) and its
        # default token_mean loss divides by the mini-batch's token count (ppo_utils.py:1180), so a token's weight is
        # its advantage whatever row holds it: a step must carry the session's advantage x its trace's weight (main 1),
        # as the trajectory-mode row does, not x its per_request row's share (1/3 for session 1's three calls).
        fixture = constructed()
        step_wise, _ = skyrl.to_generator_output(slots(fixture, fixture.per_request), step_wise=True)
        trajectory, _ = skyrl.to_generator_output(slots(fixture, fixture.prefix_merging), step_wise=False)
        advantages = {row["session_id"]: row["advantage"] for row in fixture.per_request}
        per_token = {}
        for sample in skyrl.normalise(step_wise) + skyrl.normalise(trajectory):
            if not sample.placeholder:
                per_token.setdefault(sample.session_id, set()).add(round(sample.advantage, 9))
        self.assertEqual(per_token, {1: {round(advantages[1], 9)}, 2: {round(advantages[2], 9)}, 3: {0.0}})
        self.assertEqual([round(r, 5) for r in step_wise["rewards"]], [0, 0, 1.0, 0, 0, -1.0, 0, 0, 0])
        # A sub-agent the run weighs 0.5 (session 3, given an advantage): its steps get the main trace's scalar too
        # (one scalar per trajectory); the adapter says so, and the fidelity check, which scales a step-wise advantage
        # by the sample's own trace's weight, reports those steps.
        weighted = constructed(weights={"sub-agent": 0.5})
        for row in weighted.per_request:
            if row["session_id"] == 3:
                row["advantage"] = 0.5
        with self.assertLogs("polar_rollout", "WARNING") as logged:
            output, exclusions = skyrl.to_generator_output(slots(weighted, weighted.per_request), step_wise=True)
        self.assertIn("session 3's lineages weigh differently", "\n".join(logged.output))
        report = check(skyrl.normalise(output), weighted.per_request, exclusions=exclusions, raise_on_violation=False)
        self.assertEqual([(error.code, error.session_id) for error in report.violations], [("advantage-mismatch", 3)] * 2)

    def test_reward_signal_masks_a_group_missing_a_session(self) -> None:
        fixture = constructed()
        output, exclusions = skyrl.to_generator_output(slots(fixture, fixture.per_request), step_wise=True, signal="reward")
        task_b = [i for i, tid in enumerate(output["trajectory_ids"]) if tid.instance_id == "demo__calc-2"]
        self.assertEqual([output["loss_masks"][i] for i in task_b], [[0], [0]])
        self.assertIn(("incomplete-group", 3), [(e.reason, e.session_id) for e in exclusions])
        self.assertEqual(output["rewards"][2], 1.0)

    def test_ungraded_batch_is_refused(self) -> None:
        fixture = constructed(graded=False)
        for signal in skyrl.SIGNALS:
            with self.assertRaises(MissingRewardError):
                skyrl.to_generator_output(slots(fixture, fixture.per_request), step_wise=True, signal=signal)

    def test_infra_rows_from_a_broken_server_become_placeholders(self) -> None:
        fixture = constructed(leak_infra=True)
        output, exclusions = skyrl.to_generator_output(slots(fixture, fixture.per_request), step_wise=True)
        self.assertTrue(output["polar"][-1]["placeholder"])
        self.assertIn(("infra-error", 4), [(e.reason, e.session_id) for e in exclusions])
        check(skyrl.normalise(output), fixture.per_request, exclusions=exclusions)


class FakeTensor:
    """Just enough of a torch tensor for the pass-through estimator: rows of floats."""

    def __init__(self, rows: List[List[float]]) -> None:
        self.rows = rows

    def sum(self, dim: int, keepdim: bool) -> "FakeTensor":
        assert dim == -1 and keepdim
        return FakeTensor([[sum(row)] for row in self.rows])

    def __mul__(self, other: "FakeTensor") -> "FakeTensor":
        return FakeTensor([[a[0] * b for b in row] for a, row in zip(self.rows, other.rows)])

    def clone(self) -> "FakeTensor":
        return FakeTensor([list(row) for row in self.rows])


class SkyRLGlue(unittest.TestCase):
    def test_polar_estimator_passes_the_scalar_through(self) -> None:
        rewards = FakeTensor([[0.0, 0.0, 0.75], [0.0, -0.5, 0.0]])
        mask = FakeTensor([[1, 1, 1], [0, 1, 1]])
        advantages, returns = skyrl.polar_advantage(rewards, mask, index=None)
        self.assertEqual(advantages.rows, [[0.75, 0.75, 0.75], [-0.0, -0.5, -0.5]])
        self.assertEqual(returns.rows, advantages.rows)

    def test_register_polar_estimator_once(self) -> None:
        from skyrl.backends.skyrl_train.utils.ppo_utils import AdvantageEstimatorRegistry

        skyrl.register_polar_estimator()
        skyrl.register_polar_estimator()
        self.assertIs(AdvantageEstimatorRegistry.get("polar"), skyrl.polar_advantage)

    def test_generator_submits_one_batch_and_answers_in_input_order(self) -> None:
        fixture = constructed()
        client = support.FakeClient(fixture)
        generator = skyrl.make_generator(client=client, settings=skyrl.PolarSettings(harness="pi", dataset="d"), step_wise=True)
        self.assertIsInstance(generator, GeneratorInterface)
        trajectory_ids = [TrajectoryID(task, rep) for task in fixture.tasks for rep in range(2)]
        batch = {"prompts": [[{"role": "user", "content": t.instance_id}] for t in trajectory_ids], "env_classes": ["polar"] * 4,
                 "env_extras": [{"instance_id": t.instance_id} for t in trajectory_ids], "sampling_params": {"temperature": 1.0, "max_generate_length": 256},
                 "trajectory_ids": trajectory_ids, "batch_metadata": None}
        output = asyncio.run(generator.generate(batch))
        [submit] = [c for c in client.calls if c[0] == "submit"]
        self.assertEqual((submit[2]["instance_ids"], submit[2]["samples"], submit[2]["sampling"]), (fixture.tasks, 2, {"temperature": 1.0, "max_tokens": 256}))
        self.assertEqual([c[2]["builder"] for c in client.calls if c[0] == "groups"], ["per_request"])
        self.assertEqual(violations("skyrl", output, num_prompts=4, step_wise=True), [])
        _, exclusions = skyrl.to_generator_output(slots(fixture, fixture.per_request), step_wise=True)
        check(skyrl.normalise(output), fixture.per_request, exclusions=exclusions)


if __name__ == "__main__":
    unittest.main()
