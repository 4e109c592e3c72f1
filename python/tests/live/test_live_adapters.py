"""Every trainer adapter, and the fidelity check, on rows a real ``polar serve`` produced.

Run by test/python/adapters.e2e.test.ts, which starts the server (the simulator as its upstream, the real Pi and
Claude Code CLIs in Docker) and sets POLAR_TEST_SERVE_URL, POLAR_TEST_SERVE_TOKEN, POLAR_TEST_TASKS (three
variants of the example task: live-a, live-b, live-c) and POLAR_TEST_OUT. The simulator is set so that task
A's first session gives up (reward 0), one session of task B meets a dead engine (infra_error: the server
runs with --max-attempts 1) and task C's first session hands work to a Claude Code sub-agent (a separate
lineage, loss weight 0) before solving it while the other gives up.

setUpClass drives two glues against the server, as a trainer would: SkyRL's generator (Pi, tasks A and B x 2,
step-wise) and TRL's rollout_func (Claude Code, task C x 2), both at policy version 1 after a Shape B weight
sync (pause, push, resume). Then it fetches both batches' rows, per_request and prefix_merging under the
estimators grpo and none, through the client, and writes them to POLAR_TEST_OUT for the TypeScript side to
compare with the database. With POLAR_TEST_RECORD_DIR set, ``test_90`` records the grpo rows as test data.
"""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import os
import threading
import unittest
from types import SimpleNamespace
from typing import Any, ClassVar, Dict, List

import adapter_runs
import support  # noqa: F401  (stand-ins on sys.path)
from contract_check import contract, violations
from polar_rollout import Batch, PolarClient
from polar_rollout.adapters import skyrl, trl, verl
from polar_rollout.adapters.batching import PolarSettings
from polar_rollout.adapters.policy_versions import sync_weights
from polar_rollout.check import check
import rows_fixture
from rows_fixture import Fixture
from skyrl.train.generators.base import BatchMetadata, TrajectoryID

URL = os.environ.get("POLAR_TEST_SERVE_URL")
BUILDERS = ("per_request", "prefix_merging")
ESTIMATORS = ("grpo", "none")
POLICY_VERSION = 1
TRAINERS = ("slime", "skyrl", "verl", "trl")


