"""The stand-ins match the contracts read from the trainers' sources, and the contract checks cover every rule."""

from __future__ import annotations

import dataclasses
import inspect
import unittest

import support  # noqa: F401  (stand-ins on sys.path)
from contract_check import CHECKED_RULES, contract


def dataclass_fields(cls):
    return [(f.name, f.type) for f in dataclasses.fields(cls)]


def contract_fields(trainer: str, name: str):
    return [f for f in contract(trainer)["types"][name] if "name" in f]


class StandinsMatchContracts(unittest.TestCase):
    def assert_dataclass(self, trainer: str, name: str, cls, *, required_by_check=()) -> None:
        expected = contract_fields(trainer, name)
        self.assertEqual(dataclass_fields(cls), [(f["name"], f["type"]) for f in expected], f"{trainer} {name}: fields, order, annotations")
        by_name = {f.name: f for f in dataclasses.fields(cls)}
        for field in expected:
            standin = by_name[field["name"]]
            has_default = standin.default is not dataclasses.MISSING or standin.default_factory is not dataclasses.MISSING
            if field["name"] in required_by_check:
                continue
            self.assertEqual(not has_default, field["required"], f"{trainer} {name}.{field['name']}: required")
        required = {f["name"] for f in expected if f["required"]}
        for name in required:  # leaving out any required field fails here too
            with self.assertRaises(TypeError, msg=f"{trainer} {name}"):
                cls(**{f["name"]: None for f in expected if f["name"] != name})

    def test_slime_sample_and_outputs(self) -> None:
        from slime.rollout.base_types import RolloutFnEvalOutput, RolloutFnTrainOutput
        from slime.utils.types import Sample

        self.assert_dataclass("slime", "Sample", Sample)
        self.assert_dataclass("slime", "RolloutFnTrainOutput", RolloutFnTrainOutput)
        self.assert_dataclass("slime", "RolloutFnEvalOutput", RolloutFnEvalOutput)
        [status] = [f for f in contract("slime")["types"]["Sample"] if f.get("enum") == "Status"]
        self.assertEqual({m.name: m.value for m in Sample.Status}, status["members"])
        defaults = {f["name"]: f["default"] for f in contract_fields("slime", "Sample")}
        sample = Sample()
        for name in ("group_index", "rollout_id", "loss_mask", "rollout_log_probs", "reward"):
            self.assertEqual(defaults[name], "None")
            self.assertIsNone(getattr(sample, name))
        self.assertEqual((sample.response_length, sample.remove_sample, sample.status), (0, False, Sample.Status.PENDING))

    def test_skyrl_types(self) -> None:
        from skyrl.train.generators import base

        self.assert_dataclass("skyrl", "TrajectoryID", base.TrajectoryID)
        self.assert_dataclass("skyrl", "BatchMetadata", base.BatchMetadata)
        for name in ("GeneratorInput", "GeneratorOutput"):
            hints = list(base.__dict__[name].__annotations__)
            self.assertEqual(hints, [f["name"] for f in contract_fields("skyrl", name)], name)
            self.assertTrue(base.__dict__[name].__total__)  # every key present, read with []
        self.assertEqual(base.TrajectoryID("django__django-1", 2).to_string(), "django__django-1_2")
        self.assertEqual(list(inspect.signature(base.GeneratorInterface.generate).parameters), ["self", "input_batch"])
        self.assertTrue(inspect.iscoroutinefunction(base.GeneratorInterface.generate))

    def test_verl_types(self) -> None:
        from verl.experimental.agent_loop import agent_loop

        self.assert_dataclass("verl", "AgentLoopMetrics", agent_loop.AgentLoopMetrics)
        # verl's metrics has no default (pydantic allows that after defaulted fields); the dataclass enforces it in __post_init__
        self.assert_dataclass("verl", "AgentLoopOutput", agent_loop.AgentLoopOutput, required_by_check=("metrics",))
        with self.assertRaisesRegex(TypeError, "metrics"):
            agent_loop.AgentLoopOutput(prompt_ids=[1], response_ids=[2], response_mask=[1])
        self.assertEqual(list(inspect.signature(agent_loop.AgentLoopBase.run).parameters), ["self", "sampling_params", "kwargs"])
        self.assertEqual(list(inspect.signature(agent_loop.AgentLoopBase.__init__).parameters),
                         ["self", "trainer_config", "server_manager", "tokenizer", "processor", "dataset_cls", "dataset_config", "kwargs"])

    def test_contracts_name_their_commit_and_files(self) -> None:
        for trainer in ("slime", "skyrl", "verl", "trl"):
            data = contract(trainer)
            self.assertRegex(data["commit"], "^[0-9a-f]{40}$", trainer)
            self.assertTrue(data["files"] and data["extension_points"] and data["rules"], trainer)

    def test_every_contract_rule_is_checked(self) -> None:
        for trainer, checked in CHECKED_RULES.items():
            self.assertEqual({rule["id"] for rule in contract(trainer)["rules"]}, checked, trainer)


if __name__ == "__main__":
    unittest.main()
