"""Test support: the trainer stand-ins on ``sys.path``, and a fake ``PolarClient`` serving fixture rows.

Import this module first in every adapter test. The fake client answers ``submit`` / ``groups`` / ``cancel``
with the client's documented signatures, from a fixture's rows of the asked builder: the groups of the
submitted tasks, in the order given by ``group_order`` (so a test can deliver an incomplete group first).
Its ``submit`` follows the server's capture contract: the batch runs in the capture asked for, else the
server's default (``default_capture``); a token-in batch on a server whose engine cannot (``token_in=False``) is
refused with 409 ``capture_unavailable`` worded as polar serve words it, and ``legacy=True`` is a server that
predates the field (400).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
STANDINS = os.path.join(HERE, "standins")
PACKAGE = os.path.dirname(HERE)
for path in (PACKAGE, STANDINS):
    if path not in sys.path:
        sys.path.insert(0, path)

from polar_rollout.errors import error_from_response  # noqa: E402
from polar_rollout.rows import groups_of  # noqa: E402
from rows_fixture import Fixture  # noqa: E402


@dataclass
class FakeBatch:
    id: str
    status: str = "queued"
    created: bool = True
    capture: Optional[str] = None


@dataclass
class FakeGroup:
    group_id: str
    instance_id: Optional[str]
    rows: List[dict]
    cursor: int
    batch_id: str


class FakeClient:
    """``submit``, ``groups`` and ``cancel`` over a fixture, ``status``/``pause``/``resume`` over a policy version; records every call in ``calls``."""

    def __init__(self, fixture: Fixture, *, group_order: Optional[List[str]] = None, policy_version: int = 0,
                 default_capture: str = "chat", token_in: bool = True, legacy: bool = False) -> None:
        self.fixture = fixture
        self.default_capture = default_capture
        self.token_in = token_in
        self.legacy = legacy
        self.group_order = group_order
        self.calls: List[tuple] = []
        self.batches: Dict[str, dict] = {}
        self.policy_version = policy_version
        self.paused = False

    def status(self) -> Dict[str, Any]:
        return {"generation": {"paused": self.paused, "policy_version": self.policy_version}}

    def pause(self, *, drain_timeout_ms: Any = None, **extra: Any) -> Dict[str, Any]:
        self.calls.append(("pause", {"drain_timeout_ms": drain_timeout_ms, **extra}))
        self.paused = True
        return {"paused": True, "drained": True, "in_flight": 0, "policy_version": self.policy_version}

    def resume(self, *, policy_version: Any = None, **extra: Any) -> Dict[str, Any]:
        self.calls.append(("resume", {"policy_version": policy_version, **extra}))
        if policy_version is not None:
            if policy_version < self.policy_version:
                raise ValueError("policy versions only grow")
            self.policy_version = policy_version
        self.paused = False
        return {"paused": False, "policy_version": self.policy_version}

    def submit(self, harness: str, *, tasks: Any = None, dataset: Any = None, instance_ids: Any = None, samples: int = 1,
               sampling: Any = None, policy_version: Any = None, timeout_seconds: Any = None, evaluate: Any = None,
               idempotency_key: Any = None, **extra: Any) -> FakeBatch:
        names = [t["instance_id"] for t in tasks] if tasks is not None else list(instance_ids)
        capture = extra.get("capture")
        self.calls.append(("submit", harness, {"tasks": tasks, "dataset": dataset, "instance_ids": instance_ids, "samples": samples, "sampling": sampling,
                                               "policy_version": policy_version, "capture": capture}))
        if self.legacy and capture is not None:
            raise error_from_response(400, b'{"error":{"type":"invalid_request","message":"body: Unrecognized key: \\"capture\\""}}', "POST /v1/rollouts")
        if capture == "token_in" and not self.token_in:
            raise error_from_response(409, json.dumps({"error": {
                "type": "capture_unavailable",
                "message": '"capture": "token_in" is not available: vLLM at http://127.0.0.1:8000/v1: /v1/completions answered no token ids',
                "hint": "vLLM >= 0.10.2 serves /tokenize with messages and /v1/completions with return_token_ids: point --upstream at the server "
                        'itself, not a proxy that hides them. Or send "capture": "chat".'}}).encode(), "POST /v1/rollouts")
        batch_id = f"b_{len(self.batches) + 1}"
        self.batches[batch_id] = {"tasks": names, "samples": samples, "capture": capture or self.default_capture}
        return FakeBatch(batch_id, capture=None if self.legacy else capture or self.default_capture)

    def groups(self, batch_id: str, cursor: int = 0, follow: bool = True, format: str = "polar", builder: str = "per_request",
               advantage: str = "grpo", **options: Any) -> Iterator[FakeGroup]:
        self.calls.append(("groups", batch_id, {"builder": builder, "format": format, "advantage": advantage, "follow": follow}))
        asked = self.batches[batch_id]["tasks"]
        rows = self.fixture.per_request if builder == "per_request" else self.fixture.prefix_merging
        groups = {group.task_id: group for group in groups_of(rows)}
        order = [t for t in (self.group_order or asked) if t in asked]
        for seq, task in enumerate(order, start=cursor + 1):
            group = groups.get(task)
            if group is None:  # every session of the task skipped: no row, no instance id
                yield FakeGroup(f"serve-{batch_id}#{seq}", None, [], seq, batch_id)
                continue
            yield FakeGroup(group.group_id, task, [row for s in group.sessions for row in s.rows], seq, batch_id)

    def cancel(self, batch_id: str) -> None:
        self.calls.append(("cancel", batch_id))