@unittest.skipUnless(URL, "needs POLAR_TEST_SERVE_URL: run by test/python/adapters.e2e.test.ts (Docker, real harnesses, a running polar serve)")
class LiveAdaptersTest(unittest.TestCase):
    client: ClassVar[PolarClient]
    tasks: ClassVar[Dict[str, Dict[str, Any]]]
    skyrl_output: ClassVar[Dict[str, Any]]
    trl_output: ClassVar[Dict[str, Any]]
    trl_prompts: ClassVar[List[Any]]
    batches: ClassVar[Dict[str, Batch]] = {}
    rows: ClassVar[Dict[str, Dict[str, List[dict]]]] = {}

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = PolarClient(URL, os.environ["POLAR_TEST_SERVE_TOKEN"])
        with open(os.environ["POLAR_TEST_TASKS"], encoding="utf-8") as handle:
            cls.tasks = {row["instance_id"].split("__")[1]: row for row in map(json.loads, filter(str.strip, handle))}
        # A Shape B weight sync before the first step: every call of both batches records version 1.
        sync_weights(cls.client, POLICY_VERSION, lambda: None, drain_timeout_ms=10_000)
        claude = threading.Thread(target=cls._trl_step)
        claude.start()
        cls._skyrl_step()
        claude.join()
        for batch in cls.client.list():
            done = cls.client.wait(batch.id, timeout=300)
            harness = done.harness or ""
            cls.batches[harness] = done
            cls.rows[harness] = {}
            for builder in BUILDERS:
                for estimator in ESTIMATORS:
                    page = cls.client.results(batch.id, format="polar", builder=builder, advantage=estimator, messages=False)
                    assert page.batch_status == "finished" and page.groups == (done.groups.total if done.groups else -1), page
                    cls.rows[harness][f"{builder}.{estimator}"] = page.rows
        cls._write_served(os.environ["POLAR_TEST_OUT"])

    @classmethod
    def _skyrl_step(cls) -> None:
        """SkyRL's trainer at global_step 2 (weights of one step): tasks A and B, two repetitions each."""
        generator = skyrl.make_generator(client=cls.client, settings=PolarSettings("pi", policy_sync="pause"), step_wise=True)
        ids = [TrajectoryID(cls.tasks[name]["instance_id"], rep) for name in ("live-a", "live-b") for rep in range(2)]
        batch = {"prompts": [[{"role": "user", "content": "solve"}]] * 4, "env_classes": ["polar"] * 4,
                 "env_extras": [cls.tasks[tid.instance_id.split("__")[1]] for tid in ids], "sampling_params": {"max_generate_length": 4096},
                 "trajectory_ids": ids, "batch_metadata": BatchMetadata(global_step=POLICY_VERSION + 1, training_phase="train")}
        cls.skyrl_output = asyncio.run(generator.generate(batch))

    @classmethod
    def _trl_step(cls) -> None:
        """TRL's GRPOTrainer at global_step 1: task C, num_generations 2 (its prompt is the whole SWE-bench row). This
        server captures in chat mode (the recorded rows keep their drift splits): TRL opts into it explicitly."""
        rollout_func = trl.make_rollout_func(client=cls.client, settings=PolarSettings("claude-code", policy_sync="pause"), capture="chat")
        trainer = SimpleNamespace(num_generations=2, num_generations_eval=2, model=SimpleNamespace(training=True), state=SimpleNamespace(global_step=POLICY_VERSION),
                                  args=SimpleNamespace(temperature=None, top_p=None, top_k=None, min_p=None), _tokenizer=SimpleNamespace(eos_token_id=151645))
        cls.trl_prompts = [cls.tasks["live-c"]] * 2
        cls.trl_output = rollout_func(cls.trl_prompts, trainer)

    @classmethod
    def _write_served(cls, folder: str) -> None:
        for harness, rows in cls.rows.items():
            os.makedirs(os.path.join(folder, harness), exist_ok=True)
            with open(os.path.join(folder, harness, "batch.json"), "w", encoding="utf-8") as handle:
                json.dump(cls.batches[harness].raw, handle)
            for name, served in rows.items():
                with open(os.path.join(folder, harness, f"{name}.jsonl"), "w", encoding="utf-8") as handle:
                    handle.writelines(json.dumps(row) + "\n" for row in served)

    def fixture(self, harness: str, estimator: str = "grpo") -> Fixture:
        batch = self.batches[harness]
        rows = self.rows[harness]
        tasks = sorted({row["task_id"] for row in rows[f"per_request.{estimator}"]} | {item.instance_id for item in batch.excluded})
        return Fixture(f"live-{harness}-{estimator}", rows[f"per_request.{estimator}"], rows[f"prefix_merging.{estimator}"], 2, tasks,
                       set(batch.infra_session_ids), [vars(item) for item in batch.excluded])

    # --- the glues, live -----------------------------------------------------------------------------------

    def test_10_skyrl_generator_glue(self) -> None:
        fixture = self.fixture("pi")
        output = self.skyrl_output
        self.assertEqual(violations("skyrl", output, num_prompts=4, step_wise=True), [])
        expected, exclusions = skyrl.to_generator_output(adapter_runs.skyrl_slots(fixture, fixture.per_request), step_wise=True)
        self.assertEqual(output, expected, "the glue's output is the adapter's on the rows the server serves")
        report = check(skyrl.normalise(output), fixture.per_request, exclusions=exclusions, excluded=self.batches["pi"].excluded)
        self.assertEqual((report.placeholders, report.groups), (1, 2))

    def test_11_trl_rollout_func_glue(self) -> None:
        fixture = self.fixture("claude-code")
        output = self.trl_output
        self.assertEqual(violations("trl", output, prompts=self.trl_prompts, num_generations=2, reward_func=trl.polar_reward), [])
        expected, exclusions = trl.to_rollout_dict(adapter_runs.trl_entries(fixture)[1])
        self.assertEqual(output, expected)
        check(trl.normalise(output, 2), fixture.per_request, source_rows=fixture.prefix_merging, exclusions=exclusions, excluded=self.batches["claude-code"].excluded)

    # --- every adapter on every read of both batches ---------------------------------------------------------

    def test_20_every_adapter_contract_and_fidelity(self) -> None:
        seen = set()
        for harness in self.batches:
            for estimator in ESTIMATORS:
                for run in adapter_runs.runs(self.fixture(harness, estimator)):
                    with self.subTest(harness=harness, estimator=estimator, adapter=run.name):
                        self.assertEqual(run.problems(), [])
                        self.assertGreater(run.report.trainable_tokens, 0)
                        seen.add(run.name.split(" ")[0])
        self.assertEqual(seen, set(TRAINERS))

    # --- what the server decided -----------------------------------------------------------------------------

    def test_30_the_infra_session_reaches_no_trainer(self) -> None:
        batch = self.batches["pi"]
        [infra] = batch.excluded
        self.assertEqual((infra.instance_id, infra.status, infra.status_reason, infra.reason), (self.tasks["live-b"]["instance_id"], "infra_error", "upstream_5xx", "infra-error"))
        self.assertEqual(batch.sessions.by_status if batch.sessions else None, {"completed": 3, "infra_error": 1})
        for name, rows in self.rows["pi"].items():
            self.assertNotIn(infra.session_id, {row["session_id"] for row in rows}, name)
        fixture = self.fixture("pi")
        for run in adapter_runs.runs(fixture):
            with self.subTest(adapter=run.name):
                self.assertNotIn(infra.session_id, {sample.session_id for sample in run.samples if not sample.placeholder})
        # Fixed-shape trainers fill its slot with an untrainable placeholder; slime sets its group aside.
        outputs, _, _ = adapter_runs.verl_outputs(fixture, "advantage", **adapter_runs.VERL_LIMITS)
        slot = fixture.tasks.index(infra.instance_id) * 2 + infra.sample_index
        self.assertEqual((outputs[slot].extra_fields["polar"].get("placeholder"), outputs[slot].response_mask), (True, [0]))
        selector = adapter_runs.slime_select(fixture)
        self.assertEqual((len(selector.result()), selector.metrics()["polar/excluded/incomplete-group"] > 0), (1, True))

    def test_40_groups_and_rewards_are_the_servers(self) -> None:
        expected = {"live-a": [0, 1], "live-b": [1], "live-c": [0, 1]}
        for harness, batch in self.batches.items():
            for estimator in ESTIMATORS:
                groups: Dict[str, Dict[int, Any]] = {}
                for row in self.rows[harness][f"per_request.{estimator}"]:
                    self.assertEqual(row["group_id"], f"{batch.run}/{row['task_id']}")
                    groups.setdefault(row["task_id"], {})[row["session_id"]] = (row["reward"], row["advantage"])
                for task, sessions in groups.items():
                    with self.subTest(harness=harness, estimator=estimator, task=task):
                        rewards = sorted(reward for reward, _ in sessions.values())
                        self.assertEqual(rewards, expected[task.split("__")[1]])
                        advantages = sorted(advantage for _, advantage in sessions.values())
                        if estimator == "none" or len(sessions) == 1:
                            self.assertEqual(advantages, [0] * len(sessions))
                        else:  # grpo over a group of rewards 0 and 1: (r - 0.5) / (0.5 + 1e-6)
                            self.assertEqual([round(a, 4) for a in advantages], [-1.0, 1.0])

    def test_50_the_side_lineage_is_never_trained(self) -> None:
        fixture = self.fixture("claude-code")
        side = [row for row in fixture.prefix_merging if row["lineage_kind"] != "main"]
        self.assertEqual([(row["lineage_kind"], row["loss_weight"], row["reward"]) for row in side], [("side", 0, 1)], "the sub-agent answered in one call")
        [call] = side[0]["call_ids"]
        for run in adapter_runs.runs(fixture):
            with self.subTest(adapter=run.name):
                trained = [sample for sample in run.samples if call in sample.call_ids and any(sample.loss_mask)]
                self.assertEqual(trained, [])
                if run.name != "slime keep_untrained":
                    self.assertIn(("loss-weight-0", (call,)), [(e.reason, e.call_ids) for e in run.exclusions])
        kept = adapter_runs.run_slime(fixture, keep_untrained=True)
        [masked] = [sample for group in kept.output.samples for session in group for sample in session if sample.metadata["polar"]["call_ids"] == [call]]
        self.assertTrue(masked.remove_sample)

    def test_55_a_split_main_lineage_trains_once(self) -> None:
        # Compact tool-call JSON re-rendered with spaces: a solving session's main lineage is several prefix_merging rows.
        for harness in self.batches:
            fixture = self.fixture(harness)
            split = {}
            for row in fixture.prefix_merging:
                if row["lineage_kind"] == "main":
                    split.setdefault(row["session_id"], []).append(row)
            split = {sid: rows for sid, rows in split.items() if len(rows) > 1}
            self.assertTrue(split, f"{harness}: no split main lineage")
            for sid, rows in split.items():
                self.assertEqual([row["loss_weight"] for row in rows], [1 / len(rows)] * len(rows), "the lineage's weight shared by its rows")
                calls = {call for row in rows for call in row["call_ids"]}
                for run in adapter_runs.runs(fixture):
                    with self.subTest(harness=harness, adapter=run.name, session=sid):
                        trained = {call for sample in run.samples if sample.session_id == sid and any(sample.loss_mask) for call in sample.call_ids}
                        declared = {call for e in run.exclusions if e.session_id == sid for call in e.call_ids if call in calls}
                        self.assertEqual(trained | declared, calls, "every call trained or declared excluded")
                        self.assertEqual(trained & declared, set())

    def test_60_policy_versions_reach_every_trainer(self) -> None:
        for harness in self.batches:
            for row in self.rows[harness]["per_request.grpo"] + self.rows[harness]["prefix_merging.grpo"]:
                self.assertEqual(row["policy_versions"], [POLICY_VERSION])
                self.assertEqual({version for version, mask in zip(row["versions"], row["loss_mask"]) if mask}, {POLICY_VERSION})
            self.assertEqual(self.batches[harness].policy_version, POLICY_VERSION, "the glue submitted with the trainer's version")
        fixture = self.fixture("pi")
        samples = [sample for group in adapter_runs.run_slime(fixture).output.samples for session in group for sample in session]
        self.assertEqual({tuple(sample.weight_versions) for sample in samples}, {(str(POLICY_VERSION),)})
        outputs = [o for o in adapter_runs.verl_outputs(fixture, "advantage", **adapter_runs.VERL_LIMITS)[0] if not o.extra_fields["polar"].get("placeholder")]
        self.assertEqual({(o.extra_fields["param_version_start"], o.extra_fields["param_version_end"]) for o in outputs}, {(POLICY_VERSION, POLICY_VERSION)})
        self.assertEqual(self.client.status()["generation"]["policy_version"], POLICY_VERSION)

    def test_80_verl_refuses_a_row_longer_than_its_limits(self) -> None:
        fixture = self.fixture("claude-code")
        outputs, _, _ = adapter_runs.verl_outputs(fixture, "advantage", **adapter_runs.VERL_LIMITS)
        longest = max(len(output.prompt_ids) for output in outputs)
        with self.assertRaises(verl.SequenceTooLongError):
            adapter_runs.verl_outputs(fixture, "advantage", prompt_length=longest - 1, response_length=65536)

    @unittest.skipUnless(os.environ.get("POLAR_TEST_RECORD_DIR"), "records only with POLAR_RECORD_ADAPTER_ROWS=1")
    def test_90_record(self) -> None:
        provenance = json.loads(os.environ.get("POLAR_TEST_PROVENANCE") or "{}")
        for harness, batch in self.batches.items():
            fixture = self.fixture(harness)
            folder = os.path.join(os.environ["POLAR_TEST_RECORD_DIR"], f"serve-{harness}")
            os.makedirs(folder, exist_ok=True)
            for builder in BUILDERS:
                write_gzip(os.path.join(folder, f"{builder}.jsonl.gz"), "".join(json.dumps(row) + "\n" for row in self.rows[harness][f"{builder}.grpo"]))
            description = {
                "samples": fixture.samples, "tasks": fixture.tasks, "excluded": fixture.excluded, "harness": harness, "batch_id": batch.id,
                "run": batch.run, "policy_version": batch.policy_version, "recorded_at": batch.finished_at, **provenance,
                "trainers": {name: contract(name)["commit"] for name in TRAINERS},
            }
            with open(os.path.join(folder, "batch.json"), "w", encoding="utf-8") as handle:
                json.dump(description, handle, indent=1)
                handle.write("\n")
            with open(os.path.join(folder, "README.md"), "w", encoding="utf-8") as handle:
                handle.write(readme(harness, description, fixture))
            self.assertEqual(adapter_runs.run_trl(rows_fixture.recorded(f"serve-{harness}")).problems(), [])


