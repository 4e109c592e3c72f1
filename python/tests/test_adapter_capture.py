"""Capture modes: one-sequence trainers ask for token-in batches, refuse a server that cannot, and opt into chat only
when told; slime and SkyRL step-wise take the server's default."""

from __future__ import annotations

import asyncio
import unittest
from types import SimpleNamespace
from typing import Any, List, Optional

import support
from polar_rollout import CaptureUnavailable
from polar_rollout.adapters import skyrl, slime, trl, verl
from polar_rollout.adapters.batching import PolarSettings, run_batch
from rows_fixture import constructed
from skyrl.train.generators.base import TrajectoryID
from slime.utils.types import Sample


def submitted_capture(client: support.FakeClient) -> List[Optional[str]]:
    return [call[2]["capture"] for call in client.calls if call[0] == "submit"]


def run_trl(client: support.FakeClient, **options: Any) -> Any:
    settings = options.pop("settings", PolarSettings("pi", "d"))
    rollout_func = trl.make_rollout_func(client=client, settings=settings, **options)
    trainer = SimpleNamespace(num_generations=2, num_generations_eval=1, model=SimpleNamespace(training=True),
                              args=SimpleNamespace(temperature=1.0), _tokenizer=SimpleNamespace(eos_token_id=151645))
    return rollout_func([task for task in client.fixture.tasks for _ in range(2)], trainer)


def run_skyrl(client: support.FakeClient, **options: Any) -> Any:
    generator = skyrl.make_generator(client=client, settings=options.pop("settings", PolarSettings("pi", "d")), **options)
    ids = [TrajectoryID(task, rep) for task in client.fixture.tasks for rep in range(2)]
    return asyncio.run(generator.generate({"trajectory_ids": ids, "env_extras": [{"instance_id": tid.instance_id} for tid in ids]}))


def run_verl(client: support.FakeClient, settings: PolarSettings, capture: Optional[str] = None) -> List[Any]:
    verl._COALESCERS.clear()
    original = (verl.default_client, verl.PolarSettings.from_env)
    verl.default_client = lambda: client
    verl.PolarSettings.from_env = classmethod(lambda cls, env=None, **o: settings)  # type: ignore[assignment]
    try:
        config = SimpleNamespace(actor_rollout_ref=SimpleNamespace(rollout=SimpleNamespace(prompt_length=4096, response_length=4096)))
        loops = [verl.PolarAgentLoop(SimpleNamespace(config=config), None, SimpleNamespace(pad_token_id=0), None, None, SimpleNamespace(config={}), capture=capture)
                 for _ in range(4)]
        calls = [(task, f"uid-{task}") for task in client.fixture.tasks for _ in range(2)]

        async def main() -> List[Any]:
            return await asyncio.gather(*(loop.run({}, uid=uid, extra_info={"instance_id": task}, raw_prompt=[]) for loop, (task, uid) in zip(loops, calls)))

        return asyncio.run(main())
    finally:
        verl.default_client, verl.PolarSettings.from_env = original  # type: ignore[assignment]


def run_slime(client: support.FakeClient, settings: PolarSettings) -> Any:
    prompts = [[Sample(group_index=g, index=2 * g + j, label=task, metadata={"instance_id": task}) for j in range(2)] for g, task in enumerate(client.fixture.tasks)]
    data_source = SimpleNamespace(get_samples=lambda count: prompts)
    args = SimpleNamespace(n_samples_per_prompt=2, rollout_batch_size=1, over_sampling_batch_size=None, dynamic_sampling_filter_path=None)
    return slime.SlimeRollout(client, settings).run(args, 0, data_source)


