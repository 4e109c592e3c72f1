"""Every adapter over one batch's rows, each output checked against its trainer's contract and by the fidelity check.

Shared by the unit tests (constructed rows, and rows recorded from a real ``polar serve`` in data/recorded/)
and the live test (tests/live/, rows fetched from a running server): ``runs(fixture)`` yields one ``AdapterRun``
per trainer and mode, with the contract's violations (``contract_check``) and the fidelity report
(``polar_rollout.check``, violations collected, not raised). A never-graded batch has no run where the trainer
cannot take it (SkyRL, verl's ``advantage`` signal): those refuse it with MissingRewardError, tested apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple

import support  # noqa: F401  (stand-ins on sys.path)
from contract_check import Violation, violations
from polar_rollout.adapters import skyrl, slime, trl, verl
from polar_rollout.adapters.batching import SlotRows
from polar_rollout.check import Exclusion, FidelityReport, NormalisedSample, check
from polar_rollout.rows import Session, groups_of, sessions_of
from rows_fixture import Fixture
from skyrl.train.generators.base import TrajectoryID
from slime.rollout.base_types import RolloutFnTrainOutput
from slime.utils.types import Sample

#: verl's rollout.prompt_length / response_length for the runs (a real harness's prompt is long).
VERL_LIMITS = {"prompt_length": 65536, "response_length": 65536}
SKYRL_MODES = [(True, "advantage"), (True, "reward"), (False, "advantage"), (False, "reward")]


@dataclass
class AdapterRun:
    """One adapter's output on a batch: what its trainer would train, and whether both checks hold."""

    name: str
    output: Any
    samples: List[NormalisedSample]
    exclusions: List[Exclusion]
    contract: List[Violation]
    report: FidelityReport
    extra: Dict[str, Any] = field(default_factory=dict)

    def problems(self) -> List[str]:
        """Every contract violation and fidelity violation, as text (empty when the run is faithful)."""
        return [f"contract {rule}: {message}" for rule, message in self.contract] + [str(error) for error in self.report.violations]


def fidelity(fixture: Fixture, samples: List[NormalisedSample], exclusions: List[Exclusion], *, source: str) -> FidelityReport:
    source_rows = fixture.per_request if source == "per_request" else fixture.prefix_merging
    return check(samples, fixture.per_request, source_rows=source_rows, exclusions=exclusions, infra_session_ids=fixture.infra_session_ids,
                 excluded=fixture.excluded, raise_on_violation=False)


# --- slime ---------------------------------------------------------------------------------------------------


def templates_for(fixture: Fixture, tasks: List[str]) -> List[List[Sample]]:
    """slime's data source output: per prompt, n_samples copies with group_index and index set."""
    groups, index = [], 0
    for group_index, task in enumerate(tasks):
        group = []
        for _ in range(fixture.samples):
            group.append(Sample(group_index=group_index, index=index, prompt=f"fix {task}", label=task, metadata={"instance_id": task}))
            index += 1
        groups.append(group)
    return groups


def slime_select(fixture: Fixture, *, keep_untrained: bool = False) -> slime.GroupSelector:
    """The rollout function's selection over every group of the batch (full groups accepted)."""
    prompt_groups = dict(zip(fixture.tasks, templates_for(fixture, fixture.tasks)))
    built = [slime.to_slime_group(g, prompt_groups[g.task_id], keep_untrained=keep_untrained) for g in groups_of(fixture.prefix_merging)]
    selector = slime.GroupSelector(sum(1 for g in built if g.complete))
    for group in built:
        selector.offer(group)
    return selector


def run_slime(fixture: Fixture, *, keep_untrained: bool = False) -> AdapterRun:
    selector = slime_select(fixture, keep_untrained=keep_untrained)
    output = RolloutFnTrainOutput(samples=selector.result(), metrics=selector.metrics())
    post_process = slime.post_process_rewards if fixture.graded else None  # never graded: slime's reward model scores
    contract = violations("slime", output, rollout_batch_size=selector.target, n_samples_per_prompt=fixture.samples, post_process=post_process)
    samples = slime.normalise(output.samples)
    name = "slime" + (" keep_untrained" if keep_untrained else "")
    return AdapterRun(name, output, samples, selector.exclusions, contract, fidelity(fixture, samples, selector.exclusions, source="prefix_merging"))


