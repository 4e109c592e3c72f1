"""Stand-in for the advantage-estimator registry of skyrl/backends/skyrl_train/utils/ppo_utils.py at
NovaSky-AI/SkyRL a9564572eb8e91076be43c1bd5e4615e3de17265: ``AdvantageEstimatorRegistry.register(name, func)``
and ``.get(name)`` (the real one is a ray-synced BaseFunctionRegistry)."""

from typing import Callable, Dict


class AdvantageEstimatorRegistry:
    _functions: Dict[str, Callable] = {}

    @classmethod
    def register(cls, name, func: Callable) -> None:
        name = getattr(name, "value", name)
        if name in cls._functions:
            raise ValueError(f"advantage estimator '{name}' already registered")
        cls._functions[name] = func

    @classmethod
    def get(cls, name) -> Callable:
        name = getattr(name, "value", name)
        if name not in cls._functions:
            raise ValueError(f"Unknown advantage estimator '{name}'")
        return cls._functions[name]

    @classmethod
    def list_available(cls):
        return list(cls._functions)
