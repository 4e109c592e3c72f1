"""Stand-in for slime/rollout/base_types.py at THUDM/slime 624b824a898ab0ec1fcb4d373004c7f3852bf515."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slime.utils.types import Sample


@dataclass
class RolloutFnTrainOutput:
    samples: list[list[Sample]]
    metrics: dict[str, Any] = None


@dataclass
class RolloutFnEvalOutput:
    data: dict[str, dict[str, Any]]
    metrics: dict[str, Any] = None
