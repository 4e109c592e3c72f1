"""Policy versions: the glue announces the trainer's version before a batch, or (policy_sync "pause") the
trainer's weight push is wrapped in pause/resume and the glue warns when polar lags; every glue submits with
its trainer's version."""

from __future__ import annotations

import asyncio
import unittest
from types import SimpleNamespace

import support
from polar_rollout.adapters import skyrl, slime, trl
from polar_rollout.adapters.batching import PolarSettings, run_batch
from polar_rollout.adapters.common import AdapterError
from polar_rollout.adapters.policy_versions import announce_policy_version, sync_weights
from rows_fixture import constructed
from skyrl.train.generators.base import BatchMetadata, TrajectoryID
from adapter_runs import templates_for


def submits(client):
    return [call[2]["policy_version"] for call in client.calls if call[0] == "submit"]


def generation_calls(client):
    return [call for call in client.calls if call[0] in ("pause", "resume")]


class Helpers(unittest.TestCase):
    def test_announce_moves_polar_forward_only(self) -> None:
        client = support.FakeClient(constructed(), policy_version=3)
        self.assertFalse(announce_policy_version(client, 3))
        self.assertFalse(announce_policy_version(client, 2))  # a trainer restarted from an older checkpoint
        self.assertTrue(announce_policy_version(client, 5))
        self.assertEqual(generation_calls(client), [("resume", {"policy_version": 5})])

    def test_sync_weights_pushes_between_pause_and_resume(self) -> None:
        client = support.FakeClient(constructed(), policy_version=1)
        seen = []
        answer = sync_weights(client, 2, lambda: seen.append((client.paused, client.policy_version)), drain_timeout_ms=5_000, mode="keep")
        self.assertEqual(seen, [(True, 1)])  # the push ran while paused, before the version moved
        self.assertEqual(answer, {"paused": False, "policy_version": 2})
        self.assertEqual(generation_calls(client), [("pause", {"drain_timeout_ms": 5_000, "mode": "keep"}), ("resume", {"policy_version": 2})])

    def test_sync_weights_sends_the_mode_sleep_and_weights(self) -> None:
        client = support.FakeClient(constructed(), policy_version=1)
        sync_weights(client, 3, mode="hold", sleep=1, weights={"kind": "reload"}, drain_timeout_ms=1_000)
        self.assertEqual(
            generation_calls(client),
            [("pause", {"drain_timeout_ms": 1_000, "mode": "hold", "sleep": 1}), ("resume", {"policy_version": 3, "weights": {"kind": "reload"}})],
        )

    def test_a_failed_push_leaves_generation_paused(self) -> None:
        client = support.FakeClient(constructed(), policy_version=1)

        def broken() -> None:
            raise RuntimeError("NCCL timeout")

        with self.assertRaisesRegex(RuntimeError, "NCCL"):
            sync_weights(client, 2, broken)
        self.assertEqual((client.paused, client.policy_version), (True, 1))

    def test_policy_sync_setting(self) -> None:
        self.assertEqual(PolarSettings.from_env({"POLAR_HARNESS": "pi"}).policy_sync, "announce")
        self.assertEqual(PolarSettings.from_env({"POLAR_HARNESS": "pi"}, default_sync="pause").policy_sync, "pause")
        self.assertEqual(PolarSettings.from_env({"POLAR_HARNESS": "pi", "POLAR_POLICY_SYNC": "pause"}).policy_sync, "pause")
        with self.assertRaisesRegex(AdapterError, "policy_sync"):
            PolarSettings("pi", policy_sync="sometimes")

    def test_run_batch_announces_or_warns(self) -> None:
        client = support.FakeClient(constructed(), policy_version=0)
        run_batch(client, PolarSettings("pi", "d"), ["demo__calc-1"], 2, builder="per_request", policy_version=4)
        self.assertEqual((submits(client), client.policy_version), ([4], 4))
        lagging = support.FakeClient(constructed(), policy_version=0)
        with self.assertLogs("polar_rollout", level="WARNING") as logs:
            run_batch(lagging, PolarSettings("pi", "d", policy_sync="pause"), ["demo__calc-1"], 2, builder="per_request", policy_version=4)
        self.assertIn("sync_weights", logs.output[0])
        self.assertEqual((submits(lagging), generation_calls(lagging)), ([4], []))  # "pause": polar's state is the trainer's to move
        silent = support.FakeClient(constructed())
        run_batch(silent, PolarSettings("pi", "d"), ["demo__calc-1"], 2, builder="per_request")
        self.assertEqual((submits(silent), [c for c in silent.calls if c[0] != "submit" and c[0] != "groups"]), ([None], []))


