"""Every adapter module imports where its trainer is not installed; the trainer is imported only when used."""

from __future__ import annotations

import os
import subprocess
import sys
import unittest

import support

SCRIPT = r"""
import importlib, sys
for name in ("polar_rollout.rows", "polar_rollout.check", "polar_rollout.adapters.slime", "polar_rollout.adapters.skyrl",
             "polar_rollout.adapters.verl", "polar_rollout.adapters.verl_hooks", "polar_rollout.adapters.trl",
             "polar_rollout.adapters.batching"):
    importlib.import_module(name)
loaded = sorted(m.split(".")[0] for m in sys.modules if m.split(".")[0] in ("slime", "skyrl", "verl", "trl", "torch", "ray", "pydantic"))
print("loaded:", loaded)
from polar_rollout.adapters import verl
try:
    verl.PolarAgentLoop
except ImportError as error:
    print("needs:", error)
"""


class LazyImports(unittest.TestCase):
    def test_adapters_import_without_trainers(self) -> None:
        env = {**os.environ, "PYTHONPATH": support.PACKAGE}  # the package only: no stand-ins
        done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, cwd=support.PACKAGE)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("loaded: []", done.stdout)
        self.assertIn("needs: verl.experimental.agent_loop.agent_loop is not importable", done.stdout)
        self.assertIn("install verl", done.stdout)


if __name__ == "__main__":
    unittest.main()
