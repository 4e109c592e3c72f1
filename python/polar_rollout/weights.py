"""The ``weights`` a resume loads into ``polar serve``'s engines (``POST /v1/generation/resume``).

- ``disk_weights(path)``: SGLang loads them from ``path`` (``/update_weights_from_disk``) and labels them with the
  resume's policy version;
- ``lora_weights(name, path)``: vLLM loads the adapter in place (``/v1/load_lora_adapter``); calls then name it
  as their model;
- ``RELOAD_WEIGHTS``: vLLM re-reads its start-up weights path (``/collective_rpc reload_weights``, then
  ``/reset_prefix_cache``); SGLang reloads from its model path;
- ``PUSHED_WEIGHTS``: the trainer already pushed them; only the version is recorded (SGLang gets it as its
  ``weight_version`` label).
"""

from __future__ import annotations

from typing import Dict

#: ``{"kind": …}`` plus the fields of that kind.
Weights = Dict[str, str]

#: The kinds ``polar serve`` knows.
WEIGHTS_KINDS = ("disk", "lora", "reload", "pushed")

RELOAD_WEIGHTS: Weights = {"kind": "reload"}
PUSHED_WEIGHTS: Weights = {"kind": "pushed"}


def disk_weights(model_path: str) -> Weights:
    """Weights SGLang loads from ``model_path``."""
    return {"kind": "disk", "model_path": model_path}


def lora_weights(lora_name: str, lora_path: str) -> Weights:
    """A LoRA adapter vLLM loads in place under ``lora_name`` (the model name calls use from then on)."""
    return {"kind": "lora", "lora_name": lora_name, "lora_path": lora_path}
