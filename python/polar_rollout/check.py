"""The fidelity check: proves an adapter's output trains exactly what polar's server sampled and decided.

Given an adapter's output, normalised to ``NormalisedSample``s (each adapter module has ``normalise``), the
exclusions the adapter declared, and the server's ``per_request`` rows of the same batch (one row per
sampled call), ``check`` verifies that:

- every sampled token of a trainable call (``loss_weight`` > 0) appears exactly once as trainable, with its
  sampled logprob, in a sample of its own session, preceded by exactly the context it was sampled in (the
  call's prompt); tokens of ``loss_weight`` 0 calls are never trainable; a call missing from the output is an
  error unless the adapter declared its exclusion with a reason;
- masks, responses and logprobs have equal lengths and every logprob is finite (masked ones too);
- the reward and advantage a trainer reads equal the server's for that session (advantage x the loss
  weight of the row the sample was built from: pass ``source_rows``, the rows the adapter read, when
  they are not the per_request rows themselves; the server shares a lineage's weight over its rows, so a
  per_request row and a prefix_merging row of the same calls weigh differently). A row of the same trace
  excluded as ``one-sequence-per-sample`` hands its weight to the trace's trained row: a one-sequence trainer's
  only sample of a split lineage carries the whole lineage's weight, not its share. A sample whose trainer
  broadcasts one scalar to every step of a trajectory (SkyRL step-wise: ``advantage_weight="trace"``) carries
  the advantage x its whole trace's weight;
- trainer groups and server groups correspond one to one (no group split, none merged);
- no sample of an infra-error session (or of any session the server lists as excluded: ``Batch.excluded``)
  reaches the trainer; placeholders (slots a fixed-shape trainer must fill for a session the server
  excluded) carry no trainable token.

``check`` raises ``FidelityError`` naming the first violation, or returns a ``FidelityReport``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from .rows import Row, rows_by_call, sampled_tokens, status_of, trace_id_of

#: Why an adapter left a row or a session out of its output.
EXCLUSION_REASONS = (
    "infra-error",  # the session ended in an infrastructure failure: never trainable
    "eval-error",  # grading failed: the session has no verdict
    "loss-weight-0",  # a lineage the server weighs 0 (side calls, by default sub-agents): not trained
    "one-sequence-per-sample",  # the trainer takes one sequence per trajectory; this row was not that one
    "incomplete-group",  # fewer sessions than samples per prompt (infra exclusions); replaced by over-sampling
    "filtered",  # the trainer's own group filter (slime --dynamic-sampling-filter-path) dropped the group
    "surplus-group",  # over-sampling finished more groups than the step needs
)

VIOLATIONS = (
    "length-mismatch",
    "non-finite-logprob",
    "placeholder-trainable",
    "unknown-session",
    "infra-sample",
    "excluded-sample",
    "unknown-call",
    "unknown-row",
    "duplicate-call",
    "dropped-call",
    "untrained-call-trainable",
    "excluded-call-trained",
    "token-mismatch",
    "logprob-mismatch",
    "context-mismatch",
    "reward-mismatch",
    "advantage-mismatch",
    "reward-missing",
    "group-split",
    "group-merge",
    "bad-exclusion",
)


ADVANTAGE_WEIGHTS = ("row", "trace")


@dataclass
class NormalisedSample:
    """One sequence as the trainer will train it, in a trainer-independent form.

    ``reward`` and ``advantage`` are what the trainer reads for this sequence (None when it reads none:
    a trainer that gets polar's advantage reads no reward, and the other way round). ``group_key`` is the
    trainer's own grouping (slime ``group_index``, SkyRL ``instance_id``, verl ``uid``, TRL prompt block).
    """

    group_key: str
    session_id: Optional[int]
    call_ids: List[int]
    prompt_ids: List[int]
    response_ids: List[int]
    loss_mask: List[int]
    logprobs: List[float]
    reward: Optional[float] = None
    advantage: Optional[float] = None
    placeholder: bool = False
    #: What ``advantage`` is scaled by: ``"row"``, the loss weight of the row the sample was built from (plus what
    #: rows of its trace excluded as one-sequence-per-sample hand it), or ``"trace"``, its whole trace's weight.
    advantage_weight: str = "row"

    def __post_init__(self) -> None:
        if self.advantage_weight not in ADVANTAGE_WEIGHTS:
            raise ValueError(f"advantage_weight must be one of {', '.join(ADVANTAGE_WEIGHTS)}, got {self.advantage_weight!r}.")


@dataclass(frozen=True)
class Exclusion:
    """A row (its ``call_ids``) or a whole session (``call_ids`` empty) an adapter left out, and why."""

    reason: str
    session_id: int
    call_ids: Tuple[int, ...] = ()
    trainable_tokens: int = 0

    def __post_init__(self) -> None:
        if self.reason not in EXCLUSION_REASONS:
            raise ValueError(f"Unknown exclusion reason {self.reason!r}; one of {', '.join(EXCLUSION_REASONS)}.")


class FidelityError(AssertionError):
    """An adapter's output differs from what the server sampled or decided; ``code`` is one of VIOLATIONS."""

    def __init__(self, code: str, message: str, *, sample: Optional[int] = None, session_id: Optional[int] = None, call_id: Optional[int] = None) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.sample = sample
        self.session_id = session_id
        self.call_id = call_id


@dataclass
class FidelityReport:
    samples: int = 0
    placeholders: int = 0
    trainable_tokens: int = 0
    calls_trained: int = 0
    calls_excluded: Dict[str, int] = field(default_factory=dict)
    groups: int = 0
    violations: List[FidelityError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


def check(
    samples: Sequence[NormalisedSample],
    per_request_rows: Sequence[Row],
    *,
    source_rows: Optional[Sequence[Row]] = None,
    exclusions: Iterable[Exclusion] = (),
    infra_session_ids: Iterable[int] = (),
    excluded: Iterable[Any] = (),
    raise_on_violation: bool = True,
) -> FidelityReport:
    """Check ``samples`` against the server's per_request rows; raise the first violation (or collect all).

    ``source_rows``: the rows the adapter read (e.g. prefix_merging ones; default the per_request rows),
    whose ``loss_weight`` the advantage is scaled by. ``infra_session_ids`` and ``excluded`` (the server's
    ``Batch.excluded``: objects or dicts with ``session_id`` and ``reason``) name sessions no sample may
    come from, whatever rows a broken server sent for them.
    """
    infra = set(infra_session_ids)
    barred: Dict[int, str] = {}
    for item in excluded:
        session, reason = (item["session_id"], item["reason"]) if isinstance(item, Mapping) else (item.session_id, item.reason)
        if reason == "infra-error":
            infra.add(int(session))
        else:
            barred[int(session)] = str(reason)
    state = _State(rows_by_call(per_request_rows), infra, barred, source_rows)
    state.declare(list(exclusions))
    for index, sample in enumerate(samples):
        state.sample(index, sample)
    state.finish()
    report = state.report
    report.samples = len(samples)
    if raise_on_violation and report.violations:
        raise report.violations[0]
    return report


class _State:
    def __init__(self, by_call: Dict[int, Row], infra: Set[int], barred: Dict[int, str], source_rows: Optional[Sequence[Row]]) -> None:
        self.by_call = by_call
        self.barred = barred
        self.by_calls: Dict[Tuple[int, ...], Row] = {(call,): row for call, row in by_call.items()}
        if source_rows is not None:
            self.by_calls = {tuple(row["call_ids"]): row for row in source_rows}
        self.sessions: Dict[int, Row] = {}
        for row in by_call.values():
            self.sessions.setdefault(row["session_id"], row)
        self.infra = infra | {sid for sid, row in self.sessions.items() if status_of(row) == "infra_error"}
        self.excluded: Dict[int, str] = {}
        #: Loss weight of rows excluded as one-sequence-per-sample, per trace: the trace's trained row carries it.
        self.handed_weight: Dict[str, float] = {}
        #: Each trace's whole weight (the sum over its rows of the rows the adapter read).
        self.trace_weight: Dict[str, float] = {}
        for row in self.by_calls.values():
            trace = trace_id_of(row)
            self.trace_weight[trace] = self.trace_weight.get(trace, 0.0) + float(row["loss_weight"])
        self.trained: Dict[int, int] = {}
        self.group_keys: Dict[str, Set[str]] = {}
        self.key_groups: Dict[str, Set[str]] = {}
        self.report = FidelityReport()

    def fail(self, code: str, message: str, **where: Any) -> None:
        self.report.violations.append(FidelityError(code, message, **where))

    def declare(self, exclusions: List[Exclusion]) -> None:
        for exclusion in exclusions:
            calls = list(exclusion.call_ids) or [c for c, row in self.by_call.items() if row["session_id"] == exclusion.session_id]
            if exclusion.session_id not in self.sessions and exclusion.session_id not in self.infra:
                self.fail("bad-exclusion", f"Exclusion ({exclusion.reason}) names session {exclusion.session_id}, which the server's rows do not have.", session_id=exclusion.session_id)
            for call in calls:
                row = self.by_call.get(call)
                if row is None or row["session_id"] != exclusion.session_id:
                    self.fail("bad-exclusion", f"Exclusion ({exclusion.reason}) names call {call}, not a call of session {exclusion.session_id}.", session_id=exclusion.session_id, call_id=call)
                    continue
                self.excluded[call] = exclusion.reason
            self.report.calls_excluded[exclusion.reason] = self.report.calls_excluded.get(exclusion.reason, 0) + len(calls)
            source = self.by_calls.get(tuple(exclusion.call_ids)) if exclusion.reason == "one-sequence-per-sample" else None
            if source is not None:
                trace = trace_id_of(source)
                self.handed_weight[trace] = self.handed_weight.get(trace, 0.0) + float(source["loss_weight"])

    def sample(self, index: int, sample: NormalisedSample) -> None:
        where = {"sample": index, "session_id": sample.session_id}
        length = len(sample.response_ids)
        if len(sample.loss_mask) != length or len(sample.logprobs) != length:
            self.fail("length-mismatch", f"Sample {index}: response {length}, loss mask {len(sample.loss_mask)}, logprobs {len(sample.logprobs)} tokens.", **where)
            return
        bad = next((p for p, lp in enumerate(sample.logprobs) if lp is None or not math.isfinite(lp)), None)
        if bad is not None:
            self.fail("non-finite-logprob", f"Sample {index}: logprob {sample.logprobs[bad]!r} at response position {bad} (mask {sample.loss_mask[bad]}).", **where)
        trainable = [p for p, mask in enumerate(sample.loss_mask) if mask == 1]
        if sample.placeholder:
            self.report.placeholders += 1
            if trainable:
                self.fail("placeholder-trainable", f"Sample {index} fills a slot of an excluded session but has {len(trainable)} trainable tokens.", **where)
            return
        if sample.session_id in self.infra:
            self.fail("infra-sample", f"Sample {index} comes from session {sample.session_id}, which ended in an infra error.", **where)
            return
        if sample.session_id in self.barred:
            self.fail("excluded-sample", f"Sample {index} comes from session {sample.session_id}, which the server excludes ({self.barred[sample.session_id]}).", **where)
            return
        first = self.sessions.get(sample.session_id)  # type: ignore[arg-type]
        if first is None:
            self.fail("unknown-session", f"Sample {index} names session {sample.session_id}, absent from the server's rows.", **where)
            return
        rows = [self.by_call.get(call) for call in sample.call_ids]
        for call, row in zip(sample.call_ids, rows):
            if row is None or row["session_id"] != sample.session_id:
                self.fail("unknown-call", f"Sample {index} names call {call}, not a sampled call of session {sample.session_id}.", call_id=call, **where)
                return
        self._tokens(index, sample, rows, trainable)
        self._scores(index, sample, first, rows)
        self.group_keys.setdefault(first["group_id"], set()).add(sample.group_key)
        self.key_groups.setdefault(sample.group_key, set()).add(first["group_id"])

    def _tokens(self, index: int, sample: NormalisedSample, rows: List[Any], trainable: List[int]) -> None:
        where = {"sample": index, "session_id": sample.session_id}
        if not trainable:
            return
        for call, row in zip(sample.call_ids, rows):
            if row["loss_weight"] == 0:
                self.fail("untrained-call-trainable", f"Sample {index} trains call {call}, whose lineage ({row.get('lineage_kind')}) the server weighs 0.", call_id=call, **where)
                return
        position = 0
        context = list(sample.prompt_ids) + list(sample.response_ids)
        for call, row in zip(sample.call_ids, rows):
            expected = sampled_tokens(row)
            if not expected:
                continue
            if position + len(expected) > len(trainable):
                self.fail("token-mismatch", f"Sample {index} has {len(trainable)} trainable tokens, fewer than its calls sampled.", call_id=call, **where)
                return
            start = trainable[position]
            if context[: len(sample.prompt_ids) + start] != list(row["prompt_ids"]):
                self.fail("context-mismatch", f"Sample {index}: the tokens before call {call}'s sampled tokens are not the prompt it was sampled with.", call_id=call, **where)
                return
            for offset, (token, logprob) in enumerate(expected):
                at = trainable[position + offset]
                if sample.response_ids[at] != token:
                    self.fail("token-mismatch", f"Sample {index}: trainable token at response position {at} is {sample.response_ids[at]}, call {call} sampled {token}.", call_id=call, **where)
                    return
                if sample.logprobs[at] != logprob:
                    self.fail("logprob-mismatch", f"Sample {index}: logprob at response position {at} is {sample.logprobs[at]}, call {call} sampled {logprob}.", call_id=call, **where)
                    return
            if trainable[position + len(expected) - 1] - start != len(expected) - 1:
                self.fail("token-mismatch", f"Sample {index}: call {call}'s sampled tokens are not contiguous (a masked token inside them).", call_id=call, **where)
                return
            position += len(expected)
        if position != len(trainable):
            self.fail("token-mismatch", f"Sample {index} has {len(trainable) - position} trainable tokens no call sampled.", **where)
            return
        for call in sample.call_ids:
            if call in self.trained:
                self.fail("duplicate-call", f"Call {call} is trainable in samples {self.trained[call]} and {index}.", call_id=call, **where)
                return
            if call in self.excluded:
                self.fail("excluded-call-trained", f"Call {call} is declared excluded ({self.excluded[call]}) but sample {index} trains it.", call_id=call, **where)
                return
            self.trained[call] = index
        self.report.trainable_tokens += len(trainable)

    def _scores(self, index: int, sample: NormalisedSample, first: Row, rows: List[Any]) -> None:
        where = {"sample": index, "session_id": sample.session_id}
        reward, advantage = first.get("reward"), first.get("advantage")
        if sample.reward is not None and not _same(sample.reward, reward):
            self.fail("reward-mismatch", f"Sample {index} carries reward {sample.reward}; the server's reward for session {sample.session_id} is {reward}.", **where)
        if sample.advantage is not None:
            source = self.by_calls.get(tuple(sample.call_ids))
            if source is None:
                self.fail("unknown-row", f"Sample {index} (calls {sample.call_ids}) is no row of the rows the adapter read, so its loss weight is unknown; pass source_rows=.", **where)
                return
            trace = trace_id_of(source)
            weight = self.trace_weight[trace] if sample.advantage_weight == "trace" else float(source["loss_weight"]) + self.handed_weight.get(trace, 0.0)
            expected = None if advantage is None else advantage * weight
            if not _same(sample.advantage, expected, close=True):
                self.fail("advantage-mismatch", f"Sample {index} carries advantage {sample.advantage}; the server's is {advantage} x loss weight {weight}.", **where)
        if sample.reward is None and sample.advantage is None and reward is not None:
            self.fail("reward-missing", f"Sample {index} carries neither reward nor advantage; the server graded session {sample.session_id} ({reward}).", **where)

    def finish(self) -> None:
        for call, row in sorted(self.by_call.items()):
            if row["session_id"] in self.infra or row["session_id"] in self.barred or status_of(row) == "eval_error" or row["loss_weight"] == 0:
                continue
            if call not in self.trained and call not in self.excluded:
                self.fail("dropped-call", f"Call {call} of session {row['session_id']} (trace {row.get('trace_id')}) is trainable but in no sample, and no exclusion names it.", session_id=row["session_id"], call_id=call)
        self.report.calls_trained = len(self.trained)
        for group, keys in self.group_keys.items():
            if len(keys) > 1:
                self.fail("group-split", f"Server group {group} is split over trainer groups {sorted(keys)}.")
        for key, groups in self.key_groups.items():
            if len(groups) > 1:
                self.fail("group-merge", f"Trainer group {key} mixes server groups {sorted(groups)}.")
        self.report.groups = len(self.group_keys)


def _same(value: Optional[float], expected: Optional[float], *, close: bool = False) -> bool:
    """Equal; with ``close``, up to float rounding (a weight summed over a trace's rows in another order)."""
    if value is None or expected is None:
        return value is None and expected is None
    if close:
        return math.isclose(float(value), float(expected), rel_tol=1e-12, abs_tol=1e-15)
    return float(value) == float(expected)


def infra_sessions(status_rows: Iterable[Mapping[str, Any]]) -> Set[int]:
    """Session ids whose rows say ``infra_error`` (rows a server should never have sent)."""
    return {row["session_id"] for row in status_rows if status_of(row) == "infra_error"}
