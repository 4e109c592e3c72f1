"""One-sequence trainers on a real ``polar serve``: token-in batches by default, every sampled token received.

Run by test/python/trainer-yield.e2e.test.ts, which starts ``polar serve`` without ``--token-in`` (its default capture
is chat) in front of polar's drifting simulator (scripted: ten shell tool turns with reasoning, then an answer;
Qwen3's template with thinking on) and sets POLAR_TEST_SERVE_URL, POLAR_TEST_SERVE_TOKEN and POLAR_TEST_TASK (the
example task). Pi, which sends the sampled reasoning back as ``reasoning_content``, runs in Docker. Three steps, as
the trainers drive the glue:

- TRL's ``rollout_func`` with its defaults: the batch asks for token-in, every row says ``capture: token_in``, each
  session is one row, and TRL receives every sampled token (reasoning included): ``polar/yield`` 1.0;
- TRL's ``rollout_func`` opted into chat: the lineages split where the re-rendered history drifted, TRL receives one
  row per session, the rest is counted (``one-sequence-per-sample``), and the step's yield is logged as a warning;
- verl's agent loop with its defaults: token-in, every sampled token, ``reward_score`` the session's advantage.

Every output passes its trainer's contract and ``polar_rollout.check`` against the batch's ``per_request`` rows.
POLAR_TEST_NO_TOKEN_IN_URL is a second server whose engine (SGLang-shaped, without /tokenize) has no token-in route:
TRL's glue fails there at submit with ``CaptureUnavailable``, the engine's fix and the opt-in in its hint.
"""

from __future__ import annotations

import asyncio
import json
import os
import unittest
from collections import defaultdict
from types import SimpleNamespace
from typing import Any, Dict, List

import support  # noqa: F401  (stand-ins on sys.path)
from contract_check import violations
from polar_rollout import CaptureUnavailable, PolarClient
from polar_rollout.adapters import trl, verl
from polar_rollout.adapters.batching import PolarSettings
from polar_rollout.check import check
from polar_rollout.rows import sessions_of

URL = os.environ.get("POLAR_TEST_SERVE_URL")
THINK = 151667  # <think>


def trainer(samples: int) -> Any:
    """What TRL's GRPOTrainer hands rollout_func, with the metrics dict it logs."""
    return SimpleNamespace(num_generations=samples, num_generations_eval=samples, model=SimpleNamespace(training=True), state=SimpleNamespace(global_step=0),
                           args=SimpleNamespace(temperature=None, top_p=None, top_k=None, min_p=None), _tokenizer=SimpleNamespace(eos_token_id=151645),
                           _metrics={"train": defaultdict(list), "eval": defaultdict(list)})


