"""Stand-in for skyrl/train/generators/base.py at NovaSky-AI/SkyRL a9564572eb8e91076be43c1bd5e4615e3de17265.

Same classes, fields, order and signatures; ``ConversationType`` and ``RoutedExpertIndices`` are aliased here
instead of imported from skyrl.backends (``ConversationType = List[Dict[str, str]]`` there); torch is not imported.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

TrainingPhase = Literal["train", "eval"]
ConversationType = List[Dict[str, str]]
RoutedExpertIndices = Any


@dataclass
class TrajectoryID:
    instance_id: str  # Unique identifier for the instance in the dataset
    repetition_id: int  # Which sample/repetition for this UID (0, 1, 2... for GRPO)

    def to_string(self) -> str:
        return f"{self.instance_id}_{self.repetition_id}"


@dataclass
class BatchMetadata:
    global_step: int
    training_phase: TrainingPhase


class GeneratorInput(TypedDict):
    prompts: List[ConversationType]
    env_classes: List[str]
    env_extras: Optional[List[Dict[str, Any]]]
    sampling_params: Optional[Dict[str, Any]]
    trajectory_ids: Optional[List[TrajectoryID]]
    batch_metadata: Optional[BatchMetadata]


class GeneratorOutput(TypedDict):
    prompt_token_ids: List[List[int]]
    response_ids: List[List[int]]
    rewards: Union[List[float], List[List[float]]]
    loss_masks: List[List[int]]
    stop_reasons: Optional[List[str]]
    rollout_metrics: Optional[Dict[str, Any]]
    rollout_logprobs: Optional[List[List[float]]]
    trajectory_ids: Optional[List[TrajectoryID]]
    trajectory_generation_times: Optional[List[float]]
    trajectory_time_splits: Optional[Dict[str, List[float]]]
    rollout_expert_indices: Optional[List[RoutedExpertIndices]]
    is_last_step: Optional[List[bool]]
    env_metrics: Optional[List[Dict[str, Any]]]
    pixel_values: Optional[List[torch.Tensor]]  # noqa: F821
    image_grid_thw: Optional[List[torch.Tensor]]  # noqa: F821


class GeneratorInterface(ABC):
    @abstractmethod
    async def generate(self, input_batch: GeneratorInput) -> GeneratorOutput:
        """Generate trajectories for the input batch.

        Returns outputs in the same order as the input batch.
        """
        raise NotImplementedError
