"""Polar rows for the adapter tests: constructed from a session spec, or recorded from a real ``polar serve``.

``constructed()`` builds one batch the way the server does (README "Export formats", schema v2): 2 tasks x 2
samples; session 1 has a side lineage (a title call, loss weight 0) and a 3-call main lineage spanning a policy
update (versions 3 then 4); session 2 timed out, its main lineage split by drift into two rows (a multi-row
trace) and its last call stopped at the length limit; session 3 has a sub-agent lineage; session 4 ended in an
infra error, so the server exported no row for it and its group (task B) has one session instead of two.
``graded=False`` reads the same batch as a never-evaluated one (``advantage=none``: reward and advantage null).
``split=False`` is the same batch captured token-in: session 2's third call continues its lineage's exact tokens, so
its main lineage is one row.
``leak_infra=True`` adds the infra session's rows as a broken server would send them (status infra_error).

``recorded(name)`` reads ``data/recorded/<name>/`` (``per_request.jsonl[.gz]``, ``prefix_merging.jsonl[.gz]``,
``batch.json`` with ``samples``, ``tasks`` and the server's ``excluded`` sessions) so the same tests run on
rows a real ``polar serve`` produced; ``fixtures()`` yields every fixture available.
"""

from __future__ import annotations

import gzip
import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Sequence, Set

RUN = "serve-b_fixture"
LINEAGE_WEIGHTS = {"main": 1.0, "sub-agent": 0.0, "side": 0.0, "title": 0.0, "quota": 0.0, "summary": 0.0}


@dataclass
class Call:
    call_id: int
    lineage: int
    prompt: List[int]
    sampled: List[int]
    logprobs: List[float]
    version: int = 3
    stop_reason: str = "tool_calls"


@dataclass
class SessionSpec:
    session_id: int
    task_id: str
    sample_index: int
    status: str
    status_reason: str
    reward: Optional[float]
    lineage_kinds: Dict[int, str]
    calls: List[Call]


@dataclass
class Fixture:
    name: str
    per_request: List[dict]
    prefix_merging: List[dict]
    samples: int
    tasks: List[str]
    infra_session_ids: Set[int] = field(default_factory=set)
    #: The server's list of sessions the results leave out (``Batch.excluded``, as JSON objects).
    excluded: List[dict] = field(default_factory=list)

    @property
    def graded(self) -> bool:
        """Every row carries a reward (a batch run with evaluation)."""
        return all(row.get("reward") is not None for row in self.per_request)


class _Tokens:
    """Distinct token ids and distinct, exactly representable logprobs."""

    def __init__(self) -> None:
        self.next_id = 1000
        self.next_lp = 1

    def ids(self, count: int) -> List[int]:
        start, self.next_id = self.next_id, self.next_id + count
        return list(range(start, start + count))

    def logprobs(self, count: int) -> List[float]:
        start, self.next_lp = self.next_lp, self.next_lp + count
        return [-(k / 64.0) for k in range(start, start + count)]


def _agent(tokens: _Tokens, first_call: int, lineage: int, turns: int, versions: Sequence[int], *, last_stop: str = "stop") -> List[Call]:
    """A lineage of ``turns`` calls, each prompt the previous context plus a tool result."""
    context = tokens.ids(6)
    calls: List[Call] = []
    for turn in range(turns):
        sampled = tokens.ids(4 + turn)
        calls.append(Call(first_call + turn, lineage, list(context), sampled, tokens.logprobs(len(sampled)), versions[turn], "tool_calls" if turn < turns - 1 else last_stop))
        context = context + sampled + tokens.ids(3)
    return calls


