"""Trainable-token yield: how much of what the model sampled reaches the trainer, counted, never assumed.

``yield = received / sampled`` over the sessions an adapter was given in one step:

- ``sampled``: the loss-mask-1 tokens of every row of every trainable session the adapter was given (status not
  ``infra_error`` / ``eval_error``). In ``prefix_merging`` and ``per_request`` rows alike, each token a call sampled
  has mask 1 in exactly one row, so this is every token the model sampled in those sessions, whatever lineage the
  server put it in. Sessions of a group the adapter then sets aside (slime's surplus or filtered groups, a group
  missing a session under ``signal="reward"``) count: they were given.
- ``received``: the mask-1 tokens of the sequences the trainer trains, read the way the trainer reads them
  (each adapter's ``normalise``: slime's ``remove_sample`` zeroes a mask, TRL pads ``env_mask``...);
  placeholders carry none.

So every token the trainer does not train counts against it, each with its reason in
``polar/excluded_trainable_tokens/<reason>``: ``one-sequence-per-sample`` (a trainer taking one sequence per sample
was handed a lineage split into several rows: chat capture), ``loss-weight-0`` (a lineage the server weighs 0: side
calls such as titles and, by default, sub-agents; a turn the server mistook for one shows here too, which is how
this figure found one), ``incomplete-group``, ``filtered``, ``surplus-group``. With token-in capture and sessions
of one lineage (a harness without side calls or sub-agents), every trainer receives 100%.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Dict, Iterable, Optional

from ..check import NormalisedSample
from ..rows import UNTRAINABLE_STATUSES, Session, trainable_count

log = logging.getLogger("polar_rollout")

#: Metric names (every adapter reports all three).
YIELD = "polar/yield"
RECEIVED = "polar/yield_received_tokens"
SAMPLED = "polar/yield_sampled_tokens"


@dataclass(frozen=True)
class TrainerYield:
    """Sampled trainable tokens a trainer receives (``received``) of those of the sessions it was given (``sampled``)."""

    received: int = 0
    sampled: int = 0

    @property
    def ratio(self) -> float:
        """``received / sampled``; 1.0 when nothing trainable was sampled (nothing was lost)."""
        return 1.0 if self.sampled == 0 else self.received / self.sampled

    def __add__(self, other: TrainerYield) -> TrainerYield:
        return TrainerYield(self.received + other.received, self.sampled + other.sampled)

    def metrics(self) -> Dict[str, float]:
        return {YIELD: self.ratio, RECEIVED: float(self.received), SAMPLED: float(self.sampled)}


def session_sampled_tokens(session: Optional[Session]) -> int:
    """The sampled trainable (mask-1) tokens of one session's rows (0 for none, or an infra / eval error)."""
    if session is None or session.status in UNTRAINABLE_STATUSES:
        return 0
    return sum(trainable_count(row) for row in session.rows)


def received_tokens(samples: Iterable[NormalisedSample]) -> int:
    """The mask-1 tokens of the sequences a trainer trains (placeholders have none)."""
    return sum(sum(1 for mask in sample.loss_mask if mask == 1) for sample in samples if not sample.placeholder)


def trainer_yield(sessions: Iterable[Optional[Session]], samples: Iterable[NormalisedSample]) -> TrainerYield:
    """The yield of a trainer given ``sessions`` that trains ``samples`` (an adapter's ``normalise`` of its output)."""
    return TrainerYield(received_tokens(samples), sum(session_sampled_tokens(session) for session in sessions))


def report_yield(value: TrainerYield, *, trainer: str, capture: Optional[str], one_sequence: bool) -> None:
    """Log a step's yield: a warning in chat capture for a one-sequence trainer (the user opted into the loss) and
    whenever tokens were lost, else at INFO."""
    figure = f"{value.received} of {value.sampled} sampled trainable tokens ({100 * value.ratio:.1f}%)"
    if one_sequence and capture == "chat":
        log.warning(
            "%s received %s in chat capture: where a harness's re-rendered history drifted from what was sampled, a "
            "lineage split into several rows, and this trainer takes one row per sample (the rest is counted in "
            "polar/excluded_trainable_tokens/one-sequence-per-sample). Ask for token-in batches (the adapter's default; "
            "polar serve --token-in) to train every sampled token.",
            trainer, figure,
        )
    elif value.received < value.sampled:
        log.warning("%s received %s (capture %s); polar/excluded_trainable_tokens/<reason> says where the rest went.",
                    trainer, figure, capture or "the server's default")
    else:
        log.info("%s received %s (capture %s).", trainer, figure, capture or "the server's default")


class YieldTally:
    """One batch's yield summed over the per-sample requests answered from it (verl's ``run()``, slime's
    ``generate``); logged once every request added its share."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.added = 0
        self.total = TrainerYield()

    def add(self, value: TrainerYield, *, trainer: str, capture: Optional[str], one_sequence: bool) -> Optional[TrainerYield]:
        """Adds one request's share; returns (and logs) the batch's total with the last one, else None."""
        self.added += 1
        self.total = self.total + value
        if self.added != self.expected:
            return None
        report_yield(self.total, trainer=trainer, capture=capture, one_sequence=one_sequence)
        return self.total
