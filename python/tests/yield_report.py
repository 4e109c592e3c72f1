"""The yield benchmark's Python half: every trainer adapter over a folder of exported rows, one JSON line per task.

``python3 yield_report.py <folder>`` reads ``<folder>`` as ``rows_fixture.recorded`` does (``per_request.jsonl``,
``prefix_merging.jsonl`` in polar's format, ``batch.json`` with ``samples`` and ``tasks``) and, for each task on its
own (a step of one group), runs slime's rollout function selection, SkyRL step-wise and trajectory mode, verl's agent
loop (signal advantage) and TRL's rollout function exactly as the adapter tests do (``adapter_runs``), then prints
``{"task", "trainer", "received", "sampled", "excluded", "rows", "capture", "problems"}`` per trainer: the yield each
adapter reports in its own metrics, the trainable tokens of what it declared excluded (by reason), the rows it read and
their capture modes, and every contract or fidelity violation (a figure from an unfaithful output is no figure).
Run by ``npm run bench -- yield`` (test/bench/trainer-yield.ts) with ``PYTHONPATH=python:python/tests``.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Dict, Iterator, List

import support  # noqa: F401  (the trainers' stand-ins on sys.path)
from adapter_runs import AdapterRun, run_skyrl, run_slime, run_trl, run_verl, trl_entries
from polar_rollout.adapters import trl, verl
from rows_fixture import Fixture, recorded

TRAINERS = ("slime", "skyrl-step-wise", "skyrl-trajectory", "verl", "trl")


def reported(name: str, run: AdapterRun, fixture: Fixture) -> Dict[str, float]:
    """The yield metrics as the adapter reports them to its trainer."""
    if name == "slime":
        metrics: Dict[str, float] = run.output.metrics
        return metrics
    if name.startswith("skyrl"):
        return dict(run.output["rollout_metrics"])
    if name == "verl":
        return verl.yield_metrics(run.output)
    _, sessions = trl_entries(fixture)
    return trl.rollout_metrics(run.output, run.exclusions, trl.rollout_yield(sessions, run.output, fixture.samples))


def runs(fixture: Fixture) -> Iterator[tuple]:
    yield "slime", run_slime(fixture), fixture.prefix_merging
    yield "skyrl-step-wise", run_skyrl(fixture, True, "advantage"), fixture.per_request
    yield "skyrl-trajectory", run_skyrl(fixture, False, "advantage"), fixture.prefix_merging
    yield "verl", run_verl(fixture, "advantage"), fixture.prefix_merging
    yield "trl", run_trl(fixture), fixture.prefix_merging


def of_task(fixture: Fixture, task: str) -> Fixture:
    def keep(rows: List[dict]) -> List[dict]:
        return [row for row in rows if row["task_id"] == task]

    excluded = [item for item in fixture.excluded if item.get("instance_id") == task]
    return Fixture(f"{fixture.name}/{task}", keep(fixture.per_request), keep(fixture.prefix_merging), fixture.samples, [task], fixture.infra_session_ids, excluded)


def main(folder: str) -> None:
    fixture = recorded(folder)
    for task in fixture.tasks:
        one = of_task(fixture, task)
        for name, run, rows in runs(one):
            metrics = reported(name, run, one)
            excluded: Dict[str, int] = {}
            for exclusion in run.exclusions:
                excluded[exclusion.reason] = excluded.get(exclusion.reason, 0) + exclusion.trainable_tokens
            line: Dict[str, Any] = {
                "task": task, "trainer": name, "received": int(metrics["polar/yield_received_tokens"]), "sampled": int(metrics["polar/yield_sampled_tokens"]),
                "excluded": excluded, "rows": len(rows), "capture": sorted({str(row.get("capture")) for row in rows}), "problems": run.problems()[:3],
            }
            sys.stdout.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
