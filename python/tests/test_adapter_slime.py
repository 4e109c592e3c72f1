"""slime adapter on polar rows: slime's contract (contracts/slime.json) and the fidelity check, pure and glue."""

from __future__ import annotations

import asyncio
import unittest
from types import SimpleNamespace
from typing import List

import support  # noqa: F401  (stand-ins on sys.path)
from contract_check import violations
from polar_rollout.adapters import slime
from polar_rollout.adapters.common import MissingRewardError
from polar_rollout.check import check
from polar_rollout.rows import groups_of
from adapter_runs import run_slime, slime_select, templates_for
from rows_fixture import constructed, fixtures
from slime.utils.types import Sample


def select(fixture, *, keep_untrained: bool = False):
    return slime_select(fixture, keep_untrained=keep_untrained)


class SlimeOnFixtures(unittest.TestCase):
    def test_contract_and_fidelity_on_every_fixture(self) -> None:
        for fixture in fixtures():
            for keep_untrained in (False, True):
                with self.subTest(fixture=fixture.name, keep_untrained=keep_untrained):
                    run = run_slime(fixture, keep_untrained=keep_untrained)
                    self.assertEqual(run.problems(), [])
                    self.assertGreater(run.report.trainable_tokens, 0)

    def test_sessions_share_rollout_id_and_statuses_map(self) -> None:
        selector = select(constructed())
        [group] = selector.result()  # task B lost its infra-error session: incomplete, set aside
        by_session = {session[0].metadata["polar"]["session_id"]: session for session in group}
        self.assertEqual(sorted(by_session), [1, 2])
        self.assertEqual([s.rollout_id for s in by_session[2]], [1, 1])  # the split trace: two samples, one rollout
        self.assertEqual([s.status for s in by_session[2]], [Sample.Status.TRUNCATED] * 2)  # timeout / length
        self.assertEqual(by_session[1][0].status, Sample.Status.COMPLETED)
        self.assertEqual(by_session[1][0].weight_versions, ["3", "4"])
        self.assertEqual(selector.metrics()["polar/excluded/incomplete-group"], 1.0)  # session 3's main row
        self.assertEqual(selector.metrics()["polar/excluded/loss-weight-0"], 2.0)  # the title call, the sub-agent

    def test_post_process_hands_slime_polar_advantages(self) -> None:
        samples = slime.flatten(select(constructed()).result())
        raw, advantages = slime.post_process_rewards(None, samples)
        self.assertEqual(raw, [1.0, 0.0, 0.0])
        self.assertEqual([round(a, 5) for a in advantages], [1.0, -0.5, -0.5])  # the split trace: two rows sharing the main lineage's weight

    def test_keep_untrained_rows_are_masked_samples(self) -> None:
        fixture = constructed()
        selector = select(fixture, keep_untrained=True)
        title = [s for g in selector.result() for sess in g for s in sess if s.metadata["polar"]["lineage_kind"] == "title"]
        self.assertEqual(len(title), 1)
        self.assertTrue(title[0].remove_sample)
        self.assertEqual(set(title[0].loss_mask), {0})
        check(slime.normalise(selector.result()), fixture.per_request, source_rows=fixture.prefix_merging, exclusions=selector.exclusions)

    def test_weighted_sub_agent_is_a_sibling_sample(self) -> None:
        fixture = constructed(weights={"sub-agent": 1.0})
        group = groups_of(fixture.prefix_merging)[1]
        built = slime.to_slime_group(group, templates_for(fixture, [group.task_id])[0])
        [session] = built.sessions
        self.assertEqual([s.metadata["polar"]["lineage_kind"] for s in session], ["main", "sub-agent"])
        self.assertEqual({s.rollout_id for s in session}, {0})

    def test_infra_rows_from_a_broken_server_are_excluded(self) -> None:
        fixture = constructed(leak_infra=True)
        group = groups_of(fixture.prefix_merging)[1]
        built = slime.to_slime_group(group, templates_for(fixture, [group.task_id])[0])
        self.assertFalse(any(s.metadata["polar"]["session_id"] == 4 for sess in built.sessions for s in sess))
        self.assertIn(("infra-error", 4), [(e.reason, e.session_id) for e in built.exclusions])
        rows = [row for row in fixture.per_request if row["group_id"] == group.group_id]
        check(slime.normalise([built.sessions]), rows, source_rows=fixture.prefix_merging, exclusions=built.exclusions)

    def test_ungraded_batch_cannot_feed_the_post_process(self) -> None:
        samples = slime.flatten(select(constructed(graded=False)).result())
        self.assertIsNone(samples[0].reward)
        with self.assertRaises(MissingRewardError):
            slime.post_process_rewards(None, samples)

    def test_generate_answers_a_placeholder_for_an_excluded_session(self) -> None:
        fixture = constructed()
        template = templates_for(fixture, ["demo__calc-2"])[0][1]
        [placeholder] = slime.samples_for_request([], template)
        self.assertEqual((placeholder.loss_mask, placeholder.remove_sample, placeholder.status), ([0], True, Sample.Status.ABORTED))
        self.assertEqual(slime.post_process_rewards(None, [placeholder])[1], [0.0])
        normalised = slime.normalise([[[placeholder]]])
        self.assertTrue(normalised[0].placeholder)
        self.assertEqual(violations("slime", SimpleNamespace(samples=[[[placeholder]]]), rollout_batch_size=1, n_samples_per_prompt=1), [])