class Defaults(unittest.TestCase):
    def test_one_sequence_trainers_ask_for_token_in(self) -> None:
        for name, run in (("trl", lambda c: run_trl(c)), ("skyrl trajectory", lambda c: run_skyrl(c, step_wise=False)),
                          ("verl", lambda c: run_verl(c, PolarSettings("pi", "d")))):
            with self.subTest(trainer=name):
                client = support.FakeClient(constructed(split=False))
                run(client)
                self.assertEqual(submitted_capture(client), ["token_in"])

    def test_every_row_trainers_take_the_servers_default(self) -> None:
        for name, run in (("skyrl step-wise", lambda c: run_skyrl(c, step_wise=True)), ("slime", lambda c: run_slime(c, PolarSettings("pi", "d")))):
            with self.subTest(trainer=name):
                client = support.FakeClient(constructed())
                run(client)
                self.assertEqual(submitted_capture(client), [None])

    def test_chat_is_an_explicit_opt_in(self) -> None:
        client = support.FakeClient(constructed(split=False))
        for run in (lambda: run_trl(client, capture="chat"), lambda: run_skyrl(client, step_wise=False, settings=PolarSettings("pi", "d", capture="chat")),
                    lambda: run_verl(client, PolarSettings("pi", "d"), capture="chat")):
            with self.assertLogs("polar_rollout", "WARNING") as logs:
                run()
            self.assertIn("in chat capture", logs.output[0])
            self.assertIn("39 of 50 sampled trainable tokens (78.0%)", logs.output[0])
        self.assertEqual(submitted_capture(client), ["chat", "chat", "chat"])

    def test_the_adapter_parameter_wins_over_the_environment(self) -> None:
        settings = PolarSettings.from_env({"POLAR_HARNESS": "pi", "POLAR_DATASET": "d", "POLAR_CAPTURE": "chat"})
        self.assertEqual(settings.capture, "chat")
        client = support.FakeClient(constructed(split=False))
        run_trl(client, settings=settings, capture="token_in")
        run_slime(client, settings)  # slime follows POLAR_CAPTURE
        self.assertEqual(submitted_capture(client), ["token_in", "chat"])

    def test_an_unknown_capture_is_refused(self) -> None:
        with self.assertRaisesRegex(ValueError, "token_in, chat"):
            PolarSettings("pi", capture="tokens")
        with self.assertRaisesRegex(ValueError, "make_rollout_func"):
            trl.make_rollout_func(capture="token-in")


class ServerCannot(unittest.TestCase):
    def assert_refused(self, error: CaptureUnavailable) -> None:
        self.assertEqual((error.type, error.status), ("capture_unavailable", 409))
        self.assertIn("vLLM >= 0.10.2", str(error))  # the server's fix ...
        self.assertIn("POLAR_CAPTURE=chat", str(error))  # ... and the adapter's opt-in

    def test_one_sequence_trainers_fail_at_submit(self) -> None:
        for name, run in (("trl", lambda c: run_trl(c)), ("skyrl trajectory", lambda c: run_skyrl(c, step_wise=False)),
                          ("verl", lambda c: run_verl(c, PolarSettings("pi", "d")))):
            with self.subTest(trainer=name):
                client = support.FakeClient(constructed(), token_in=False)
                with self.assertRaises(CaptureUnavailable) as caught:
                    run(client)
                self.assert_refused(caught.exception)

    def test_every_row_trainers_run_on_such_a_server(self) -> None:
        client = support.FakeClient(constructed(), token_in=False)
        output = run_skyrl(client, step_wise=True)
        self.assertEqual(submitted_capture(client), [None])
        self.assertNotIn("polar/excluded/one-sequence-per-sample", output["rollout_metrics"])  # every row trained

    def test_a_server_from_before_capture_modes(self) -> None:
        client = support.FakeClient(constructed(), legacy=True)
        with self.assertRaises(CaptureUnavailable) as caught:
            run_batch(client, PolarSettings("pi", "d"), ["demo__calc-1"], 2, builder="prefix_merging", capture="token_in")
        self.assertIn("predates per-batch capture", str(caught.exception))
        self.assertIn("capture='chat'", str(caught.exception))
        run_batch(client, PolarSettings("pi", "d"), ["demo__calc-1"], 2, builder="per_request")  # nothing asked: runs

    def test_a_batch_answered_in_another_capture(self) -> None:
        client = support.FakeClient(constructed())
        client.submit = lambda *a, **k: support.FakeBatch("b_9", capture="chat")  # type: ignore[method-assign]
        with self.assertRaisesRegex(CaptureUnavailable, "asked for capture 'token_in' but runs in 'chat'"):
            run_batch(client, PolarSettings("pi", "d"), ["demo__calc-1"], 2, builder="prefix_merging", capture="token_in")

    def test_other_submit_errors_pass_through(self) -> None:
        client = support.FakeClient(constructed())

        def refuse(*args: Any, **kwargs: Any) -> Any:
            from polar_rollout import InvalidRequest
            raise InvalidRequest("tasks[0]: missing repo", status=400)

        client.submit = refuse  # type: ignore[method-assign]
        from polar_rollout import InvalidRequest
        with self.assertRaises(InvalidRequest):
            run_batch(client, PolarSettings("pi", "d"), ["demo__calc-1"], 2, builder="prefix_merging", capture="token_in")


if __name__ == "__main__":
    unittest.main()