@unittest.skipUnless(URL, "needs POLAR_TEST_SERVE_URL: run by test/python/trainer-yield.e2e.test.ts (Docker, real Pi, a running polar serve)")
class LiveYieldTest(unittest.TestCase):
    client: PolarClient
    task: Dict[str, Any]

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = PolarClient(URL, os.environ["POLAR_TEST_SERVE_TOKEN"])
        with open(os.environ["POLAR_TEST_TASK"], encoding="utf-8") as handle:
            cls.task = json.loads(handle.read().strip())

    def last_batch(self) -> Any:
        return max(self.client.list(), key=lambda batch: batch.created_at or "")

    def rows(self, batch_id: str, builder: str) -> List[dict]:
        return [row for group in self.client.groups(batch_id, follow=False, format="polar", builder=builder, messages=False) for row in group.rows]

    def trl_step(self, **options: Any) -> Dict[str, Any]:
        step = trainer(2)
        rollout_func = trl.make_rollout_func(client=self.client, settings=PolarSettings("pi", policy_sync="pause", timeout_seconds=300), **options)
        prompts = [self.task] * 2
        output = rollout_func(prompts, step)
        self.assertEqual(violations("trl", output, prompts=prompts, num_generations=2, reward_func=trl.polar_reward), [])
        return {"output": output, "metrics": {name: values[-1] for name, values in step._metrics["train"].items()}}

    def checked(self, batch_id: str, samples: list, exclusions: list) -> List[dict]:
        per_request, prefix_merging = self.rows(batch_id, "per_request"), self.rows(batch_id, "prefix_merging")
        check(samples, per_request, source_rows=prefix_merging, exclusions=exclusions, excluded=self.client.get(batch_id).excluded)
        return prefix_merging

    def test_trl_token_in_by_default(self) -> None:
        step = self.trl_step()
        batch = self.last_batch()
        self.assertEqual(batch.capture, "token_in")
        output, metrics = step["output"], step["metrics"]
        _, exclusions = trl.to_rollout_dict(sessions_of(self.rows(batch.id, "prefix_merging")))
        rows = self.checked(batch.id, trl.normalise(output, 2), exclusions)
        self.assertEqual({row["capture"] for row in rows}, {"token_in"})
        self.assertEqual([len(session.rows) for session in sessions_of(rows)], [1, 1])  # one row per lineage
        self.assertEqual(metrics["polar/yield"], 1.0)
        self.assertEqual(metrics["polar/yield_received_tokens"], metrics["polar/yield_sampled_tokens"])
        for completion, mask, row in zip(output["completion_ids"], output["env_mask"], rows):
            trained = [token for token, bit in zip(completion, mask) if bit == 1]
            self.assertEqual(trained.count(THINK), len(row["call_ids"]))  # every call's reasoning is trained

    def test_trl_chat_opt_in_counts_what_it_loses(self) -> None:
        with self.assertLogs("polar_rollout", "WARNING") as logs:
            step = self.trl_step(capture="chat")
        self.assertIn("in chat capture", "\n".join(logs.output))
        batch = self.last_batch()
        self.assertEqual(batch.capture, "chat")
        output, metrics = step["output"], step["metrics"]
        _, exclusions = trl.to_rollout_dict(sessions_of(self.rows(batch.id, "prefix_merging")))
        rows = self.checked(batch.id, trl.normalise(output, 2), exclusions)
        self.assertEqual({row["capture"] for row in rows}, {"chat"})
        self.assertGreater(len(rows), 2)  # the drifting simulator split the lineages
        self.assertLess(metrics["polar/yield"], 1.0)
        lost = metrics["polar/excluded_trainable_tokens/one-sequence-per-sample"]
        self.assertEqual(metrics["polar/yield_received_tokens"] + lost, metrics["polar/yield_sampled_tokens"])

    def test_an_engine_without_token_in_refuses_at_submit(self) -> None:
        refusing = PolarClient(os.environ["POLAR_TEST_NO_TOKEN_IN_URL"], os.environ["POLAR_TEST_SERVE_TOKEN"])
        rollout_func = trl.make_rollout_func(client=refusing, settings=PolarSettings("pi", policy_sync="pause"))
        with self.assertRaises(CaptureUnavailable) as caught:
            rollout_func([self.task] * 2, trainer(2))
        error = caught.exception
        self.assertEqual((error.type, error.status), ("capture_unavailable", 409))
        self.assertIn("SGLang", error.message)  # what the engine lacks, as polar serve says it
        self.assertIn("POLAR_CAPTURE=chat", str(error))  # and the adapter's opt-in
        self.assertEqual(refusing.list(), [])  # nothing was stored

    def test_verl_token_in_by_default(self) -> None:
        verl._COALESCERS.clear()
        original = (verl.default_client, verl.PolarSettings.from_env)
        verl.default_client = lambda: self.client
        verl.PolarSettings.from_env = classmethod(lambda cls, env=None, **o: cls(harness="pi", timeout_seconds=300))  # type: ignore[assignment]
        try:
            config = SimpleNamespace(actor_rollout_ref=SimpleNamespace(rollout=SimpleNamespace(prompt_length=65536, response_length=65536)))
            loops = [verl.PolarAgentLoop(SimpleNamespace(config=config), None, SimpleNamespace(pad_token_id=151643), None, None, SimpleNamespace(config={})) for _ in range(2)]

            async def main() -> List[Any]:
                return await asyncio.gather(*(loop.run({}, uid="uid-0", extra_info=self.task, raw_prompt=[]) for loop in loops))

            outputs = asyncio.run(main())
        finally:
            verl.default_client, verl.PolarSettings.from_env = original  # type: ignore[assignment]
        batch = self.last_batch()
        self.assertEqual(batch.capture, "token_in")
        self.assertEqual(violations("verl", outputs, prompt_length=65536, response_length=65536), [])
        rows = self.checked(batch.id, verl.normalise(outputs, ["uid-0", "uid-0"]), [])
        self.assertEqual(verl.yield_metrics(outputs)["polar/yield"], 1.0)
        by_session = {row["session_id"]: row for row in rows}
        for output in outputs:
            self.assertEqual(output.reward_score, by_session[output.extra_fields["polar"]["session_id"]]["advantage"])


if __name__ == "__main__":
    unittest.main()
