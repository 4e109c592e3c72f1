"""Shared adapter pieces: tasks, sampling, the one-sequence choice, batch planning and the request coalescer."""

from __future__ import annotations

import asyncio
import unittest

import support
from polar_rollout.adapters import common
from polar_rollout.adapters.batching import BatchCoalescer, PolarSettings, plan_batches, run_batch
from polar_rollout.rows import groups_of, sessions_of
from rows_fixture import constructed


class Tasks(unittest.TestCase):
    def test_task_ref(self) -> None:
        self.assertEqual(common.task_ref("django__django-1"), "django__django-1")
        self.assertEqual(common.task_ref({"instance_id": "a", "split": "test"}), "a")
        row = {"instance_id": "a", "problem_statement": "Fix it", "repo": "r"}
        self.assertEqual(common.task_ref(row), row)
        for bad in ("", None, {"id": "a"}, 3):
            with self.assertRaises(common.TaskError):
                common.task_ref(bad)

    def test_submit_arguments(self) -> None:
        self.assertEqual(common.submit_arguments(["a", "b"], "lite.jsonl"), {"dataset": "lite.jsonl", "instance_ids": ["a", "b"]})
        self.assertEqual(common.submit_arguments([{"instance_id": "a", "problem_statement": "p"}], None), {"tasks": [{"instance_id": "a", "problem_statement": "p"}]})
        with self.assertRaisesRegex(common.TaskError, "POLAR_DATASET"):
            common.submit_arguments(["a"], None)
        with self.assertRaises(common.TaskError):
            common.submit_arguments(["a", {"instance_id": "b", "problem_statement": "p"}], "d")

    def test_sampling_from_trainer_names(self) -> None:
        self.assertEqual(common.sampling_from({"temperature": 0.7, "top_k": -1, "top_p": None, "max_new_tokens": 64, "logprobs": True}), {"temperature": 0.7, "max_tokens": 64})
        self.assertEqual(common.sampling_from({"rollout_top_k": 20}), {"top_k": 20})

    def test_settings_from_env(self) -> None:
        settings = PolarSettings.from_env({"POLAR_HARNESS": "pi", "POLAR_DATASET": "d.jsonl", "POLAR_TIMEOUT_SECONDS": "90"}, concurrency=4)
        self.assertEqual((settings.harness, settings.dataset, settings.timeout_seconds, settings.submit_options), ("pi", "d.jsonl", 90, {"concurrency": 4}))
        with self.assertRaisesRegex(common.AdapterError, "POLAR_HARNESS"):
            PolarSettings.from_env({})

    def test_run_batch_sends_options(self) -> None:
        client = support.FakeClient(constructed())
        run = run_batch(client, PolarSettings("pi", "d", 120), ["demo__calc-1"], 2, builder="prefix_merging", sampling={"temperature": 1})
        [(instance, rows)] = list(run.groups)
        self.assertEqual((instance, len({r["session_id"] for r in rows})), ("demo__calc-1", 2))
        self.assertEqual(client.calls[0][2]["sampling"], {"temperature": 1})


class Sequences(unittest.TestCase):
    def test_choose_sequence_prefers_the_main_lineage(self) -> None:
        sessions = {s.session_id: s for s in sessions_of(constructed(weights={"title": 1.0}).prefix_merging)}
        choice = common.choose_sequence(sessions[1])
        self.assertEqual(choice.row["call_ids"], [1, 2, 3])
        self.assertEqual([(e.reason, e.call_ids) for e in choice.exclusions], [("one-sequence-per-sample", (4,))])

    def test_no_weighted_row_means_no_sequence(self) -> None:
        sessions = sessions_of(constructed(weights={"main": 0.0}).prefix_merging)
        choice = common.choose_sequence(sessions[0])
        self.assertIsNone(choice.row)
        self.assertEqual({e.reason for e in choice.exclusions}, {"loss-weight-0"})

    def test_assign_sessions(self) -> None:
        group = groups_of(constructed().prefix_merging)[0]
        self.assertEqual([s.session_id for s in common.assign_sessions(group.sessions, 2)], [1, 2])
        with self.assertRaisesRegex(common.AdapterError, "only 1 samples"):
            common.assign_sessions(group.sessions, 1)


class Coalescer(unittest.TestCase):
    def fake_reader(self, fixture, log):
        def read(tasks, samples):
            log.append((list(tasks), samples))
            client = support.FakeClient(fixture)
            return run_batch(client, PolarSettings("pi", "d"), tasks, samples, builder="prefix_merging").groups
        return read

    def test_requests_of_a_prompt_become_one_task(self) -> None:
        log = []
        coalescer = BatchCoalescer(self.fake_reader(constructed(), log))

        async def main():
            requests = [("g1", "demo__calc-1"), ("g2", "demo__calc-2"), ("g1", "demo__calc-1"), ("g2", "demo__calc-2")]
            return await asyncio.gather(*(coalescer.request(key, task) for key, task in requests))

        answers = asyncio.run(main())
        self.assertEqual(log, [(["demo__calc-1", "demo__calc-2"], 2)])
        self.assertEqual([(a.slot, a.complete, {r["session_id"] for r in a.rows}) for a in answers],
                         [(0, True, {1}), (0, False, {3}), (1, True, {2}), (1, False, set())])

    def test_a_split_group_fails_when_counts_are_required(self) -> None:
        coalescer = BatchCoalescer(self.fake_reader(constructed(), []), expected_samples=2)

        async def main():
            return await asyncio.gather(coalescer.request("g1", "demo__calc-1"), return_exceptions=True)

        [error] = asyncio.run(main())
        self.assertIsInstance(error, common.GroupSplitError)

    def test_same_task_twice_or_other_counts_go_apart(self) -> None:
        self.assertEqual(plan_batches(["a", "b", "a"], [2, 2, 2]), [[0, 1], [2]])
        self.assertEqual(plan_batches(["a", "b"], [2, 1]), [[0], [1]])

    def test_a_group_without_rows_answers_every_slot_empty(self) -> None:
        coalescer = BatchCoalescer(lambda tasks, samples: iter([(None, [])]))

        async def main():
            return await asyncio.gather(coalescer.request("g", "x"), coalescer.request("g", "x"))

        self.assertEqual([a.rows for a in asyncio.run(main())], [[], []])

    def test_a_failed_batch_fails_every_waiting_request(self) -> None:
        def read(tasks, samples):
            raise ConnectionError("polar serve went away")

        coalescer = BatchCoalescer(read)

        async def main():
            return await asyncio.gather(coalescer.request("g", "x"), coalescer.request("h", "y"), return_exceptions=True)

        self.assertTrue(all(isinstance(e, ConnectionError) for e in asyncio.run(main())))


if __name__ == "__main__":
    unittest.main()
