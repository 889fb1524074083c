"""A lint verdict and where it comes from: the SGLang installed on a host, or mtptui's offline table.

``offline_verdict`` is lint as always (SGLang's rules per version, checked against the wheels). ``host_verdict``
turns the runner's answer (sglang_runner.py run by mtptui.ops.host_lint in the server's Python) into the same
shape: whether SGLang starts and the error it would die of are the host's; the explanations (info, warnings,
mtptui's own judgments) come from the offline table of the host's release when mtptui has one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mtptui.engines.sglang.lint.check import lint_argv
from mtptui.engines.sglang.flags.effective import Effective, resolve_effective
from mtptui.engines.sglang.lint.finding import Finding
from mtptui.engines.sglang.flags.flagset import FlagSet
from mtptui.engines.sglang.flags.table import versions


@dataclass(frozen=True)
class LintSource:
    """Who judged: ``kind`` "host" (SGLang on ``host``) or "offline"; ``reason`` says why not the host."""

    kind: str
    sglang_version: str
    host: str | None = None
    reason: str | None = None
    gpus: dict[str, Any] | None = None

    @property
    def label(self) -> str:
        if self.kind == "host":
            return f"SGLang {self.sglang_version} on {self.host}"
        return f"offline table for {self.sglang_version}"

    @property
    def phrase(self) -> str:
        """The label inside a sentence: "by SGLang 0.5.23 on ct129", "by the offline table for 0.5.12.post1"."""
        return self.label if self.kind == "host" else f"the {self.label}"

    @property
    def heading(self) -> str:
        """"Lint by ...", with the reason the host's SGLang did not judge."""
        return f"Lint by {self.phrase}{self.because}"

    @property
    def because(self) -> str:
        return f", because {self.reason}" if self.reason else ""

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "sglang_version": self.sglang_version, "host": self.host, "reason": self.reason,
                "gpus": self.gpus}


@dataclass
class LintVerdict:
    """Findings in SGLang's order, the resolved values (flag -> value, source, shown), and their source."""

    source: LintSource
    flagset: FlagSet | None
    findings: list[Finding]
    resolved: dict[str, dict[str, object]]
    sglang_warnings: list[str] = field(default_factory=list)  # what SGLang logged while checking (host only)
    notes: list[str] = field(default_factory=list)

    def count(self, severity: str) -> int:
        return sum(finding.severity == severity for finding in self.findings)

    @property
    def first_error(self) -> Finding | None:
        return next((f for f in self.findings if f.stops_server), None)


def resolved_json(flagset: FlagSet | None, model_arch: str | None = None) -> dict[str, dict[str, object]]:
    """What lint says SGLang will use: value, source (set, auto, default, unset, error) and the text shown."""
    if flagset is None:
        return {}
    return {flag: {"value": e.value, "source": e.source, "shown": str(e)}
            for flag, e in resolve_effective(flagset, model_arch).items()}


def offline_version(version: str) -> str:
    """The offline table for ``version``: its own, or the newest mtptui has for a release it does not know."""
    known = versions()
    return version if version in known else known[0]


def offline_verdict(argv: list[str], env: dict[str, str], version: str, model_arch: str | None = None, *,
                    host: str | None = None, reason: str | None = None) -> LintVerdict:
    """Lint with the offline table of ``version``; ``reason`` says why the host's SGLang did not judge."""
    flagset, findings = lint_argv(argv, version, model_arch, env=env)
    return LintVerdict(LintSource("offline", version, host, reason), flagset, findings,
                       resolved_json(flagset, model_arch))


def host_verdict(answer: dict[str, Any], argv: list[str], env: dict[str, str], host: str, file_version: str,
                 model_arch: str | None = None, gpus: dict[str, Any] | None = None) -> LintVerdict:
    """The runner's answer (``accepted``, ``sglang_message``, ``resolved``, ``warnings``) as a verdict."""
    version = answer.get("sglang_version") or "(version unknown)"
    known = version in versions()
    explained = offline_verdict(argv, env, version if known else offline_version(file_version), model_arch)
    findings = [] if answer["accepted"] else [_host_error(answer, explained.findings)]
    if known:
        findings += [f for f in explained.findings if f.severity != "error"]
    source = LintSource("host", version, host, gpus=gpus)
    verdict = LintVerdict(source, explained.flagset, findings, _host_resolved(answer.get("resolved") or {},
                          explained.flagset), list(answer.get("warnings") or []))
    same = known and version == offline_version(file_version)
    offline = explained if same else offline_verdict(argv, env, offline_version(file_version), model_arch)
    verdict.notes = _notes(verdict, offline, file_version, known)
    return verdict


def _host_error(answer: dict[str, Any], offline: list[Finding]) -> Finding:
    """SGLang's own error, explained by lint when lint knows the very same failure."""
    message = answer.get("sglang_message") or answer.get("error_class") or "an error"
    same = next((f for f in offline if f.stops_server and f.engine_message == message), None)
    if same is not None:
        return same
    return Finding("error", None, f"SGLang refuses this launch (at its {answer.get('stage') or 'argument'} stage).",
                   None, message)


def _host_resolved(resolved: dict[str, Any], flagset: FlagSet | None) -> dict[str, dict[str, object]]:
    """The host's resolved values keyed by flag: set (as written), default (SGLang's default) or auto."""
    table = flagset.table if flagset is not None else None
    out: dict[str, dict[str, object]] = {}
    for name, value in resolved.items():
        flag = "--" + name.replace("_", "-")
        spec = table.get(flag) if table is not None else None
        flag = spec.name if spec is not None else flag
        written = flagset.get(flag) if flagset is not None and spec is not None else None
        source = "set" if written is not None else "default" if spec is not None and value == spec.default else "auto"
        effective = Effective(value, source)
        out[flag] = {"value": value, "source": source, "shown": str(effective)}
    return out


def _notes(verdict: LintVerdict, offline: LintVerdict, file_version: str, known: bool) -> list[str]:
    version, notes = verdict.source.sglang_version, []
    if version != file_version:
        notes.append(f"the host runs SGLang {version}; its host file says {file_version} (sglang_version)")
    if not known:
        notes.append(f"mtptui has no offline table for SGLang {version}: only SGLang's own verdict is shown")
    mine, theirs = offline.first_error, verdict.first_error
    if (mine is None) != (theirs is None) or (mine and theirs and mine.engine_message != theirs.engine_message):
        said = f"refuses it ({mine.engine_message})" if mine else "accepts it"
        notes.append(f"{offline.source.phrase} {said}")
    return notes