def readme(harness: str, description: Dict[str, Any], fixture: Fixture) -> str:
    """How and when this batch was recorded, and what is in it."""
    sessions: Dict[int, dict] = {}
    for row in fixture.prefix_merging:
        sessions.setdefault(row["session_id"], {"task": row["task_id"], "sample": row["sample_index"], "status": row["status"], "reward": row["reward"], "lineages": set()})
        sessions[row["session_id"]]["lineages"].add(row["lineage_kind"])
    lines = [f"| {sid} | {s['task']} | {s['sample']} | {s['status']} | {s['reward']} | {', '.join(sorted(s['lineages']))} |" for sid, s in sorted(sessions.items())]
    lines += [f"| {item['session_id']} | {item['instance_id']} | {item['sample_index']} | {item['status']} ({item['status_reason']}): excluded by the server, no row | | |" for item in fixture.excluded]
    trainers = ", ".join(f"{name} `{commit}`" for name, commit in description["trainers"].items())
    return (
        f"# serve-{harness}: one batch recorded from a real `polar serve`\n\n"
        f"Rows of batch `{description['batch_id']}` (run `{description['run']}`), finished {description['recorded_at']}, read through the Python client "
        "as `format=polar`, `advantage=grpo`, `messages=false`: `per_request.jsonl.gz` and `prefix_merging.jsonl.gz`. `batch.json` holds the "
        "batch's tasks, samples per task and the server's `excluded` sessions (`GET /v1/rollouts/{id}`).\n\n"
        f"- polar commit `{description.get('polar_commit')}`{' (with uncommitted changes)' if description.get('polar_commit_dirty') else ''}; "
        f"harness {description.get('harnesses', {}).get(harness)}; upstream: {description.get('simulator')}.\n"
        f"- Trainer contracts these rows are checked against (python/tests/contracts/): {trainers}.\n"
        "- Recorded by `POLAR_RECORD_ADAPTER_ROWS=1 npx vitest run --project docker test/python/adapters.e2e.test.ts` "
        "(python/tests/live/test_live_adapters.py). Every unit-tier adapter test runs on it (rows_fixture.fixtures()).\n\n"
        "| session | task | sample | status | reward | lineages |\n|---|---|---|---|---|---|\n" + "\n".join(lines) + "\n"
    )


def write_gzip(path: str, text: str) -> None:
    """Gzip with no timestamp, so recording the same rows twice gives the same bytes."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as handle:
        handle.write(text.encode("utf-8"))
    with open(path, "wb") as out:
        out.write(buffer.getvalue())


if __name__ == "__main__":
    unittest.main()
