"""Trainable-token yield (polar/yield) in every adapter's metrics, and the one-sequence choice's score.

The constructed batch: sessions 1-3 sampled 50 tokens, 39 of them in main lineages (session 1's title call, 2 tokens,
and session 3's sub-agent, 9, are lineages the server weighs 0); session 2's main lineage split by drift (chat capture)
into rows of 9 and 6 sampled tokens, of which a one-sequence trainer takes the longer one. ``split=False`` is the same
batch captured token-in; ``main_only`` drops the side lineages (a harness that makes no side calls).
"""

from __future__ import annotations

import unittest
from types import SimpleNamespace

import support
from adapter_runs import run_skyrl, run_slime, run_trl, run_verl, skyrl_slots, trl_entries, verl_outputs
from polar_rollout.adapters import skyrl, trl, verl
from polar_rollout.adapters.batching import PolarSettings
from polar_rollout.adapters.trainer_yield import TrainerYield, YieldTally, trainer_yield
from polar_rollout.check import FidelityError, check
from polar_rollout.rows import sessions_of
from rows_fixture import Fixture, constructed, fixtures


def sampled(fixture: Fixture) -> int:
    """Independently of the adapters: mask-1 tokens of the server's per_request rows of trainable sessions."""
    return sum(sum(row["loss_mask"]) for row in fixture.per_request if row["status"] != "infra_error")


def main_only(fixture: Fixture) -> Fixture:
    """The batch without its side lineages."""
    def keep(rows: list) -> list:
        return [row for row in rows if row["lineage_kind"] == "main"]
    return Fixture(fixture.name + "-main", keep(fixture.per_request), keep(fixture.prefix_merging), fixture.samples, fixture.tasks,
                   fixture.infra_session_ids, fixture.excluded)


def unexplained(metrics: dict) -> float:
    """Sampled tokens neither received nor excluded with a reason (must be 0: nothing is lost silently)."""
    excluded = sum(value for name, value in metrics.items() if name.startswith("polar/excluded_trainable_tokens/"))
    return metrics["polar/yield_sampled_tokens"] - metrics["polar/yield_received_tokens"] - excluded


def split_off(fixture: Fixture) -> int:
    """Sampled tokens of session 2's shorter row (call 7), the row a one-sequence trainer leaves out."""
    return sum(sum(row["loss_mask"]) for row in fixture.prefix_merging if row["call_ids"] == [7])


def yields(fixture: Fixture) -> dict:
    """Each adapter's own reported yield on the whole batch."""
    trl_run = run_trl(fixture)
    prompts, sessions = trl_entries(fixture)
    return {
        "slime": run_slime(fixture).output.metrics,
        "skyrl step-wise": run_skyrl(fixture, True, "advantage").output["rollout_metrics"],
        "skyrl trajectory": run_skyrl(fixture, False, "advantage").output["rollout_metrics"],
        "verl": verl.yield_metrics(run_verl(fixture, "advantage").output),
        "trl": trl.rollout_metrics(trl_run.output, trl_run.exclusions, trl.rollout_yield(sessions, trl_run.output, fixture.samples)),
    }


