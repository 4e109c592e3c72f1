"""polar_rollout: a standard-library client for ``polar serve`` and per-trainer adapters."""