class EveryGlueSendsItsTrainersVersion(unittest.TestCase):
    def test_slime_rollout_id(self) -> None:
        fixture = constructed()
        client = support.FakeClient(fixture)
        args = SimpleNamespace(n_samples_per_prompt=2, rollout_batch_size=1, over_sampling_batch_size=2, rollout_temperature=1.0,
                               rollout_top_p=1.0, rollout_top_k=-1, rollout_max_response_len=512, dynamic_sampling_filter_path=None)
        source = SimpleNamespace(get_samples=lambda count: templates_for(fixture, fixture.tasks))
        slime.SlimeRollout(client, slime.PolarSettings(harness="pi", dataset="d")).run(args, 7, source)
        self.assertEqual((submits(client), client.policy_version), ([7], 7))

    def test_skyrl_global_step(self) -> None:
        self.assertEqual(skyrl.policy_version_of(BatchMetadata(global_step=3, training_phase="train")), 2)
        self.assertEqual(skyrl.policy_version_of(BatchMetadata(global_step=3, training_phase="eval")), 3)
        self.assertEqual(skyrl.policy_version_of({"global_step": 1, "training_phase": "train"}), 0)
        self.assertIsNone(skyrl.policy_version_of(None))
        fixture = constructed()
        client = support.FakeClient(fixture, policy_version=2)
        generator = skyrl.make_generator(client=client, settings=PolarSettings("pi", "d", policy_sync="pause"))
        ids = [TrajectoryID(task, rep) for task in fixture.tasks for rep in range(2)]
        batch = {"prompts": [[]] * 4, "env_classes": ["polar"] * 4, "env_extras": [{"instance_id": t.instance_id} for t in ids],
                 "sampling_params": None, "trajectory_ids": ids, "batch_metadata": BatchMetadata(global_step=3, training_phase="train")}
        asyncio.run(generator.generate(batch))
        self.assertEqual((submits(client), generation_calls(client)), ([2], []))

    def test_trl_global_step_and_pause_by_default(self) -> None:
        fixture = constructed()
        client = support.FakeClient(fixture, policy_version=1)
        trainer = SimpleNamespace(num_generations=2, num_generations_eval=1, model=SimpleNamespace(training=True), state=SimpleNamespace(global_step=2),
                                  args=SimpleNamespace(temperature=1.0, top_p=1.0, top_k=0, min_p=None), _tokenizer=SimpleNamespace(eos_token_id=1))
        settings = PolarSettings.from_env({"POLAR_HARNESS": "pi", "POLAR_DATASET": "d"}, default_sync="pause")
        with self.assertLogs("polar_rollout", level="WARNING"):  # the trainer's push to polar's engine was not wrapped
            trl.make_rollout_func(client=client, settings=settings)([t for t in fixture.tasks for _ in range(2)], trainer)
        self.assertEqual((submits(client), client.policy_version), ([2], 1))

    def test_trl_pushes_weights_once_per_step_between_pause_and_resume(self) -> None:
        fixture = constructed()
        client = support.FakeClient(fixture, policy_version=0)
        pushed = []
        trainer = SimpleNamespace(num_generations=2, num_generations_eval=1, model=SimpleNamespace(training=True), state=SimpleNamespace(global_step=1),
                                  args=SimpleNamespace(temperature=None, top_p=None, top_k=None, min_p=None), _tokenizer=SimpleNamespace(eos_token_id=1))
        rollout_func = trl.make_rollout_func(client=client, settings=PolarSettings("pi", "d", policy_sync="pause"), push_weights=lambda t: pushed.append((t.state.global_step, client.paused)))
        prompts = [t for t in fixture.tasks for _ in range(2)]
        rollout_func(prompts, trainer)
        rollout_func(prompts, trainer)  # gradient accumulation: the same step again, no second push
        trainer.state.global_step = 2
        rollout_func(prompts, trainer)
        self.assertEqual(pushed, [(1, True), (2, True)])
        self.assertEqual(submits(client), [1, 1, 2])
        self.assertEqual([c[0] for c in generation_calls(client)], ["pause", "resume", "pause", "resume"])


if __name__ == "__main__":
    unittest.main()