def _specs(split: bool = True) -> List[SessionSpec]:
    tokens = _Tokens()
    s1 = _agent(tokens, 1, 0, 3, [3, 3, 4]) + [Call(4, 1, tokens.ids(5), tokens.ids(2), tokens.logprobs(2), 4, "stop")]
    s1.sort(key=lambda call: call.call_id)
    s2 = _agent(tokens, 5, 0, 3, [4, 4, 4], last_stop="length")
    if split:
        drifted = list(s2[2].prompt)
        drifted[len(s2[0].prompt)] += 50_000  # the harness re-rendered the first answer: not an exact prefix any more
        s2[2].prompt = drifted
    s3 = _agent(tokens, 8, 0, 2, [4, 4]) + _agent(tokens, 10, 1, 2, [4, 4])
    s4 = _agent(tokens, 12, 0, 2, [4, 4])
    return [
        SessionSpec(1, "demo__calc-1", 0, "completed", "agent_finished", 1.0, {0: "main", 1: "title"}, s1),
        SessionSpec(2, "demo__calc-1", 1, "timeout", "agent_deadline", 0.0, {0: "main"}, s2),
        SessionSpec(3, "demo__calc-2", 0, "completed", "agent_finished", 1.0, {0: "main", 1: "sub-agent"}, s3),
        SessionSpec(4, "demo__calc-2", 1, "infra_error", "container_failed", None, {0: "main"}, s4),
    ]


def _advantages(specs: Sequence[SessionSpec]) -> Dict[int, float]:
    """polar's grpo: (r - mean) / (population std + 1e-6) over a group's graded sessions; 0 for a group of one."""
    advantages: Dict[int, float] = {}
    for task in {spec.task_id for spec in specs}:
        members = [spec for spec in specs if spec.task_id == task and spec.reward is not None and spec.status != "infra_error"]
        rewards = [spec.reward for spec in members]
        mean = sum(rewards) / len(rewards)
        std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / len(rewards))
        for spec in members:
            advantages[spec.session_id] = 0.0 if len(members) < 2 or std == 0 else (spec.reward - mean) / (std + 1e-6)
    return advantages


def _base(spec: SessionSpec, kind: str, graded: bool, advantage: Optional[float], weights: Dict[str, float]) -> dict:
    return {
        "schema_version": "polar-trajectory-v2", "session_id": spec.session_id, "group_id": f"{RUN}/{spec.task_id}",
        "task_id": spec.task_id, "run_id": RUN, "sample_index": spec.sample_index, "harness": "pi", "model": "Qwen/Qwen3-8B",
        "simulated": True, "status": spec.status, "status_reason": spec.status_reason,
        "reward": spec.reward if graded else None, "advantage": advantage if graded else None, "loss_weight": weights[kind],
    }


def _row(spec: SessionSpec, calls: List[Call], builder: str, prompt: List[int], response: List[int], mask: List[int], logprobs: list, versions: List[int], base: dict) -> dict:
    lineage = calls[0].lineage
    return {
        **base, "builder": builder, "call_ids": [call.call_id for call in calls], "prompt_ids": prompt, "response_ids": response,
        "loss_mask": mask, "logprobs": logprobs, "versions": versions, "lineage_id": lineage, "lineage_kind": spec.lineage_kinds[lineage],
        "policy_versions": sorted({call.version for call in calls}), "stop_reason": calls[-1].stop_reason,
        "sampling": {"temperature": 1, "max_tokens": 512}, "call_sampling": [{"temperature": 1, "max_tokens": 512} for _ in calls],
        "timings": {"agent_ms": 4000, "model_ms": 100 * len(calls), "tool_ms": 50 * len(calls), "init_ms": 900, "eval_ms": 1500},
        "messages": None, "tools": None,
    }


def _per_request(spec: SessionSpec, base_of) -> List[dict]:
    rows = []
    for call in spec.calls:
        n = len(call.sampled)
        rows.append(_row(spec, [call], "per_request", list(call.prompt), list(call.sampled), [1] * n, list(call.logprobs), [call.version] * n, base_of(call)))
    return rows


def _prefix_merging(spec: SessionSpec, base_of) -> List[dict]:
    chains: List[dict] = []  # {"calls", "prompt", "response", "mask", "logprobs", "versions", "open"}
    for call in spec.calls:
        best = None
        for chain in chains:
            context = chain["prompt"] + chain["response"]
            if chain["open"] and call.prompt[: len(context)] == context and (best is None or len(context) > len(best["prompt"] + best["response"])):
                best = chain
        if best is None:
            best = {"calls": [], "prompt": list(call.prompt), "response": [], "mask": [], "logprobs": [], "versions": [], "open": True}
            chains.append(best)
        glue = call.prompt[len(best["prompt"]) + len(best["response"]):]
        best["response"] += glue + call.sampled
        best["mask"] += [0] * len(glue) + [1] * len(call.sampled)
        best["logprobs"] += [None] * len(glue) + list(call.logprobs)
        best["versions"] += [-1] * len(glue) + [call.version] * len(call.sampled)
        best["calls"].append(call)
        best["open"] = call.stop_reason != "length"
    return [_row(spec, c["calls"], "prefix_merging", c["prompt"], c["response"], c["mask"], c["logprobs"], c["versions"], base_of(c["calls"][0])) for c in chains]


