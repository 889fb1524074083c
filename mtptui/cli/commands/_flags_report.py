"""The output of `mtptui flags lint`, offline or on a host: findings and a summary, or JSON; the exit code."""

from __future__ import annotations

from mtptui.cli.commands._common import print_json

USAGE_HINT = ("give a host or the SGLang arguments after --, e.g. mtptui flags lint ct129 --profile restored or "
              "mtptui flags lint -- --model-path /models/x --tp 2")


def report(verdict, as_json: bool, judged_by: str) -> int:
    """Print a verdict (findings and summary, or JSON); exit 1 on errors."""
    from mtptui.sglang.flags import render_command

    errors = verdict.count("error")
    if as_json:
        flagset = verdict.flagset
        print_json({"version": verdict.source.sglang_version, "ok": errors == 0, "errors": errors,
                    "warnings": verdict.count("warning"), "findings": [f.to_dict() for f in verdict.findings],
                    "command": render_command(flagset) if flagset is not None else None,
                    "resolved": verdict.resolved, "source": verdict.source.to_json(),
                    "sglang_warnings": verdict.sglang_warnings, "notes": verdict.notes})
    else:
        from mtptui.text import visible

        for line in [*map(str, verdict.findings), *(f"sglang: {w}" for w in verdict.sglang_warnings),
                     *(f"note: {note}" for note in verdict.notes), _summary(verdict.findings, judged_by)]:
            print(visible(line))
    return 1 if errors else 0


def _summary(findings, judged_by: str) -> str:
    if not findings:
        return f"clean: no findings {judged_by}"
    counts = [(sum(f.severity == s for f in findings), s) for s in ("error", "warning", "info")]
    parts = [f"{n} {s}{'s' if n != 1 and s != 'info' else ''}" for n, s in counts if n]
    return f"{', '.join(parts)} {judged_by}"

