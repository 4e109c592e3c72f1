"""One module per trainer (slime, skyrl, verl, trl); each imports its trainer only when used.

Import the module you need (``from polar_rollout.adapters import skyrl``); python/ADAPTERS.md has each
trainer's configuration. ``common`` and ``batching`` hold what they share.
"""