class Yield(unittest.TestCase):
    def test_every_adapter_reports_it(self) -> None:
        for fixture in (constructed(), constructed(split=False)):
            for name, metrics in yields(fixture).items():
                with self.subTest(fixture=fixture.name, trainer=name):
                    self.assertEqual(metrics["polar/yield_sampled_tokens"], sampled(fixture))
                    self.assertEqual(metrics["polar/yield"], metrics["polar/yield_received_tokens"] / metrics["polar/yield_sampled_tokens"])

    def test_token_in_every_trainer_receives_every_sampled_token(self) -> None:
        fixture = main_only(constructed(split=False))
        self.assertEqual(sampled(fixture), 39)
        for name, metrics in yields(fixture).items():
            if name == "slime":
                continue  # slime sets the group missing an infra session aside (incomplete-group): below
            with self.subTest(trainer=name):
                self.assertEqual((metrics["polar/yield_received_tokens"], metrics["polar/yield"]), (39.0, 1.0))

    def test_lineages_weighed_0_count_as_not_received(self) -> None:
        fixture = constructed(split=False)
        self.assertEqual(sampled(fixture), 50)
        for name, metrics in yields(fixture).items():
            with self.subTest(trainer=name):
                if name != "slime":
                    self.assertEqual((metrics["polar/yield_received_tokens"], metrics["polar/yield"]), (39.0, 39 / 50))
                if name not in ("verl",):  # verl has no channel for exclusion counts (ADAPTERS.md)
                    self.assertEqual(unexplained(metrics), 0)

    def test_chat_split_shows_what_one_sequence_trainers_lose(self) -> None:
        fixture = main_only(constructed())
        lost = split_off(fixture)
        self.assertEqual((sampled(fixture), lost), (39, 6))
        metrics = yields(fixture)
        self.assertEqual(metrics["skyrl step-wise"]["polar/yield"], 1.0)
        for name in ("skyrl trajectory", "verl", "trl"):
            with self.subTest(trainer=name):
                self.assertEqual(metrics[name]["polar/yield_received_tokens"], 39.0 - lost)
                if name != "verl":
                    self.assertEqual(metrics[name]["polar/excluded_trainable_tokens/one-sequence-per-sample"], lost)
                    self.assertEqual(unexplained(metrics[name]), 0)

    def test_a_group_set_aside_counts_as_given(self) -> None:
        # slime's rollout function replaces the group that lost session 4 (infra) by over-sampling: session 3's
        # 9 tokens were given to the adapter and not trained
        metrics = run_slime(main_only(constructed(split=False))).output.metrics
        self.assertEqual((metrics["polar/yield_received_tokens"], metrics["polar/excluded_trainable_tokens/incomplete-group"]), (30.0, 9.0))
        self.assertEqual(unexplained(metrics), 0)

    def test_a_silently_dropped_sample_shows(self) -> None:
        # yield is counted from what the trainer trains, not from what the adapter says it excluded
        fixture = main_only(constructed(split=False))
        output, _ = skyrl.to_generator_output(skyrl_slots(fixture, fixture.per_request), step_wise=True)
        samples = skyrl.normalise(output)
        given = sessions_of(fixture.per_request)
        self.assertEqual(trainer_yield(given, samples).ratio, 1.0)
        self.assertLess(trainer_yield(given, samples[1:]).ratio, 1.0)

    def test_the_recorded_batches(self) -> None:
        for fixture in fixtures():
            if not fixture.graded:
                continue
            for name, metrics in yields(fixture).items():
                with self.subTest(fixture=fixture.name, trainer=name):
                    self.assertEqual(metrics["polar/yield_sampled_tokens"], sampled(fixture))
                    self.assertLessEqual(metrics["polar/yield"], 1.0)
                    if name != "verl":
                        self.assertEqual(unexplained(metrics), 0)

    def test_tally_logs_once_the_batch_is_in(self) -> None:
        tally = YieldTally(2)
        self.assertIsNone(tally.add(TrainerYield(5, 5), trainer="t", capture="token_in", one_sequence=True))
        with self.assertLogs("polar_rollout", "WARNING") as logs:
            total = tally.add(TrainerYield(1, 4), trainer="t", capture="token_in", one_sequence=True)
        self.assertEqual(total, TrainerYield(6, 9))
        self.assertIn("6 of 9 sampled trainable tokens (66.7%)", logs.output[0])

    def test_trl_logs_into_the_trainers_metrics(self) -> None:
        from collections import defaultdict

        fixture = constructed()
        client = support.FakeClient(fixture)
        trainer = SimpleNamespace(num_generations=2, num_generations_eval=1, model=SimpleNamespace(training=True), args=SimpleNamespace(),
                                  _tokenizer=SimpleNamespace(eos_token_id=0), _metrics={"train": defaultdict(list), "eval": defaultdict(list)})
        with self.assertLogs("polar_rollout", "WARNING") as logs:  # token-in was asked, yet a lineage split: said
            trl.make_rollout_func(client=client, settings=PolarSettings("pi", "d"))([t for t in fixture.tasks for _ in range(2)], trainer)
        self.assertIn("33 of 50", logs.output[0])
        self.assertEqual(trainer._metrics["train"]["polar/yield"], [33 / 50])
        self.assertEqual(trainer._metrics["train"]["polar/excluded/one-sequence-per-sample"], [1.0])


class OneSequenceScore(unittest.TestCase):
    """The chosen row is the session's only sample: it carries the whole trace's weight, not its row's share."""

    def test_split_lineage_trains_at_its_full_advantage(self) -> None:
        fixture = constructed()
        session2 = [row for row in fixture.prefix_merging if row["session_id"] == 2]
        self.assertEqual(sorted(row["loss_weight"] for row in session2), [0.5, 0.5])  # the server shares the weight
        advantage = session2[0]["advantage"]
        outputs, _, _ = verl_outputs(fixture, "advantage")
        self.assertEqual(outputs[1].extra_fields["polar"]["call_ids"], [5, 6])
        self.assertEqual(outputs[1].reward_score, advantage)
        skyrl_output, _ = skyrl.to_generator_output(skyrl_slots(fixture, fixture.prefix_merging), step_wise=False)
        self.assertEqual(skyrl_output["rewards"][1], advantage)
        # TRL computes the advantage from the session's reward, never from a row's weight
        self.assertEqual(trl.to_rollout_dict(trl_entries(fixture)[1])[0]["polar_reward"][1], session2[0]["reward"])

    def test_the_check_refuses_the_half_advantage(self) -> None:
        fixture = constructed()
        outputs, uids, exclusions = verl_outputs(fixture, "advantage")
        outputs[1].reward_score = outputs[1].reward_score * 0.5  # advantage x the row's own weight
        with self.assertRaises(FidelityError) as caught:
            check(verl.normalise(outputs, uids), fixture.per_request, source_rows=fixture.prefix_merging, exclusions=exclusions)
        self.assertEqual((caught.exception.code, caught.exception.session_id), ("advantage-mismatch", 2))

    def test_every_row_trainers_weigh_the_lineage_whole(self) -> None:
        # slime trains both rows of the split lineage, each at its share (one sample each); SkyRL step-wise broadcasts
        # the last step's scalar to every step (test_adapter_skyrl), so that scalar carries the whole trace's weight
        fixture = constructed()
        run = run_skyrl(fixture, True, "advantage")
        session2 = [index for index, polar in enumerate(run.output["polar"]) if polar.get("session_id") == 2]
        last = session2[-1]
        per_request = [row for row in fixture.per_request if row["session_id"] == 2]
        self.assertEqual(sum(row["loss_weight"] for row in per_request), 1.0)  # 3 per_request rows share the lineage
        self.assertEqual(run.output["rewards"][last], per_request[0]["advantage"])
        self.assertEqual(run.problems(), [])
        self.assertEqual(run_slime(fixture).problems(), [])


if __name__ == "__main__":
    unittest.main()
