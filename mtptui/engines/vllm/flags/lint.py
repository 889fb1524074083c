"""`mtptui flags lint --engine vllm`: a vLLM command line judged offline, as findings and a JSON report.

Errors are only what vLLM itself refuses (judge.py, checked against vLLM's own code by the differential test),
each with vLLM's words; the removed speculative flags (`--speculative-model`, `--num-speculative-tokens`, ...)
are explained with the `--speculative-config` they meant. What vLLM logs while checking is a warning.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mtptui.engines.finding import Finding as _Finding
from mtptui.engines.vllm.flags.command import split_command
from mtptui.engines.vllm.flags.errors import Verdict
from mtptui.engines.vllm.flags.judge import judge
from mtptui.engines.vllm.flags.speculative import LEGACY, legacy_config, legacy_fix
from mtptui.engines.vllm.flags.table import DEFAULT_VERSION, load_table
from mtptui.errors import UserError

USAGE = ("give the model and vLLM's flags after --, e.g. "
         "mtptui flags lint --engine vllm -- /models/qwen --max-model-len 8192")


@dataclass(frozen=True)
class Finding(_Finding):
    """A finding vLLM's lint says; ``engine_message`` is what vLLM itself says (``vllm_message`` in the JSON; null
    for mtptui's own words)."""

    engine_label: ClassVar[str] = "vLLM"


@dataclass
class LintReport:
    engine: str
    version: str
    command: str
    verdict: Verdict
    findings: list[Finding] = field(default_factory=list)
    source: dict[str, Any] | None = None  # who judged (None: mtptui's offline model of this version)

    def count(self, severity: str) -> int:
        return sum(f.severity == severity for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {"engine": self.engine, "version": self.version, "ok": self.count("error") == 0,
                "errors": self.count("error"), "warnings": self.count("warning"),
                "findings": [f.to_dict() for f in self.findings], "command": self.command,
                "resolved": self.verdict.resolved,
                "source": self.source or {"kind": "offline", "vllm_version": self.version},
                "refusal": None if self.verdict.accepted else {"stage": self.verdict.stage,
                                                               "error_class": self.verdict.error_class,
                                                               "message": self.verdict.message,
                                                               "errors": self.verdict.errors}}

    def lines(self) -> list[str]:
        host = (self.source or {}).get("host")
        judged_by = f"for vLLM {self.version}" + (f" on {host}" if host else "")
        if not self.findings:
            return [f"clean: no findings {judged_by}"]
        counts = [f"{n} {s}{'s' if n != 1 else ''}" for s in ("error", "warning") if (n := self.count(s))]
        return [*map(str, self.findings), f"{', '.join(counts)} {judged_by}"]


def _refusal(verdict: Verdict, version: str) -> Finding:
    """vLLM's refusal in one sentence: argparse's words, or the first pydantic entry, or the exception."""
    message = verdict.message or verdict.error_class or "an error"
    entry = (verdict.errors or [{}])[0]
    if verdict.error_class == "ValidationError" and entry:
        where = ".".join(entry.get("loc") or ()) or "its settings"
        text = str(entry.get("msg") or "").removeprefix("Value error, ").strip().splitlines()[0]
        return Finding("error", verdict.flag, f"vLLM {version} refuses {where}: {text}", None,
                       f"{message}: {entry.get('msg')}")
    said = message.split(": error: ", 1)[-1]
    return Finding("error", verdict.flag, f"vLLM {version} refuses this: {said}", None, message)


def _legacy(words: list[str], version: str, verdict: Verdict) -> list[Finding]:
    used = [w.split("=", 1)[0] for w in words if w.split("=", 1)[0] in LEGACY]
    if not used:
        return []
    _, config = legacy_config(words)
    return [Finding("error", used[0], f"vLLM {version} has no {', '.join(dict.fromkeys(used))} any more: "
                    "speculation is one JSON flag", legacy_fix(config), verdict.message)]


def lint_words(words: list[str], version: str = DEFAULT_VERSION) -> LintReport:
    """Lint `MODEL [flags]`, or a whole `vllm serve ...` / `python -m vllm.entrypoints.openai.api_server ...`."""
    load_table(version)  # an unknown version is one sentence
    if not words:
        raise UserError(USAGE)
    launch = split_command(words)
    if launch is None and not words[0].startswith("-") and words[0].startswith(("python", "/")) \
            and len(words) > 1 and words[1] == "-m":
        raise UserError(f"{words[0]} -m {words[2] if len(words) > 2 else ''} does not start vLLM; {USAGE}")
    args, env, entry, serve = (launch.args, launch.env, launch.entry, launch.serve) if launch else \
        (list(words), {}, ["vllm", "serve"], True)
    verdict = judge(args, version, env, serve)
    return LintReport("vllm", version, shlex.join([*entry, *args]), verdict, findings_of(args, version, verdict))


def findings_of(args: list[str], version: str, verdict: Verdict) -> list[Finding]:
    """A verdict on vLLM words (mtptui's own or a vLLM's) as findings: the removed speculative flags explained, or
    the refusal; what vLLM logged while checking as warnings."""
    legacy = _legacy(args, version, verdict)
    findings = legacy or ([] if verdict.accepted else [_refusal(verdict, version)])
    return findings + [Finding("warning", None, text, None, text) for text in verdict.warnings]