# --- SkyRL ---------------------------------------------------------------------------------------------------


def skyrl_slots(fixture: Fixture, rows: List[dict]) -> List[Tuple[TrajectoryID, Optional[Session]]]:
    """SkyRL's input order: per task, repetition 0..n-1; each with its session (None if the server excluded it)."""
    by_sample = {(s.task_id, s.sample_index): s for s in sessions_of(rows)}
    return [(TrajectoryID(task, rep), by_sample.get((task, rep))) for task in fixture.tasks for rep in range(fixture.samples)]


def run_skyrl(fixture: Fixture, step_wise: bool, signal: str) -> AdapterRun:
    rows = fixture.per_request if step_wise else fixture.prefix_merging
    output, exclusions = skyrl.to_generator_output(skyrl_slots(fixture, rows), step_wise=step_wise, signal=signal)
    contract = violations("skyrl", output, num_prompts=len(fixture.tasks) * fixture.samples, step_wise=step_wise)
    samples = skyrl.normalise(output)
    source = "per_request" if step_wise else "prefix_merging"
    return AdapterRun(f"skyrl {'step-wise' if step_wise else 'trajectory'} {signal}", output, samples, exclusions, contract, fidelity(fixture, samples, exclusions, source=source))


# --- verl ----------------------------------------------------------------------------------------------------


def verl_outputs(fixture: Fixture, signal: str, **limits: int) -> Tuple[List[Any], List[str], List[Exclusion]]:
    """One to_agent_loop_output per run() verl would make: per task, n samples (one uid per task)."""
    groups = {g.task_id: g for g in groups_of(fixture.prefix_merging)}
    outputs, uids, exclusions = [], [], []
    for task in fixture.tasks:
        group = groups.get(task)
        rows = [row for s in group.sessions for row in s.rows] if group else []
        by_sample = {s.sample_index: s.rows for s in group.sessions} if group else {}
        for slot in range(fixture.samples):
            output, excluded = verl.to_agent_loop_output(SlotRows(slot, fixture.samples, by_sample.get(slot, []), rows), signal=signal, **limits)
            outputs.append(output)
            uids.append(f"uid-{task}")
            exclusions += excluded
    return outputs, uids, exclusions


def run_verl(fixture: Fixture, signal: str) -> AdapterRun:
    outputs, uids, exclusions = verl_outputs(fixture, signal, **VERL_LIMITS)
    contract = violations("verl", outputs, **VERL_LIMITS)
    samples = verl.normalise(outputs, uids)
    return AdapterRun(f"verl {signal}", outputs, samples, exclusions, contract, fidelity(fixture, samples, exclusions, source="prefix_merging"), {"uids": uids})


# --- TRL -----------------------------------------------------------------------------------------------------


def trl_entries(fixture: Fixture) -> Tuple[List[str], List[Optional[Session]]]:
    """TRL's prompt list (each task num_generations times, consecutive) and the session of each entry."""
    by_sample = {(s.task_id, s.sample_index): s for s in sessions_of(fixture.prefix_merging)}
    prompts = [task for task in fixture.tasks for _ in range(fixture.samples)]
    return prompts, [by_sample.get((task, j)) for task in fixture.tasks for j in range(fixture.samples)]


def run_trl(fixture: Fixture) -> AdapterRun:
    prompts, sessions = trl_entries(fixture)
    output, exclusions = trl.to_rollout_dict(sessions, placeholder_token_id=151645)
    contract = violations("trl", output, prompts=prompts, num_generations=fixture.samples, reward_func=trl.polar_reward)
    samples = trl.normalise(output, fixture.samples)
    return AdapterRun("trl", output, samples, exclusions, contract, fidelity(fixture, samples, exclusions, source="prefix_merging"))


def runs(fixture: Fixture) -> Iterator[AdapterRun]:
    """Every adapter and mode that takes this batch (a never-graded one: slime, verl ``reward``, TRL)."""
    yield run_slime(fixture)
    yield run_slime(fixture, keep_untrained=True)
    if fixture.graded:
        for step_wise, signal in SKYRL_MODES:
            yield run_skyrl(fixture, step_wise, signal)
    for signal in verl.SIGNALS:
        if fixture.graded or signal == "reward":
            yield run_verl(fixture, signal)
    yield run_trl(fixture)
