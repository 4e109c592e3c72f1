"""Stand-in for verl/experimental/agent_loop/agent_loop.py at volcengine/verl b178a3cd56f58b2d502255daba591e92833930a7.

``AgentLoopMetrics`` and ``AgentLoopOutput`` are pydantic ``BaseModel``s in verl; pydantic is not installed
here, so they are dataclasses with the same fields, order and defaults (``extra_fields`` default ``{}`` becomes
a default factory). ``AgentLoopBase.__init__`` and ``run`` keep verl's signatures; ``register`` fills the same
``_agent_loop_registry`` with ``{"_target_": fqdn}``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass
class AgentLoopMetrics:
    """Agent loop performance metrics."""

    generate_sequences: float = 0.0
    tool_calls: float = 0.0
    num_preempted: int = -1  # -1 means not available


@dataclass
class AgentLoopOutput:
    """Agent loop output."""

    prompt_ids: list[int]
    response_ids: list[int]
    response_mask: list[int]
    response_logprobs: Optional[list[float]] = None
    routed_experts: Optional[Any] = None
    multi_modal_data: Optional[dict[str, Any]] = None
    reward_score: Optional[float] = None
    num_turns: int = 0
    metrics: AgentLoopMetrics = None  # type: ignore[assignment]  # required in verl (no default); see __post_init__
    extra_fields: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.metrics is None:
            raise TypeError("AgentLoopOutput: field 'metrics' is required")


class DictConfigWrap:
    """Wrapper for DictConfig to avoid hydra.utils.instantiate recursive resolve."""

    def __init__(self, config):
        self.config = config


class AgentLoopBase(ABC):
    def __init__(self, trainer_config, server_manager, tokenizer, processor, dataset_cls, dataset_config, **kwargs):
        self.config = trainer_config.config
        self.server_manager = server_manager
        self.tokenizer = tokenizer
        self.processor = processor
        self.dataset_cls = dataset_cls
        self.dataset_config = dataset_config.config

    @abstractmethod
    async def run(self, sampling_params: dict[str, Any], **kwargs) -> AgentLoopOutput:
        raise NotImplementedError


_agent_loop_registry: dict[str, dict] = {}


def register(agent_name: str):
    """Register agent loop class."""

    def decorator(subclass: type[AgentLoopBase]) -> type[AgentLoopBase]:
        fqdn = f"{subclass.__module__}.{subclass.__qualname__}"
        _agent_loop_registry[agent_name] = {"_target_": fqdn}
        return subclass

    return decorator
