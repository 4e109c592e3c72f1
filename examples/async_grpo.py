#!/usr/bin/env python3
"""An asynchronous GRPO trainer loop on ``polar serve``, written with the ``polar_rollout`` client.

    pip install ./python      # see python/README.md for the offline form
    POLAR_SERVE_URL=http://127.0.0.1:8080 POLAR_SERVE_TOKEN=... \\
        python3 examples/async_grpo.py tasks.jsonl [--steps 3] [--samples 2] [--harness pi] [--sync-seconds 2]
        [--target-groups N --tail cancel]

One batch per step: the next step's batch is submitted before the current one is consumed (so the server
samples it while this step trains, one policy version stale), the current batch's groups are taken as they
complete, and at the step boundary generation is paused, the new weights are synced, and generation resumes
under the next policy version. Every row says which versions sampled it (``policy_versions``), so a row
that straddled the update is visible. The optimizer step and the weight sync are stand-ins: see the
comments where a real trainer does its work. With ``--target-groups N --tail cancel`` each batch is done once N of
its groups are complete: the slowest sessions are stopped and the step trains on those N groups.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from typing import Any, Dict, List

from polar_rollout import Group, PolarClient, PolarError


def parse_args(argv: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("tasks", help="SWE-bench rows, one JSON object a line")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--samples", type=int, default=2, help="sessions per task (the GRPO group size)")
    parser.add_argument("--harness", default="pi")
    parser.add_argument("--format", default="polar", help="row format of the results (polar, verl, openrlhf, ...)")
    parser.add_argument("--sync-seconds", type=float, default=2.0, help="stand-in for the optimizer step and the weight sync")
    parser.add_argument("--target-groups", type=int, default=None, help="a step needs this many complete groups (default: every task's)")
    parser.add_argument("--tail", choices=["wait", "cancel"], default=None, help="at the target: wait for the slowest sessions, or cancel them")
    parser.add_argument("--run-id", default=None, help="names the submits (idempotency keys): rerunning a crashed trainer with the same id does not submit twice")
    return parser.parse_args(argv)


def read_tasks(path: str) -> List[Dict[str, Any]]:
    with open(path, encoding="utf-8") as file:
        return [json.loads(line) for line in file if line.strip()]


def train_step(groups: List[Group]) -> Dict[str, float]:
    """Stand-in for the optimizer step: what a GRPO trainer reads from polar rows.

    A real trainer builds its batch here from each row's ``prompt_ids`` + ``response_ids``, masks the loss
    with ``loss_mask``, uses ``logprobs`` as the behaviour policy's logprobs (importance ratio), weighs each
    row by ``advantage`` (computed by the server over the group) and ``loss_weight``, and may drop or correct
    rows whose ``policy_versions`` are older than it tolerates. This one only counts.
    """
    rows = [row for group in groups for row in group.rows]
    rewards = [row["reward"] for row in rows if isinstance(row.get("reward"), (int, float))]
    return {
        "rows": len(rows),
        "trained_tokens": sum(sum(row.get("loss_mask", [])) for row in rows),
        "mean_reward": sum(rewards) / len(rewards) if rewards else float("nan"),
        "mixed_version_rows": sum(1 for row in rows if len(row.get("policy_versions", [])) > 1),
    }


def sync_weights(client: PolarClient, version: int, seconds: float) -> None:
    """Stand-in for the weight sync, done while generation is paused (no model call is in flight).

    Where polar owns the inference engine (vLLM), a real trainer pushes the new weights into it here:
    vLLM's weight-transfer routes (``/start_weight_update`` → ``/update_weights`` → ``/finish_weight_update``),
    a reload from a checkpoint, or a LoRA adapter load. Where the trainer owns the engine (polar's upstream
    is the trainer's own endpoint), it updates that engine here with its own machinery. Either way the
    ``resume`` that follows tells polar which version the next model calls are sampled from.
    """
    time.sleep(seconds)


def main(argv: List[str]) -> int:
    args = parse_args(argv)
    tasks = read_tasks(args.tasks)
    client = PolarClient()  # POLAR_SERVE_URL, POLAR_SERVE_TOKEN
    run_id = args.run_id or uuid.uuid4().hex[:12]
    version = int(client.status()["generation"]["policy_version"])

    def submit(step: int) -> str:
        batch = client.submit(
            args.harness, tasks=tasks, samples=args.samples, policy_version=version, idempotency_key=f"async-grpo-{run_id}-step-{step}",
            target_groups=args.target_groups, tail=args.tail,
        )
        return batch.id

    upcoming = submit(0)
    for step in range(args.steps):
        started = time.monotonic()
        current = upcoming
        # Asynchronous: the next batch is queued now and sampled while this step trains.
        if step + 1 < args.steps:
            upcoming = submit(step + 1)
        groups: List[Group] = []
        for group in client.groups(current, format=args.format):
            groups.append(group)  # a trainer that steps per group (or per k groups) would train here
        stats = train_step(groups)
        collected = time.monotonic()
        paused = client.pause(drain_timeout_ms=60_000)
        sync_weights(client, version + 1, args.sync_seconds)
        version += 1
        client.resume(policy_version=version)
        print(
            f"step {step}: batch {current} groups={len(groups)} rows={stats['rows']} trained_tokens={stats['trained_tokens']} "
            f"mean_reward={stats['mean_reward']:.3f} mixed_version_rows={stats['mixed_version_rows']}; "
            f"collect {collected - started:.1f} s, pause (drained {paused['drained']}) + sync + resume {time.monotonic() - collected:.1f} s "
            f"-> policy v{version}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except PolarError as error:
        print(f"async_grpo: {error}", file=sys.stderr)
        sys.exit(1)
