"""The fingerprint of a run: what was measured and under which server configuration.

It also holds the run's ``rig`` (engine and version, GPUs, driver, TP size; mtptui.bench.rig). Two keys are derived
from it:
- the *class* (target, model, sampling, prompt set, concurrency, max tokens, arrival rate): runs in one class
  measured the same workload on the same machine and may be compared, whatever the launch flags were;
- the *configuration* (class + server version + launch flags): runs of one configuration are repeats, and
  their spread is the run-to-run noise.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from mtptui.secrets import display_value, mask_command_line

if TYPE_CHECKING:
    from mtptui.bench.load import LoadPlan
    from mtptui.bench.payload import Sampling
    from mtptui.bench.prompts import PromptSet
    from mtptui.bench.server import ServerInfo

CLASS_FIELDS = ("target", "model", "sampling", "prompt_set", "concurrency", "max_tokens", "rate")
CONFIG_FIELDS = CLASS_FIELDS + ("server_version", "launch_flags")


def make_fingerprint(*, target: str, url: str, server: "ServerInfo", sampling: "Sampling",
                     prompts: "PromptSet", plan: "LoadPlan", max_tokens: int,
                     gpus: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `fingerprint` object of the Bench JSON contract; secrets in the launch (``--api-key``) are masked.

    ``rig`` (mtptui.bench.rig) says what was measured on: a run on another rig is not a baseline for this one."""
    from mtptui.bench.rig import make_rig

    return {
        "rig": make_rig(server.version, server.launch_flags, gpus, server.engine),
        "target": target,
        "url": url,
        "engine": server.engine,
        "server_version": server.version,
        "launch_flags": {name: display_value(name, value) for name, value in server.launch_flags.items()},
        "launch_command": mask_command_line(server.launch_command),
        "spec_v2": server.spec_v2,
        "model": server.model,
        "sampling": sampling.to_json(),
        "prompt_set": {"name": prompts.name, "digest": prompts.digest(), "prompts": len(prompts.prompts)},
        "concurrency": plan.concurrency,
        "max_tokens": max_tokens,
        "requests": plan.requests,
        "warmup": plan.warmup,
        "rate": plan.rate,
        "seed": plan.seed,
    }


def _key(fingerprint: dict[str, Any], fields: tuple[str, ...]) -> str:
    picked = {name: fingerprint.get(name) for name in fields}
    prompt_set = picked.get("prompt_set")
    if isinstance(prompt_set, dict):
        picked["prompt_set"] = prompt_set.get("digest")
    blob = json.dumps(picked, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def class_key(fingerprint: dict[str, Any]) -> str:
    """Runs with the same class key measured the same workload on the same target."""
    return _key(fingerprint, CLASS_FIELDS)


def config_key(fingerprint: dict[str, Any]) -> str:
    """Runs with the same configuration key are repeats of one setup."""
    return _key(fingerprint, CONFIG_FIELDS)


def flag_differences(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(name, value in a, value in b) for each launch flag or the server version that differs."""
    rows = []
    if a.get("server_version") != b.get("server_version"):
        rows.append(("version", a.get("server_version"), b.get("server_version")))
    flags_a, flags_b = a.get("launch_flags") or {}, b.get("launch_flags") or {}
    for name in sorted(set(flags_a) | set(flags_b)):
        if flags_a.get(name) != flags_b.get(name):
            rows.append((name, flags_a.get(name), flags_b.get(name)))
    return rows
