"""Compare ``flags lint`` with SGLang's own argument stage on the generated corpus (tests/flags_corpus.py).

``sglang_verdicts`` runs mtptui/engines/sglang/lint/sglang_runner.py in the venv of tests/sglang_standins/venv.py
(one process per version, the corpus as JSON lines); ``lint_verdict`` is the same question asked of lint.
``compare`` gives the disagreements. Run as a script to print them: ``python -m tests.flags_differential 0.5.23``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mtptui.engines.sglang.flags import FlagError, resolve_effective
from mtptui.engines.sglang.lint import check_launch
from mtptui.engines.sglang.lint.check import lint_argv
from tests.flags_corpus import Case, arch, corpus, write_models
from tests.sglang_standins.venv import ensure

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "mtptui" / "engines" / "sglang" / "lint" / "sglang_runner.py"
SPEC_FIELDS = {"speculative_algorithm": "--speculative-algorithm", "speculative_num_steps": "--speculative-num-steps",
               "speculative_eagle_topk": "--speculative-eagle-topk",
               "speculative_num_draft_tokens": "--speculative-num-draft-tokens",
               "max_running_requests": "--max-running-requests"}


def _run(python: Path, cases: list[Case], timeout: float) -> list[dict]:
    lines = "".join(json.dumps({"argv": list(c.argv), "env": c.env}) + "\n" for c in cases)
    done = subprocess.run([str(python), str(RUNNER), "--batch"], input=lines,
                          capture_output=True, text=True, timeout=timeout, cwd="/",
                          env={**os.environ, "COLUMNS": "100"})
    verdicts = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or len(verdicts) != len(cases):
        raise RuntimeError(f"runner failed ({done.returncode}, {len(verdicts)}/{len(cases)}):\n{done.stderr[-3000:]}")
    return verdicts


def sglang_verdicts(version: str, cases: list[Case], workers: int = 2, timeout: float = 900) -> list[dict]:
    """SGLang's verdict on every case, in order: one runner process per worker, each a slice of the corpus
    (SGLang builds its whole parser for every command, which dominates the time)."""
    python = ensure(version)
    slices = [cases[i::workers] for i in range(workers)]
    with ThreadPoolExecutor(workers) as pool:
        parts = list(pool.map(lambda part: _run(python, part, timeout), slices))
    verdicts: list[dict] = [{}] * len(cases)
    for i, part in enumerate(parts):
        verdicts[i::workers] = part
    return verdicts


def lint_verdict(case: Case, version: str) -> dict:
    """What lint says SGLang does: accepted or the first error's SGLang text, and the resolved values."""
    model_arch = arch(case.model)
    try:
        fs = check_launch(list(case.argv), version, model_arch=model_arch, env=case.env)
    except FlagError as exc:
        return {"accepted": False, "sglang_message": str(exc), "resolved": {}}
    effective = resolve_effective(fs, model_arch)
    resolved = {field: effective[flag].value for field, flag in SPEC_FIELDS.items() if flag in effective}
    return {"accepted": True, "sglang_message": None, "resolved": resolved}


def _lint_errors(case: Case, version: str) -> list:
    """The errors of ``flags lint`` (what the CLI shows), in its order."""
    _, findings = lint_argv(list(case.argv), version, arch(case.model), env=case.env)
    return [f for f in findings if f.severity == "error"]


def disagreement(case: Case, version: str, sglang: dict) -> str | None:
    """Why lint and SGLang differ on ``case``, or None when they agree."""
    mine = lint_verdict(case, version)
    if mine["accepted"] != sglang["accepted"]:
        return f"accepted: lint {mine['accepted']} ({mine['sglang_message']}), SGLang {sglang['accepted']} " \
               f"({sglang['sglang_message']})"
    errors = _lint_errors(case, version)
    if not sglang["accepted"]:
        if mine["sglang_message"] != sglang["sglang_message"]:
            return f"first error: lint {mine['sglang_message']!r}, SGLang {sglang['sglang_message']!r}"
        first = errors[0].engine_message if errors else None
        return None if first == sglang["sglang_message"] else \
            f"lint's first error {first!r}, SGLang {sglang['sglang_message']!r}"
    if errors:
        return f"SGLang starts, lint says error: {errors[0]}"
    for field, value in mine["resolved"].items():
        if sglang["resolved"].get(field) != value:
            return f"resolved {field}: lint {value!r}, SGLang {sglang['resolved'].get(field)!r}"
    return None


def compare(version: str, root: Path) -> tuple[list[Case], list[tuple[Case, str]]]:
    write_models(root)
    cases = corpus(version, root)
    verdicts = sglang_verdicts(version, cases)
    misses = [(case, why) for case, verdict in zip(cases, verdicts)
              if (why := disagreement(case, version, verdict)) is not None]
    return cases, misses


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for name in sys.argv[1:] or ["0.5.12.post1", "0.5.23"]:
            cases, misses = compare(name, Path(tmp))
            for case, why in misses:
                print(f"[{name}] {case.name}: {why}\n    {' '.join(case.argv[2:])}")
            print(f"{name}: {len(cases) - len(misses)}/{len(cases)} agree")
