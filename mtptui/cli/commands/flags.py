"""`mtptui flags lint`: validate an SGLang launch command line, or a host's profile with the host's own SGLang."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Callable

from mtptui.cli.commands._common import Subparsers, add
from mtptui.cli.commands._flags_report import USAGE_HINT, report
from mtptui.engines.registry import NAMES
from mtptui.errors import UserError
from mtptui.engines.sglang.versions import DEFAULT_VERSION

if TYPE_CHECKING:
    from mtptui.engines.registry import Engine, Report
    from mtptui.engines.sglang.lint.finding import Finding
    from mtptui.engines.sglang.flags.flagset import FlagSet

NAME = "flags"


def register(sub: Subparsers, parent: argparse.ArgumentParser) -> None:
    p = add(sub, parent, NAME, "launch-flag tools")
    actions = p.add_subparsers(dest="flags_command", metavar="ACTION", required=True)
    lint = actions.add_parser("lint", parents=[parent], help="validate a launch command line or a host's profile",
                              usage="mtptui flags lint [--version V] [--json] -- SGLANG-ARGS...\n"
                                    "       mtptui flags lint --engine vllm [--json] -- MODEL [VLLM-SERVE-FLAGS...]\n"
                                    "       mtptui flags lint HOST [--profile P] [--json]",
                              description="Validate a launch command line (SGLang arguments, or a whole "
                                          "`python -m sglang.launch_server ...` / `sglang serve ...` command) with "
                                          "the offline table of an SGLang release; or a host's launch profile with "
                                          "the SGLang installed on the host (its argument checks, in the "
                                          "profile's python, read-only), falling back to the offline table. "
                                          "Exit 0 clean, 1 on errors (warnings alone exit 0).")
    lint.add_argument("--version", dest="sglang_version", default=None,
                      help=f"the engine's version (SGLang default {DEFAULT_VERSION})")
    lint.add_argument("--engine", choices=NAMES, default=None,
                      help="whose command line it is (default sglang); vllm: `-- MODEL [vllm serve flags]` or a whole "
                           "`vllm serve ...` command")
    lint.add_argument("--model-arch", default=None, metavar="ARCH",
                      help="model architecture from config.json, e.g. Qwen3_5ForCausalLM (default: guessed from "
                           "the model path)")
    lint.add_argument("--json", action="store_true", help="findings as JSON")
    lint.add_argument("--profile", default=None, help="with HOST: the profile to lint (default: the known-good one)")
    lint.add_argument("sglang_args", nargs=argparse.REMAINDER, metavar="-- SGLANG-ARGS")
    lint.set_defaults(run=run)


def _lint(words: list[str], version: str, model_arch: str | None) -> tuple[FlagSet | None, list[Finding]]:
    """Lint SGLang arguments, or a whole command (program, env prefixes) given as words."""
    from mtptui.engines.sglang.lint.check import lint_argv
    from mtptui.engines.sglang.flags.command import split_launch
    from mtptui.engines.sglang.flags.shellwords import Token

    env: dict[str, str] = {}
    if not words[0].startswith("-"):
        tokens = [Token(w, assignment="=" in w and not w.startswith("-")) for w in words]
        launch = split_launch(tokens)
        if launch is None:
            raise UserError(f"{words[0]!r} is neither an SGLang option nor `python -m sglang.launch_server` / "
                            f"`sglang serve`; {USAGE_HINT}")
        env, _, words = launch
    return lint_argv(words, version, model_arch, env=env)


def _engine_lint(args: argparse.Namespace, engine: Engine, lint: Callable[[list[str], str], Report]) -> int:
    """An engine's own offline lint (vLLM's): JSON or findings, exit 1 on errors."""
    from mtptui.cli.commands._common import print_json
    from mtptui.text import visible

    words = list(args.sglang_args)
    words = words[1:] if words[:1] == ["--"] else words
    if args.profile:
        raise UserError(f"--profile with --engine {engine.name} is not supported yet: give the command after --")
    report_ = lint(words, args.sglang_version or engine.default_version)
    if args.json:
        print_json(report_.to_json())
    else:
        for line in report_.lines():
            print(visible(line))
    return 1 if report_.count("error") else 0


def run(args: argparse.Namespace) -> int:
    from mtptui.engines.registry import engine as engine_named
    from mtptui.engines.sglang.flags.table import load_table
    from mtptui.engines.sglang.lint.verdict import LintSource, LintVerdict, resolved_json

    engine = engine_named(args.engine)
    if engine.offline_lint is not None:
        return _engine_lint(args, engine, engine.offline_lint)
    words = list(args.sglang_args)
    if words and words[0] != "--" and not _is_command(words):
        from mtptui.cli.commands._flags_host import run_host

        return run_host(args, words)
    words = words[1:] if words[:1] == ["--"] else words
    if not words:
        raise UserError(USAGE_HINT)
    if args.profile:
        raise UserError("--profile names a profile of a host: mtptui flags lint HOST --profile P")
    version = args.sglang_version or DEFAULT_VERSION
    load_table(version)  # an unknown version is one sentence
    flagset, findings = _lint(words, version, args.model_arch)
    verdict = LintVerdict(LintSource("offline", version), flagset, findings, resolved_json(flagset, args.model_arch))
    return report(verdict, args.json, f"for SGLang {version}")


def _is_command(words: list[str]) -> bool:
    """SGLang options, or a whole launch command (``python3 -m sglang.launch_server ...``), rather than a host."""
    from mtptui.engines.sglang.flags.command import split_launch
    from mtptui.engines.sglang.flags.shellwords import Token

    if words[0].startswith("-"):
        return True
    return split_launch([Token(w, assignment="=" in w and not w.startswith("-")) for w in words]) is not None
