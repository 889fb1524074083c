"""`mtptui flags lint`: validate an SGLang launch command line."""

from __future__ import annotations

import argparse

from mtptui.cli.commands._common import add, print_json
from mtptui.errors import UserError

NAME = "flags"
USAGE_HINT = "give the SGLang arguments after --, e.g. mtptui flags lint -- --model-path /models/x --tp 2"


def register(sub, parent) -> None:
    p = add(sub, parent, NAME, "launch-flag tools")
    actions = p.add_subparsers(dest="flags_command", metavar="ACTION", required=True)
    lint = actions.add_parser("lint", parents=[parent], help="validate a launch command line",
                              description="Validate a launch command line (SGLang arguments, or a whole "
                                          "`python -m sglang.launch_server ...` / `sglang serve ...` command); "
                                          "exit 0 clean, 1 on errors (warnings alone exit 0).")
    lint.add_argument("--version", dest="sglang_version", default=None, help="SGLang version (default 0.5.12.post1)")
    lint.add_argument("--model-arch", default=None, metavar="ARCH",
                      help="model architecture from config.json, e.g. Qwen3_5ForCausalLM (default: guessed from "
                           "the model path)")
    lint.add_argument("--json", action="store_true", help="findings as JSON")
    lint.add_argument("sglang_args", nargs=argparse.REMAINDER, metavar="-- SGLANG-ARGS")
    lint.set_defaults(run=run)


def _lint(words: list[str], version: str, model_arch: str | None):
    """Lint SGLang arguments, or a whole command (program, env prefixes) given as words."""
    from mtptui.sglang.flags.check import lint_argv
    from mtptui.sglang.flags.command import split_launch
    from mtptui.sglang.flags.shellwords import Token

    env: dict[str, str] = {}
    if not words[0].startswith("-"):
        tokens = [Token(w, assignment="=" in w and not w.startswith("-")) for w in words]
        launch = split_launch(tokens)
        if launch is None:
            raise UserError(f"{words[0]!r} is neither an SGLang option nor `python -m sglang.launch_server` / "
                            f"`sglang serve`; {USAGE_HINT}")
        env, _, words = launch
    return lint_argv(words, version, model_arch, env=env)


def run(args) -> int:
    from mtptui.sglang.flags import DEFAULT_VERSION, render_command
    from mtptui.sglang.flags.table import load_table

    words = list(args.sglang_args)
    if words[:1] == ["--"]:
        words = words[1:]
    if not words:
        raise UserError(USAGE_HINT)
    version = args.sglang_version or DEFAULT_VERSION
    load_table(version)  # an unknown version is one sentence
    flagset, findings = _lint(words, version, args.model_arch)
    errors = sum(f.severity == "error" for f in findings)
    if args.json:
        print_json({"version": version, "ok": errors == 0,
                    "errors": errors, "warnings": sum(f.severity == "warning" for f in findings),
                    "findings": [f.to_dict() for f in findings],
                    "command": render_command(flagset) if flagset is not None else None,
                    "resolved": _resolved(flagset, args.model_arch)})
    else:
        from mtptui.text import visible

        for finding in findings:
            print(visible(str(finding)))
        print(_summary(findings, version))
    return 1 if errors else 0


def _resolved(flagset, model_arch: str | None) -> dict[str, dict[str, object]]:
    """What SGLang will use (speculative values, memory and mamba settings): value, source (set, auto,
    default, unset, error) and the text the dashboard shows."""
    from mtptui.sglang.flags import resolve_effective

    if flagset is None:
        return {}
    return {flag: {"value": e.value, "source": e.source, "shown": str(e)}
            for flag, e in resolve_effective(flagset, model_arch).items()}


def _summary(findings, version: str) -> str:
    if not findings:
        return f"clean: no findings for SGLang {version}"
    counts = [(sum(f.severity == s for f in findings), s) for s in ("error", "warning", "info")]
    parts = [f"{n} {s}{'s' if n != 1 and s != 'info' else ''}" for n, s in counts if n]
    return f"{', '.join(parts)} for SGLang {version}"

