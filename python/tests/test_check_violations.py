"""polar_rollout.check catches every kind of unfaithful output, each on its own, and passes a faithful one."""

from __future__ import annotations

import copy
import unittest
from typing import Callable, List

import support  # noqa: F401
from polar_rollout.check import Exclusion, FidelityError, NormalisedSample, check
from polar_rollout.rows import RowError, rows_by_call
from rows_fixture import constructed


def faithful(fixture):
    """The server's prefix_merging rows as a trainer would take them: weight-0 rows declared excluded."""
    samples, exclusions = [], []
    for row in fixture.prefix_merging:
        if row["loss_weight"] == 0:
            exclusions.append(Exclusion("loss-weight-0", row["session_id"], tuple(row["call_ids"])))
            continue
        samples.append(NormalisedSample(
            group_key=f"trainer-{row['task_id']}", session_id=row["session_id"], call_ids=list(row["call_ids"]),
            prompt_ids=list(row["prompt_ids"]), response_ids=list(row["response_ids"]), loss_mask=list(row["loss_mask"]),
            logprobs=[lp if m else 0.0 for m, lp in zip(row["loss_mask"], row["logprobs"])], reward=row["reward"], advantage=row["advantage"] * row["loss_weight"],
        ))
    return samples, exclusions


class CheckCatchesViolations(unittest.TestCase):
    def setUp(self) -> None:
        self.fixture = constructed()
        self.samples, self.exclusions = faithful(self.fixture)

    def violation(self, mutate: Callable[[List[NormalisedSample], List[Exclusion]], None], **options) -> FidelityError:
        samples, exclusions = copy.deepcopy(self.samples), list(self.exclusions)
        mutate(samples, exclusions)
        with self.assertRaises(FidelityError) as caught:
            check(samples, self.fixture.per_request, source_rows=self.fixture.prefix_merging, exclusions=exclusions, **options)
        return caught.exception

    def test_faithful_output_passes(self) -> None:
        report = check(self.samples, self.fixture.per_request, source_rows=self.fixture.prefix_merging, exclusions=self.exclusions, infra_session_ids={4})
        self.assertEqual((report.samples, report.calls_trained, report.groups, report.calls_excluded), (4, 8, 2, {"loss-weight-0": 3}))
        self.assertEqual(report.trainable_tokens, sum(sum(r["loss_mask"]) for r in self.fixture.per_request if r["loss_weight"] > 0))

    def test_shifted_mask(self) -> None:
        def shift(samples, _):
            samples[0].loss_mask = [0] + samples[0].loss_mask[:-1]
        self.assertIn(self.violation(shift).code, ("context-mismatch", "token-mismatch"))

    def test_mask_one_token_short(self) -> None:
        def short(samples, _):
            samples[0].loss_mask[-1] = 0
        self.assertEqual(self.violation(short).code, "token-mismatch")

    def test_dropped_trace(self) -> None:
        error = self.violation(lambda samples, _: samples.pop(1))
        self.assertEqual((error.code, error.session_id), ("dropped-call", 2))

    def test_duplicated_trace(self) -> None:
        error = self.violation(lambda samples, _: samples.append(copy.deepcopy(samples[0])))
        self.assertEqual((error.code, error.call_id), ("duplicate-call", 1))

    def test_reward_on_the_wrong_sample(self) -> None:
        def swap(samples, _):
            samples[0].reward, samples[1].reward = samples[1].reward, samples[0].reward
        self.assertEqual(self.violation(swap).code, "reward-mismatch")

    def test_advantage_changed(self) -> None:
        def change(samples, _):
            samples[0].advantage = 0.5
        self.assertEqual(self.violation(change).code, "advantage-mismatch")

    def test_reward_missing(self) -> None:
        def drop(samples, _):
            samples[0].reward = samples[0].advantage = None
        self.assertEqual(self.violation(drop).code, "reward-missing")

    def test_group_split(self) -> None:
        def split(samples, _):
            samples[1].group_key = "trainer-other"
        self.assertEqual(self.violation(split).code, "group-split")

    def test_groups_merged(self) -> None:
        def merge(samples, _):
            for sample in samples:
                sample.group_key = "one"
        self.assertEqual(self.violation(merge).code, "group-merge")

    def test_logprob_changed(self) -> None:
        def change(samples, _):
            samples[0].logprobs[0] += 1e-9
        error = self.violation(change)
        self.assertEqual((error.code, error.call_id), ("logprob-mismatch", 1))

    def test_token_changed(self) -> None:
        def change(samples, _):
            samples[2].response_ids[-1] += 1
        self.assertEqual(self.violation(change).code, "token-mismatch")

    def test_context_changed(self) -> None:
        def change(samples, _):
            samples[0].response_ids[5] += 1  # a tool-result token before call 2's sampled tokens
        error = self.violation(change)
        self.assertEqual((error.code, error.call_id), ("context-mismatch", 2))

    def test_infra_session_included(self) -> None:
        leaky = constructed(leak_infra=True)
        infra = [r for r in leaky.prefix_merging if r["session_id"] == 4][0]
        def include(samples, _):
            samples.append(NormalisedSample("trainer-demo__calc-2", 4, list(infra["call_ids"]), infra["prompt_ids"], infra["response_ids"],
                                            infra["loss_mask"], [lp or 0.0 for lp in infra["logprobs"]], None, 0.0))
        self.assertEqual(self.violation(include, infra_session_ids={4}).code, "infra-sample")
        samples = copy.deepcopy(self.samples)
        include(samples, None)
        with self.assertRaises(FidelityError) as caught:  # the leaked rows themselves say infra_error
            check(samples, leaky.per_request, source_rows=leaky.prefix_merging, exclusions=self.exclusions)
        self.assertEqual(caught.exception.code, "infra-sample")

    def test_sessions_the_server_lists_as_excluded(self) -> None:
        leaky = constructed(leak_infra=True)
        infra = [r for r in leaky.prefix_merging if r["session_id"] == 4][0]
        def include(samples, _):
            samples.append(NormalisedSample("trainer-demo__calc-2", 4, list(infra["call_ids"]), infra["prompt_ids"], infra["response_ids"],
                                            infra["loss_mask"], [lp or 0.0 for lp in infra["logprobs"]], None, 0.0))
        # Batch.excluded items (objects or the JSON's dicts): infra-error bars the session like infra_session_ids.
        self.assertEqual(self.violation(include, excluded=[{"session_id": 4, "reason": "infra-error"}]).code, "infra-sample")
        # Any other reason the server gives (an eval error here) bars it too.
        def other(samples, _):
            samples[0].session_id = samples[0].session_id  # unchanged: session 1 is listed as excluded below
        self.assertEqual(self.violation(other, excluded=[{"session_id": 1, "reason": "eval-error"}]).code, "excluded-sample")

    def test_advantage_weighted_by_the_source_row(self) -> None:
        # The split trace's rows (session 2) each carry half the main lineage's weight as prefix_merging rows;
        # checked against per_request rows (a third each), the same samples' weights are unknown.
        split = [sample for sample in self.samples if sample.session_id == 2]
        self.assertEqual([round(sample.advantage, 5) for sample in split], [-0.5, -0.5])
        with self.assertRaises(FidelityError) as caught:
            check(self.samples, self.fixture.per_request, exclusions=self.exclusions)
        self.assertEqual(caught.exception.code, "unknown-row")

    def test_side_call_trained(self) -> None:
        title = [r for r in self.fixture.prefix_merging if r["lineage_kind"] == "title"][0]
        def train(samples, exclusions):
            exclusions[:] = [e for e in exclusions if e.call_ids != (4,)]
            samples.append(NormalisedSample("trainer-demo__calc-1", 1, [4], title["prompt_ids"], title["response_ids"], title["loss_mask"], title["logprobs"], 1.0))
        self.assertEqual(self.violation(train).code, "untrained-call-trainable")

    def test_excluded_call_trained(self) -> None:
        exclusions = self.exclusions + [Exclusion("one-sequence-per-sample", 2, (7,))]
        report = check(self.samples, self.fixture.per_request, source_rows=self.fixture.prefix_merging, exclusions=exclusions, raise_on_violation=False)
        # (7,) also hands its weight to its trace's trained rows, so their advantages are off too
        self.assertIn("excluded-call-trained", [error.code for error in report.violations])

    def test_non_finite_logprob(self) -> None:
        def nan(samples, _):
            samples[0].logprobs[4] = float("nan")  # a masked position: NaN x 0 = NaN in the loss
        self.assertEqual(self.violation(nan).code, "non-finite-logprob")

    def test_length_mismatch(self) -> None:
        def short(samples, _):
            samples[0].logprobs.pop()
        self.assertEqual(self.violation(short).code, "length-mismatch")

    def test_placeholder_with_trainable_tokens(self) -> None:
        def fill(samples, _):
            samples.append(NormalisedSample("trainer-demo__calc-2", None, [], [0], [0], [1], [0.0], placeholder=True))
        self.assertEqual(self.violation(fill).code, "placeholder-trainable")

    def test_unknown_session_and_bad_exclusion(self) -> None:
        def stranger(samples, _):
            samples[0].session_id = 99
        self.assertEqual(self.violation(stranger).code, "unknown-session")
        def bad(samples, exclusions):
            exclusions.append(Exclusion("filtered", 1, (7,)))
        self.assertEqual(self.violation(bad).code, "bad-exclusion")

    def test_collects_every_violation_when_asked(self) -> None:
        samples = copy.deepcopy(self.samples)
        samples.pop(1)
        samples[0].reward = 0.0
        report = check(samples, self.fixture.per_request, source_rows=self.fixture.prefix_merging, exclusions=self.exclusions, raise_on_violation=False)
        self.assertFalse(report.ok)
        self.assertEqual(sorted({v.code for v in report.violations}), ["dropped-call", "reward-mismatch"])

    def test_unknown_exclusion_reason_is_refused(self) -> None:
        with self.assertRaises(ValueError):
            Exclusion("because", 1)


class RowsAreRead(unittest.TestCase):
    def test_per_request_rows_are_required(self) -> None:
        with self.assertRaisesRegex(RowError, "builder=per_request"):
            rows_by_call(constructed().prefix_merging)

    def test_misaligned_rows_are_refused(self) -> None:
        rows = copy.deepcopy(constructed().per_request)
        rows[0]["loss_mask"].append(1)
        with self.assertRaisesRegex(RowError, "len\\(loss_mask\\)"):
            rows_by_call(rows)
        rows = copy.deepcopy(constructed().per_request)
        rows[0]["logprobs"][0] = None
        with self.assertRaisesRegex(RowError, "mask 1 but logprob None"):
            rows_by_call(rows)


if __name__ == "__main__":
    unittest.main()