def _number(rows: List[dict], spec: SessionSpec) -> None:
    """row_index in order of first call; trace ids, step indexes (by last call) and is_last_step per lineage;
    the lineage kind's weight shared by the lineage's rows (the server's ``lineageRowWeight``)."""
    rows.sort(key=lambda row: row["call_ids"][0])
    for index, row in enumerate(rows):
        row["row_index"] = index
        row["trace_id"] = f"{spec.session_id}:{row['lineage_id']}"
    for lineage in spec.lineage_kinds:
        trace = sorted((row for row in rows if row["lineage_id"] == lineage), key=lambda row: row["call_ids"][-1])
        for step, row in enumerate(trace):
            row["step_index"], row["is_last_step"] = step, step == len(trace) - 1
            row["loss_weight"] = row["loss_weight"] / len(trace)


def constructed(*, graded: bool = True, leak_infra: bool = False, weights: Optional[Dict[str, float]] = None, split: bool = True) -> Fixture:
    specs = _specs(split)
    weights = {**LINEAGE_WEIGHTS, **(weights or {})}
    advantages = _advantages(specs)
    per_request: List[dict] = []
    prefix_merging: List[dict] = []
    for spec in specs:
        if spec.status == "infra_error" and not leak_infra:
            continue  # the server skips it ("infra-error"): not in its group
        def base_of(call: Call, spec: SessionSpec = spec) -> dict:
            return _base(spec, spec.lineage_kinds[call.lineage], graded, advantages.get(spec.session_id), weights)
        for build, out in ((_per_request, per_request), (_prefix_merging, prefix_merging)):
            rows = build(spec, base_of)
            _number(rows, spec)
            out.extend(rows)
    per_request, prefix_merging = _as_served(per_request), _as_served(prefix_merging)
    name = "constructed" + ("" if graded else "-ungraded") + ("-leaky" if leak_infra else "") + ("" if split else "-token-in")
    excluded = [{"session_id": 4, "group_id": f"{RUN}/demo__calc-2", "instance_id": "demo__calc-2", "sample_index": 1, "status": "infra_error",
                 "status_reason": "container_failed", "reason": "infra-error"}]
    return Fixture(name, per_request, prefix_merging, 2, ["demo__calc-1", "demo__calc-2"], {4}, excluded)


def _as_served(value: Any) -> Any:
    """Numbers as the server's JSON has them: JavaScript writes 1.0 as 1, so a reward of 1 arrives as an int."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_as_served(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_served(item) for key, item in value.items()}
    return value


RECORDED = os.path.join(os.path.dirname(__file__), "data", "recorded")


def recorded(name: str) -> Fixture:
    folder = os.path.join(RECORDED, name)
    with open(os.path.join(folder, "batch.json"), encoding="utf-8") as handle:
        batch = json.load(handle)

    def read(builder: str) -> List[dict]:
        path = os.path.join(folder, f"{builder}.jsonl")
        opener = (lambda: gzip.open(path + ".gz", "rt", encoding="utf-8")) if os.path.exists(path + ".gz") else (lambda: open(path, encoding="utf-8"))
        with opener() as handle:
            return [json.loads(line) for line in handle if line.strip()]

    excluded = list(batch.get("excluded", []))
    infra = set(batch.get("infra_session_ids", [])) | {item["session_id"] for item in excluded if item.get("reason") == "infra-error"}
    return Fixture(name, read("per_request"), read("prefix_merging"), int(batch["samples"]), list(batch["tasks"]), infra, excluded)


def fixtures() -> Iterator[Fixture]:
    """The constructed batch, graded and never graded, then every recorded batch on disk."""
    yield constructed()
    yield constructed(graded=False)
    yield constructed(split=False)
    if os.path.isdir(RECORDED):
        for name in sorted(os.listdir(RECORDED)):
            if os.path.isfile(os.path.join(RECORDED, name, "batch.json")):
                yield recorded(name)