class SlimeGlue(unittest.TestCase):
    def args(self, **overrides):
        values = dict(n_samples_per_prompt=2, rollout_batch_size=1, over_sampling_batch_size=2, rollout_temperature=1.0,
                      rollout_top_p=1.0, rollout_top_k=-1, rollout_max_response_len=512, dynamic_sampling_filter_path=None)
        return SimpleNamespace(**{**values, **overrides})

    def data_source(self, fixture, tasks=None):
        source = SimpleNamespace(fetched=[])
        tasks = tasks or fixture.tasks

        def get_samples(count):
            groups = templates_for(fixture, [tasks[i % len(tasks)] for i in range(count)])
            source.fetched.append(count)
            return groups

        source.get_samples = get_samples
        return source

    def test_rollout_function_over_samples_and_takes_full_groups(self) -> None:
        fixture = constructed()
        client = support.FakeClient(fixture, group_order=["demo__calc-2", "demo__calc-1"])  # the incomplete group first
        settings = slime.PolarSettings(harness="pi", dataset="swebench-lite.jsonl")
        source = self.data_source(fixture)
        output = slime.SlimeRollout(client, settings).run(self.args(), 0, source)
        self.assertEqual(source.fetched, [2])
        [submit] = [c for c in client.calls if c[0] == "submit"]
        self.assertEqual(submit[2]["instance_ids"], ["demo__calc-1", "demo__calc-2"])
        self.assertEqual(submit[2]["sampling"], {"temperature": 1.0, "top_p": 1.0, "max_tokens": 512})
        self.assertEqual(len(output.samples), 1)
        self.assertEqual(output.metrics["polar/excluded/incomplete-group"], 1.0)
        self.assertIn(("cancel", "b_1"), client.calls)
        self.assertEqual(violations("slime", output, rollout_batch_size=1, n_samples_per_prompt=2), [])

    def test_rollout_function_gives_up_after_max_batches(self) -> None:
        fixture = constructed()
        client = support.FakeClient(fixture)
        with self.assertRaisesRegex(slime.AdapterError, "full groups"):
            slime.SlimeRollout(client, slime.PolarSettings(harness="pi", dataset="d"), max_batches=2).run(self.args(over_sampling_batch_size=1), 0, self.data_source(fixture, ["demo__calc-2"]))
        self.assertEqual(len([c for c in client.calls if c[0] == "submit"]), 2)

    def test_dynamic_filter_sets_groups_aside(self) -> None:
        selector = slime.GroupSelector(1, keep=lambda samples: len({s.reward for s in samples}) > 1)
        fixture = constructed()
        group = slime.to_slime_group(groups_of(fixture.prefix_merging)[0], templates_for(fixture, ["demo__calc-1"])[0])
        self.assertTrue(selector.offer(group))  # rewards 1 and 0: kept
        same = slime.GroupSelector(1, keep=lambda samples: False)
        self.assertFalse(same.offer(group))
        self.assertEqual(same.metrics()["polar/excluded/filtered"], 3.0)

    def test_custom_generate_coalesces_a_group_into_one_task(self) -> None:
        fixture = constructed()
        client = support.FakeClient(fixture)
        read = lambda tasks, samples: slime.run_batch(client, slime.PolarSettings(harness="pi", dataset="d"), tasks, samples, builder="prefix_merging").groups
        coalescer = slime.BatchCoalescer(read, expected_samples=2)
        templates = templates_for(fixture, fixture.tasks)

        async def main():
            answers = await asyncio.gather(*(coalescer.request(str(t.group_index), slime.task_of_sample(t)) for g in templates for t in g))
            return [slime.samples_for_request(a.rows, t) for a, t in zip(answers, [t for g in templates for t in g])]

        results = asyncio.run(main())
        [submit] = [c for c in client.calls if c[0] == "submit"]
        self.assertEqual((submit[2]["instance_ids"], submit[2]["samples"]), (["demo__calc-1", "demo__calc-2"], 2))
        self.assertTrue(results[3][0].metadata["polar"]["placeholder"])  # task B's infra-error session
        groups = [[results[0], results[1]], [results[2], results[3]]]
        check(slime.normalise(groups), fixture.per_request, source_rows=fixture.prefix_merging, exclusions=[e for g in (groups_of(fixture.prefix_merging)) for e in slime.to_slime_group(g, templates[fixture.tasks.index(g.task_id)]).exclusions])


if __name__ == "__main__":
    unittest.main()
