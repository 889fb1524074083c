"""`flags lint` against SGLang's own argument stage, run from the published wheels (differential test).

SGLang runs in a venv per release built from its wheel (tests/sglang_standins/venv.py: built on first use,
cached outside the repository), with the runner's stand-ins for its GPU dependencies
(mtptui/engines/sglang/lint/sglang_standins.py). Every generated launch command (tests/flags_corpus.py) must get the
same verdict from lint: accepted or not, the first exception (class and text), and the resolved speculative
values. What cannot be known offline is counted apart (OFFLINE).
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.flags_corpus import HYBRID, arch, corpus, write_models
from tests.flags_differential import RUNNER, disagreement, lint_verdict, sglang_verdicts
from tests.sglang_standins.venv import VERSIONS, ensure

pytestmark = pytest.mark.sglang

# SGLang refusals that depend on what mtptui cannot know offline, and what lint must say instead.
OFFLINE = {
    "ValueError: TRTLLM MHA backend for prefill": "warning",  # the GPU generation (CT129's A6000 is SM86)
    "ValueError: Warning: User-specified context_length": None,  # the model's maximum, from its config.json
}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    write_models(root)
    return root


def _offline(verdict: dict) -> str | None:
    message = verdict["sglang_message"] or ""
    return next((prefix for prefix in OFFLINE if message.startswith(prefix)), None)


@pytest.fixture(scope="module", params=VERSIONS)
def judged(request, models):
    """(version, cases, SGLang's verdicts) for one release."""
    cases = corpus(request.param, models)
    return request.param, cases, sglang_verdicts(request.param, cases)


def test_lint_agrees_with_sglang_on_every_command(judged) -> None:
    version, cases, verdicts = judged
    misses = [f"{case.name}: {why}" for case, verdict in zip(cases, verdicts)
              if not _offline(verdict) and (why := disagreement(case, version, verdict))]
    offline = sum(_offline(v) is not None for v in verdicts)
    assert len(cases) > 600 and offline < len(cases) // 20
    assert not misses, f"{len(misses)} of {len(cases) - offline} disagree on {version}:\n" + "\n".join(misses)


def test_what_is_unknowable_offline_is_at_least_a_warning(judged) -> None:
    version, cases, verdicts = judged
    seen = set()
    for case, verdict in zip(cases, verdicts):
        prefix = _offline(verdict)
        if prefix is None:
            continue
        seen.add(prefix)
        assert lint_verdict(case, version)["accepted"], case.name  # lint cannot refuse what it cannot see
        if OFFLINE[prefix] == "warning":
            from mtptui.engines.sglang.lint.check import lint_argv

            _, findings = lint_argv(list(case.argv), version, arch(case.model), env=case.env)
            assert any(f.severity == "warning" and f.flag == "--attention-backend" for f in findings), case.name
    assert seen == set(OFFLINE)


def test_the_mission_commands_as_sglang_resolves_them(judged) -> None:
    version, cases, verdicts = judged
    by_name = {case.name: verdict for case, verdict in zip(cases, verdicts)}
    restored, redeploy = by_name["restored"], by_name["redeploy-1step"]
    assert restored["accepted"] and redeploy["accepted"]
    spec = ("speculative_algorithm", "speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens")
    assert [restored["resolved"][k] for k in spec] == ["EAGLE", 3, 1, 4]
    assert [redeploy["resolved"][k] for k in spec] == ["EAGLE", 1, 1, 2]
    bare = by_name["bare 1-step NEXTN"]
    if version == "0.5.12.post1":
        assert bare["sglang_message"].startswith("ValueError: Speculative decoding for Qwen3_5ForConditionalGeneration")
    else:  # 0.5.23 picks extra_buffer itself, so the missing top-k is what stops it
        assert bare["sglang_message"] == "TypeError: '>' not supported between instances of 'NoneType' and 'int'"


def test_runner_gives_one_verdict_for_one_command(models) -> None:
    """The runner as a host would call it: arguments after --, one JSON object on stdout."""
    argv = ["--model-path", str(models / HYBRID), "--tp", "2", "--speculative-algorithm", "NEXTN"]
    done = subprocess.run([str(ensure("0.5.12.post1")), str(RUNNER), "--", *argv],
                          capture_output=True, text=True, timeout=300, cwd="/")
    verdict = json.loads(done.stdout)
    assert done.returncode == 0 and verdict["sglang_version"] == "0.5.12.post1"
    assert (verdict["accepted"], verdict["stage"], verdict["error_class"]) == (False, "resolution", "ValueError")
    assert verdict["argv"] == argv and verdict["message"].startswith("Speculative decoding for")


# What each algorithm derives when the launch leaves it out (SGLang's handlers; lint's mtptui.engines.sglang.flags).
DERIVED = {"EAGLE": {"steps", "topk", "draft"}, "EAGLE3": {"steps", "topk", "draft"},
           "STANDALONE": {"steps", "topk", "draft"}, "NGRAM": {"topk", "draft"}, "DFLASH": {"steps", "topk", "draft"},
           "DSPARK": {"steps", "topk", "draft"}, "UNO": {"steps", "topk"}}
SHORT = {"--speculative-num-steps": "steps", "--speculative-eagle-topk": "topk",
         "--speculative-num-draft-tokens": "draft"}


def algorithm_of(case) -> str:
    """The algorithm a case names, as written (NEXTN apart from EAGLE), or "none"."""
    words = list(case.argv)
    for index, word in enumerate(words):
        if word.startswith("--speculative-algo") and index + 1 < len(words) and "=" not in word:
            return words[index + 1].upper()
    return "none"


def derived_by_lint(case, version: str) -> set[str]:
    """Which of steps, top-k and draft tokens lint says SGLang chose itself for an accepted case."""
    from mtptui.engines.sglang.flags import resolve_effective
    from mtptui.engines.sglang.lint import check_launch

    fs = check_launch(list(case.argv), version, model_arch=arch(case.model), env=case.env)
    return {SHORT[flag] for flag, value in resolve_effective(fs, arch(case.model)).items()
            if flag in SHORT and value.auto}


def test_every_algorithm_and_what_it_derives_is_exercised(judged, capsys) -> None:
    """Counts per algorithm go to the test output (``pytest -m sglang``): cases, accepted, values derived."""
    from collections import Counter

    from mtptui.engines.sglang.flags.table import load_table

    version, cases, verdicts = judged
    counts, accepted, derived = Counter(), Counter(), {}
    for case, verdict in zip(cases, verdicts):
        name = algorithm_of(case)
        counts[name] += 1
        if verdict["accepted"]:
            accepted[name] += 1
            derived.setdefault(name, set()).update(derived_by_lint(case, version))
    with capsys.disabled():
        print(f"\n{version}: {len(cases)} commands; per speculative algorithm (cases / accepted / values SGLang "
              "derives, as lint resolves them): " + ", ".join(
                  f"{name} {counts[name]}/{accepted[name]}/{'+'.join(sorted(derived.get(name, ()))) or '-'}"
                  for name in sorted(counts)))
    for name in load_table(version).spec_builtins:
        assert counts[name] >= 20 and accepted[name] >= 1, (version, name, counts[name], accepted[name])
        resolved = "EAGLE" if name == "NEXTN" else name
        assert DERIVED[resolved] <= derived.get(name, set()) | derived.get(resolved, set()), (version, name)
