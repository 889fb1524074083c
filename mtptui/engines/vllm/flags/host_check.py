"""`mtptui flags lint HOST` on a vLLM host: the launch judged by the host's own vLLM.

The runner (vllm_runner.py: vLLM's parser, its checks, its engine config; no weights, no server) runs from
memory in the profile's interpreter (mtptui.ops.host_lint ships it on stdin and runs it read-only, bounded), so
what it reads is the host's: the model's config.json and a `--config` file are the host's files. Its answer is
turned into the same report as the offline lint's (mtptui.engines.vllm.flags.lint), naming the host as source.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from mtptui.engines.vllm.flags.errors import Verdict
from mtptui.engines.vllm.flags.launchset import VllmFlagSet, with_entry
from mtptui.engines.vllm.flags.lint import LintReport, findings_of

MODULE = "vllm_runner"
TIMEOUT_S = 180  # importing vLLM takes 10 s on an idle CPU, a minute beside a busy server on two cores
BOOT = ("import json, sys, types\n"
        "source = json.loads(sys.stdin.readline())\n"
        "module = sys.modules['vllm_runner'] = types.ModuleType('vllm_runner')\n"
        "exec(compile(source, '<mtptui vllm_runner>', 'exec'), module.__dict__)\n"
        "sys.exit(module.main(['--on-host', '--batch']))\n")


def serve_words(launch: VllmFlagSet) -> list[str]:
    """The launch's words as `vllm serve` takes them (the model first), which is what the runner judges."""
    return with_entry(launch, "vllm serve").args


def runner_input(launch: VllmFlagSet) -> bytes:
    """The runner's source, then the one case: the launch's words and environment (secrets stay out of ps)."""
    source = resources.files("mtptui.engines.vllm.flags").joinpath(f"{MODULE}.py").read_text(encoding="utf-8")
    case = {"argv": serve_words(launch), "env": dict(launch.env)}
    return (json.dumps(source) + "\n" + json.dumps(case) + "\n").encode()


def is_answer(answer: dict[str, Any]) -> bool:
    return "accepted" in answer and "stage" in answer


def import_failure(answer: dict[str, Any]) -> str | None:
    """Why the host's python has no vLLM to ask (None when it had one)."""
    if answer.get("stage") != "import":
        return None
    return f"{answer.get('error_class')}: {answer.get('message')}"


def host_report(answer: dict[str, Any], launch: VllmFlagSet, host: str, python: str) -> LintReport:
    """The runner's answer as a lint report whose source is the host's vLLM."""
    verdict = Verdict(bool(answer["accepted"]), answer.get("stage"), answer.get("error_class"), answer.get("message"),
                      answer.get("errors"), answer.get("resolved"), list(answer.get("warnings") or []))
    version = str(answer.get("vllm_version") or launch.version)
    words = serve_words(launch)
    report = LintReport("vllm", version, " ".join(["vllm", "serve", *words]), verdict,
                        findings_of(words, version, verdict))
    report.source = {"kind": "host", "host": host, "python": python, "vllm_version": version}
    return report
