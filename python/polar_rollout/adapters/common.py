"""What every adapter shares: typed errors, exclusions, the one-sequence choice, tasks and sampling values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ..check import Exclusion
from ..rows import UNTRAINABLE_STATUSES, Row, Session, is_main, trace_id_of, trainable_count

#: A task as polar takes it: an instance id (with the batch's ``dataset``) or a full SWE-bench row.
TaskRef = Union[str, Dict[str, Any]]


class AdapterError(Exception):
    """An adapter cannot turn rows into what its trainer needs; ``hint`` says how to fix it."""

    def __init__(self, message: str, *, hint: Optional[str] = None) -> None:
        super().__init__(message if hint is None else f"{message} Hint: {hint}")
        self.hint = hint


class MissingRewardError(AdapterError):
    """The trainer needs a reward (or advantage) the server did not give (a batch run without evaluation)."""


class SequenceTooLongError(AdapterError):
    """A row does not fit the trainer's fixed prompt or response length; nothing is truncated silently."""


class PromptLayoutError(AdapterError):
    """The trainer handed prompts in a layout the adapter cannot map to polar groups."""


class GroupSplitError(AdapterError):
    """One prompt's samples reached the adapter in pieces, so polar's group advantages would be computed on a part."""


class TaskError(AdapterError):
    """A trainer's prompt or sample does not name a polar task."""


@dataclass
class SequenceChoice:
    """For a trainer that takes one sequence per trajectory: the row it gets, and what it does not.

    ``weight`` is what the row's advantage is scaled by: the loss weight of its whole trace (the lineage kind's
    weight, which the server shares over the trace's rows), not the row's share of it. The row is the session's
    only sample for the trainer, so a lineage split in two must not train at half its advantage.
    """

    row: Optional[Row]
    exclusions: List[Exclusion]
    weight: float = 0.0


def untrainable_exclusion(session: Session) -> Optional[Exclusion]:
    """The whole-session exclusion of an infra-error or eval-error session (which the server should not send)."""
    if session.status in UNTRAINABLE_STATUSES:
        reason = "infra-error" if session.status == "infra_error" else "eval-error"
        return Exclusion(reason, session.session_id, (), sum(trainable_count(row) for row in session.rows))
    return None


def row_exclusion(row: Row, reason: str) -> Exclusion:
    return Exclusion(reason, row["session_id"], tuple(row["call_ids"]), trainable_count(row))


def split_by_weight(rows: Iterable[Row]) -> Tuple[List[Row], List[Exclusion]]:
    """Rows the server weighs above 0, and an exclusion for each row it weighs 0 (side calls by default)."""
    kept: List[Row] = []
    exclusions: List[Exclusion] = []
    for row in rows:
        if row["loss_weight"] > 0:
            kept.append(row)
        else:
            exclusions.append(row_exclusion(row, "loss-weight-0"))
    return kept, exclusions


def choose_sequence(session: Session) -> SequenceChoice:
    """Pick the one row a one-sequence trainer (verl, TRL, SkyRL trajectory mode) trains for this session.

    The main lineage's row with the most trainable tokens (the first on ties); a split main lineage or a
    sub-agent weighed above 0 cannot join it token-faithfully, so those rows are excluded with
    ``one-sequence-per-sample`` and zero-weight rows with ``loss-weight-0``. Infra / eval errors: no row. In
    token-in capture a lineage is one row, so nothing sampled is excluded here.
    """
    untrainable = untrainable_exclusion(session)
    if untrainable is not None:
        return SequenceChoice(None, [untrainable])
    weighted, exclusions = split_by_weight(session.rows)
    if not weighted:
        return SequenceChoice(None, exclusions)
    main = [row for row in weighted if is_main(row)] or weighted
    chosen = max(main, key=lambda row: (trainable_count(row), -row["row_index"]))
    exclusions += [row_exclusion(row, "one-sequence-per-sample") for row in weighted if row is not chosen]
    return SequenceChoice(chosen, exclusions, trace_weight(weighted, trace_id_of(chosen)))


def trace_weight(rows: Iterable[Row], trace: str) -> float:
    """The loss weight of a whole trace (its lineage kind's weight, which the server shares over the trace's rows)."""
    return sum(float(row["loss_weight"]) for row in rows if trace_id_of(row) == trace)


