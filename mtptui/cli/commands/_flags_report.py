"""The output of `mtptui flags lint`, offline or on a host: findings and a summary, or JSON; the exit code."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mtptui.cli.commands._common import print_json
from mtptui.secrets import (display_value, is_secret_name, mask_flagset, mask_text, scrub, scrub_json,
                            secret_values)

if TYPE_CHECKING:
    from mtptui.engines.sglang.lint.finding import Finding
    from mtptui.engines.sglang.lint.verdict import LintVerdict

USAGE_HINT = ("give a host or the SGLang arguments after --, e.g. mtptui flags lint ct129 --profile restored or "
              "mtptui flags lint -- --model-path /models/x --tp 2")


def report(verdict: LintVerdict, as_json: bool, judged_by: str) -> int:
    """Print a verdict (findings and summary, or JSON); exit 1 on errors."""
    from mtptui.engines.sglang.flags import render_command

    errors = verdict.count("error")
    flagset = verdict.flagset
    secrets = secret_values(flagset)
    if as_json:
        print_json(scrub_json({"engine": "sglang", "version": verdict.source.sglang_version, "ok": errors == 0,
                               "errors": errors, "warnings": verdict.count("warning"),
                               "findings": [f.to_dict() for f in verdict.findings],
                               "command": render_command(mask_flagset(flagset)) if flagset is not None else None,
                               "resolved": _masked_resolved(verdict.resolved), "source": verdict.source.to_json(),
                               "sglang_warnings": verdict.sglang_warnings, "notes": verdict.notes}, secrets))
    else:
        from mtptui.text import visible

        for line in [*map(str, verdict.findings), *(f"sglang: {w}" for w in verdict.sglang_warnings),
                     *(f"note: {note}" for note in verdict.notes), _summary(verdict.findings, judged_by)]:
            print(visible(scrub(mask_text(line), secrets)))
    return 1 if errors else 0


def _masked_resolved(resolved: dict[str, dict[str, object]]) -> dict[str, dict[str, object]]:
    """What SGLang will use, a secret flag's value and text masked (``api_key``: set, 40 chars)."""
    return {flag: {**entry, "value": display_value(flag, entry.get("value")),
                   "shown": display_value(flag, entry.get("shown"))} if is_secret_name(flag) else entry
            for flag, entry in resolved.items()}


def _summary(findings: list[Finding], judged_by: str) -> str:
    if not findings:
        return f"clean: no findings {judged_by}"
    counts = [(sum(f.severity == s for f in findings), s) for s in ("error", "warning", "info")]
    parts = [f"{n} {s}{'s' if n != 1 and s != 'info' else ''}" for n, s in counts if n]
    return f"{', '.join(parts)} {judged_by}"

