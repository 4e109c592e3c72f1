"""Loaded by verl's trainer process as its custom reward function file, to register the ``polar`` estimator there.

Trainer-side configuration (verl b178a3c)::

    custom_reward_function.path=pkg://polar_rollout.adapters.verl_hooks custom_reward_function.name=polar_reward
    algorithm.adv_estimator=polar

verl computes advantages in its trainer process (``RayPPOTrainer.fit``), which imports this file when it loads
the custom reward function (``load_reward_manager``); importing it registers ``polar_advantage``. Outside a
verl process (no verl importable) importing it does nothing.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from .common import MissingRewardError
from .verl import register_polar_estimator

if importlib.util.find_spec("verl") is not None:
    register_polar_estimator()


def polar_reward(data_source: Any = None, solution_str: Any = None, ground_truth: Any = None, extra_info: Any = None, **kwargs: Any) -> float:
    """verl calls a reward function only for an output without ``reward_score``: a session polar never graded."""
    raise MissingRewardError(
        "verl asked polar_reward for a score: the session was never graded by polar.",
        hint="run batches with evaluation, or point custom_reward_function at your own file that imports polar_rollout.adapters.verl_hooks and scores these.",
    )