def assign_sessions(sessions: Sequence[Session], slots: int) -> List[Optional[Session]]:
    """Slot ``i`` gets the session with ``sample_index`` i (None for a session the server excluded)."""
    assigned: List[Optional[Session]] = [None] * slots
    for position, session in enumerate(sessions):
        index = session.sample_index if session.sample_index is not None else position
        if not 0 <= index < slots:
            raise AdapterError(f"Session {session.session_id} has sample_index {index}, but only {slots} samples were asked for this task.")
        if assigned[index] is not None:
            raise AdapterError(f"Sessions {assigned[index].session_id} and {session.session_id} both claim sample {index} of task {session.task_id}.")  # type: ignore[union-attr]
        assigned[index] = session
    return assigned


def task_ref(value: Any) -> TaskRef:
    """A polar task from what a trainer's data row holds: an instance id, or a dict naming one.

    A dict with ``problem_statement`` is sent whole (a SWE-bench row); a dict with only ``instance_id`` (and
    other columns) is sent as that id, resolved by the server against the batch's ``dataset``.
    """
    if isinstance(value, str) and value:
        return value
    if isinstance(value, Mapping):
        instance_id = value.get("instance_id")
        if isinstance(instance_id, str) and instance_id:
            return dict(value) if "problem_statement" in value else instance_id
    raise TaskError(
        f"Cannot tell which polar task {value!r} is.",
        hint="put the SWE-bench instance_id (or the whole SWE-bench row) in the prompt's metadata / extra info, or pass task_of=.",
    )


def instance_id_of(task: TaskRef) -> str:
    return task if isinstance(task, str) else str(task["instance_id"])


def submit_arguments(tasks: Sequence[TaskRef], dataset: Optional[str]) -> Dict[str, Any]:
    """``client.submit`` keyword arguments naming these tasks: full rows as ``tasks``, ids with ``dataset``."""
    if all(isinstance(task, Mapping) for task in tasks):
        return {"tasks": [dict(task) for task in tasks]}  # type: ignore[arg-type]
    if all(isinstance(task, str) for task in tasks):
        if dataset is None:
            raise TaskError(
                "Tasks are named by instance id but no dataset was given.",
                hint="set POLAR_DATASET (a dataset path polar serve can read) or pass dataset=, or carry whole SWE-bench rows.",
            )
        return {"dataset": dataset, "instance_ids": list(tasks)}
    raise TaskError("A batch mixes instance ids and whole SWE-bench rows.", hint="carry one kind of task per dataset.")


#: polar's sampling fields and the names trainers use for them.
_SAMPLING_NAMES = {
    "temperature": ("temperature", "rollout_temperature"),
    "top_p": ("top_p", "rollout_top_p"),
    "top_k": ("top_k", "rollout_top_k"),
    "min_p": ("min_p",),
    "max_tokens": ("max_tokens", "max_new_tokens", "max_generate_length", "rollout_max_response_len", "max_completion_length"),
    "seed": ("seed",),
}


def sampling_from(values: Mapping[str, Any]) -> Dict[str, Any]:
    """polar ``sampling`` from a trainer's sampling values: known names only; top_k <= 0 and top_p 1 mean unset."""
    sampling: Dict[str, Any] = {}
    for name, aliases in _SAMPLING_NAMES.items():
        value = next((values[alias] for alias in aliases if values.get(alias) is not None), None)
        if value is None or (name == "top_k" and int(value) <= 0):
            continue
        sampling[name] = value
    return sampling


def session_metrics(exclusions: Sequence[Exclusion], placeholders: int = 0) -> Dict[str, float]:
    """Counts a trainer can log: exclusions by reason (sessions and dropped trainable tokens), placeholders."""
    metrics: Dict[str, float] = {"polar/placeholders": float(placeholders)}
    for exclusion in exclusions:
        key = f"polar/excluded/{exclusion.reason}"
        metrics[key] = metrics.get(key, 0.0) + 1
        tokens = f"polar/excluded_trainable_tokens/{exclusion.reason}"
        metrics[tokens] = metrics.get(tokens, 0.0) + exclusion.trainable_tokens
    return metrics


def lazy_import(module: str, trainer: str) -> Any:
    """Import a trainer module when an adapter first needs it, with the fix when it is not installed."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"{module} is not importable ({error}); install {trainer} in this environment to use polar_rollout.adapters.{trainer.lower()}.") from error

